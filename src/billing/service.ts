import type { Db } from '../db/client'
import { formatSignedMicros, microsToRub } from '../lib/money'
import { notFound } from '../lib/errors'
import { billingStore } from './store'

export function billingService(db: Db) {
  const store = billingStore(db)
  return {
    balance(userId: string) {
      const micros = store.balanceMicros(userId)
      if (micros === undefined) throw notFound('Пользователь не найден')
      return { balance: microsToRub(micros) }
    },

    usage(userId: string, since: Date, limit = 50) {
      const totals = store.usageTotals(userId, since)
      return {
        totalCost: microsToRub(totals.cost),
        totalTokens: totals.tokens,
        totalRequests: totals.requests,
        logs: store.recentUsage(userId, since, limit).map((r) => ({
          id: r.id,
          model: r.model,
          promptTokens: r.promptTokens,
          completionTokens: r.completionTokens,
          totalTokens: r.totalTokens,
          cost: microsToRub(r.costMicros),
          status: r.status,
          apiKeyId: r.apiKeyId,
          durationMs: r.durationMs,
          createdAt: r.createdAt.toISOString(),
        })),
      }
    },

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
