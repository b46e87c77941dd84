// The OpenAI-compatible face: /v1/models, /v1/chat/completions, /v1/responses (HTTP, stored, and its
// WebSocket mode), /v1/images, /v1/audio/*, /v1/files.
import { Elysia, getSchemaValidator, t, ValidationError } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { bearer } from '../auth/guard'
import { KEY_PREFIX } from '../keys/service'
import { bodyReader, readBody, V1_BODY_LIMIT } from '../lib/body'
import { dec } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import { envelope, errors, ok } from '../lib/http'
import { can, denial } from '../teams/service'
import { audioService } from './audio'
import { type Caller, callerForKey, callerForUser } from './callers'
import { modelNotFound, unavailable } from './errors'
import { estimateService } from './estimate-service'
import type { ImageStore } from './files'
import { imagesService } from './images'
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
  ResponseDeleted,
  ResponseItemList,
  ResponsesRequest,
  SpeechRequest,
  TranscriptionRequest,
} from './model'
import { pipeline } from './pipeline'
import { protocolsService, TOKEN_COUNT_ESTIMATED } from './protocols'
import { type ResponsesBody, responsesShape } from './responses'
import { storedResponsesService } from './stored-responses'
import type { GatewayDeps } from './types'
import { responsesSocket } from './ws'

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

export function gatewayRoutes(deps: GatewayDeps & { images: ImageStore }, guard: AuthGuard) {
  const pipe = pipeline(deps)
  const files = deps.images
  const images = imagesService(deps, pipe, files)
  const protocols = protocolsService(deps, pipe)
  const audio = audioService(deps, pipe)
  const markup = dec(String(deps.config.markup))
  const lookup = lookups(deps.db, deps.keys)
  const stored = storedResponsesService(deps.db, protocols.responses)
  const responsesBody = getSchemaValidator(ResponsesRequest)!
  const socket = responsesSocket({
    config: deps.config,
    stored,
    forward: protocols.responses,
    // The same check as the HTTP body's, with the same messages.
    validate(body) {
      dropNulls(body)
      if (!responsesBody.Check(body)) throw new ValidationError('body', responsesBody, body)
      return body as ResponsesBody
    },
    shape: (body) => void responsesShape(body, deps.catalog.get),
  })

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
  /** The caller of a /v1 request; `fresh` reads past this instance's cache (callers.ts). A cached one can read itself again. */
  async function authenticate(headers: Headers, jwt: Verifier, fresh = false): Promise<Caller> {
    const caller = await authenticateOnce(headers, jwt, fresh)
    if (caller.cached) caller.reread = () => authenticate(headers, jwt, true)
    return caller
  }

  async function authenticateOnce(headers: Headers, jwt: Verifier, fresh: boolean): Promise<Caller> {
    // Bearer for OpenAI clients; x-api-key for Anthropic's (Claude Code sends its key there).
    const token = bearer(headers.get('authorization') ?? undefined) ?? headers.get('x-api-key')?.trim()
    if (!token) throw unauthorized('Передайте API-ключ в заголовке Authorization: Bearer <ключ> (или x-api-key)', 'missing_api_key')
    if (token.startsWith(KEY_PREFIX)) {
      // A team key always acts in its team: no header is needed, none is consulted.
      const caller = await callerForKey(deps.db, token, fresh)
      if (!caller) throw unauthorized('Неверный API-ключ', 'invalid_api_key')
      if (!caller.apiKey!.isActive) throw unauthorized(`API-ключ «${caller.apiKey!.name}» отключён. Включите его на странице API ключей.`, 'api_key_disabled')
      return checkRole(caller)
    }
    const payload = await jwt.verify(token)
    if (!payload || typeof payload.sub !== 'string') throw unauthorized('Неверный API-ключ или истёкшая сессия', 'invalid_api_key')
    // The web session acts in the team its X-Team-Id names (the Playground in team context).
    const header = headers.get('x-team-id')?.trim()
    const teamId = header && header !== 'personal' ? header.slice(0, 64) : null
    const caller = await callerForUser(deps.db, payload.sub, teamId, fresh)
    if (!caller) {
      if (teamId && (await callerForUser(deps.db, payload.sub, null, fresh))) throw TEAM_NOT_FOUND()
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
        // The x-request-id the client is answered with (protocol.ts) goes with the request to its usage row.
        resolve: ({ request, set }): { caller: Caller } => ({ caller: { ...callers.get(request)!, requestId: String(set.headers['x-request-id'] ?? '') || undefined } }),
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
        if (!model) throw modelNotFound(`Модель ${id} не найдена`)
        return deps.catalog.toApi(model, rate, markup)
      },
      { response: { 200: ModelObject, ...errorsOf(404, 503) }, detail: { summary: 'Одна модель каталога (id с %2F или со слэшем)' } },
    )
    .post(
      '/chat/completions',
      // Explicitly async: Elysia awaits (and routes rejections to onError) only handlers it sees as async.
      async ({ caller, body, request }) => await protocols.chat(caller, body, request.signal),
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
    .post('/responses', async ({ caller, body, request }) => await stored.create(caller, body, request.signal), {
      caller: true,
      body: ResponsesRequest,
      response: {
        200: t.Any({ description: 'Response (формат OpenAI Responses API), или text/event-stream событий response.* при stream: true' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Responses API (формат OpenAI): ответы хранятся 30 дней, previous_response_id продолжает цепочку',
        description:
          'Без store: false ответ (его входные элементы, output и usage) хранится 30 дней; previous_response_id подставляет всю цепочку в input — резерв и списание считаются по всему входу. Чужой или неизвестный id — 404 previous_response_not_found. Продолжение, после которого цепочка стала бы больше 16 МБ JSON, — 400 chain_too_large. Стоимость списывается как у чата; usage.cost — списанная сумма в рублях.',
        security: [{ bearerAuth: [] }],
      },
    })
    .get(
      '/responses',
      ({ caller, request, server, accessJwt }) => {
        // The credentials were checked by the macro (a 401 before any upgrade); each turn checks them again.
        const headers = new Headers()
        for (const name of ['authorization', 'x-api-key']) {
          const value = request.headers.get(name)
          if (value) headers.set(name, value)
        }
        if (socket.upgrade(request, server, { caller, again: () => authenticate(headers, accessJwt) })) return
        throw new OpenAIError(
          426,
          'GET /v1/responses открывает WebSocket: подключитесь по ws:// или wss:// (заголовки Upgrade: websocket). Ответ создаёт POST /v1/responses.',
          'invalid_request_error',
          'upgrade_required',
        )
      },
      {
        caller: true,
        response: { 101: t.Void({ description: 'Переход на WebSocket' }), ...errorsOf(401, 426) },
        detail: {
          summary: 'Responses API по WebSocket: постоянное соединение для цепочек и агентных циклов',
          description: [
            'Подключение: `wss://<адрес>/v1/responses` с ключом в `Authorization: Bearer` (или `x-api-key`); неверный ключ — 401 до перехода на WebSocket.',
            'Клиент отправляет текстовые кадры `{"type":"response.create", …тело POST /v1/responses без stream и background}`; продолжение — `previous_response_id` и только новые элементы input (вывод инструментов, следующее сообщение). Сервер отвечает теми же событиями, что и поток HTTP (`response.created` … `response.completed`), по одному JSON в кадре.',
            'Цепочка последнего ответа хранится в памяти соединения — продолжается и при `store: false`. `generate: false` готовит цепочку и возвращает id без вызова модели и без списания.',
            'Каждый ответ резервируется и списывается как HTTP-запрос. Ошибки — событие `{"type":"error", "status", "error":{type, code, message, param}}`: `response_already_in_flight` (одновременно выполняется один ответ), `previous_response_not_found`, `insufficient_balance` (соединение остаётся открытым), `invalid_json`, `request_too_large` (больше 32 МБ).',
            'Пределы: 60 минут на соединение (затем закрытие 1000 с причиной), 8 соединений на ключ и 16 на аккаунт (событие `too_many_connections` и закрытие 1008), цепочка — до 16 МБ JSON. Простаивающее соединение сервер пингует.',
          ].join('\n\n'),
          security: [{ bearerAuth: [] }],
        },
      },
    )
    .get('/responses/:id', async ({ caller, params }) => await stored.get(caller, params.id), {
      caller: true,
      params: t.Object({ id: t.String({ maxLength: 200 }) }),
      response: { 200: t.Any({ description: 'Response — объект ответа, как его вернул POST /v1/responses' }), ...errorsOf(401, 404) },
      detail: { summary: 'Сохранённый ответ Responses API по id (хранится 30 дней)', security: [{ bearerAuth: [] }] },
    })
    .get('/responses/:id/input_items', async ({ caller, params, query }) => await stored.inputItems(caller, params.id, query), {
      caller: true,
      params: t.Object({ id: t.String({ maxLength: 200 }) }),
      query: t.Object({
        limit: t.Optional(t.Numeric({ minimum: 1, maximum: 100, multipleOf: 1, error: 'limit должен быть целым числом от 1 до 100' })),
        // Not UnionEnum: an optional UnionEnum defaults to its first value, and OpenAI's default is desc.
        order: t.Optional(t.Union([t.Literal('asc'), t.Literal('desc')], { error: 'order должен быть asc или desc' })),
        after: t.Optional(t.String({ maxLength: 200 })),
        include: t.Optional(t.Any()),
      }),
      response: { 200: ResponseItemList, ...errorsOf(400, 401, 404) },
      detail: {
        summary: 'Входные элементы сохранённого ответа: вся цепочка, из которой он создан',
        description: 'Формат списка OpenAI: data, first_id, last_id, has_more; по умолчанию order=desc, limit=20; следующая страница — after=<last_id>.',
        security: [{ bearerAuth: [] }],
      },
    })
    .delete('/responses/:id', async ({ caller, params }) => await stored.delete(caller, params.id), {
      caller: true,
      params: t.Object({ id: t.String({ maxLength: 200 }) }),
      response: { 200: ResponseDeleted, ...errorsOf(401, 404) },
      detail: { summary: 'Удалить сохранённый ответ', security: [{ bearerAuth: [] }] },
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
    .post(
      '/messages/count_tokens',
      async ({ caller, body, headers, request, set }) => {
        const { input_tokens, estimated } = await protocols.countTokens(caller, body, headers, request.signal)
        if (estimated) set.headers[TOKEN_COUNT_ESTIMATED] = 'true'
        return { input_tokens }
      },
      {
        caller: true,
        body: CountTokensRequest,
        response: { 200: t.Object({ input_tokens: t.Number() }), ...errorsOf(400, 401, 403, 404) },
        detail: {
          summary: 'Подсчёт входных токенов запроса Messages (бесплатно)',
          description: `Отвечает всегда: если провайдер не считает токены сам или недоступен, число оценивается шлюзом (с запасом, как для резерва) и ответ несёт заголовок ${TOKEN_COUNT_ESTIMATED}: true.`,
          security: [{ bearerAuth: [] }],
        },
      },
    )
    .post('/embeddings', async ({ caller, body, request }) => await protocols.embeddings(caller, body, request.signal), {
      caller: true,
      body: EmbeddingsRequest,
      response: {
        200: t.Any({ description: '{object:"list", data:[{object:"embedding", embedding, index}], model, usage}' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Эмбеддинги (формат OpenAI), оплата за входные токены',
        description:
          'Резервируется каждый токен, за который провайдер может выставить счёт, на любой длине входа (контекст модели резерв не ограничивает): байт текста в UTF-8 или элемент массива токенов — один токен, плюс 4 служебных на каждый вход. Списывается usage.cost провайдера × курс ЦБ × наценка.',
        security: [{ bearerAuth: [] }],
      },
    })
    .post('/images', async ({ caller, body, request }) => await images.generate(caller, body, request.signal), imagesHook('Генерация изображений (формат OpenAI images.generate)'))
    .post(
      '/images/generations',
      async ({ caller, body, request }) => await images.generate(caller, body, request.signal),
      imagesHook('Генерация изображений — путь официального SDK OpenAI'),
    )
    .post('/audio/speech', async ({ caller, body, request }) => await audio.speech(caller, body, request.signal), {
      caller: true,
      body: SpeechRequest,
      response: {
        200: t.Any({ description: 'Звук потоком по мере синтеза (Content-Type провайдера: audio/mpeg, audio/wav, audio/pcm…); заголовок X-Generation-Id' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Озвучка текста (формат OpenAI audio.speech.create)',
        description:
          'Резервируется цена модели за символ × длина input; списывается стоимость генерации у провайдера (/generation) × курс ЦБ × наценка, а если провайдер её не сообщил — цена каталога × число символов.',
        security: [{ bearerAuth: [] }],
      },
    })
    .post('/audio/transcriptions', async ({ caller, body, request }) => await audio.transcription(caller, body, request.signal), {
      caller: true,
      body: TranscriptionRequest,
      response: {
        200: t.Any({ description: 'json: {text, usage}; verbose_json: {task, language, duration, text, segments, usage}; text, srt, vtt — текстом' }),
        ...errorsOf(400, 401, 402, 404, 413, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Распознавание речи (формат OpenAI audio.transcriptions.create)',
        description:
          'multipart/form-data с полем file (как отправляют SDK OpenAI) или JSON маршрутизатора с input_audio {data, format}; до 25 МБ. Резервируется цена за секунду × длительность записи, измеренная по самим данным (кадры MP3 и AAC, отсчёты WAV, кадры FLAC, пакеты Opus в OGG и WebM, кадры AAC в M4A), а не по заголовку файла; для кодеков, которые так не измерить (Vorbis, ALAC и др.), — размер файла при 6 кбит/с. Файл, длительность которого не измерить, — 400 invalid_audio; запись длиннее 10 часов — 400 audio_too_long. Списывается usage.cost провайдера × курс ЦБ × наценка.',
        security: [{ bearerAuth: [] }],
      },
    })
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
        detail: { summary: 'Стоимость и токены одного своего запроса по id из ответа (gen-…, msg_…, resp_…)', security: [{ bearerAuth: [] }] },
      },
    )
    .get('/key', async ({ caller }) => ({ data: await lookup.key(caller.cached && caller.reread ? await caller.reread() : caller) }), {
      caller: true,
      response: {
        200: t.Object({ data: t.Any({ description: 'Как /key у маршрутизатора: label, usage, usage_monthly, limit, limit_remaining (рубли), balance' }) }),
        ...errorsOf(401),
      },
      detail: { summary: 'Расход вызывающего ключа за месяц и всего, лимит и баланс аккаунта', security: [{ bearerAuth: [] }] },
    })
    .get(
      '/files/:name',
      async ({ params, query }) => {
        const found = await files.open(params.name, query.exp, query.sig)
        if (!found) throw new OpenAIError(404, 'Файл не найден или ссылка устарела', 'invalid_request_error', 'file_not_found')
        return new Response(found.file, {
          headers: {
            'content-type': found.type,
            // Bytes the router sent us: a picture, never a page of ours, even when opened directly.
            'content-security-policy': "default-src 'none'; img-src 'self'; sandbox",
            // A deleted account's pictures must stop opening at once: no copy outlives the check for long.
            'cache-control': 'private, max-age=300',
          },
        })
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
