// POST /v1/chat/completions: OpenAI's chat, plain or streamed (protocols.ts → the pipeline).
import { Elysia, t } from 'elysia'
import type { CallerAuth } from '../auth'
import { ChatRequest, errorsOf } from '../model'
import type { ProtocolsService } from '../protocols'

export function chatRoutes(protocols: ProtocolsService, auth: CallerAuth) {
  return new Elysia({ name: 'gateway-chat' }).use(auth).post(
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
      },
    },
  )
}
