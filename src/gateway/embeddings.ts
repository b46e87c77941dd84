// POST /v1/embeddings: vectors for RAG and search, billed per input token like a prompt.
//
// The hold covers every token each input can be billed for, however long: the model's context does
// not cap it, because a router may bill an over-long input in full (issue 33: 50 000 tokens billed
// against a hold of 8 192) and none can be capped in the request (no max_price here). Refusing
// inputs over the context instead would need the provider's tokenizer: an estimate would refuse
// inputs that fit. So a text holds one token per UTF-8 byte — no tokenizer (byte-level BPE,
// SentencePiece, WordPiece) makes a token of less than a byte — plus the special tokens a model adds.

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

/** Tokens a model may add to each input (BOS/EOS, CLS/SEP) besides its own. */
const SPECIAL_TOKENS = 4

/** The most tokens one input can be billed for: its UTF-8 bytes for a text, the length of a token array, plus the special tokens. */
const inputTokens = (input: unknown) => SPECIAL_TOKENS + (typeof input === 'string' ? Buffer.byteLength(input) : Array.isArray(input) ? input.length : 0)

/** Fallbacks, plugins and `provider` are read as for chat (the router takes them here too); the prompt is the inputs. */
export function embeddingsShape(body: EmbeddingsBody, get: (id: string) => ModelRow | undefined): ChatShape {
  const inputs = typeof body.input === 'string' || typeof body.input[0] === 'number' ? [body.input] : (body.input as unknown[])
  return requestShape(body, get, {
    kind: 'embeddings',
    prompt: { tokens: inputs.reduce((sum: number, input) => sum + inputTokens(input), 0), images: 0, audioTokens: 0 },
    // Neither the context nor anything else caps what the inputs are billed for.
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
