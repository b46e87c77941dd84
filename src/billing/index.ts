import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Db } from '../db/types'
import { csvDownload } from '../lib/csv'
import { envelope, errors, ok } from '../lib/http'
import { moscowDay } from '../money'
import {
  Alerts,
  AlertsBody,
  Balance,
  ExportQuery,
  GroupedQuery,
  GroupedTransactions,
  Transaction,
  TransactionsQuery,
  UsageDayParams,
  UsageDayQuery,
  UsageQuery,
  UsageStats,
} from './model'
import { billingService, usageScope } from './service'
import { usageCsv } from './usage-export'

const sinceOf = (startDate: string | undefined) => (startDate ? new Date(startDate) : null)

export function billingRoutes(db: Db, guard: AuthGuard) {
  const billing = billingService(db)
  return new Elysia({ name: 'billing', prefix: '/api/billing', detail: { tags: ['Баланс'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/balance', async ({ acting }) => ok(await billing.balance(acting)), {
      account: 'team.view',
      response: { 200: envelope(Balance), ...errors(401, 403, 404) },
      detail: { summary: 'Текущий баланс в рублях и признак «баланс заканчивается»' },
    })
    .patch('/alerts', async ({ acting, body }) => ok(await billing.setAlert(acting, body.threshold)), {
      account: 'team.manage',
      body: AlertsBody,
      response: { 200: envelope(Alerts), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Порог письма о низком балансе (рубли; null — отключить)' },
    })
    .get('/transactions', async ({ acting, query }) => ok(await billing.transactions(acting, query.limit)), {
      account: 'history',
      query: TransactionsQuery,
      response: { 200: envelope(t.Array(Transaction)), ...errors(400, 401, 403, 404) },
      detail: { summary: 'История движений баланса, новые сверху' },
    })
    .get('/transactions/grouped', async ({ acting, query }) => ok(await billing.groupedTransactions(acting, query.limit, query.offset)), {
      account: 'history',
      query: GroupedQuery,
      response: { 200: envelope(GroupedTransactions), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'История движений баланса для людей: списания за запросы — одной строкой на день по Москве, остальное — по операциям',
      },
    })
    .get('/transactions/usage-day/:day', async ({ acting, params, query }) => ok(await billing.usageDay(acting, params.day, query.limit, query.offset)), {
      account: 'history',
      params: UsageDayParams,
      query: UsageDayQuery,
      response: { 200: envelope(t.Array(Transaction)), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Списания за запросы одного дня по Москве (раскрытие строки дня), новые сверху' },
    })
    .get('/usage', async ({ acting, query }) => ok(await billing.usage(acting, sinceOf(query.startDate), query, query.limit)), {
      account: 'usage.own',
      query: UsageQuery,
      response: { 200: envelope(UsageStats), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'Статистика запросов к /v1 с даты startDate (ISO; без неё — за всё время): итоги, по дням, по моделям, последние запросы',
      },
    })
    .get('/usage/export', ({ acting, query }) => csvDownload(usageCsv(db, usageScope(acting), sinceOf(query.startDate), query), `usage-${moscowDay(new Date())}.csv`), {
      account: 'usage.own',
      query: ExportQuery,
      response: { 200: t.String({ description: 'CSV (RFC 4180, UTF-8 с BOM)' }), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Выгрузка запросов периода в CSV для Excel и Google Таблиц' },
    })
}
