// Refund requests under the offer's terms: remainder over 100 ₽, within 14 days of the last card
// top-up, no active API keys. A request is only recorded for an admin; no money moves here.
import type { Db } from '../db/client'
import { badRequest, conflict } from '../lib/errors'
import { newId } from '../lib/crypto'
import { microsToRub, MICROS_PER_RUB } from '../lib/money'
import { REFUND } from '../content/terms'
import { paymentsStore } from './store'
import type { RefundRequestRow } from './schema'

const DAY_MS = 86_400_000

const requestToApi = (r: RefundRequestRow) => ({
  id: r.id,
  amount: microsToRub(r.amountMicros),
  status: r.status,
  reason: r.reason,
  createdAt: r.createdAt.toISOString(),
})

export function refundsService(db: Db) {
  const store = paymentsStore(db)

  function eligibility(userId: string, now = new Date()) {
    const available = store.available(userId)
    const { lastPaidAt, totalMicros } = store.topUps(userId)
    const latest = store.latestRefundRequest(userId)
    const reasons: string[] = []
    if (latest?.status === 'pending') reasons.push('Заявка на возврат уже рассматривается')
    if (!lastPaidAt) reasons.push('Возвращаются только средства, внесённые картой, а пополнений картой не было')
    else if (+now - +lastPaidAt > REFUND.windowDays * DAY_MS)
      reasons.push(`Возврат возможен в течение ${REFUND.windowDays} дней после последнего пополнения`)
    if (available <= REFUND.minRemainderRub * MICROS_PER_RUB) reasons.push(`Остаток на балансе должен превышать ${REFUND.minRemainderRub} ₽`)
    if (store.activeKeyCount(userId) > 0) reasons.push('Отключите или удалите все активные API-ключи')
    // The welcome bonus is not money the customer paid: at most what came in by card goes back.
    const refundable = Math.max(0, Math.min(available, totalMicros ?? 0))
    return { reasons, refundable, lastPaidAt: lastPaidAt ?? null, latest }
  }

  return {
    status(userId: string) {
      const e = eligibility(userId)
      return {
        eligible: e.reasons.length === 0,
        remainder: microsToRub(e.refundable),
        reasons: e.reasons,
        lastTopUpAt: e.lastPaidAt?.toISOString() ?? null,
        request: e.latest ? requestToApi(e.latest) : null,
      }
    },

    request(userId: string, reason: string | undefined) {
      return db.transaction(() => {
        const e = eligibility(userId)
        if (e.latest?.status === 'pending') throw conflict('Заявка на возврат уже рассматривается')
        if (e.reasons.length > 0) throw badRequest(e.reasons[0]!)
        const row = { id: newId(), userId, amountMicros: e.refundable, reason: reason?.trim() || null, status: 'pending' as const, createdAt: new Date() }
        store.insertRefundRequest(row)
        console.log(`[payments] refund request ${row.id} from user ${userId} for ${microsToRub(row.amountMicros)} ₽`)
        return requestToApi({ ...row, resolvedAt: null, resolvedBy: null })
      })
    },

    /** The admin's list: every request with the customer's e-mail and current balance. */
    adminList(limit = 100) {
      return store.refundRequests(null, limit).map(({ request, email, balanceMicros }) => ({
        ...requestToApi(request),
        userId: request.userId,
        email,
        balance: microsToRub(balanceMicros),
        resolvedAt: request.resolvedAt?.toISOString() ?? null,
      }))
    },
  }
}

export type RefundsService = ReturnType<typeof refundsService>
