// When the database stumbles (PostgreSQL stopped, restarted or frozen; SQLite locked by another
// process): every query has a deadline (QUERY_TIMEOUT_MS), the failures that mean "the database is
// not answering" are told apart from bugs, and the outage is logged once when it starts and once
// when a probe finds the database answering again, however many requests failed in between.
import { sql } from 'drizzle-orm'
import { PROCESS } from '../config'
import { onPostgres } from './dialect'
import { selectRows } from './sql'
import type { Db } from './types'

/** The longest a statement may take (PostgreSQL's statement_timeout and our own deadline; SQLite's busy_timeout). */
export const QUERY_TIMEOUT_MS = PROCESS.databaseTimeoutMs

/** The store as customers and operators read its name. */
export const DATABASE_NAME = onPostgres ? 'PostgreSQL' : 'SQLite'

/** A statement or transaction that got no answer within QUERY_TIMEOUT_MS (a frozen server, a lost connection). */
export class DatabaseTimeout extends Error {
  readonly code = 'ERR_DATABASE_TIMEOUT'
  constructor() {
    super(`the database did not answer within ${QUERY_TIMEOUT_MS} ms`)
  }
}

// Bun.SQL's own codes for a connection that failed or broke (never a bare ECONNREFUSED: that is
// the router's or another peer's, not the database's), and the server's SQLSTATEs for a
// server going away (57P01–57P03), a cancelled statement (57014: our statement_timeout), a
// connection failure (class 08) and too many connections (53300).
const PG_CODES = /^ERR_POSTGRES_(CONNECTION_CLOSED|CONNECTION_TIMEOUT|CONNECTION_REFUSED|IDLE_TIMEOUT|LIFETIME_TIMEOUT|QUERY_CANCELLED|TLS_UPGRADE_FAILED)$/
const PG_STATES = /^(57P0[123]|57014|08\d\d\d|53300)$/
// SQLite: another process holds the lock past busy_timeout, or the file cannot be read or written.
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|PROTOCOL|FULL|NOTADB)/

/** Whether `e` (or what it wraps: drizzle's query error, Elysia's parse error) says the database is not answering. */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let err = e, depth = 0; err && typeof err === 'object' && depth < 5; err = (err as { cause?: unknown }).cause, depth++) {
    if (err instanceof DatabaseTimeout) return true
    const { code, errno } = err as { code?: unknown; errno?: unknown }
    if (typeof code === 'string' && (PG_CODES.test(code) || SQLITE_CODES.test(code))) return true
    if (typeof errno === 'string' && PG_STATES.test(errno)) return true
  }
  return false
}

let down: { since: number; failures: number } | null = null
let probe: (() => Promise<unknown>) | null = null
let probing = false
const PROBE_EVERY_MS = 1000

/**
 * Records a failure of the database: the first of an outage is logged (with its cause), the rest
 * counted; while it lasts a probe runs every second and logs the recovery. Answers whether `e` was
 * such a failure (anything else is left to the caller).
 */
export function noteDatabaseFailure(e: unknown): boolean {
  if (!isDatabaseUnavailable(e)) return false
  if (down) {
    down.failures++
    return true
  }
  down = { since: Date.now(), failures: 1 }
  console.error(`[db] ${DATABASE_NAME} unavailable: ${causeOf(e)} — /v1 answers 503, settlements wait and are retried`)
  void watch()
  return true
}

/** Whether an outage is going on (no probe has succeeded since the last failure). */
export const databaseDown = () => down !== null

function recovered() {
  if (!down) return
  console.log(`[db] ${DATABASE_NAME} available again after ${((Date.now() - down.since) / 1000).toFixed(1)} s (${down.failures} failed operation(s))`)
  down = null
}

async function watch() {
  if (probing || !probe) return
  probing = true
  try {
    while (down) {
      await Bun.sleep(PROBE_EVERY_MS)
      try {
        await probe()
        recovered()
      } catch {
        // still down: logged once already
      }
    }
  } finally {
    probing = false
  }
}

/** The driver's message, without the SQL drizzle prepends to it. */
function causeOf(e: unknown): string {
  let err = e as { cause?: unknown; message?: string; code?: string }
  while (err?.cause && typeof err.cause === 'object') err = err.cause as typeof err
  return `${err?.code ? `${err.code}: ` : ''}${err?.message ?? String(e)}`.slice(0, 300)
}

/**
 * Proves the database answers, within the deadline. On SQLite reads go on while another process
 * holds the write lock, but no request can reserve anything then: the probe takes the write lock
 * and gives it back at once (BEGIN IMMEDIATE, ROLLBACK), waiting for it at most `waitMs` — the
 * connection is synchronous, so the outage watch waits briefly and does not stall the process.
 */
export async function ping(db: Db, waitMs = QUERY_TIMEOUT_MS): Promise<void> {
  if (onPostgres) {
    await withDeadline(selectRows(db, sql`select 1 as ok`))
    return
  }
  const sqlite = db.$client
  if (sqlite.inTransaction) return // the group commit is writing right now: it answers
  sqlite.exec(`PRAGMA busy_timeout = ${Math.min(waitMs, QUERY_TIMEOUT_MS)}`)
  try {
    sqlite.exec('BEGIN IMMEDIATE')
    sqlite.exec('ROLLBACK')
  } finally {
    sqlite.exec(`PRAGMA busy_timeout = ${QUERY_TIMEOUT_MS}`)
  }
}

/**
 * Checks the database (the health check): answers when it does, throws otherwise, and keeps the
 * outage state (a success ends an outage, a failure starts one).
 */
export async function checkDatabase(db: Db): Promise<void> {
  try {
    await ping(db)
  } catch (e) {
    noteDatabaseFailure(e)
    throw e
  }
  recovered()
}

/** Lets the outage watch probe this database (the process's own, set once at start). */
export function watchDatabase(db: Db) {
  probe = () => ping(db, 100)
}

/** `work` or a DatabaseTimeout after QUERY_TIMEOUT_MS, whichever comes first (`onTimeout` runs then: cancel what hangs). */
export function withDeadline<T>(work: PromiseLike<T>, onTimeout?: () => void, ms = QUERY_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        onTimeout?.()
      } catch {}
      reject(new DatabaseTimeout())
    }, ms)
    Promise.resolve(work)
      .then(resolve, reject)
      .finally(() => clearTimeout(timer))
  })
}
