import { Elysia } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import { StatusBody, UpstreamsBody } from './model'
import type { StatusService } from './service'

/** GET /api/status: public, as /status shows it. */
export function statusRoutes(status: StatusService) {
  return new Elysia({ name: 'status', prefix: '/api', detail: { tags: ['Система'] } }).get('/status', async () => ok(await status.current()), {
    response: { 200: envelope(StatusBody) },
    detail: { summary: 'Состояние сервиса: API, провайдеры моделей, платежи; сбои и доступность за 90 дней' },
  })
}

/** GET /api/admin/upstreams: the breakers and recent upstream errors, admins only (checked on the server). */
export function statusAdminRoutes(status: StatusService, guard: AuthGuard) {
  return new Elysia({ name: 'status-admin', prefix: '/api/admin', detail: { tags: ['Администрирование'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/upstreams', () => ok(status.upstreams()), {
      admin: true,
      response: { 200: envelope(UpstreamsBody), ...errors(401, 403) },
      detail: { summary: 'Провайдеры моделей этого экземпляра: состояние предохранителя и последние ошибки' },
    })
}
