// POST /v1/embeddings: vectors for RAG and search, billed per input token like a prompt.

import type { ModelRow } from '../catalog/schema'
import { type ChatShape, requestShape } from './shape'
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

/** Fallbacks, plugins and `provider` are read as for chat (the router takes them here too); the prompt is the inputs. */
export function embeddingsShape(body: EmbeddingsBody, get: (id: string) => ModelRow | undefined): ChatShape {
  const inputs = typeof body.input === 'string' || typeof body.input[0] === 'number' ? [body.input] : (body.input as unknown[])
  return requestShape(body, get, {
    kind: 'embeddings',
    prompt: (candidates) => {
      // The context limits each input, not the batch: each is capped on its own (at the widest candidate's), the sum is not.
      const context = candidates.some((c) => c.model.contextLength <= 0) ? 0 : Math.max(...candidates.map((c) => c.model.contextLength))
      const tokens = inputs.reduce((sum: number, input) => sum + (context > 0 ? Math.min(inputTokens(input), context) : inputTokens(input)), 0)
      return { tokens, images: 0, audioTokens: 0 }
    },
    promptUncapped: true,
    requestedTokens: 0,
    // The router takes no max_price on embeddings: a variable price cannot be capped there.
    canCapPrice: false,
  })
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
