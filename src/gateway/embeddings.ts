// POST /v1/embeddings: vectors for RAG and search, billed per input token like a prompt.

import type { ModelRow } from '../catalog/schema'
import { isEmbedding } from '../catalog/service'
import { OpenAIError } from '../lib/errors'
import { resolveCandidate } from './estimate'
import type { ChatShape } from './shape'
import { chargedUsage, type Wire } from './wire'

export type EmbeddingsBody = {
  model: string
  input: string | string[] | number[] | number[][]
  encoding_format?: 'float' | 'base64'
  dimensions?: number
  [k: string]: unknown
}

/** Tokens one input may take: UTF-8 bytes / 3 for text (as for prompts), the length of a token array. */
const inputTokens = (input: unknown) => (typeof input === 'string' ? Math.ceil(Buffer.byteLength(input) / 3) : Array.isArray(input) ? input.length : 0)

export function embeddingsShape(body: EmbeddingsBody, get: (id: string) => ModelRow | undefined): ChatShape {
  const candidate = resolveCandidate(get, body.model)
  if (!candidate) throw new OpenAIError(404, `Модель ${body.model} не найдена в каталоге`, 'invalid_request_error', 'model_not_found', { param: 'model' })
  if (!isEmbedding(candidate.model))
    throw new OpenAIError(400, `Модель ${body.model} не создаёт эмбеддинги: выберите модель с типом «Эмбеддинги» в /v1/models`, 'invalid_request_error', 'model_not_embedding', {
      param: 'model',
    })
  const inputs = typeof body.input === 'string' || typeof body.input[0] === 'number' ? [body.input] : (body.input as unknown[])
  // The context limits each input, not the batch: each is capped on its own, the sum is not.
  const context = candidate.model.contextLength
  const tokens = inputs.reduce((sum: number, input) => sum + (context > 0 ? Math.min(inputTokens(input), context) : inputTokens(input)), 0)
  return {
    modelId: body.model,
    patch: {},
    shape: {
      candidates: [candidate],
      prompt: { tokens, images: 0, audioTokens: 0 },
      promptUncapped: true,
      choices: 1,
      wantsImages: false,
      webResults: 0,
      requestedTokens: 0,
    },
  }
}

export const embeddingsWire: Wire = {
  path: '/embeddings',
  answer(json) {
    const err = json.error as { message?: string } | undefined
    if (err || !Array.isArray(json.data)) return { error: err?.message ?? 'ответ без data' }
    return { usage: json.usage as Record<string, number> | undefined, model: json.model }
  },
  withCharge: (json, usage, charged) => ({ ...json, usage: chargedUsage(usage, charged) }),
  reader: () => {
    throw new Error('embeddings are not streamed')
  },
}
