// Prepared statements, built once per database and reused: drizzle otherwise re-prepares the SQL
// on every call, which measured as most of the gateway's per-request cost (bench/README.md).
// On SQLite statements prepared on the root database also run inside its transactions (one
// connection); on PostgreSQL they run on the connection of the unit that calls them. Their rows
// come back as objects, decoded the same way on both stores (PostgreSQL answers bigints as strings,
// SQLite booleans as 0 and 1): feature code never reads a raw row.
import { Column, is, Param, Placeholder, SQL } from 'drizzle-orm'
import { DIALECT } from './dialect'
import type { Db } from './types'

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

/** How a column's driver value becomes the row's value (never called for null). */
type Decoder = (value: unknown) => unknown
/** A statement's columns in their order: the row's key and decoder of each. */
type Columns = Array<[key: string, decode: Decoder]>

/** Decoders for the columns of hand-written statements (rawStatement): what each store answers, made one. */
export const column = {
  text: (v: unknown) => String(v),
  number: (v: unknown) => Number(v),
  boolean: (v: unknown) => v === true || v === 1 || v === '1' || v === 't',
  /** JSON: text on SQLite (and in a json column read raw), already parsed on PostgreSQL. */
  json: (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as unknown,
  /** Epoch milliseconds. */
  date: (v: unknown) => new Date(Number(v)),
  /** A column that may be null (its decoder is never called for null). */
  nullable: <T>(decode: (v: unknown) => T) => decode as (v: unknown) => T | null,
}

/**
 * The columns a drizzle query selects or returns, with the decoders of their columns and expressions,
 * in the order of its SQL. Drizzle keeps them on the builder (`config`: a select's fields, as written;
 * a returning clause's, already ordered); that is not its public API, so a builder without them fails
 * here, at the statement's first use, rather than with rows read wrong.
 */
function columnsOf(query: object): Columns {
  const config = (query as { config?: { returning?: Array<{ path: string[]; field: unknown }>; fields?: Record<string, unknown> } }).config
  if (!config || (!config.returning && !config.fields)) return [] // a statement without rows (an insert, an update without returning)
  const fields = config.returning?.map(({ path, field }) => [path.join('.'), field] as const) ?? Object.entries(config.fields ?? {})
  return fields.map(([key, field]) => {
    if (key.includes('.') || (!is(field, Column) && !is(field, SQL) && !is(field, SQL.Aliased))) throw new TypeError(`compiled statements select flat columns; ${key} is not one`)
    // A column decodes as its type does; an expression by its mapWith (drizzle keeps it as `decoder`).
    const decoder = (
      is(field, Column) ? field : is(field, SQL) ? (field as unknown as { decoder: Column }).decoder : (field.sql as unknown as { decoder: Column }).decoder
    ) as Pick<Column, 'mapFromDriverValue'>
    return [key, (v: unknown) => decoder.mapFromDriverValue(v)] as [string, Decoder]
  })
}

/** Rows as the driver answers them (arrays, in the statement's column order) → objects. */
function decoder<R>(columns: Columns): (rows: unknown[][]) => R[] {
  return (rows) =>
    rows.map((raw) => {
      const row: Record<string, unknown> = {}
      for (let i = 0; i < columns.length; i++) {
        const v = raw[i]
        row[columns[i]![0]] = v === null || v === undefined ? null : columns[i]![1](v)
      }
      return row as R
    })
}

/** A statement of the per-request path; `rows` answers its selected or returned rows as objects. */
export type Compiled<R> = {
  /** `q` is the unit's connection (the writer hands it over): the transaction on PostgreSQL. */
  run(q: Db, values: Record<string, Binding>): Promise<void> | void
  rows(q: Db, values: Record<string, Binding>): Promise<R[]> | R[]
}

/** The row type of a drizzle query (what awaiting it gives, one element). */
type RowOf<Q> = Q extends PromiseLike<infer A> ? (A extends Array<infer E> ? E : never) : never

/** A query `compiled` takes: drizzle's builders, or a hand-written statement (rawStatement). */
type Statement = { toSQL(): { sql: string; params: unknown[] } }

/** The Bun.SQL connection (pool or transaction) behind a drizzle PostgreSQL database or transaction. */
type PgRunner = { unsafe(sql: string, params: unknown[]): PromiseLike<unknown> & { values(): Promise<unknown[][]> } }
const pgRunner = (q: Db) => (q as unknown as { session: { client: PgRunner } }).session.client

/**
 * For the statements every /v1 request runs: drizzle writes the SQL once (table and column names
 * checked), the driver runs it with positional values. That skips drizzle's per-call placeholder
 * filling and result mapping, 1.5–2 µs per statement here (bench/README.md); the rows are decoded
 * by the columns' own mappers instead. Values must already be what the store keeps: numbers,
 * strings, null, booleans; dates as epoch milliseconds. On SQLite the statement is prepared once on
 * the connection and runs synchronously; on PostgreSQL it runs on the unit's connection (Bun.SQL
 * caches the prepared statement).
 */
export function compiled<Q extends Statement>(db: Db, query: Q): Compiled<Q extends RawStatement<infer R> ? R : RowOf<Q>> {
  type R = Q extends RawStatement<infer X> ? X : RowOf<Q>
  const { sql, params } = query.toSQL()
  const slots = params.map(slotOf)
  const decode = decoder<R>(isRaw(query) ? query.columns : columnsOf(query))
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
      rows: async (q, values) => decode(await pgRunner(q).unsafe(sql, bind(values)).values()),
    }
  const stmt = db.$client.prepare(sql)
  return {
    run: (_q, values) => void stmt.run(...bind(values)),
    rows: (_q, values) => decode(stmt.values(...bind(values)) as unknown[][]),
  }
}

/** A hand-written statement with its columns' decoders (rawStatement). */
type RawStatement<R> = Statement & { columns: Columns; readonly row?: R }
const isRaw = (q: Statement): q is RawStatement<unknown> => 'columns' in q

/**
 * A hand-written query (sql`…` with sql.placeholder values) in the form `compiled` takes, in this
 * store's dialect, with how each of its columns is read (`column`), in the order it selects them.
 */
export function rawStatement<C extends Record<string, Decoder>>(db: Db, query: SQL, columns: C = {} as C): RawStatement<{ [K in keyof C]: ReturnType<C[K]> }> {
  const dialect = (db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } } }).dialect
  return { toSQL: () => dialect.sqlToQuery(query), columns: Object.entries(columns) }
}
