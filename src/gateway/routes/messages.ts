// POST /v1/messages and its free token count: Anthropic's Messages API, for Claude Code and
// @anthropic-ai/sdk (protocols.ts → the pipeline; errors in Anthropic's shape, lib/http.ts).
import { Elysia, t } from 'elysia'
import type { CallerAuth } from '../auth'
import { CountTokensRequest, errorsOf, MessagesRequest } from '../model'
import { type ProtocolsService, TOKEN_COUNT_ESTIMATED } from '../protocols'

export function messagesRoutes(protocols: ProtocolsService, auth: CallerAuth) {
  return new Elysia({ name: 'gateway-messages' })
    .use(auth)
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
        },
      },
    )
}
