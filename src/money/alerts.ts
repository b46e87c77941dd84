// Low-balance notices: a banner level derived from the account's own typical request, and an alert
// sent once each time the balance falls below the level its owner chose — a letter for a personal
// account; letters to the owners and admins and the webhook for a team (teams/notify.ts sends them).
import { and, eq, gte, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { compiled, prepared } from '../db/prepared'
import type { Db } from '../db/types'
import { teams } from '../teams/schema'
import { moscowDay } from './days'
import type { Period } from './periods'
import { usageDaily } from './schema'

/** "About 100 typical requests" is the banner level. */
export const TYPICAL_REQUESTS = 100
/** A typical request before the customer has made any: roughly 1 000 tokens of a mid-priced model. */
export const DEFAULT_TYPICAL_REQUEST_MICROS = 200_000
const TYPICAL_WINDOW_DAYS = 30

const p = sql.placeholder

/** Whose money: a personal account (teamId null) or a team's, with the member who acted. */
export type AccountRef = { userId: string; teamId: string | null }

/** The flag statements of one kind of account (users or teams): the same columns on both tables. */
function flagStatements(db: Db, t: typeof users | typeof teams, label: typeof users.email | typeof teams.name) {
  return {
    // Flips the flag and answers only on the first drop below the level: concurrent settlements alert once.
    markLow: compiled(
      db,
      db
        .update(t)
        .set({ lowBalanceAlerted: true })
        .where(and(eq(t.id, p('id')), eq(t.lowBalanceAlerted, false), sql`${t.lowBalanceAlertMicros} is not null and ${t.balanceMicros} < ${t.lowBalanceAlertMicros}`))
        .returning({ label, balanceMicros: t.balanceMicros, thresholdMicros: t.lowBalanceAlertMicros }),
    ),
    rearm: compiled(
      db,
      db
        .update(t)
        .set({ lowBalanceAlerted: false })
        .where(and(eq(t.id, p('id')), eq(t.lowBalanceAlerted, true), sql`${t.balanceMicros} >= ${t.lowBalanceAlertMicros}`)),
    ),
  }
}

const statements = (db: Db) => prepared(db, 'alerts', () => ({ personal: flagStatements(db, users, users.email), team: flagStatements(db, teams, teams.name) }))

/** A balance that just fell below its alert level: `label` is the customer's e-mail, or the team's name. */
export type LowBalance = { account: AccountRef; label: string; balanceMicros: number; thresholdMicros: number }

/** After a charge (inside its unit, `q`): the alert to send if this charge took the balance below the account's level. */
export async function checkLowBalance(q: Db, account: AccountRef): Promise<LowBalance | undefined> {
  const s = account.teamId ? statements(q).team : statements(q).personal
  const [row] = await s.markLow.rows(q, { id: account.teamId ?? account.userId })
  // The WHERE holds only when a level is set: the row's threshold is never null here.
  return row ? { account, label: row.label, balanceMicros: row.balanceMicros, thresholdMicros: row.thresholdMicros! } : undefined
}

/** After a credit (inside its unit, `q`): once the balance is back at or above the level, the next drop alerts again. */
export async function rearmLowBalance(q: Db, account: AccountRef): Promise<void> {
  const s = account.teamId ? statements(q).team : statements(q).personal
  await s.rearm.run(q, { id: account.teamId ?? account.userId })
}

/**
 * Who hears that an account was charged: auto top-up (payments/auto-topup.ts) checks whether the
 * available balance fell below its threshold. One watcher per database; it must answer at once (it
 * is called on the request's path, after the settlement) and do its work, if any, in the background.
 */
const spendWatchers = new WeakMap<object, (account: AccountRef) => void>()

export function watchSpending(db: Db, watcher: (account: AccountRef) => void): void {
  spendWatchers.set(db, watcher)
}

/** After a settlement that charged `account` (money/holds settleHold). */
export function spent(db: Db, account: AccountRef): void {
  const watcher = spendWatchers.get(db)
  if (!watcher) return
  try {
    watcher(account)
  } catch (e) {
    console.error(`[billing] spend watcher failed: ${(e as Error).message}`)
  }
}

/** The usage_daily rows of an account (a team's are all its members'). */
export const dailyOfAccount = (account: AccountRef) =>
  account.teamId ? eq(usageDaily.teamId, account.teamId) : and(eq(usageDaily.userId, account.userId), eq(usageDaily.teamId, ''))

/** The banner level: 100 × the account's average request over the last 30 days (or a default). */
export async function bannerThresholdMicros(db: Db, account: AccountRef, now = new Date()): Promise<number> {
  const from = moscowDay(+now - (TYPICAL_WINDOW_DAYS - 1) * 86_400_000)
  const [row] = await db
    .select({
      cost: sql<number>`coalesce(sum(${usageDaily.costMicros}), 0)`.mapWith(Number),
      n: sql<number>`coalesce(sum(${usageDaily.requests}), 0)`.mapWith(Number),
    })
    .from(usageDaily)
    .where(and(dailyOfAccount(account), gte(usageDaily.day, from)))
  const typical = row && row.n > 0 && row.cost > 0 ? Math.ceil(row.cost / row.n) : DEFAULT_TYPICAL_REQUEST_MICROS
  return typical * TYPICAL_REQUESTS
}

/** A budget that crossed an alert threshold (50, 80, 100 %) in its current period. */
export type BudgetCrossing = {
  level: 'key' | 'member'
  /** The key (level key) and whose it is; for a member budget, the member. */
  keyId: string | null
  userId: string
  teamId: string | null
  limitMicros: number
  spentMicros: number
  period: Period
  periodStart: number
  threshold: number
}

/**
 * Sends alerts (teams/notify.ts): called after the settling unit has committed, and never awaited
 * by the request: letters and webhooks leave in the background.
 */
export type Notifier = {
  lowBalance(alert: LowBalance): void
  budgets(crossings: BudgetCrossing[]): void
}
