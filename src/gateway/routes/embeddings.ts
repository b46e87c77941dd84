// POST /v1/embeddings: OpenAI's embeddings, billed for the input tokens (protocols.ts → the pipeline).
import { Elysia, t } from 'elysia'
import type { CallerAuth } from '../auth'
import { EmbeddingsRequest, errorsOf } from '../model'
import type { ProtocolsService } from '../protocols'

export function embeddingsRoutes(protocols: ProtocolsService, auth: CallerAuth) {
  return new Elysia({ name: 'gateway-embeddings' }).use(auth).post('/embeddings', async ({ caller, body, request }) => await protocols.embeddings(caller, body, request.signal), {
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
    },
  })
}
