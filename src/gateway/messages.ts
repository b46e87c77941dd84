// POST /v1/messages: the Anthropic Messages API at the path the Anthropic SDK builds from a bare
// origin, for Claude Code (ANTHROPIC_BASE_URL) and @anthropic-ai/sdk. Held, forwarded with the
// anthropic-* headers, relayed event by event and settled exactly like chat; errors in Anthropic's shape.
// Mid-conversation system messages (`role: "system"` inside `messages`) are checked against
// Anthropic's placement rules and forwarded as they are: the router speaks the same protocol.

import type { ModelRow } from '../catalog/schema'
import { invalidRequest } from '../lib/errors'
import { isObject } from '../lib/json'
import { sseData } from '../lib/sse'
import { estimatePrompt } from './estimate'
import { type ChatShape, requestShape } from './shape'
import { chargedUsage, countEvents, generationIdOf, parseEvent, type Usage, type Wire } from './wire'

export type MessagesBody = {
  model: string
  max_tokens: number
  /** user and assistant turns, and mid-conversation system messages where systemPlacementProblem allows them. */
  messages: Array<{ role: string; content: unknown }>
  system?: unknown
  tools?: unknown[]
  stream?: boolean
  [k: string]: unknown
}

/**
 * The catalogue entry for a model name as Anthropic's clients send it: our ids as they are, else
 * Claude Code's own names (`claude-sonnet-4-5-20250929`, `claude-3-5-haiku-latest`) mapped to the
 * router's (`anthropic/claude-sonnet-4.5`, `anthropic/claude-3.5-haiku`).
 */
export function resolveAnthropicModel(id: string, get: (id: string) => ModelRow | undefined): string {
  if (get(id) || id.includes('/')) return id
  const bare = id.replace(/-(\d{8}|latest)$/, '')
  for (const name of [id, bare, bare.replace(/(\d)-(\d)/g, '$1.$2')]) if (get(`anthropic/${name}`)) return `anthropic/${name}`
  return id
}

/** Anthropic blocks in chat's part names, so the prompt is estimated by the same code as chat's. */
function chatParts(content: unknown): unknown {
  if (!Array.isArray(content)) return content
  return content.map((block) => {
    if (!isObject(block)) return block
    if (block.type === 'text') return { type: 'text', text: block.text }
    if (block.type === 'thinking') return { type: 'text', text: block.thinking }
    if (block.type === 'image') return { type: 'image_url' }
    if (block.type === 'document') return { type: 'file' }
    if (block.type === 'tool_result' && Array.isArray(block.content)) return { type: 'text', text: JSON.stringify(chatParts(block.content)) }
    return { type: 'text', text: JSON.stringify(block) }
  })
}

/** An assistant turn whose last block is a server tool's call (web search…): the server may resume after a system message. */
const endsInServerToolUse = (m: { role: string; content: unknown }) =>
  m.role === 'assistant' && Array.isArray(m.content) && isObject(m.content.at(-1)) && (m.content.at(-1) as { type?: unknown }).type === 'server_tool_use'

/**
 * Why the mid-conversation system messages of `messages` stand where Anthropic does not allow them
 * (protocols.md 1.12), or null: never the first entry; only after a user turn or an assistant turn
 * that ends in a server tool use; the last entry or followed by an assistant turn; never two in a
 * row. Refused before anything is held, as Anthropic would refuse it.
 */
export function systemPlacementProblem(messages: ReadonlyArray<{ role: string; content: unknown }>): string | null {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'system') continue
    if (i === 0) return 'messages.0: системное сообщение (role: system) не может быть первым — общие инструкции передайте в поле system'
    const before = messages[i - 1]!
    const after = messages[i + 1]
    if (before.role === 'system' || after?.role === 'system')
      return `messages.${before.role === 'system' ? i : i + 1}: два системных сообщения подряд недопустимы — объедините их в одно`
    if (before.role !== 'user' && !endsInServerToolUse(before))
      return `messages.${i}: системное сообщение может стоять только после сообщения пользователя или после ответа ассистента, который заканчивается вызовом серверного инструмента (server_tool_use)`
    if (after && after.role !== 'assistant') return `messages.${i}: после системного сообщения может идти только ответ ассистента, или оно должно быть последним`
  }
  return null
}

/** The routing fields (fallbacks, plugins, provider, search tools…) are read as for chat; only the prompt is Anthropic's. */
export function messagesShape(body: MessagesBody, get: (id: string) => ModelRow | undefined): ChatShape {
  const misplaced = systemPlacementProblem(body.messages)
  if (misplaced) throw invalidRequest(misplaced, 'messages')
  // Mid-conversation system messages are prompt like any turn: the hold counts them.
  const messages = body.messages.map((m) => ({ role: m.role, content: chatParts(m.content) }))
  if (body.system !== undefined) messages.unshift({ role: 'system', content: chatParts(body.system) })
  // max_tokens is required and covers the thinking budget too (Anthropic's rule).
  return requestShape(body, get, { kind: 'chat', prompt: estimatePrompt(messages, [body.tools]), requestedTokens: body.max_tokens })
}

/** Anthropic's usage object (message_start has the input tokens, message_delta the output and the cost). */
type AnthropicUsage = {
  input_tokens?: number
  output_tokens?: number
  cache_creation_input_tokens?: number
  cache_read_input_tokens?: number
  cost?: number
  [k: string]: unknown
}
/** The fields of a Messages stream event the gateway reads. */
type MessagesEvent = { type?: string; message?: { id?: string; usage?: AnthropicUsage }; usage?: AnthropicUsage; error?: { message?: string } }

/**
 * Anthropic's usage in chat's names: every input token (cache writes and reads included) is prompt,
 * the reads its cached part; a ruble upstream's `cost_rub` too (upstream/kinds/translate.ts).
 */
const usageOf = (u: AnthropicUsage | undefined | null): Usage | undefined =>
  u
    ? {
        prompt_tokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
        completion_tokens: u.output_tokens,
        cost: u.cost,
        cost_rub: u.cost_rub,
        prompt_tokens_details: { cached_tokens: u.cache_read_input_tokens },
      }
    : undefined

const errorEvent = (type: string, message: string) => `event: error\n${sseData({ type: 'error', error: { type, message } })}`

export const messagesWire: Wire = {
  path: '/messages',
  answer(json) {
    if (json.type === 'error' || json.error) return { error: (json.error as { message?: string } | undefined)?.message ?? 'ошибка' }
    if (!Array.isArray(json.content)) return { error: 'ответ без content' }
    return { usage: usageOf(json.usage as AnthropicUsage | undefined), model: json.model, responseId: typeof json.id === 'string' ? json.id : undefined }
  },
  withCharge: (json, _usage, charged) => ({ ...json, usage: chargedUsage(json.usage as Record<string, unknown> | undefined, charged) }),
  reader() {
    // message_start carries the input tokens, message_delta the final output tokens (and the cost).
    let started: AnthropicUsage = {}
    return {
      plain: (block) => !block.includes('message_start') && !block.includes('message_delta') && !block.includes('"error"'),
      // Per event: its `event:` line and its data both name content_block_delta.
      pieces: (block) => countEvents(block, ['content_block_delta']),
      inspect(_event, data, needId) {
        const obj = parseEvent<MessagesEvent>(data)
        if (!obj) return 'drop'
        if (obj.type === 'message_start') {
          started = obj.message?.usage ?? {}
          // The router's own prompt count: what a dropped stream's guess bills, never our estimate.
          const promptTokens = typeof started.input_tokens === 'number' ? usageOf(started)!.prompt_tokens : undefined
          return { responseId: obj.message?.id, id: needId ? generationIdOf(obj.message?.id) : undefined, promptTokens }
        }
        if (obj.type === 'message_delta' && obj.usage) {
          const raw = { ...started, ...obj.usage }
          return { usage: usageOf(raw)!, render: (_usage, charged) => `event: message_delta\n${sseData({ ...obj, usage: chargedUsage(raw, charged) })}` }
        }
        if (obj.type === 'error') return { error: obj.error?.message ?? '' }
        return { piece: obj.type === 'content_block_delta' }
      },
      errorEvent: (message) => errorEvent('api_error', message),
      keepAlive: `event: ping\n${sseData({ type: 'ping' })}`,
    }
  },
}
