// What a caller looks up rather than runs: the catalogue with ruble prices (GET /v1/models, public),
// one request's cost (GET /v1/generation) and the calling key's spend (GET /v1/key), as the router's.
import { Elysia, t } from 'elysia'
import { dec } from '../../lib/decimal'
import { OpenAIError } from '../../lib/errors'
import { clientIp } from '../../lib/http'
import { type CallerAuth, callerIfAny } from '../auth'
import type { Caller } from '../callers'
import { currentRate, modelNotFound } from '../errors'
import { lookups } from '../lookup'
import { errorsOf, ModelObject } from '../model'
import { mayCall } from '../policy'
import type { GatewayDeps } from '../types'

export function lookupRoutes(deps: GatewayDeps, auth: CallerAuth) {
  const markup = dec(String(deps.config.markup))
  const lookup = lookups(deps.db, deps.keys)
  /** The catalogue as a caller sees it: a key bound to Russia only such models, a key or team with a model list only those. */
  const modelsList = (caller: Caller | null) => {
    const rate = currentRate(deps.rates)
    const models = caller ? deps.catalog.list().filter((m) => mayCall(caller, m.id)) : deps.catalog.list()
    const list = models.map((m) => deps.catalog.toApi(m, rate, markup))
    return caller?.residency === 'ru' ? list.filter((m) => m.data_residency.includes('ru')) : list
  }

  return new Elysia({ name: 'gateway-lookups' })
    .use(auth)
    .get(
      '/models',
      async ({ request, accessJwt, server, set }) => {
        const caller = await callerIfAny(deps.db, request.headers, accessJwt, clientIp(request, server, deps.config.trustProxy), set)
        return { object: 'list' as const, data: modelsList(caller) }
      },
      {
        response: { 200: t.Object({ object: t.Literal('list'), data: t.Array(ModelObject) }), ...errorsOf(401, 403, 429, 503) },
        detail: {
          summary: 'Каталог моделей с ценами в рублях (публичный); с ключом — только модели, которые он может вызвать (его список моделей, список команды, хранение данных в РФ)',
        },
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
