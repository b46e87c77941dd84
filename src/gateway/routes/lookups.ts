// What a caller looks up rather than runs: the catalogue with ruble prices (GET /v1/models, public),
// one request's cost (GET /v1/generation) and the calling key's spend (GET /v1/key), as the router's.
import { Elysia, t } from 'elysia'
import { dec } from '../../lib/decimal'
import { OpenAIError } from '../../lib/errors'
import { type CallerAuth, callerIfAny } from '../auth'
import { currentRate, modelNotFound } from '../errors'
import { lookups } from '../lookup'
import { errorsOf, ModelObject } from '../model'
import type { GatewayDeps } from '../types'

export function lookupRoutes(deps: GatewayDeps, auth: CallerAuth) {
  const markup = dec(String(deps.config.markup))
  const lookup = lookups(deps.db, deps.keys)
  const modelsList = (onlyRu: boolean) => {
    const rate = currentRate(deps.rates)
    const list = deps.catalog.list().map((m) => deps.catalog.toApi(m, rate, markup))
    return onlyRu ? list.filter((m) => m.data_residency.includes('ru')) : list
  }

  return new Elysia({ name: 'gateway-lookups' })
    .use(auth)
    .get(
      '/models',
      async ({ request, accessJwt }) => {
        const caller = await callerIfAny(deps.db, request.headers, accessJwt)
        return { object: 'list' as const, data: modelsList(caller?.residency === 'ru') }
      },
      {
        response: { 200: t.Object({ object: t.Literal('list'), data: t.Array(ModelObject) }), ...errorsOf(503) },
        detail: { summary: 'Каталог моделей с ценами в рублях (публичный); с ключом, которому разрешено только хранение данных в РФ, — только такие модели' },
      },
    )
    .get(
      '/models/*',
      ({ params }) => {
        // The SDK percent-encodes the slash (openai%2Fgpt-4o); curl users send it raw.
        let id: string
        try {
          id = decodeURIComponent(params['*'])
        } catch {
          throw new OpenAIError(400, 'Некорректный идентификатор модели в адресе', 'invalid_request_error', 'invalid_request', { param: 'model' })
        }
        const rate = currentRate(deps.rates)
        const model = deps.catalog.get(id)
        if (!model) throw modelNotFound(`Модель ${id} не найдена`)
        return deps.catalog.toApi(model, rate, markup)
      },
      { response: { 200: ModelObject, ...errorsOf(404, 503) }, detail: { summary: 'Одна модель каталога (id с %2F или со слэшем)' } },
    )
    .get(
      '/generation',
      async ({ caller, query }) => {
        const found = await lookup.generation(caller.userId, query.id)
        if (!found) throw new OpenAIError(404, `Запрос ${query.id} не найден среди ваших запросов`, 'invalid_request_error', 'not_found', { param: 'id' })
        return { data: found }
      },
      {
        caller: true,
        query: t.Object({ id: t.String({ minLength: 1, maxLength: 200, error: 'Передайте id запроса: ?id=gen-… (или msg_…, resp_…)' }) }),
        response: {
          200: t.Object({
            data: t.Any({
              description:
                'Как /generation у маршрутизатора: model, tokens_prompt, tokens_completion, total_cost (рубли), latency (мс), status, streamed, created_at, upstream (primary — основной провайдер, fallback — резервный)',
            }),
          }),
          ...errorsOf(400, 401, 404),
        },
        detail: { summary: 'Стоимость и токены одного своего запроса по id из ответа (gen-…, msg_…, resp_…)' },
      },
    )
    .get('/key', async ({ caller }) => ({ data: await lookup.key(caller.cached && caller.reread ? await caller.reread() : caller) }), {
      caller: true,
      response: {
        200: t.Object({ data: t.Any({ description: 'Как /key у маршрутизатора: label, usage, usage_monthly, limit, limit_remaining (рубли), balance' }) }),
        ...errorsOf(401),
      },
      detail: { summary: 'Расход вызывающего ключа за месяц и всего, лимит и баланс аккаунта' },
    })
}
