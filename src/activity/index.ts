import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { csvDownload } from '../lib/csv'
import { envelope, errors, ok } from '../lib/http'
import { moscowDay } from '../money'
import { ActivityDetail, ActivityExportQuery, ActivityFilters, ActivityPage, ActivityParams, ActivityQuery } from './model'
import type { ActivityService } from './service'

const FILTERS = 'Фильтры: keyId (web — запросы из Playground), model, status, protocol, from и to (ISO 8601), userId (в команде), requestId.'

export function activityRoutes(activity: ActivityService, guard: AuthGuard) {
  return new Elysia({ name: 'activity', prefix: '/api/activity', detail: { tags: ['Журнал запросов'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('', async ({ acting, query }) => ok(await activity.list(acting, query)), {
      account: 'usage.own',
      query: ActivityQuery,
      response: { 200: envelope(ActivityPage), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'Журнал запросов к /v1: новые сверху, страницами по курсору (nextCursor), без предела глубины',
        description: `${FILTERS} С X-Team-Id — запросы команды: владельцу, администраторам и бухгалтерам — всех участников, остальным — свои.`,
      },
    })
    .get('/filters', async ({ acting }) => ok(await activity.filters(acting)), {
      account: 'usage.own',
      response: { 200: envelope(ActivityFilters), ...errors(401, 403, 404) },
      detail: { summary: 'Варианты фильтров журнала: ключи, модели, участники команды' },
    })
    .get('/export', ({ acting, query }) => csvDownload(activity.csv(acting, query), `activity-${moscowDay(new Date())}.csv`), {
      account: 'usage.own',
      query: ActivityExportQuery,
      response: { 200: t.String({ description: 'CSV (RFC 4180, UTF-8 с BOM)' }), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Журнал запросов с теми же фильтрами в CSV (RFC 4180, UTF-8 с BOM), новые сверху', description: FILTERS },
    })
    .get('/:id', async ({ acting, params }) => ok(await activity.detail(acting, params.id)), {
      account: 'usage.own',
      params: ActivityParams,
      response: { 200: envelope(ActivityDetail), ...errors(401, 403, 404) },
      detail: {
        summary: 'Один запрос: модели, протокол, токены, стоимость и её расчёт (стоимость у провайдера × курс × наценка), резерв и списание, задержка, ID запроса и генерации',
      },
    })
}
