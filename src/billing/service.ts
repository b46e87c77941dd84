import type { Db } from '../db/types'
import { badRequest, notFound } from '../lib/errors'
import { formatSignedMicros, microsToRub, rubToMicros } from '../lib/money'
import { bannerThresholdMicros, type LedgerType, moscowDayStart, nextDay } from '../money'
import { type Acting, auditIn, can } from '../teams/service'
import { billingStore } from './store'
import { type UsageFilter, type UsageScope, usageReader } from './usage'

const ALERT_MAX_RUB = 1_000_000
export const USAGE_DAY_DESCRIPTION = 'Оплата запросов к API'

/** What an admin adjustment reads as in the customer's history; the reason stored with the row follows it. */
export const ADJUSTMENT_LABEL = 'Корректировка администратора'
/** Stored descriptions that give no reason (the spec's fixed 'Admin adjustment', older wordings). */
const NO_REASON = new Set(['admin adjustment', 'manual adjustment', 'adjustment', 'корректировка баланса администратором', ADJUSTMENT_LABEL.toLowerCase()])

/**
 * A movement's description as the customer reads it, in Russian: an admin adjustment as
 * «Корректировка администратора: <причина>» (the admin route's `description` is the reason,
 * stored as given), or the label alone when no reason was given.
 */
export function describeMovement(type: LedgerType, description: string): string {
  if (type !== 'admin') return description
  const reason = description.trim()
  if (!reason || NO_REASON.has(reason.toLowerCase())) return ADJUSTMENT_LABEL
  return reason.startsWith(`${ADJUSTMENT_LABEL}:`) ? reason : `${ADJUSTMENT_LABEL}: ${reason}`
}

const toTransaction = (r: { id: string; amountMicros: number; balanceAfterMicros: number; description: string; type: LedgerType; createdAt: Date }) => ({
  id: r.id,
  amount: formatSignedMicros(r.amountMicros),
  balanceAfter: microsToRub(r.balanceAfterMicros),
  description: describeMovement(r.type, r.description),
  type: r.type,
  createdAt: r.createdAt.toISOString(),
})

/** Whose usage an acting user sees: the personal account's; in a team all of it, or (a member) their own part. */
export const usageScope = (a: Acting): UsageScope => ({ teamId: a.teamId, userId: a.teamId && can(a.role, 'usage.all') ? null : a.userId })

export function billingService(db: Db) {
  const store = billingStore(db)
  const usage = usageReader(db)
  return {
    async balance(a: Acting) {
      const row = await store.balanceRow(a)
      if (!row) throw notFound('Пользователь не найден')
      const threshold = await bannerThresholdMicros(db, a)
      return {
        balance: microsToRub(row.balanceMicros),
        lowBalanceThreshold: microsToRub(threshold),
        isLow: row.balanceMicros < threshold,
        alertThreshold: row.lowBalanceAlertMicros === null ? null : microsToRub(row.lowBalanceAlertMicros),
      }
    },

    /** Sets (or, with null, turns off) the low-balance alert; the next drop below it sends a letter (a team's: to its owners and admins, and the webhook). */
    async setAlert(a: Acting, thresholdRub: number | null) {
      if (thresholdRub !== null && !(Number.isFinite(thresholdRub) && thresholdRub >= 1 && thresholdRub <= ALERT_MAX_RUB))
        throw badRequest('Порог должен быть числом от 1 до 1 000 000 ₽')
      const micros = thresholdRub === null ? null : rubToMicros(Math.round(thresholdRub * 100) / 100)
      const rub = micros === null ? null : microsToRub(micros)
      await store.setAlert(
        a,
        micros,
        a.teamId ? (q) => auditIn(q, { teamId: a.teamId!, actorId: a.userId, action: 'alerts.changed', ip: a.ip, details: { thresholdRub: rub } }) : undefined,
      )
      return { alertThreshold: rub }
    },

    usage: (a: Acting, since: Date | null, filter: UsageFilter, limit = 50) => usage.stats(usageScope(a), since, filter, limit),

    /** The newest requests, whatever the period (the admin's user page). */
    recentRequests: (userId: string, limit = 20) => usage.recent(userId, limit),

    /** Usage charges per Moscow day, everything else line by line; `hasMore` says another page exists. */
    async groupedTransactions(a: Acting, limit = 20, offset = 0) {
      const rows = await store.groupedTransactions(a, limit + 1, offset)
      const items = rows.slice(0, limit).map((r) => ({
        kind: r.kind === 'usage_day' ? ('usageDay' as const) : ('entry' as const),
        id: r.kind === 'usage_day' ? `usage-day:${r.day}` : r.id,
        type: r.type as LedgerType,
        amount: formatSignedMicros(r.amount),
        balanceAfter: microsToRub(r.balanceAfter),
        description: r.kind === 'usage_day' ? USAGE_DAY_DESCRIPTION : describeMovement(r.type as LedgerType, r.description),
        createdAt: new Date(r.at).toISOString(),
        day: r.day,
        requests: r.n,
      }))
      return { items, hasMore: rows.length > limit }
    },

    /** One day's usage charges (Moscow day YYYY-MM-DD), what the grouped line opens to. */
    async usageDay(a: Acting, day: string, limit = 100, offset = 0) {
      const from = moscowDayStart(day)
      if (Number.isNaN(+from)) throw badRequest('day должен быть датой в формате ГГГГ-ММ-ДД')
      return (await store.usageCharges(a, from, moscowDayStart(nextDay(day)), limit, offset)).map(toTransaction)
    },

    async transactions(a: Acting, limit = 50) {
      return (await store.transactions(a, limit)).map(toTransaction)
    },
  }
}
