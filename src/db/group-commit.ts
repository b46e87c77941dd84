// Group commit: the small write transactions of many concurrent requests (holds, settlements) share
// one SQLite commit. Under load a commit (WAL frames for every touched page) cost more CPU than
// the statements themselves; one commit per event-loop turn instead of two per request is what lets
// the gateway keep up with the upstream at concurrency 64 (bench/README.md).
//
// Each queued unit runs inside its own SAVEPOINT, so a unit that throws (a refused hold) rolls back
// alone and its caller gets the error; the others still commit. A unit that only reads, or writes
// with a single statement, can skip the savepoint (`{ single: true }`): SQLite already undoes a
// failed statement on its own. Callers are answered only after
// the COMMIT, so nobody sees a result that is not in the database yet.
import type { Database } from 'bun:sqlite'
import type { Db } from './client'

type Unit = { work: () => unknown; single: boolean; resolve: (v: unknown) => void; reject: (e: unknown) => void }

export type GroupCommit = (<T>(work: () => T, opts?: { single?: boolean }) => Promise<T>) & {
  /** Holds queued units back (their callers wait) until the returned function is called. */
  pause(): () => void
}

const byDb = new WeakMap<Db, GroupCommit>()

/** The group-commit queue of this database (one per connection, created on first use). */
export function groupCommit(db: Db): GroupCommit {
  let queue = byDb.get(db)
  if (!queue) byDb.set(db, (queue = createGroupCommit(db.$client)))
  return queue
}

export function createGroupCommit(sqlite: Database): GroupCommit {
  let pending: Unit[] = []
  let paused = 0
  const begin = sqlite.prepare('BEGIN IMMEDIATE')
  const commit = sqlite.prepare('COMMIT')
  const rollback = sqlite.prepare('ROLLBACK')
  const savepoint = sqlite.prepare('SAVEPOINT unit')
  const release = sqlite.prepare('RELEASE unit')
  const rollbackUnit = sqlite.prepare('ROLLBACK TO unit')

  function flush() {
    if (paused > 0 || pending.length === 0) return // resumed later, or already flushed by a resume
    const units = pending
    pending = []
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = []
    try {
      begin.run()
    } catch (e) {
      for (const u of units) u.reject(e)
      return
    }
    try {
      for (const u of units) {
        if (!u.single) savepoint.run()
        try {
          results.push({ ok: true, value: u.work() })
          if (!u.single) release.run()
        } catch (error) {
          if (!u.single) {
            rollbackUnit.run()
            release.run()
          }
          results.push({ ok: false, error })
        }
      }
      commit.run()
    } catch (e) {
      // The commit itself failed (disk full, I/O error): nothing of this turn was written.
      try {
        rollback.run()
      } catch {}
      for (const u of units) u.reject(e)
      return
    }
    units.forEach((u, i) => {
      const r = results[i]!
      if (r.ok) u.resolve(r.value)
      else u.reject(r.error)
    })
  }

  const run = <T>(work: () => T, opts?: { single?: boolean }) =>
    new Promise<T>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush)
      pending.push({ work, single: opts?.single === true, resolve: resolve as (v: unknown) => void, reject })
    })
  const pause = () => {
    paused++
    let resumed = false
    return () => {
      if (resumed) return
      resumed = true
      if (--paused === 0 && pending.length > 0) setImmediate(flush)
    }
  }
  return Object.assign(run, { pause })
}
