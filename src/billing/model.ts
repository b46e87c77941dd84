import { t } from 'elysia'
import { LEDGER_TYPES, USAGE_STATUSES } from './schema'

export const Balance = t.Object({ balance: t.Number({ description: 'Баланс в рублях' }) })

export const Transaction = t.Object(
  {
    id: t.String(),
    amount: t.String({ description: 'Сумма со знаком, в рублях', examples: ['+50.00', '-0.0123'] }),
    balanceAfter: t.Number({ description: 'Баланс после операции, в рублях' }),
    description: t.String(),
    type: t.UnionEnum([...LEDGER_TYPES]),
    createdAt: t.String({ format: 'date-time' }),
  },
  { title: 'Transaction' },
)

export const TransactionsQuery = t.Object({
  limit: t.Optional(
    t.Integer({ minimum: 1, maximum: 500, default: 50, error: 'limit должен быть целым числом от 1 до 500' }),
  ),
})

export const UsageQuery = t.Object({
  startDate: t.Optional(t.String({ format: 'date-time', error: 'startDate должен быть датой в формате ISO 8601' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 50, error: 'limit должен быть целым числом от 1 до 500' })),
})

export const UsageStats = t.Object(
  {
    totalCost: t.Number({ description: 'Потрачено за период, рубли' }),
    totalTokens: t.Integer(),
    totalRequests: t.Integer(),
    logs: t.Array(
      t.Object({
        id: t.String(),
        model: t.String(),
        promptTokens: t.Integer(),
        completionTokens: t.Integer(),
        totalTokens: t.Integer(),
        cost: t.Number({ description: 'Списано, рубли' }),
        status: t.UnionEnum([...USAGE_STATUSES]),
        apiKeyId: t.Union([t.String(), t.Null()]),
        durationMs: t.Integer(),
        createdAt: t.String({ format: 'date-time' }),
      }),
    ),
  },
  { title: 'UsageStats' },
)
