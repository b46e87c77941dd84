// Named leases shared by every instance on one database: whoever holds `name` does the job (the
// catalogue sync, the exchange rate, payment reconciliation, the responses purge) until `until`.
// One conditional upsert claims or renews a lease, so two instances can never both hold it; the
// instance that claims it does the job and gives the lease back when done, the others wait for it
// and then read its result from the database instead of asking the outside world again.
import { and, eq, sql } from 'drizzle-orm'
import { integer, table, text } from './dialect'
import { INSTANCE_ID } from './instance'
import { write } from './tx'
import type { Db } from './types'

export const leases = table('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  /** Epoch milliseconds. */
  until: integer('until').notNull(),
})

/** Claims (or renews) the lease for `ttlMs`; true when `holder` has it now. */
export async function claimLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const rows = await write(db, (q) =>
    q
      .insert(leases)
      .values({ name, holder, until: now + ttlMs })
      .onConflictDoUpdate({
        target: leases.name,
        set: { holder, until: now + ttlMs },
        where: sql`${leases.until} < ${now} or ${leases.holder} = ${holder}`,
      })
      .returning({ holder: leases.holder }),
  )
  return rows[0]?.holder === holder
}

const POLL_MS = 200

/** Gives the lease back at once (an `until` of 0 also tells the waiters it ended, rather than lapsed). */
export async function releaseLease(db: Db, name: string, holder = INSTANCE_ID): Promise<void> {
  await write(db, (q) =>
    q
      .update(leases)
      .set({ until: 0 })
      .where(and(eq(leases.name, name), eq(leases.holder, holder))),
  )
}

export type Exclusive<T> = { ran: true; value: T } | { ran: false }

/**
 * Runs `job` under the lease `name` (held for at most `ttlMs`, longer than the job can take). When
 * another instance holds it: `wait` (the default) waits until that one ends and answers
 * `{ ran: false }`, so the caller re-reads what it wrote; if its lease lapses instead (it died
 * mid-job), this instance claims the lease and runs the job itself. Without `wait`, a taken lease
 * answers `{ ran: false }` at once.
 */
export function exclusively<T>(db: Db, name: string, ttlMs: number, job: () => Promise<T>, opts: { wait?: boolean } = {}): Promise<Exclusive<T>> {
  // Within this process a second call joins the running one (the lease cannot tell them apart).
  let byName = inFlight.get(db)
  if (!byName) inFlight.set(db, (byName = new Map()))
  const running = byName.get(name)
  if (running) return running as Promise<Exclusive<T>>
  const started = claimAndRun(db, name, ttlMs, job, opts).finally(() => byName.delete(name))
  byName.set(name, started)
  return started
}

const inFlight = new WeakMap<Db, Map<string, Promise<Exclusive<unknown>>>>()

async function claimAndRun<T>(db: Db, name: string, ttlMs: number, job: () => Promise<T>, opts: { wait?: boolean }): Promise<Exclusive<T>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await claimLease(db, name, INSTANCE_ID, ttlMs)) {
      try {
        return { ran: true, value: await job() }
      } finally {
        await releaseLease(db, name).catch((e) => console.warn(`[lease] ${name}: could not give the lease back (${(e as Error).message}); it lapses in ${ttlMs} ms`))
      }
    }
    if (opts.wait === false) return { ran: false }
    const deadline = Date.now() + ttlMs + POLL_MS
    for (;;) {
      await Bun.sleep(POLL_MS)
      const [row] = await db.select({ holder: leases.holder, until: leases.until }).from(leases).where(eq(leases.name, name)).limit(1)
      if (!row || row.until === 0) return { ran: false } // given back: its result is in the database
      if (row.holder === INSTANCE_ID) break // ours again (taken meanwhile by a parallel call of this instance)
      if (row.until < Date.now()) break // lapsed: its holder died mid-job, try to take over
      if (Date.now() > deadline) return { ran: false }
    }
  }
  return { ran: false }
}
