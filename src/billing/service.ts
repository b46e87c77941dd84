import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { formatSignedMicros, microsToRub, rubToMicros } from '../lib/money'
import { badRequest, notFound } from '../lib/errors'
import { users } from '../auth/schema'
import { billingStore } from './store'
import { bannerThresholdMicros } from './alerts'
import { usageReader, type UsageFilter } from './usage'

const ALERT_MAX_RUB = 1_000_000

export function billingService(db: Db) {
  const store = billingStore(db)
  const usage = usageReader(db)
  return {
    balance(userId: string) {
      const row = store.balanceRow(userId)
      if (!row) throw notFound('Пользователь не найден')
      const threshold = bannerThresholdMicros(db, userId)
      return {
        balance: microsToRub(row.balanceMicros),
        lowBalanceThreshold: microsToRub(threshold),
        isLow: row.balanceMicros < threshold,
        alertThreshold: row.lowBalanceAlertMicros === null ? null : microsToRub(row.lowBalanceAlertMicros),
      }
    },

    /** Sets (or, with null, turns off) the low-balance e-mail; the next drop below it sends a letter. */
    setAlert(userId: string, thresholdRub: number | null) {
      if (thresholdRub !== null && !(Number.isFinite(thresholdRub) && thresholdRub >= 1 && thresholdRub <= ALERT_MAX_RUB))
        throw badRequest('Порог должен быть числом от 1 до 1 000 000 ₽')
      const micros = thresholdRub === null ? null : rubToMicros(Math.round(thresholdRub * 100) / 100)
      db.update(users).set({ lowBalanceAlertMicros: micros, lowBalanceAlerted: false }).where(eq(users.id, userId)).run()
      return { alertThreshold: micros === null ? null : microsToRub(micros) }
    },

    usage: (userId: string, since: Date | null, filter: UsageFilter, limit = 50) => usage.stats(userId, since, filter, limit),

    transactions(userId: string, limit = 50) {
      return store.transactions(userId, limit).map((r) => ({
        id: r.id,
        amount: formatSignedMicros(r.amountMicros),
        balanceAfter: microsToRub(r.balanceAfterMicros),
        description: r.description,
        type: r.type,
        createdAt: r.createdAt.toISOString(),
      }))
    },
  }
}
