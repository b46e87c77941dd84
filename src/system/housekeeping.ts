import { and, isNotNull, lt, ne, or } from 'drizzle-orm'
import { passwordResets, refreshTokens } from '../auth/schema'
import { RETENTION } from '../content/terms'
import { deleteInBatches } from '../db/purge'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { purgeRateLimits } from '../lib/rate-limit'
import { budgetAlerts, usageLogs } from '../money'
import { teamAudit, webhookDeliveries } from '../teams/schema'

const DAY = 86_400_000

/**
 * Hourly: drop rate-limit windows, expired or long-dead refresh tokens, old reset tokens, request
 * logs and team audit entries past the retention the privacy policy states (request sums stay in
 * usage_daily; ledger rows, kept for 5 years, are not touched here), alerts of long-gone periods
 * and finished webhook deliveries older than a month.
 */
export async function purgeExpired(db: Db, now = Date.now()) {
  await purgeRateLimits(db, now)
  const weekAgo = new Date(now - 7 * DAY)
  await write(db, (q) => q.delete(refreshTokens).where(or(lt(refreshTokens.expiresAt, new Date(now)), lt(refreshTokens.revokedAt, weekAgo), lt(refreshTokens.usedAt, weekAgo))))
  await write(db, (q) => q.delete(passwordResets).where(or(lt(passwordResets.expiresAt, weekAgo), isNotNull(passwordResets.usedAt))))
  await purgeOldUsageLogs(db, now)
  await purgeOldAudit(db, now)
  // A total budget's alerts (period start 0) live as long as the budget; periodic ones a month past a year.
  await write(db, (q) => q.delete(budgetAlerts).where(and(ne(budgetAlerts.periodStart, 0), lt(budgetAlerts.createdAt, now - 400 * DAY))))
  await write(db, (q) => q.delete(webhookDeliveries).where(and(ne(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.createdAt, now - 30 * DAY))))
}

/** Rows of a log older than RETENTION.logsYears (the legal texts' log retention). */
const purgeOldRows = (db: Db, t: typeof usageLogs | typeof teamAudit, at: typeof usageLogs.createdAt | typeof teamAudit.at, now: number, batch: number) =>
  deleteInBatches(db, t, lt(at, new Date(now - RETENTION.logsYears * 365 * DAY)), batch)

/** Request logs past the retention (their sums stay in usage_daily). */
export const purgeOldUsageLogs = (db: Db, now = Date.now(), batch = 5000) => purgeOldRows(db, usageLogs, usageLogs.createdAt, now, batch)

/** Team audit entries past the retention. */
export const purgeOldAudit = (db: Db, now = Date.now(), batch = 5000) => purgeOldRows(db, teamAudit, teamAudit.at, now, batch)
