// POST /v1/responses: OpenAI's Responses API (Vercel AI SDK's default provider, Codex CLI, `llm`,
// openai.responses.*) as the router speaks it, stateless: the whole history comes in `input`
// (`previous_response_id` is expanded into it before, by stored-responses.ts).
// Held, forwarded, relayed event by event and settled exactly like chat.

import type { ModelRow } from '../catalog/schema'
import { isObject } from '../lib/json'
import { sseData } from '../lib/sse'
import { estimatePrompt } from './estimate'
import { type ChatShape, requestShape } from './shape'
import { chargedUsage, countEvents, generationIdOf, parseEvent, type Usage, type Wire } from './wire'

export type ResponsesBody = {
  model?: string
  models?: string[]
  input: unknown
  instructions?: string
  tools?: unknown[]
  max_output_tokens?: number
  stream?: boolean
  previous_response_id?: string
  /** false: not kept (the chain then lives only in a WebSocket connection's memory). */
  store?: boolean
  /** WebSocket mode only: false prepares the chain and returns an id without calling the model. */
  generate?: boolean
  text?: unknown
  [k: string]: unknown
}

/** Content parts in chat's names, so the prompt is estimated by the same code as chat's. */
function chatParts(content: unknown): unknown {
  if (!Array.isArray(content)) return content
  return content.map((part) => {
    if (!isObject(part)) return part
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text }
    if (part.type === 'input_image') return { type: 'image_url' }
    if (part.type === 'input_file') return { type: 'file' }
    return { type: 'text', text: JSON.stringify(part) }
  })
}

/** The input items as chat messages: messages keep their parts; calls, outputs and the rest count as text. */
function asMessages(body: ResponsesBody): Array<{ role: string; content?: unknown }> {
  const out: Array<{ role: string; content?: unknown }> = []
  if (typeof body.instructions === 'string') out.push({ role: 'system', content: body.instructions })
  if (typeof body.input === 'string') out.push({ role: 'user', content: body.input })
  else if (Array.isArray(body.input))
    for (const item of body.input) {
      if (isObject(item) && (item.type === 'message' || (item.type === undefined && 'role' in item))) out.push({ role: String(item.role), content: chatParts(item.content) })
      else out.push({ role: 'user', content: JSON.stringify(item) })
    }
  return out
}

export function responsesShape(body: ResponsesBody, get: (id: string) => ModelRow | undefined): ChatShape {
  // The routing fields (fallbacks, plugins, provider, search tools…) are read as for chat; only the prompt is the Responses API's.
  return requestShape(body, get, { kind: 'chat', prompt: estimatePrompt(asMessages(body), [body.tools, body.text]), requestedTokens: body.max_output_tokens })
}

/** The Responses API's usage object. */
type ResponsesUsage = { input_tokens?: number; output_tokens?: number; total_tokens?: number; cost?: number; [k: string]: unknown }
/** The fields of a Responses stream event the gateway reads (`response` is the whole response object on the final events). */
type ResponsesEvent = {
  type?: string
  message?: string
  error?: { message?: string }
  response?: { id?: string; usage?: ResponsesUsage; model?: unknown; error?: { message?: string }; [k: string]: unknown }
}

/**
 * The Responses usage in chat's names, for settlement: the cached part of the prompt and a ruble
 * upstream's `cost_rub` too (an upstream answering through upstream/kinds/translate.ts prices by them).
 */
const usageOf = (u: ResponsesUsage | undefined | null): Usage | undefined =>
  u
    ? {
        prompt_tokens: u.input_tokens,
        completion_tokens: u.output_tokens,
        total_tokens: u.total_tokens,
        cost: u.cost,
        cost_rub: u.cost_rub,
        prompt_tokens_details: { cached_tokens: (u.input_tokens_details as { cached_tokens?: number } | undefined)?.cached_tokens },
      }
    : undefined

const FINAL = new Set(['response.completed', 'response.incomplete'])

export const responsesWire: Wire = {
  path: '/responses',
  answer(json) {
    const err = json.error as { message?: string } | null | undefined
    if (err || json.status === 'failed' || !Array.isArray(json.output)) return { error: err?.message ?? 'ответ без output' }
    return { usage: usageOf(json.usage as ResponsesUsage | undefined), model: json.model, responseId: typeof json.id === 'string' ? json.id : undefined }
  },
  withCharge: (json, _usage, charged) => ({ ...json, usage: chargedUsage(json.usage as Record<string, unknown> | undefined, charged) }),
  reader: () => ({
    plain: (block) =>
      !block.includes('response.created') &&
      !block.includes('response.completed') &&
      !block.includes('response.incomplete') &&
      !block.includes('response.failed') &&
      !block.includes('"error"'),
    pieces: (block) => countEvents(block, ['response.output_text.delta', 'response.function_call_arguments.delta']),
    inspect(_event, data, needId) {
      const obj = parseEvent<ResponsesEvent>(data)
      if (!obj) return 'drop'
      const type = obj.type
      // Without X-Generation-Id the response's id names the generation (a dropped stream is reconciled by it).
      const id = needId ? generationIdOf(obj.response?.id) : undefined
      if (type && FINAL.has(type) && obj.response?.usage) {
        const raw = obj.response.usage
        return {
          id,
          usage: usageOf(raw)!,
          model: obj.response.model,
          responseId: obj.response.id,
          render: (_usage, charged) => `event: ${type}\ndata: ${JSON.stringify({ ...obj, response: { ...obj.response, usage: chargedUsage(raw, charged) } })}\n\n`,
        }
      }
      if (type === 'response.created') return { id, responseId: obj.response?.id }
      if (type === 'response.failed') return { error: obj.response?.error?.message ?? '' }
      if (type === 'error') return { error: obj.message ?? obj.error?.message ?? '' }
      return { piece: type === 'response.output_text.delta' || type === 'response.function_call_arguments.delta' }
    },
    errorEvent: (message) => `event: error\n${sseData({ type: 'error', code: 'upstream_error', message, param: null, sequence_number: 0 })}`,
    keepAlive: ': keep-alive\n\n',
  }),
}
