// POST /api/playground/estimate: what a /v1 request would hold and may cost at most, from the same
// planHold as the hold itself, so the Playground never shows less than what is then charged
// (estimate-service.ts). An /api route: the session's account and its role, through the `account` macro.
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../auth/guard'
import { envelope, errors, ok } from '../../lib/http'
import { estimateService } from '../estimate-service'
import { EstimateRequest, EstimateResult } from '../model'
import type { GatewayDeps } from '../types'

export function estimateRoutes(deps: GatewayDeps, guard: AuthGuard) {
  const estimates = estimateService(deps)
  return new Elysia({ name: 'gateway-estimate', prefix: '/api/playground', detail: { tags: ['Чаты Playground'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .post('/estimate', async ({ acting, body }) => ok(await estimates.estimate(acting, body)), {
      account: 'playground',
      body: EstimateRequest,
      response: { 200: envelope(EstimateResult), ...errors(400, 401, 403, 404, 503) },
      detail: { summary: 'Оценка стоимости запроса к /v1 до отправки: столько же будет зарезервировано' },
    })
}
