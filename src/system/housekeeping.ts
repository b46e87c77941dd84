import { isNotNull, lt, or } from 'drizzle-orm'
import type { Db } from '../db/client'
import { passwordResets, refreshTokens } from '../auth/schema'
import { purgeRateLimits } from '../lib/rate-limit'

const DAY = 86_400_000

/** Hourly: drop rate-limit windows, expired or long-dead refresh tokens and old reset tokens. */
export function purgeExpired(db: Db, now = Date.now()) {
  purgeRateLimits(db, now)
  const weekAgo = new Date(now - 7 * DAY)
  db.delete(refreshTokens)
    .where(or(lt(refreshTokens.expiresAt, new Date(now)), lt(refreshTokens.revokedAt, weekAgo), lt(refreshTokens.usedAt, weekAgo)))
    .run()
  db.delete(passwordResets).where(or(lt(passwordResets.expiresAt, weekAgo), isNotNull(passwordResets.usedAt))).run()
}
