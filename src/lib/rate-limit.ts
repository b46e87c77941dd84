// Fixed-window counters kept in the database, so several instances share one budget per key.
import { eq, lt, sql } from 'drizzle-orm'
import { integer, table, text } from '../db/dialect'
import { greatest } from '../db/sql'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { tooManyRequests } from './errors'

export const rateLimits = table('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
})

export type Rule = { limit: number; windowSec: number }

/** Counts one hit on `key`; rejects with a 429 AppError once the window's limit is exceeded. */
export async function consume(db: Db, key: string, rule: Rule, now = Date.now()): Promise<void> {
  const windowMs = rule.windowSec * 1000
  const windowStart = now - (now % windowMs)
  // One upsert: instances counting the same key at once each get their own count back.
  const [row] = await write(db, (q) =>
    q
      .insert(rateLimits)
      .values({ key, windowStart, count: 1 })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: {
          count: sql`CASE WHEN ${rateLimits.windowStart} = ${windowStart} THEN ${rateLimits.count} + 1 ELSE 1 END`,
          windowStart,
        },
      })
      .returning({ count: rateLimits.count }),
  )
  if (row!.count > rule.limit) throw tooManyRequests(Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)))
}

/** Drops counters whose window ended long ago (run from cron). */
export async function purgeRateLimits(db: Db, now = Date.now()): Promise<void> {
  await write(db, (q) => q.delete(rateLimits).where(lt(rateLimits.windowStart, now - 24 * 3600 * 1000)))
}

/**
 * Failure back-off (sign-in): once `threshold` attempts have been counted, the key is refused for
 * `baseDelaySec`, doubling with every further counted attempt up to `maxDelaySec`. Rows reuse the
 * rate_limits table: `count` is the attempts counted, `windowStart` the time of the last one. A key
 * quiet for `forgetSec` starts again from zero.
 */
export type Backoff = { threshold: number; baseDelaySec: number; maxDelaySec: number; forgetSec: number }

const backoffDelayMs = (count: number, b: Backoff) => (count < b.threshold ? 0 : Math.min(b.maxDelaySec, b.baseDelaySec * 2 ** Math.min(30, count - b.threshold)) * 1000)

/** Seconds the key must still wait (0 = it may try now); `row` is its counter, if any. */
function backoffWaitSec(row: { windowStart: number; count: number } | undefined, b: Backoff, now: number): number {
  if (!row || now - row.windowStart > b.forgetSec * 1000) return 0
  const delay = backoffDelayMs(row.count, b)
  // No delay owed: open, even if a parallel attempt that read the clock after us was counted first.
  if (delay === 0) return 0
  const until = row.windowStart + delay
  return until > now ? Math.ceil((until - now) / 1000) : 0
}

/**
 * One attempt against several back-off keys (sign-in: the address+IP pair and the IP): the seconds
 * the caller must still wait if any key is closed (and nothing is counted), otherwise 0 with the
 * attempt counted on every key — before its outcome is known, so parallel guesses count too. The
 * check and the count are one unit: of a burst of parallel guesses (on any instances) each sees the
 * ones before it. The counters are read by a no-op upsert … RETURNING (a missing one is created at
 * zero): on PostgreSQL it takes their row locks, even for a key nobody has counted yet, in key order
 * (so two units never wait for each other crosswise), and a parallel attempt waits for this one's
 * count; on SQLite units run one after another anyway.
 */
export async function backoffAttempt(db: Db, keys: Array<{ key: string; rule: Backoff }>, now = Date.now()): Promise<number> {
  const sorted = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return tx(db, async (q) => {
    let wait = 0
    for (const { key, rule } of sorted) {
      const [row] = await q
        .insert(rateLimits)
        .values({ key, windowStart: now, count: 0 })
        .onConflictDoUpdate({ target: rateLimits.key, set: { count: sql`${rateLimits.count}` } })
        .returning()
      wait = Math.max(wait, backoffWaitSec(row, rule, now))
    }
    if (wait > 0) return wait
    for (const { key, rule } of sorted) {
      const staleBefore = now - rule.forgetSec * 1000
      await q
        .insert(rateLimits)
        .values({ key, windowStart: now, count: 1 })
        .onConflictDoUpdate({
          target: rateLimits.key,
          set: { count: sql`CASE WHEN ${rateLimits.windowStart} < ${staleBefore} THEN 1 ELSE ${rateLimits.count} + 1 END`, windowStart: now },
        })
    }
    return 0
  })
}

/** Takes back one counted attempt (it turned out to be a success). */
export async function backoffUncount(db: Db, key: string): Promise<void> {
  await write(db, (q) =>
    q
      .update(rateLimits)
      .set({ count: greatest(0, sql`${rateLimits.count} - 1`) })
      .where(eq(rateLimits.key, key)),
  )
}

/** Forgets the key entirely (the right password for this address from this client). */
export async function backoffClear(db: Db, key: string): Promise<void> {
  await write(db, (q) => q.delete(rateLimits).where(eq(rateLimits.key, key)))
}
