// The OpenAI-compatible face: /v1/models, /v1/chat/completions, /v1/images, /v1/files.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { bearer } from '../auth/guard'
import { KEY_PREFIX } from '../keys/service'
import { bodyReader, readBody, V1_BODY_LIMIT } from '../lib/body'
import { dec } from '../lib/decimal'
import { badRequest, OpenAIError } from '../lib/errors'
import { envelope, errors, ok } from '../lib/http'
import { microsToRub } from '../lib/money'
import { can, denial } from '../teams/service'
import { type Caller, callerForKey, callerForUser } from './callers'
import { chatService, type GatewayDeps } from './chat'
import { createImageStore } from './files'
import { imagesService, imagesShape } from './images'
import { lookups } from './lookup'
import {
  ChatRequest,
  CountTokensRequest,
  EmbeddingsRequest,
  EstimateRequest,
  EstimateResult,
  ImagesRequest,
  MessagesRequest,
  ModelObject,
  OpenAIErrorBody,
  ResponsesRequest,
} from './model'
import { protocolsService } from './protocols'
import { chatShape } from './shape'
import { unavailable } from './upstream-errors'

/**
 * null means absent for an optional parameter (the OpenAI contract; the Python SDK sends
 * `temperature: null`): dropped before validation, at the top level and in stream_options.
 */
function dropNulls(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return
  const obj = body as Record<string, unknown>
  for (const k of Object.keys(obj)) if (obj[k] === null) delete obj[k]
  if (obj.stream_options) dropNulls(obj.stream_options)
}

const unauthorized = (message: string, code: string) => new OpenAIError(401, message, 'invalid_request_error', code)
const TEAM_NOT_FOUND = () => new OpenAIError(404, 'Команда не найдена', 'invalid_request_error', 'team_not_found')

/** A team request whose member's role may not use the API (billing): 403 naming the role. */
function checkRole(caller: Caller): Caller {
  if (caller.team && !can(caller.team.role, 'playground'))
    throw new OpenAIError(403, denial(caller.team.role, 'playground'), 'permission_error', 'permission_denied', { shouldRetry: false })
  return caller
}
const errorsOf = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, OpenAIErrorBody]))

export function gatewayRoutes(deps: GatewayDeps, guard: AuthGuard) {
  const chat = chatService(deps)
  const files = createImageStore(deps.config)
  const images = imagesService(deps, chat, files)
  const protocols = protocolsService(deps, chat)
  const markup = dec(String(deps.config.markup))
  const lookup = lookups(deps.db, deps.keys)

  const modelsList = () => {
    const rate = deps.rates.current()
    if (!rate) throw unavailable('Курс валют временно недоступен. Попробуйте позже.')
    return deps.catalog.list().map((m) => deps.catalog.toApi(m, rate, markup))
  }

  const imagesHook = (summary: string) => ({
    caller: true as const,
    body: ImagesRequest,
    response: { 200: t.Any({ description: 'OpenAI ImagesResponse: {created, data:[{url|b64_json, revised_prompt}], usage}' }), ...errorsOf(400, 401, 402, 404, 502, 503) },
    detail: { summary, security: [{ bearerAuth: [] }] },
  })

  const callers = new WeakMap<Request, Caller>()
  type Verifier = { verify(t: string): Promise<false | { sub?: string }> }
  async function authenticate(headers: Headers, jwt: Verifier): Promise<Caller> {
    // Bearer for OpenAI clients; x-api-key for Anthropic's (Claude Code sends its key there).
    const token = bearer(headers.get('authorization') ?? undefined) ?? headers.get('x-api-key')?.trim()
    if (!token) throw unauthorized('Передайте API-ключ в заголовке Authorization: Bearer <ключ> (или x-api-key)', 'missing_api_key')
    if (token.startsWith(KEY_PREFIX)) {
      // A team key always acts in its team: no header is needed, none is consulted.
      const caller = await callerForKey(deps.db, token)
      if (!caller) throw unauthorized('Неверный API-ключ', 'invalid_api_key')
      if (!caller.apiKey!.isActive) throw unauthorized(`API-ключ «${caller.apiKey!.name}» отключён. Включите его на странице API ключей.`, 'api_key_disabled')
      return checkRole(caller)
    }
    const payload = await jwt.verify(token)
    if (!payload || typeof payload.sub !== 'string') throw unauthorized('Неверный API-ключ или истёкшая сессия', 'invalid_api_key')
    // The web session acts in the team its X-Team-Id names (the Playground in team context).
    const header = headers.get('x-team-id')?.trim()
    const teamId = header && header !== 'personal' ? header.slice(0, 64) : null
    const caller = await callerForUser(deps.db, payload.sub, teamId)
    if (!caller) {
      if (teamId && (await callerForUser(deps.db, payload.sub))) throw TEAM_NOT_FOUND()
      throw unauthorized('Неверный API-ключ или истёкшая сессия', 'invalid_api_key')
    }
    return checkRole(caller)
  }

  return new Elysia({ name: 'gateway', prefix: '/v1', detail: { tags: ['OpenAI-совместимый API'] } })
    .use(guard)
    .macro({
      /**
       * An API key (sk-gw-…) or the web session's access token, as the Bearer credential, checked before
       * the body is read: a caller without a valid key gets 401 at once, whatever the size of what it
       * sends. Then the body, through the same size and depth limits as every route's (lib/body.ts).
       */
      caller: {
        parse: bodyReader(async ({ request, accessJwt }: { request: Request; accessJwt: Verifier }, contentType: string) => {
          callers.set(request, await authenticate(request.headers, accessJwt))
          const body = await readBody(request, contentType, { limit: V1_BODY_LIMIT })
          dropNulls(body)
          return body
        }),
        // GET routes have no parse phase; `transform` still runs before the query is validated (401, not 400).
        async transform({ request, accessJwt }) {
          if (!callers.has(request)) callers.set(request, await authenticate(request.headers, accessJwt))
        },
        resolve: ({ request }): { caller: Caller } => ({ caller: callers.get(request)! }),
      },
    })
    .get('/models', () => ({ object: 'list' as const, data: modelsList() }), {
      response: { 200: t.Object({ object: t.Literal('list'), data: t.Array(ModelObject) }), ...errorsOf(503) },
      detail: { summary: 'Каталог моделей с ценами в рублях (публичный)' },
    })
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
        const rate = deps.rates.current()
        if (!rate) throw unavailable('Курс валют временно недоступен. Попробуйте позже.')
        const model = deps.catalog.get(id)
        if (!model) throw new OpenAIError(404, `Модель ${id} не найдена`, 'invalid_request_error', 'model_not_found', { param: 'model' })
        return deps.catalog.toApi(model, rate, markup)
      },
      { response: { 200: ModelObject, ...errorsOf(404, 503) }, detail: { summary: 'Одна модель каталога (id с %2F или со слэшем)' } },
    )
    .post(
      '/chat/completions',
      // Explicitly async: Elysia awaits (and routes rejections to onError) only handlers it sees as async.
      async ({ caller, body, request }) => await chat.chat(caller, body, request.signal),
      {
        caller: true,
        body: ChatRequest,
        response: {
          200: t.Any({ description: 'chat.completion, или text/event-stream из chat.completion.chunk при stream: true' }),
          ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
        },
        detail: {
          summary: 'Чат-комплишн (формат OpenAI), обычный и потоковый',
          description: 'Стоимость списывается по фактической стоимости у провайдера × курс ЦБ × наценка; usage.cost_rub — списанная сумма в рублях.',
          security: [{ bearerAuth: [] }],
        },
      },
    )
    .post('/responses', async ({ caller, body, request }) => await protocols.responses(caller, body, request.signal), {
      caller: true,
      body: ResponsesRequest,
      response: {
        200: t.Any({ description: 'Response (формат OpenAI Responses API), или text/event-stream событий response.* при stream: true' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Responses API (формат OpenAI): без хранения ответов — вся история в input',
        description: 'previous_response_id не поддерживается. Стоимость списывается как у чата; usage.cost — списанная сумма в рублях.',
        security: [{ bearerAuth: [] }],
      },
    })
    .post('/messages', async ({ caller, body, headers, request }) => await protocols.messages(caller, body, headers, request.signal), {
      caller: true,
      body: MessagesRequest,
      response: {
        200: t.Any({ description: 'Message (формат Anthropic), или text/event-stream событий message_* при stream: true' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Anthropic Messages API — для Claude Code и @anthropic-ai/sdk',
        description:
          'Ключ в x-api-key или Authorization: Bearer; заголовки anthropic-version и anthropic-beta передаются провайдеру. Ошибки — в формате Anthropic: {type:"error", error:{type, message}}.',
        security: [{ bearerAuth: [] }],
      },
    })
    .post('/messages/count_tokens', async ({ body, headers, request }) => await protocols.countTokens(body, headers, request.signal), {
      caller: true,
      body: CountTokensRequest,
      response: { 200: t.Object({ input_tokens: t.Number() }), ...errorsOf(400, 401, 404, 502, 503) },
      detail: { summary: 'Подсчёт входных токенов запроса Messages (бесплатно)', security: [{ bearerAuth: [] }] },
    })
    .post('/embeddings', async ({ caller, body, request }) => await protocols.embeddings(caller, body, request.signal), {
      caller: true,
      body: EmbeddingsRequest,
      response: {
        200: t.Any({ description: '{object:"list", data:[{object:"embedding", embedding, index}], model, usage}' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: { summary: 'Эмбеддинги (формат OpenAI), оплата за входные токены', security: [{ bearerAuth: [] }] },
    })
    .post('/images', async ({ caller, body, request }) => await images.generate(caller, body, request.signal), imagesHook('Генерация изображений (формат OpenAI images.generate)'))
    .post(
      '/images/generations',
      async ({ caller, body, request }) => await images.generate(caller, body, request.signal),
      imagesHook('Генерация изображений — путь официального SDK OpenAI'),
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
        query: t.Object({ id: t.String({ minLength: 1, maxLength: 200, error: 'Передайте id запроса: ?id=gen-…' }) }),
        response: {
          200: t.Object({
            data: t.Any({
              description: 'Как /generation у маршрутизатора: model, tokens_prompt, tokens_completion, total_cost (рубли), latency (мс), status, streamed, created_at',
            }),
          }),
          ...errorsOf(400, 401, 404),
        },
        detail: { summary: 'Стоимость и токены одного своего запроса по его id (gen-…)', security: [{ bearerAuth: [] }] },
      },
    )
    .get('/key', async ({ caller }) => ({ data: await lookup.key(caller) }), {
      caller: true,
      response: {
        200: t.Object({ data: t.Any({ description: 'Как /key у маршрутизатора: label, usage, usage_monthly, limit, limit_remaining (рубли), balance' }) }),
        ...errorsOf(401),
      },
      detail: { summary: 'Расход вызывающего ключа за месяц и всего, лимит и баланс аккаунта', security: [{ bearerAuth: [] }] },
    })
    .get(
      '/files/:name',
      ({ params, query }) => {
        const found = files.open(params.name, query.exp, query.sig)
        if (!found) throw new OpenAIError(404, 'Файл не найден или ссылка устарела', 'invalid_request_error', 'file_not_found')
        return new Response(found.file, { headers: { 'content-type': found.type, 'cache-control': 'private, max-age=86400' } })
      },
      {
        params: t.Object({ name: t.String() }),
        query: t.Object({ exp: t.Optional(t.String()), sig: t.Optional(t.String()) }),
        response: { 200: t.Any({ description: 'Файл изображения (image/png, image/jpeg, …)' }), ...errorsOf(404) },
        detail: { summary: 'Сгенерированное изображение по подписанной ссылке' },
      },
    )
}

/**
 * POST /api/playground/estimate: what a /v1 request would hold and may cost at most, from the same
 * planHold as the hold itself, so the Playground never shows less than what is then charged.
 */
export function estimateRoutes(deps: GatewayDeps, guard: AuthGuard) {
  const chat = chatService(deps)
  return new Elysia({ name: 'gateway-estimate', prefix: '/api/playground', detail: { tags: ['Чаты Playground'], security: [{ bearerAuth: [] }] } }).use(guard).post(
    '/estimate',
    async ({ acting, body }) => {
      const caller = await callerForUser(deps.db, acting.userId, acting.teamId)
      if (!caller) throw unauthorized('Сессия недействительна', 'invalid_api_key')
      const cs = body.chat ? chatShape(body.chat, deps.catalog.get) : body.images ? imagesShape(body.images, deps.catalog.get) : null
      if (!cs) throw badRequest('Передайте chat (тело /v1/chat/completions) или images (тело /v1/images)')
      const e = await chat.estimate(caller, cs)
      return ok({
        maxCost: e.maxCostMicros === null ? null : microsToRub(e.maxCostMicros),
        hold: e.holdMicros === null ? null : microsToRub(e.holdMicros),
        maxTokens: e.maxTokens,
        affordable: e.refusal === null,
        message: e.refusal,
        limitedBy: e.limitedBy,
      })
    },
    {
      account: 'playground',
      body: EstimateRequest,
      response: { 200: envelope(EstimateResult), ...errors(400, 401, 403, 404, 503) },
      detail: { summary: 'Оценка стоимости запроса к /v1 до отправки: столько же будет зарезервировано' },
    },
  )
}
