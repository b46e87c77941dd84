import { Database } from 'bun:sqlite'
import { fileURLToPath } from 'node:url'
import { SQL } from 'bun'
import { drizzle as drizzlePg } from 'drizzle-orm/bun-sql'
import { migrate as migratePg } from 'drizzle-orm/bun-sql/migrator'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { PROCESS } from '../config'
import { DIALECT, isPostgresUrl } from './dialect'
import { DatabaseTimeout, QUERY_TIMEOUT_MS, withDeadline } from './outage'
import type { Db } from './types'
import { writer } from './writer'

const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url))
const PG_MIGRATIONS = fileURLToPath(new URL('../../drizzle/pg', import.meta.url))

/** Connections per instance to PostgreSQL (the settling units of concurrent requests each take one). */
const PG_POOL = PROCESS.databasePoolSize

/**
 * The connections of the batched money statements (money/pg/statements.ts): one batch of holds and one of
 * settlements at a time (money/pg/queue.ts), and the lone retries of a refused batch. Their plans must
 * find every row by its key however small a table looks to the planner (a fresh database, the holds
 * table between vacuums): sequential scans are off on them, and so is JIT, which the cost of an
 * unavoidable one would otherwise start.
 */
const PG_MONEY_POOL = 4
const moneyDbs = new WeakMap<Db, Db>()

/** The database the batched money statements run on: PostgreSQL's own connections for them (above); on SQLite the database itself. */
export const moneyDb = (db: Db): Db => moneyDbs.get(db) ?? db

/**
 * PostgreSQL's text cannot hold U+0000 (SQLite's can): a NUL in any string parameter — a path
 * segment `%00`, a model name, a message — would fail the statement ("invalid byte sequence") and
 * the request with a 500. Every parameter on the way to the server has it replaced by U+FFFD, so a
 * lookup by such a value simply finds nothing and stored text keeps its other characters.
 *
 * Every statement also has a deadline (outage.ts): the server's statement_timeout does not help
 * when the server itself is frozen or the connection is lost without a word, and a request must
 * not wait for it forever. A transaction fails as soon as one of its statements times out, and its
 * BEGIN (which may wait for a pooled connection) and its COMMIT get the same deadline.
 */
function guarded(client: SQL, failUnit?: (e: unknown) => void): SQL {
  const clean = (params: unknown[] | undefined) => params?.map((v) => (typeof v === 'string' && v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v))
  type Query = PromiseLike<unknown> & { values(): PromiseLike<unknown[][]>; cancel(): unknown }
  const timed = (query: Query) => {
    const onTimeout = () => {
      query.cancel()
      failUnit?.(new DatabaseTimeout())
    }
    return {
      // biome-ignore lint/suspicious/noThenProperty: a thenable like the driver's own query
      then: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => withDeadline(query, onTimeout).then(ok, fail),
      values: () => withDeadline(query.values(), onTimeout),
    }
  }
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop === 'unsafe') return (query: string, params?: unknown[]) => timed(target.unsafe(query, clean(params)) as unknown as Query)
      // Transactions and savepoints hand their own connection to the callback: guard that one too.
      if (prop === 'begin' || prop === 'savepoint')
        return (...args: unknown[]) => {
          const fn = args.at(-1) as (tx: SQL) => unknown
          const run = (value as (...a: unknown[]) => Promise<unknown>).bind(target)
          if (prop === 'savepoint') return run(...args.slice(0, -1), (tx: SQL) => fn(guarded(tx, failUnit)))
          return new Promise((resolve, reject) => {
            let timer: ReturnType<typeof setTimeout> | undefined
            const arm = () => {
              clearTimeout(timer)
              timer = setTimeout(() => reject(new DatabaseTimeout()), QUERY_TIMEOUT_MS)
            }
            arm() // until BEGIN has a connection
            run(...args.slice(0, -1), async (tx: SQL) => {
              clearTimeout(timer)
              try {
                return await fn(guarded(tx, reject))
              } finally {
                arm() // COMMIT or ROLLBACK
              }
            })
              .then(resolve, reject)
              .finally(() => clearTimeout(timer))
          })
        }
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

export function openDatabase(url: string): { db: Db; close: () => Promise<void> } {
  if (isPostgresUrl(url) !== (DIALECT === 'pg')) throw new Error(`openDatabase(${isPostgresUrl(url) ? 'postgres' : 'sqlite'}) in a process whose DATABASE_URL chose ${DIALECT}`)
  if (DIALECT === 'pg') {
    // statement_timeout: the server gives up on a statement as soon as our deadline would.
    const client = new SQL(url, {
      max: PG_POOL,
      idleTimeout: 30,
      connectionTimeout: Math.ceil(QUERY_TIMEOUT_MS / 1000),
      connection: { statement_timeout: QUERY_TIMEOUT_MS },
    })
    const db = drizzlePg({ client: guarded(client) }) as unknown as Db
    const money = new SQL(url, {
      max: PG_MONEY_POOL,
      idleTimeout: 30,
      connectionTimeout: Math.ceil(QUERY_TIMEOUT_MS / 1000),
      connection: { statement_timeout: QUERY_TIMEOUT_MS, enable_seqscan: 'off', jit: 'off' },
    })
    moneyDbs.set(db, drizzlePg({ client: guarded(money) }) as unknown as Db)
    return { db, close: async () => void (await Promise.all([client.close({ timeout: 5 }), money.close({ timeout: 5 })])) }
  }
  const sqlite = new Database(url, { create: true, strict: true })
  // WAL lets readers run beside the single writer; busy_timeout waits instead of failing on a lock,
  // up to the query deadline (a lock another process never lets go of is an outage, outage.ts).
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('PRAGMA synchronous = NORMAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
  sqlite.exec(`PRAGMA busy_timeout = ${QUERY_TIMEOUT_MS}`)
  sqlite.exec('PRAGMA temp_store = MEMORY')
  const db = drizzle(sqlite) as Db
  return { db, close: async () => sqlite.close() }
}

/** How often the WAL is checkpointed, and the longest the writers wait for one. */
const CHECKPOINT_EVERY_MS = 500
const CHECKPOINT_PAUSE_MAX_MS = 100

/**
 * Moves WAL checkpoints off the request path: automatic checkpoints are turned off on the main
 * connection and a worker thread checkpoints every half second instead, in two passes. The first
 * copies the bulk of the WAL while requests go on. For the second, which copies only what was
 * committed meanwhile, the group commit holds its units back (they wait; the server keeps
 * answering), so the WAL ends fully copied, and only then does the next write restart it from its
 * beginning. Under constant load a checkpoint racing the writers never caught up and the WAL grew
 * without bound (290 MB beside a 20 MB database after 15 s of benchmark, every lookup slower for
 * it). Returns a stop function. PostgreSQL checkpoints on its own: nothing to do there.
 */
export function startCheckpointer(db: Db, url: string): () => void {
  if (DIALECT === 'pg') return () => {}
  const sqlite = db.$client
  if (url === ':memory:' || url.startsWith('file::memory:')) return () => {}
  sqlite.exec('PRAGMA wal_autocheckpoint = 0')
  // A restarted WAL file is cut back to this size, so one busy second does not keep its disk space.
  sqlite.exec(`PRAGMA journal_size_limit = ${64 * 1024 * 1024}`)
  const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url).href)
  worker.postMessage({ url })
  ;(worker as Worker & { unref(): void }).unref() // never keeps the process alive

  let seq = 0
  let running: { seq: number; resume?: () => void; timer?: ReturnType<typeof setTimeout> } | null = null
  const done = () => {
    if (!running) return
    clearTimeout(running.timer)
    running.resume?.()
    running = null
  }
  worker.onmessage = (event: MessageEvent<{ checkpoint: number }>) => {
    if (running?.seq !== event.data.checkpoint) return
    if (running.resume) return done()
    // The bulk is copied: now the short pass, with the writers held back.
    running.resume = writer(db).pause()
    running.timer = setTimeout(done, CHECKPOINT_PAUSE_MAX_MS)
    worker.postMessage({ checkpoint: running.seq })
  }
  const tick = setInterval(() => {
    if (running) return
    running = { seq: ++seq }
    worker.postMessage({ checkpoint: running.seq })
  }, CHECKPOINT_EVERY_MS)
  ;(tick as unknown as { unref(): void }).unref()
  return () => {
    clearInterval(tick)
    done()
    worker.terminate()
    sqlite.exec('PRAGMA wal_autocheckpoint = 1000')
  }
}

/** Any number, so every instance takes the same advisory lock around its migrations. */
const MIGRATION_LOCK = 7_340_021

/**
 * Applies the committed migrations (drizzle/ for SQLite, drizzle/pg for PostgreSQL; idempotent, run
 * at every start). On PostgreSQL instances starting together take turns under an advisory lock, so
 * an empty database is migrated once with no manual step.
 */
export async function runMigrations(db: Db): Promise<void> {
  if (DIALECT === 'sqlite') return migrate(db, { migrationsFolder: MIGRATIONS })
  const pool = db.$client as unknown as SQL
  const conn = await pool.reserve()
  try {
    // Waiting for another instance's migrations, or one rewriting a large table, may take longer than
    // the pool's statement_timeout: none on this connection meanwhile (RESET restores the pool's).
    await conn`set statement_timeout = 0`
    await conn`select pg_advisory_lock(${MIGRATION_LOCK})`
    try {
      await migratePg(drizzlePg({ client: conn as unknown as SQL }), { migrationsFolder: PG_MIGRATIONS })
    } finally {
      await conn`select pg_advisory_unlock(${MIGRATION_LOCK})`
    }
  } finally {
    await conn`reset statement_timeout`.catch(() => {})
    conn.release()
  }
}
