// Fixed-window counters kept in the database, so several instances share one budget per key.
import { lt, sql } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { tooManyRequests } from './errors'

export const rateLimits = sqliteTable('rate_limits', {
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
