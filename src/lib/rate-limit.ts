// Fixed-window counters kept in the database, so several instances share one budget per key.
import { eq, lt, sql } from 'drizzle-orm'
import { integer, table, text } from '../db/dialect'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { tooManyRequests } from './errors'

export const rateLimits = table('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
})

export type Rule = { limit: number; windowSec: number }

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = BunSQLiteDatabase<any>

/** Counts one hit on `key`; throws a 429 AppError once the window's limit is exceeded. */
export function consume(db: AnyDb, key: string, rule: Rule, now = Date.now()): void {
  const windowMs = rule.windowSec * 1000
  const windowStart = now - (now % windowMs)
  const [row] = db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`CASE WHEN ${rateLimits.windowStart} = ${windowStart} THEN ${rateLimits.count} + 1 ELSE 1 END`,
        windowStart,
      },
    })
    .returning({ count: rateLimits.count })
    .all()
  if (row.count > rule.limit) throw tooManyRequests(Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)))
}

/** Drops counters whose window ended long ago (run from cron). */
export function purgeRateLimits(db: AnyDb, now = Date.now()): void {
  db.delete(rateLimits).where(lt(rateLimits.windowStart, now - 24 * 3600 * 1000)).run()
}

/**
 * Failure back-off (sign-in): once `threshold` attempts have been counted, the key is refused for
 * `baseDelaySec`, doubling with every further counted attempt up to `maxDelaySec`. Rows reuse the
 * rate_limits table: `count` is the attempts counted, `windowStart` the time of the last one. A key
 * quiet for `forgetSec` starts again from zero.
 */
export type Backoff = { threshold: number; baseDelaySec: number; maxDelaySec: number; forgetSec: number }

const backoffDelayMs = (count: number, b: Backoff) =>
  count < b.threshold ? 0 : Math.min(b.maxDelaySec, b.baseDelaySec * 2 ** Math.min(30, count - b.threshold)) * 1000

/** Seconds the key must still wait (0 = it may try now). */
export function backoffWait(db: AnyDb, key: string, b: Backoff, now = Date.now()): number {
  const row = db.select().from(rateLimits).where(eq(rateLimits.key, key)).get()
  if (!row || now - row.windowStart > b.forgetSec * 1000) return 0
  const until = row.windowStart + backoffDelayMs(row.count, b)
  return until > now ? Math.ceil((until - now) / 1000) : 0
}

/** Counts one attempt against the key (before its outcome is known, so parallel guesses count too). */
export function backoffCount(db: AnyDb, key: string, b: Backoff, now = Date.now()): void {
  const staleBefore = now - b.forgetSec * 1000
  db.insert(rateLimits)
    .values({ key, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { count: sql`CASE WHEN ${rateLimits.windowStart} < ${staleBefore} THEN 1 ELSE ${rateLimits.count} + 1 END`, windowStart: now },
    })
    .run()
}

/** Takes back one counted attempt (it turned out to be a success). */
export function backoffUncount(db: AnyDb, key: string): void {
  db.update(rateLimits)
    .set({ count: sql`max(0, ${rateLimits.count} - 1)` })
    .where(eq(rateLimits.key, key))
    .run()
}

/** Forgets the key entirely (the right password for this address from this client). */
export function backoffClear(db: AnyDb, key: string): void {
  db.delete(rateLimits).where(eq(rateLimits.key, key)).run()
}
