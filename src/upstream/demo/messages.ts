// `POST /messages` and `POST /messages/count_tokens`: the Anthropic Messages API as the router serves
// it (protocols.md 1.12). The answer is chat's (chat.ts plans, bills and records it); this file maps
// the request in and the answer out, in Anthropic's shapes.
//
// Accounting (the gateway's hold relies on it):
//   input_tokens  = ceil(code points of all text / 4) + 4 per entry of `messages` (mid-conversation
//                   system messages included)
//                   + ceil(code points of JSON.stringify(tools) / 4) when `tools` is present,
//                   where "all text" = `system` (string or text blocks) + text blocks + tool_result
//                   contents (a string or its text blocks) + (server_)tool_use inputs as compact JSON; thinking,
//                   redacted_thinking, image and document blocks add no tokens (replies.ts formula,
//                   with `system` counted with the text but not as a message)
//   images        = image blocks, also inside tool_result contents: pricing.image each
//   output_tokens = pieces emitted: the reply's words (as chat), then the tool input's JSON in
//                   chunks of TOOL_JSON_CHUNK code points
//   cost          = computeCost (pricing.ts) on those, plus web results for a `:online` model
// `count_tokens` answers the same input_tokens and is free (no generation recorded).
//
// Mid-conversation system messages (`role: "system"` in `messages`, string or text blocks) are
// accepted where Anthropic accepts them (protocols.md 1.12): not first; after a user turn or an
// assistant turn ending in a server_tool_use block; last or followed by an assistant turn; never two
// in a row. Elsewhere: 400 invalid_request_error.
//
// Tool use: when `tools` is non-empty, the last user message has no tool_result block,
// tool_choice.type is not "none", and (tool_choice.type is "any" or "tool", or the last user text
// contains a tool's name, case-insensitively), the answer is a short sentence and a tool_use block
// for the tool (tool_choice "tool": the named one; else the first tool whose name the text contains;
// "any" without one: the first tool) with input {each required string property: "демо"},
// stop_reason "tool_use". A call that would not fit in max_tokens is not made: the answer is its
// sentence, stop_reason "max_tokens". After a tool_result the answer mentions the result.
//
// Stream events: message_start, ping, then per content block content_block_start,
// content_block_delta… (text_delta / input_json_delta), content_block_stop, then message_delta
// (stop_reason and the usage with `cost`) and message_stop. Long waits send `ping` events.
import { outputsText, type ResolvedChatModel, resolveRequestedModel } from './catalogue'
import {
  breakStream,
  brokenJson,
  type ChatRequest,
  cancelled,
  failsMidway,
  Generation,
  generatePieces,
  planAnswer,
  type RequestContext,
  requestFaults,
  type SseWriter,
  sseResponse,
  streamPieces,
} from './chat'
import { type Fault, httpFaultResponse, stripDirectives } from './faults'
import { type ChatMessage, countPromptTokens, replyText, snippet } from './replies'
import { routeCandidates } from './routing'
import type { DemoState } from './state'
import { generationId, json, untilAborted } from './wire'

/** Code points of tool input JSON per `input_json_delta` (and per output token). */
export const TOOL_JSON_CHUNK = 8
/** The value a tool call gives each required string property. */
export const DEMO_TOOL_ARGUMENT = 'демо'
/** What the Messages API sends to keep a stream alive (instead of chat's comment). */
const PING = { type: 'ping' }
const PING_FRAME = `event: ping\ndata: ${JSON.stringify(PING)}\n\n`
const PROVIDER_ERROR_MESSAGE = 'Upstream provider error'
const BLOCK_TYPES = new Set(['text', 'image', 'document', 'tool_use', 'server_tool_use', 'tool_result', 'thinking', 'redacted_thinking'])
const TOOL_RESULT_BLOCK_TYPES = new Set(['text', 'image', 'document'])
const TOOL_CHOICES = new Set(['auto', 'any', 'tool', 'none'])
const THINKING_TYPES = new Set(['enabled', 'disabled', 'adaptive'])

type Json = Record<string, unknown>
type Block = Json & { type: string }
type Message = { role: 'user' | 'assistant' | 'system'; content: string | Block[] }
type Tool = Json & { name: string; input_schema?: unknown }
type ToolChoice = { type: 'auto' | 'any' | 'tool' | 'none'; name?: string }
type StopReason = 'end_turn' | 'max_tokens' | 'tool_use'

type MessagesRequest = {
  model: ResolvedChatModel
  /** null for count_tokens. */
  maxTokens: number | null
  messages: Message[]
  system: string[]
  tools: Tool[]
  /** The body's `tools` as sent, counted as prompt tokens. */
  toolsJson: unknown
  toolChoice: ToolChoice
  stream: boolean
  user: string | null
}

type ToolCall = { id: string; name: string; input: Record<string, string> }

/** One request's answer: chat's generation plus how its pieces split into content blocks. */
type Answer = {
  gen: Generation
  messageId: string
  /** Pieces [0, textPieces) are the text block; the rest are the tool call's input JSON. */
  textPieces: number
  call: ToolCall | null
  stopReason: StopReason
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** What GET /generation records as finish_reason for each stop_reason. */
const FINISH_REASON: Record<StopReason, string> = { end_turn: 'stop', max_tokens: 'length', tool_use: 'tool_calls' }

// ---------------------------------------------------------------- errors and auth

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
}

/** Anthropic's error type for a status: the table above, else api_error (5xx) or invalid_request_error. */
export const anthropicErrorType = (status: number) => ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')

const errorBody = (type: string, message: string) => ({ type: 'error', error: { type, message } })

/** `{type:"error", error:{type, message}}` with the status's Anthropic type (protocols.md 1.12). */
export function anthropicError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return json(errorBody(anthropicErrorType(status), message), status, headers)
}

const invalid = (message: string) => anthropicError(400, message)

/** A fault's OpenRouter-shaped error in Anthropic's shape: same status, message and Retry-After. */
async function reshapeError(res: Response): Promise<Response> {
  const body = (await res.json()) as { error?: { message?: unknown } }
  const retryAfter = res.headers.get('retry-after')
  const message = typeof body.error?.message === 'string' ? body.error.message : res.statusText
  return anthropicError(res.status, message, retryAfter ? { 'Retry-After': retryAfter } : {})
}

/** The Messages routes (the Anthropic SDK calls `{base}/v1/messages`). */
export const MESSAGES_PATH = /\/messages(?:\/count_tokens)?$/

/**
 * The key on the Messages routes: `x-api-key` (how Claude Code sends it) or `Authorization: Bearer`;
 * a refusal is a 401 authentication_error.
 */
export function authoriseMessages(req: Request, apiKey: string): Response | null {
  const bearer = req.headers.get('authorization')
  const key = req.headers.get('x-api-key') ?? (bearer?.startsWith('Bearer ') ? bearer.slice(7) : bearer)
  if (key === null) return anthropicError(401, 'No auth credentials found')
  return key === apiKey ? null : anthropicError(401, 'User not found.')
}

// ---------------------------------------------------------------- request

/** A problem with one content block, or null. `where` names it in the message. */
function blockProblem(b: unknown, where: string, role: string, inToolResult = false): string | null {
  if (!isObject(b) || typeof b.type !== 'string') return `${where}: expected a content block object with a type`
  if (!(inToolResult ? TOOL_RESULT_BLOCK_TYPES : BLOCK_TYPES).has(b.type)) {
    return `${where}: unsupported content block type "${b.type}"`
  }
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? null : `${where}.text: Field required`
    case 'image': {
      const s = b.source
      if (!isObject(s)) return `${where}.source: Field required`
      if (s.type === 'base64') {
        return typeof s.media_type === 'string' && typeof s.data === 'string' ? null : `${where}.source: base64 needs media_type and data`
      }
      if (s.type === 'url') return typeof s.url === 'string' ? null : `${where}.source.url: Field required`
      return `${where}.source.type: expected "base64" or "url"`
    }
    case 'document':
      return isObject(b.source) ? null : `${where}.source: Field required`
    case 'tool_use':
    case 'server_tool_use': // a server tool's call (web search…), passed back after a pause_turn
      if (role !== 'assistant') return `${where}: ${b.type} blocks belong to assistant messages`
      return typeof b.id === 'string' && typeof b.name === 'string' && isObject(b.input) ? null : `${where}: ${b.type} needs id, name and an input object`
    case 'tool_result': {
      if (role !== 'user') return `${where}: tool_result blocks belong to user messages`
      if (typeof b.tool_use_id !== 'string') return `${where}.tool_use_id: Field required`
      const c = b.content
      if (c === undefined || typeof c === 'string') return null
      if (!Array.isArray(c)) return `${where}.content: expected a string or an array of blocks`
      for (const [i, inner] of c.entries()) {
        const problem = blockProblem(inner, `${where}.content.${i}`, role, true)
        if (problem) return problem
      }
      return null
    }
    case 'thinking':
      return typeof b.thinking === 'string' ? null : `${where}.thinking: Field required`
    default: // redacted_thinking
      return typeof b.data === 'string' ? null : `${where}.data: Field required`
  }
}

const endsInServerToolUse = (m: Json) => m.role === 'assistant' && Array.isArray(m.content) && isObject(m.content.at(-1)) && m.content.at(-1).type === 'server_tool_use'

/** Where a system message may stand (the rules at the top of this file), or the problem. */
function systemProblem(raw: Json[], i: number): string | null {
  const m = raw[i]!
  if (typeof m.content !== 'string' && !(Array.isArray(m.content) && m.content.every((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string'))) {
    return `messages.${i}.content: system messages take a string or text blocks`
  }
  if (i === 0) return 'messages.0: the first message cannot be a system message; use the top-level `system` parameter'
  const before = raw[i - 1]!
  const after = raw[i + 1]
  if (before.role === 'system' || after?.role === 'system') return `messages.${i}: system messages cannot be consecutive`
  if (before.role !== 'user' && !endsInServerToolUse(before)) {
    return `messages.${i}: a system message must follow a user message or an assistant message ending in a server tool use`
  }
  if (after && after.role !== 'assistant') return `messages.${i}: a system message must be the last message or be followed by an assistant message`
  return null
}

function parseMessages(raw: unknown): Message[] | Response {
  if (!Array.isArray(raw) || raw.length === 0) return invalid('messages: at least one message is required')
  for (const [i, m] of raw.entries()) {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system')) {
      return invalid(`messages.${i}.role: Input should be 'user', 'assistant' or 'system'`)
    }
    if (m.role === 'system') {
      const problem = systemProblem(raw, i)
      if (problem) return invalid(problem)
      continue
    }
    if (typeof m.content === 'string') continue
    if (!Array.isArray(m.content)) return invalid(`messages.${i}.content: expected a string or an array of blocks`)
    for (const [j, b] of m.content.entries()) {
      const problem = blockProblem(b, `messages.${i}.content.${j}`, m.role)
      if (problem) return invalid(problem)
    }
  }
  return raw as Message[]
}

function parseSystem(raw: unknown): string[] | Response {
  if (raw === undefined || raw === null) return []
  if (typeof raw === 'string') return [raw]
  if (Array.isArray(raw) && raw.every((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')) {
    return raw.map((b) => (b as { text: string }).text)
  }
  return invalid('system: expected a string or an array of text blocks')
}

function parseTools(raw: unknown): Tool[] | Response {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return invalid('tools: expected an array')
  for (const [i, t] of raw.entries()) {
    if (!isObject(t) || typeof t.name !== 'string' || t.name === '') return invalid(`tools.${i}.name: Field required`)
    // Server tools (`type` other than "custom") carry no schema.
    const custom = t.type === undefined || t.type === 'custom'
    if (custom && !isObject(t.input_schema)) return invalid(`tools.${i}.input_schema: Field required`)
  }
  return raw as Tool[]
}

function parseToolChoice(raw: unknown, tools: Tool[]): ToolChoice | Response {
  if (raw === undefined || raw === null) return { type: 'auto' }
  if (!isObject(raw) || typeof raw.type !== 'string' || !TOOL_CHOICES.has(raw.type)) {
    return invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
  }
  if (raw.type === 'tool' && !tools.some((t) => t.name === raw.name)) {
    return invalid(`tool_choice.name: no tool named ${JSON.stringify(raw.name ?? null)} in tools`)
  }
  return raw as ToolChoice
}

/** Problems with the sampling and control fields the demo accepts but does not act on. */
function optionsProblem(body: Json, maxTokens: number | null): string | null {
  for (const key of ['temperature', 'top_p', 'top_k'] as const) {
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'number') return `${key}: expected a number`
  }
  const stops = body.stop_sequences
  if (stops !== undefined && !(Array.isArray(stops) && stops.every((s) => typeof s === 'string'))) {
    return 'stop_sequences: expected an array of strings'
  }
  const t = body.thinking
  if (t !== undefined && t !== null) {
    if (!isObject(t) || typeof t.type !== 'string' || !THINKING_TYPES.has(t.type)) {
      return "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'"
    }
    const budget = t.budget_tokens
    if (t.type === 'enabled' && (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1)) {
      return 'thinking.budget_tokens: expected a positive integer'
    }
    if (t.type === 'enabled' && maxTokens !== null && (budget as number) >= maxTokens) {
      return '`max_tokens` must be greater than `thinking.budget_tokens`'
    }
  }
  if (body.metadata !== undefined && body.metadata !== null && !isObject(body.metadata)) return 'metadata: expected an object'
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return 'stream: expected a boolean'
  return null
}

/** `count`: count_tokens, where `max_tokens` is not needed (and ignored when sent). */
function parseRequest(body: unknown, count: boolean, autoPool?: readonly string[]): MessagesRequest | Response {
  if (!isObject(body)) return invalid('Request body must be a JSON object')
  if (typeof body.model !== 'string' || body.model === '') return invalid('model: Field required')
  let maxTokens: number | null = null
  if (!count) {
    const raw = body.max_tokens
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) {
      return invalid(raw === undefined ? 'max_tokens: Field required' : 'max_tokens: expected a positive integer')
    }
    maxTokens = raw
  }
  const messages = parseMessages(body.messages)
  if (messages instanceof Response) return messages
  const system = parseSystem(body.system)
  if (system instanceof Response) return system
  const tools = parseTools(body.tools)
  if (tools instanceof Response) return tools
  const toolChoice = parseToolChoice(body.tool_choice, tools)
  if (toolChoice instanceof Response) return toolChoice
  const problem = optionsProblem(body, maxTokens)
  if (problem) return invalid(problem)
  // The model as the router routes it: the auto router's pick, within provider.max_price (free token counts ignore the cap).
  const routed = count ? resolveRequestedModel(body.model) : routeCandidates([body.model], body, autoPool)
  if (routed && 'failure' in routed) {
    const f = routed.failure
    // An unknown model is Anthropic's 404 `model: …`; no model within the cap, or a malformed cap, as the router says.
    return f.errorType === undefined ? anthropicError(404, `model: ${body.model}`) : anthropicError(f.status, f.message)
  }
  const model = Array.isArray(routed) ? routed[0] : routed
  if (!model) return anthropicError(404, `model: ${body.model}`)
  if (!outputsText(model.model)) {
    return anthropicError(404, `model: ${body.model} does not answer with text`)
  }
  const userId = isObject(body.metadata) ? body.metadata.user_id : undefined
  return {
    model,
    maxTokens,
    messages,
    system,
    tools,
    toolsJson: body.tools,
    toolChoice,
    stream: body.stream === true,
    user: typeof userId === 'string' ? userId : null,
  }
}

// ---------------------------------------------------------------- accounting

const blocksOf = (m: Message): Block[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content)

/** A tool_result's content as text (its text blocks joined). */
function resultText(b: Block): string {
  const c = b.content
  if (typeof c === 'string') return c
  return Array.isArray(c)
    ? c
        .filter((x: Block) => x.type === 'text')
        .map((x: Block) => x.text as string)
        .join('\n')
    : ''
}

/** A block as chat parts: what it counts as text, and image/file stand-ins for what it bills otherwise. */
function chatParts(b: Block): unknown[] {
  switch (b.type) {
    case 'text':
      return [{ type: 'text', text: b.text }]
    case 'tool_use':
    case 'server_tool_use':
      return [{ type: 'text', text: JSON.stringify(b.input) }]
    case 'tool_result':
      return typeof b.content === 'string' ? [{ type: 'text', text: b.content }] : Array.isArray(b.content) ? (b.content as Block[]).flatMap(chatParts) : []
    case 'image':
      return [{ type: 'image_url' }]
    case 'document':
      return [{ type: 'file' }]
    default: // thinking and redacted_thinking: not billed as input
      return []
  }
}

/**
 * The request as chat's accounting sees it (replies.ts): one chat message per message, `system`'s
 * text counted with the first one's text (it is not a message, so it adds no per-message tokens).
 */
function chatView(req: MessagesRequest): ChatMessage[] {
  const view: ChatMessage[] = req.messages.map((m) => ({ role: m.role, content: blocksOf(m).flatMap(chatParts) }))
  const system = req.system.map((text) => ({ type: 'text', text }))
  view[0] = { role: view[0]!.role, content: [...system, ...(view[0]!.content as unknown[])] }
  return view
}

const countInputTokens = (req: MessagesRequest) => countPromptTokens(chatView(req), [req.toolsJson])

// ---------------------------------------------------------------- the answer

const lastUserMessage = (req: MessagesRequest) => [...req.messages].reverse().find((m) => m.role === 'user')

/** The last user message's text blocks (what faults and the reply read). */
function lastUserText(req: MessagesRequest): string {
  const m = lastUserMessage(req)
  return m
    ? blocksOf(m)
        .filter((b) => b.type === 'text')
        .map((b) => b.text as string)
        .join('\n')
    : ''
}

const isStringSchema = (p: unknown) => isObject(p) && (p.type === 'string' || (Array.isArray(p.type) && p.type.includes('string')))

/** The demo's call input: every required string property of the tool's input_schema set to "демо". */
function demoInput(tool: Tool): Record<string, string> {
  const schema = isObject(tool.input_schema) ? tool.input_schema : {}
  const props = isObject(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  const names = required.filter((n): n is string => typeof n === 'string' && isStringSchema(props[n]))
  return Object.fromEntries(names.map((n) => [n, DEMO_TOOL_ARGUMENT]))
}

/** The tool this answer calls, or null (the rule at the top of this file). */
function toolToCall(req: MessagesRequest, userText: string): Tool | null {
  const last = lastUserMessage(req)
  if (req.tools.length === 0 || req.toolChoice.type === 'none') return null
  if (last && blocksOf(last).some((b) => b.type === 'tool_result')) return null
  if (req.toolChoice.type === 'tool') return req.tools.find((t) => t.name === req.toolChoice.name)!
  const lower = userText.toLowerCase()
  const named = req.tools.find((t) => lower.includes(t.name.toLowerCase()))
  return named ?? (req.toolChoice.type === 'any' ? req.tools[0]! : null)
}

/** The answer after tool results: each result, by its tool's name, in a sentence. */
function toolResultReply(req: MessagesRequest, results: Block[]): string {
  const names = new Map<string, string>()
  for (const m of req.messages) {
    for (const b of blocksOf(m)) if (b.type === 'tool_use') names.set(b.id as string, b.name as string)
  }
  const said = results.map((b) => {
    const name = names.get(b.tool_use_id as string) ?? 'инструмент'
    const text = snippet(resultText(b))
    return b.is_error === true ? `${name} сообщил об ошибке «${text}».` : `${name} вернул «${text}».`
  })
  return `Демо-ответ: ${said.join(' ')} Это локально сгенерированный ответ демо-режима AI Gateway; подключите OPENROUTER_API_KEY для настоящих моделей.`
}

/** `s` in chunks of at most `size` code points. */
function chunks(s: string, size: number): string[] {
  const cps = [...s]
  const out: string[] = []
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''))
  return out
}

const randomTail = () => generationId().slice(-20)

function planMessage(req: MessagesRequest, faults: Set<Fault>, state: DemoState): Answer {
  const faultsOn = state.opts.faults
  const rawText = lastUserText(req)
  const userText = faultsOn ? stripDirectives(rawText) : rawText
  const last = lastUserMessage(req)
  const results = last ? blocksOf(last).filter((b) => b.type === 'tool_result') : []
  const tool = toolToCall(req, userText)
  const reply = results.length > 0 ? toolResultReply(req, results) : tool ? `Демо-ответ: вызываю инструмент ${tool.name}.` : replyText(userText)
  const chatReq: ChatRequest = {
    candidates: [req.model],
    messages: chatView(req),
    stream: req.stream,
    maxTokens: req.maxTokens,
    choices: 1,
    wantsImage: false,
    aspectRatio: undefined,
    user: req.user,
    article: false,
    webResults: null,
    promptExtras: [req.toolsJson],
    reply,
  }
  const plan = { ...planAnswer(chatReq, faults, state.opts.tokenDelayMs, faultsOn), apiType: 'messages' as const }
  const textPieces = plan.pieces.length
  let stopReason: StopReason = plan.finishReason === 'length' ? 'max_tokens' : 'end_turn'
  let call: ToolCall | null = null
  // The call follows its sentence, whole or not at all (not with `empty`, nor after a cut sentence).
  if (tool && textPieces > 0 && stopReason === 'end_turn') {
    const input = demoInput(tool)
    const json = chunks(JSON.stringify(input), TOOL_JSON_CHUNK)
    if (textPieces + json.length <= req.maxTokens!) {
      call = { id: `toolu_${randomTail()}`, name: tool.name, input }
      plan.pieces = [...plan.pieces, ...json]
      stopReason = 'tool_use'
    } else stopReason = 'max_tokens'
  }
  return { gen: new Generation(plan, state), messageId: `msg_${randomTail()}`, textPieces, call, stopReason }
}

// ---------------------------------------------------------------- responses

/** `cost` (USD, 10× under `overbill`) as the router adds it to usage; absent under `nocost`. */
function reportedCost(gen: Generation): { cost?: number } {
  const billing = gen.billing()
  return 'cost' in billing ? { cost: billing.cost } : {}
}

const usage = (gen: Generation, outputTokens: number) => ({
  input_tokens: gen.plan.promptTokens,
  output_tokens: outputTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
})

/** The content blocks delivered so far. */
function content(a: Answer): Block[] {
  const got = a.gen.plan.pieces.slice(0, a.gen.emitted)
  const blocks: Block[] = []
  if (a.textPieces > 0 && got.length > 0) blocks.push({ type: 'text', text: got.slice(0, a.textPieces).join('') })
  if (a.call && got.length > a.textPieces) blocks.push({ type: 'tool_use', ...a.call })
  return blocks
}

function messageBody(a: Answer) {
  const { gen } = a
  return {
    id: a.messageId,
    type: 'message',
    role: 'assistant',
    model: gen.plan.answer.reportedId,
    content: content(a),
    stop_reason: a.stopReason,
    stop_sequence: null,
    usage: { ...usage(gen, gen.emitted), ...reportedCost(gen) },
  }
}

async function respondJson(a: Answer, ctx: RequestContext): Promise<Response> {
  const { gen } = a
  const { faults } = gen.plan
  const gone = await generatePieces(gen, ctx)
  if (gone) return gone
  if (faults.has('break')) return brokenJson(gen, messageBody(a))
  const headers = { 'X-Generation-Id': gen.plan.id }
  if (failsMidway(faults)) {
    gen.finish({ finishReason: 'error', cancelled: false })
    return json(errorBody('api_error', PROVIDER_ERROR_MESSAGE), 200, headers)
  }
  gen.finish({ finishReason: FINISH_REASON[a.stopReason], cancelled: false })
  return json(messageBody(a), 200, headers)
}

/** The block piece `k` (0-based) belongs to: its index in `content` and how it starts. */
function blockOf(a: Answer, k: number): { index: number; start: Block } {
  if (k < a.textPieces) return { index: 0, start: { type: 'text', text: '' } }
  return { index: a.textPieces > 0 ? 1 : 0, start: { type: 'tool_use', id: a.call!.id, name: a.call!.name, input: {} } }
}

async function pump(a: Answer, out: SseWriter, ctx: RequestContext): Promise<void> {
  const { gen } = a
  const { faults } = gen.plan
  out.event('message_start', {
    type: 'message_start',
    message: { ...messageBody(a), content: [], stop_reason: null, usage: usage(gen, 0) },
  })
  out.event('ping', PING)
  if (faults.has('toplevel200')) {
    out.event('error', errorBody('api_error', PROVIDER_ERROR_MESSAGE))
    return out.close()
  }
  let open: number | null = null
  const sent = await streamPieces(gen, out, ctx, (_choice, piece) => {
    const { index, start } = blockOf(a, gen.emitted - 1)
    if (open !== index) {
      if (open !== null) out.event('content_block_stop', { type: 'content_block_stop', index: open })
      out.event('content_block_start', { type: 'content_block_start', index, content_block: start })
      open = index
    }
    const delta = start.type === 'text' ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece }
    out.event('content_block_delta', { type: 'content_block_delta', index, delta })
  })
  if (!sent) return
  if (faults.has('break')) return breakStream(gen, out)
  if (failsMidway(faults)) {
    out.event('error', errorBody('api_error', PROVIDER_ERROR_MESSAGE))
    gen.finish({ finishReason: 'error', cancelled: false })
    return out.close()
  }
  if (open !== null) out.event('content_block_stop', { type: 'content_block_stop', index: open })
  out.event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: a.stopReason, stop_sequence: null },
    usage: { ...usage(gen, gen.emitted), ...reportedCost(gen) },
  })
  out.event('message_stop', { type: 'message_stop' })
  gen.finish({ finishReason: FINISH_REASON[a.stopReason], cancelled: false })
  out.close()
}

// ---------------------------------------------------------------- entry

/** `POST /messages`. The `anthropic-version` and `anthropic-beta` headers are optional (the request log keeps them). */
export async function handleMessages(body: unknown, state: DemoState, ctx: RequestContext): Promise<Response> {
  const req = parseRequest(body, false, state.opts.autoRouterModels)
  if (req instanceof Response) return req
  const faults = requestFaults([lastUserText(req)], body as Json, state)
  const refused = httpFaultResponse(faults)
  if (refused) return reshapeError(refused)
  const answer = planMessage(req, faults, state)
  if (faults.has('timeout')) {
    await untilAborted(ctx.signal)
    return cancelled(answer.gen)
  }
  if (faults.has('toplevel200') && !req.stream) return json(errorBody('api_error', PROVIDER_ERROR_MESSAGE))
  return req.stream ? sseResponse(answer.gen, ctx, (_gen, out, c) => pump(answer, out, c), PING_FRAME) : respondJson(answer, ctx)
}

/** `POST /messages/count_tokens`: `{input_tokens}` as /messages would bill them; free, so no generation. */
export function handleCountTokens(body: unknown): Response {
  const req = parseRequest(body, true)
  return req instanceof Response ? req : json({ input_tokens: countInputTokens(req) })
}
