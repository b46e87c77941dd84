// The write path, one name on both stores: `writer(db)` runs a unit of writes (db/tx.ts wraps it as
// `tx` and `write`), and a unit opened inside another joins it.
//
// On SQLite it is the process's one writer and a group commit: the small write transactions of many
// concurrent requests (holds, settlements) share one commit. Under load a commit (WAL frames for
// every touched page) cost more CPU than the statements themselves; one commit per event-loop turn
// instead of two per request is what lets the gateway keep up with the upstream at concurrency 64
// (bench/README.md). Every write of the process goes through it, so a unit whose body awaits its
// statements never has someone else's write land in its transaction. Unit bodies await database
// statements only — never the network — so the queue never stalls. Each queued unit runs inside
// its own SAVEPOINT, so a unit that throws (a refused hold) rolls back alone and its caller gets the
// error; the others still commit. A unit that writes with a single statement can skip the savepoint
// (`{ single: true }`): SQLite already undoes a failed statement on its own. Callers are answered
// only after the COMMIT, so nobody sees a result that is not in the database yet.
//
// On PostgreSQL there is no single writer: each unit is its own transaction on a pooled connection
// (a single statement runs on its own), and row locks order concurrent units. The per-request money
// units are grouped there instead, into one statement per batch (money/pg/queue.ts, money/pg/statements.ts).
import type { Database } from 'bun:sqlite'
import { AsyncLocalStorage } from 'node:async_hooks'
import { DIALECT } from './dialect'
import type { Db } from './types'

/** The unit running right now (per async context): a unit that opens another runs it inline. */
const current = new AsyncLocalStorage<{ root: Db; q: Db }>()

/** A unit's body: `q` runs its statements (the transaction on PostgreSQL, the connection on SQLite). */
export type Work<T> = (q: Db) => T | Promise<T>
type Unit = { work: Work<unknown>; single: boolean; resolve: (v: unknown) => void; reject: (e: unknown) => void }

export type Writer = (<T>(work: Work<T>, opts?: { single?: boolean }) => Promise<T>) & {
  /** Holds queued units back (their callers wait) until the returned function is called. */
  pause(): () => void
}

const byDb = new WeakMap<Db, Writer>()

/** The writer of this database (one per connection, created on first use). */
export function writer(db: Db): Writer {
  let queue = byDb.get(db)
  if (!queue) byDb.set(db, (queue = inlineWhenNested(db, DIALECT === 'pg' ? perUnitTransactions(db) : createGroupCommit(db.$client, db))))
  return queue
}

/** Whether the caller runs inside a unit of `db` (its statements would join that transaction). */
export const insideUnit = (db: Db) => current.getStore()?.root === db

/**
 * A unit started from inside another unit (a store function that writes, called within a
 * transaction) joins the running one instead of queueing behind it, which would never finish.
 */
function inlineWhenNested(db: Db, queue: Writer): Writer {
  const run = <T>(work: Work<T>, opts?: { single?: boolean }): Promise<T> => {
    const outer = current.getStore()
    if (outer?.root === db) return Promise.resolve().then(() => work(outer.q))
    return queue(work, opts)
  }
  return Object.assign(run, { pause: queue.pause })
}

function perUnitTransactions(db: Db): Writer {
  const run = <T>(work: Work<T>, opts?: { single?: boolean }): Promise<T> =>
    opts?.single
      ? Promise.resolve().then(() => work(db))
      : (db.transaction(async (tx) => current.run({ root: db, q: tx as unknown as Db }, () => work(tx as unknown as Db))) as unknown as Promise<T>)
  return Object.assign(run, { pause: () => () => {} })
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as PromiseLike<unknown> | null)?.then === 'function'

/** The SQLite queue on `sqlite`; units get `db` (the drizzle database over that connection) as their `q`. */
export function createGroupCommit(sqlite: Database, db = undefined as unknown as Db): Writer {
  let pending: Unit[] = []
  let paused = 0
  let flushing = false
  const begin = sqlite.prepare('BEGIN IMMEDIATE')
  const commit = sqlite.prepare('COMMIT')
  const rollback = sqlite.prepare('ROLLBACK')
  const savepoint = sqlite.prepare('SAVEPOINT unit')
  const release = sqlite.prepare('RELEASE unit')
  const rollbackUnit = sqlite.prepare('ROLLBACK TO unit')

  const schedule = () => setImmediate(flush)
  const inUnit = { root: db, q: db }

  async function flush() {
    if (flushing || paused > 0 || pending.length === 0) return // resumed later, or already flushed
    flushing = true
    const units = pending
    pending = []
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = []
    try {
      begin.run()
    } catch (e) {
      for (const u of units) u.reject(e)
      flushing = false
      if (pending.length > 0) schedule()
      return
    }
    // A turn with one unit (every turn at concurrency 1) needs no savepoint: its transaction is one.
    const alone = units.length === 1
    try {
      for (const u of units) {
        const own = !u.single && !alone
        if (own) savepoint.run()
        try {
          let value = current.run(inUnit, () => u.work(db))
          // Only bodies that await pay for a turn of the microtask queue.
          if (isThenable(value)) value = await value
          results.push({ ok: true, value })
          if (own) release.run()
        } catch (error) {
          if (own) {
            rollbackUnit.run()
            release.run()
          }
          results.push({ ok: false, error })
        }
      }
      if (alone && !results[0]!.ok) rollback.run()
      else commit.run()
    } catch (e) {
      // The commit itself failed (disk full, I/O error): nothing of this turn was written.
      try {
        rollback.run()
      } catch {}
      for (const u of units) u.reject(e)
      return
    } finally {
      flushing = false
      if (pending.length > 0 && paused === 0) schedule()
    }
    units.forEach((u, i) => {
      const r = results[i]!
      if (r.ok) u.resolve(r.value)
      else u.reject(r.error)
    })
  }

  const run = <T>(work: Work<T>, opts?: { single?: boolean }) =>
    new Promise<T>((resolve, reject) => {
      if (pending.length === 0 && !flushing) schedule()
      pending.push({ work, single: opts?.single === true, resolve: resolve as (v: unknown) => void, reject })
    })
  const pause = () => {
    paused++
    let resumed = false
    return () => {
      if (resumed) return
      resumed = true
      if (--paused === 0 && pending.length > 0) schedule()
    }
  }
  return Object.assign(run, { pause })
}
