import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Db } from '../db/client'
import { envelope, errors, ok } from '../lib/http'
import { Balance, Transaction, TransactionsQuery, UsageQuery, UsageStats } from './model'
import { billingService } from './service'

export function billingRoutes(db: Db, guard: AuthGuard) {
  const billing = billingService(db)
  return new Elysia({ name: 'billing', prefix: '/api/billing', detail: { tags: ['Баланс'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/balance', ({ user }) => ok(billing.balance(user.id)), {
      auth: true,
      response: { 200: envelope(Balance), ...errors(401, 404) },
      detail: { summary: 'Текущий баланс в рублях' },
    })
    .get('/transactions', ({ user, query }) => ok(billing.transactions(user.id, query.limit)), {
      auth: true,
      query: TransactionsQuery,
      response: { 200: envelope(t.Array(Transaction)), ...errors(400, 401) },
      detail: { summary: 'История движений баланса, новые сверху' },
    })
    .get('/usage', ({ user, query }) => ok(billing.usage(user.id, new Date(query.startDate ?? 0), query.limit)), {
      auth: true,
      query: UsageQuery,
      response: { 200: envelope(UsageStats), ...errors(400, 401) },
      detail: { summary: 'Статистика запросов к /v1 с даты startDate (ISO): итоги и последние запросы' },
    })
}
