// Prepared statements, built once per database and reused: drizzle otherwise re-prepares the SQL
// on every call, which measured as most of the gateway's per-request cost (bench/README.md).
// On SQLite statements prepared on the root database also run inside its transactions (one
// connection); on PostgreSQL they run on the connection of the unit that calls them.
import { is, Param, Placeholder, type SQL } from 'drizzle-orm'
import type { Db } from './client'
import { DIALECT } from './dialect'

const cache = new WeakMap<object, Map<string, unknown>>()
/** On PostgreSQL a compiled statement is only its SQL: one set serves every connection and transaction. */
const PG_STATEMENTS = {}

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  const key = DIALECT === 'pg' ? PG_STATEMENTS : db
  let byName = cache.get(key)
  if (!byName) cache.set(key, (byName = new Map()))
  let stmt = byName.get(name) as T | undefined
  if (stmt === undefined) byName.set(name, (stmt = build(db)))
  return stmt
}

type Binding = string | number | bigint | boolean | null | Uint8Array
type Slot = { name: string } | { value: Binding }

/** Where each `?` of a drizzle query takes its value: a named placeholder or a constant. */
function slotOf(param: unknown): Slot {
  if (is(param, Placeholder)) return { name: param.name }
  if (is(param, Param)) {
    if (is(param.value, Placeholder)) return { name: param.value.name }
    return { value: (param.encoder ? param.encoder.mapToDriverValue(param.value) : param.value) as Binding }
  }
  return { value: param as Binding }
}

/** A statement of the per-request path: `values` rows come back as arrays, in the query's column order. */
export type Compiled = {
  /** `q` is the unit's connection (groupCommit/tx hand it over): the transaction on PostgreSQL. */
  run(q: Db, values: Record<string, Binding>): Promise<void> | void
  values(q: Db, values: Record<string, Binding>): Promise<unknown[][]> | unknown[][]
}

/** The Bun.SQL connection (pool or transaction) behind a drizzle PostgreSQL database or transaction. */
type PgRunner = { unsafe(sql: string, params: unknown[]): PromiseLike<unknown> & { values(): Promise<unknown[][]> } }
const pgRunner = (q: Db) => (q as unknown as { session: { client: PgRunner } }).session.client

/**
 * For the statements every /v1 request runs: drizzle writes the SQL once (table and column names
 * checked), the driver runs it with positional values. That skips drizzle's per-call placeholder
 * filling and row mapping, 1.5–2 µs per statement here (bench/README.md). Values must already be
 * what the store keeps: numbers, strings, null, booleans; dates as epoch milliseconds. On SQLite the
 * statement is prepared once on the connection and runs synchronously; on PostgreSQL it runs on the
 * unit's connection (Bun.SQL caches the prepared statement), and integers come back as strings.
 */
export function compiled(db: Db, query: { toSQL(): { sql: string; params: unknown[] } }): Compiled {
  const { sql, params } = query.toSQL()
  const slots = params.map(slotOf)
  const bind = (values: Record<string, Binding>) =>
    slots.map((s) => {
      if ('value' in s) return s.value
      const v = values[s.name]
      if (v === undefined) throw new TypeError(`no value for :${s.name}`)
      return v
    })
  if (DIALECT === 'pg')
    return {
      run: async (q, values) => void (await pgRunner(q).unsafe(sql, bind(values))),
      values: (q, values) => pgRunner(q).unsafe(sql, bind(values)).values(),
    }
  const stmt = db.$client.prepare(sql)
  return {
    run: (_q, values) => void stmt.run(...bind(values)),
    values: (_q, values) => stmt.values(...bind(values)) as unknown[][],
  }
}

/** A hand-written query (sql`…` with sql.placeholder values) in the form `compiled` takes, in this store's dialect. */
export function rawStatement(db: Db, query: SQL): { toSQL(): { sql: string; params: unknown[] } } {
  const dialect = (db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } } }).dialect
  return { toSQL: () => dialect.sqlToQuery(query) }
}
