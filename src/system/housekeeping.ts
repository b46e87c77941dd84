import { inArray, isNotNull, lt, or } from 'drizzle-orm'
import { passwordResets, refreshTokens } from '../auth/schema'
import { usageLogs } from '../billing/schema'
import { RETENTION } from '../content/terms'
import type { Db } from '../db/client'
import { write } from '../db/tx'
import { purgeRateLimits } from '../lib/rate-limit'

const DAY = 86_400_000

/**
 * Hourly: drop rate-limit windows, expired or long-dead refresh tokens, old reset tokens, and
 * request logs past the retention the privacy policy states (their sums stay in usage_daily;
 * ledger rows, kept for 5 years, are not touched here).
 */
export async function purgeExpired(db: Db, now = Date.now()) {
  await purgeRateLimits(db, now)
  const weekAgo = new Date(now - 7 * DAY)
  await write(db, (q) => q.delete(refreshTokens).where(or(lt(refreshTokens.expiresAt, new Date(now)), lt(refreshTokens.revokedAt, weekAgo), lt(refreshTokens.usedAt, weekAgo))))
  await write(db, (q) => q.delete(passwordResets).where(or(lt(passwordResets.expiresAt, weekAgo), isNotNull(passwordResets.usedAt))))
  await purgeOldUsageLogs(db, now)
}

/** Deletes request logs older than RETENTION.logsYears, in batches so no transaction runs long. */
export async function purgeOldUsageLogs(db: Db, now = Date.now(), batch = 5000): Promise<number> {
  const cutoff = new Date(now - RETENTION.logsYears * 365 * DAY)
  let total = 0
  for (;;) {
    const old = await db.select({ id: usageLogs.id }).from(usageLogs).where(lt(usageLogs.createdAt, cutoff)).limit(batch)
    if (old.length === 0) return total
    await write(db, (q) =>
      q.delete(usageLogs).where(
        inArray(
          usageLogs.id,
          old.map((r) => r.id),
        ),
      ),
    )
    total += old.length
  }
}
