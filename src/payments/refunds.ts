// Refund requests under the offer's terms: remainder over 100 ₽, within 14 days of the last card
// top-up, no active API keys. A request is only recorded for an admin; no money moves here.

import { REFUND } from '../content/terms'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { badRequest, conflict } from '../lib/errors'
import { MICROS_PER_RUB, microsToRub } from '../lib/money'
import type { RefundRequestRow } from './schema'
import { type PaymentAccount, paymentsStore } from './store'

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

  /** `s` is the store on the database, or on the unit that then records the request. */
  async function eligibility(s: typeof store, a: PaymentAccount, now = new Date()) {
    const available = await s.available(a)
    const { lastPaidAt, totalMicros } = await s.topUps(a)
    const latest = await s.latestRefundRequest(a)
    const reasons: string[] = []
    if (latest?.status === 'pending') reasons.push('Заявка на возврат уже рассматривается')
    if (!lastPaidAt) reasons.push('Возвращаются только средства, внесённые картой, а пополнений картой не было')
    else if (+now - +lastPaidAt > REFUND.windowDays * DAY_MS) reasons.push(`Возврат возможен в течение ${REFUND.windowDays} дней после последнего пополнения`)
    if (available <= REFUND.minRemainderRub * MICROS_PER_RUB) reasons.push(`Остаток на балансе должен превышать ${REFUND.minRemainderRub} ₽`)
    if ((await s.activeKeyCount(a)) > 0) reasons.push(a.teamId ? 'Отключите или удалите все активные API-ключи команды' : 'Отключите или удалите все активные API-ключи')
    // The welcome bonus, promo codes and referral bonuses are not money the customer paid: at most
    // what came in by card or invoice goes back (bonus money is spent first).
    const refundable = Math.max(0, Math.min(available, totalMicros ?? 0))
    return { reasons, refundable, lastPaidAt: lastPaidAt ?? null, latest }
  }

  return {
    async status(a: PaymentAccount) {
      const e = await eligibility(store, a)
      return {
        eligible: e.reasons.length === 0,
        remainder: microsToRub(e.refundable),
        reasons: e.reasons,
        lastTopUpAt: e.lastPaidAt?.toISOString() ?? null,
        request: e.latest ? requestToApi(e.latest) : null,
        testTopUps: await store.testTopUpCount(a),
      }
    },

    async request(a: PaymentAccount, reason: string | undefined) {
      const row = await tx(db, async (q) => {
        const s = paymentsStore(q)
        // Two requests of one account at once (two instances): the second waits for the first and sees it.
        await s.lockAccount(a)
        const e = await eligibility(s, a)
        if (e.latest?.status === 'pending') throw conflict('Заявка на возврат уже рассматривается')
        if (e.reasons.length > 0) throw badRequest(e.reasons[0]!)
        const row = {
          id: newId(),
          userId: a.userId,
          teamId: a.teamId,
          amountMicros: e.refundable,
          reason: reason?.trim() || null,
          status: 'pending' as const,
          createdAt: new Date(),
        }
        await s.insertRefundRequest(row)
        return row
      })
      console.log(`[payments] refund request ${row.id} from user ${a.userId}${a.teamId ? ` for team ${a.teamId}` : ''} for ${microsToRub(row.amountMicros)} ₽`)
      return requestToApi({ ...row, resolvedAt: null, resolvedBy: null })
    },

    /** The admin's list: every request with the customer's e-mail and current balance. */
    async adminList(limit = 100) {
      return (await store.refundRequests(null, limit)).map(({ request, email, balanceMicros, teamName }) => ({
        ...requestToApi(request),
        userId: request.userId,
        teamId: request.teamId,
        teamName,
        email,
        balance: microsToRub(balanceMicros),
        resolvedAt: request.resolvedAt?.toISOString() ?? null,
      }))
    },
  }
}

export type RefundsService = ReturnType<typeof refundsService>
