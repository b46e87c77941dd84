import { t } from 'elysia'
import { LEDGER_TYPES } from './schema'

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
