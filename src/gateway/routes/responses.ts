// The Responses API: POST /v1/responses (stored 30 days unless store: false), the stored answers
// (GET and DELETE /v1/responses/:id, its input items), and GET /v1/responses upgraded to its
// WebSocket mode (ws.ts).
import { Elysia, getSchemaValidator, t, ValidationError } from 'elysia'
import { OpenAIError } from '../../lib/errors'
import { clientIp } from '../../lib/http'
import { type CallerAuth, credentialsAgain, dropNulls } from '../auth'
import { errorsOf, ResponseDeleted, ResponseItemList, ResponsesRequest } from '../model'
import type { ProtocolsService } from '../protocols'
import { type ResponsesBody, responsesShape } from '../responses'
import { storedResponsesService } from '../stored-responses'
import type { GatewayDeps } from '../types'
import { responsesSocket } from '../ws'

export function responsesRoutes(deps: GatewayDeps, protocols: ProtocolsService, auth: CallerAuth) {
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

  return new Elysia({ name: 'gateway-responses' })
    .use(auth)
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
      },
    })
    .get(
      '/responses',
      ({ caller, request, server, accessJwt }) => {
        // The credentials were checked by the macro (a 401 before any upgrade); each turn checks them again.
        const again = credentialsAgain(deps.db, request, accessJwt, clientIp(request, server, deps.config.trustProxy))
        if (socket.upgrade(request, server, { caller, again })) return
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
        },
      },
    )
    .get('/responses/:id', async ({ caller, params }) => await stored.get(caller, params.id), {
      caller: true,
      params: t.Object({ id: t.String({ maxLength: 200 }) }),
      response: { 200: t.Any({ description: 'Response — объект ответа, как его вернул POST /v1/responses' }), ...errorsOf(401, 404) },
      detail: { summary: 'Сохранённый ответ Responses API по id (хранится 30 дней)' },
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
      },
    })
    .delete('/responses/:id', async ({ caller, params }) => await stored.delete(caller, params.id), {
      caller: true,
      params: t.Object({ id: t.String({ maxLength: 200 }) }),
      response: { 200: ResponseDeleted, ...errorsOf(401, 404) },
      detail: { summary: 'Удалить сохранённый ответ' },
    })
}
