// `POST /responses`: OpenAI's Responses API as the router serves it (protocols.md 1.12), stateless:
// the whole history comes in `input`, and `previous_response_id` is refused. The answer is planned,
// delivered and billed by chat.ts (`planAnswer`, `Generation`), so faults, `tokenDelayMs`,
// cancellation and the generation record behave exactly as for chat completions.
//
// Tokens (billed with computeCost like chat: prompt × pricing.prompt + input images × pricing.image
// + output × pricing.completion, exact BigInt):
//   input_tokens  = ceil(code points of all text / 4) + 4 per input item (a string `input` is one item)
//                   + ceil(code points of JSON.stringify(tools) / 4) when `tools` is given,
//                   where "all text" = `instructions` + message contents (a string, or its
//                   input_text/output_text parts) + function_call `arguments` + function_call_output
//                   `output` (a string, or its input_text parts); input_image parts are billed at
//                   pricing.image each instead of tokens
//   output_tokens = streamed pieces: chat's reply words, or the function call's arguments in chunks of
//                   4 code points; both cut to `max_output_tokens` (then status "incomplete")
//
// Function calling: with a function tool in `tools`, `tool_choice` not "none" and the last input item
// not a function_call_output, the answer is one function_call (and no text) when tool_choice names
// the function, or is "required" (the first function, unless the last user text names another), or
// the last user text contains the function's name (case-insensitive; the first such function).
// Its arguments set every required string parameter to "демо". After a function_call_output the
// answer is text that quotes the output — unless the last user text holds `[[tool-loop:N]]`: then it
// calls again (the function named as above, else the first) until the input holds N outputs, an
// agent's tool loop. Like the router, a function_call_output needs its function_call earlier in
// `input` (400 otherwise): the history must really be there.
import { outputsText } from './catalogue'
import {
  breakStream,
  brokenJson,
  type ChatRequest,
  cancelled,
  failsMidway,
  Generation,
  generatePieces,
  parseCandidates,
  planAnswer,
  type RequestContext,
  requestFaults,
  type SseWriter,
  sseResponse,
  streamPieces,
} from './chat'
import { httpFaultResponse } from './faults'
import { type ChatMessage, lastUserText, snippet, textParts } from './replies'
import type { DemoState } from './state'
import { json, openRouterError, sleep, untilAborted } from './wire'

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer'])
const TOOL_LOOP = /\[\[tool-loop:(\d{1,4})\]\]/
/** The value a function call's required string parameters get. */
export const DEMO_ARGUMENT = 'демо'
/** Code points per streamed piece (and output token) of a function call's arguments. */
export const ARGUMENT_PIECE_CHARS = 4
const FAILURE_MESSAGE = 'Upstream provider error'
/** How long a `linger` stream stays open after its final event. */
const LINGER_MS = 300

type FunctionTool = { type: 'function'; name: string; parameters?: unknown }

/** An input item: its role in the chat view and, for the Responses API, what kind it was. */
type InputItem =
  | { type: 'message'; message: ChatMessage }
  | { type: 'function_call'; message: ChatMessage; callId: string; name: string }
  | { type: 'function_call_output'; message: ChatMessage; callId: string; output: string }

type ResponsesRequest = {
  chat: ChatRequest
  items: InputItem[]
  instructions: string | null
  tools: unknown[]
  functions: FunctionTool[]
  toolChoice: unknown
  maxOutputTokens: number | null
  temperature: number | null
  topP: number | null
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const invalid = (message: string) => openRouterError(400, message, { error_type: 'invalid_request' })
const codePoints = (s: string) => [...s].length

function randomId(prefix: string): string {
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')
  return `${prefix}_${hex}`
}

// ---------------------------------------------------------------- request

/** A content part in chat's terms: text parts count as text, images bill at pricing.image, files are media. */
function chatPart(part: unknown, where: string): unknown | Response {
  if (!isObject(part)) return invalid(`${where}: expected an object`)
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      if (typeof part.text !== 'string') return invalid(`${where}.text must be a string`)
      return { type: 'text', text: part.text }
    case 'input_image':
      return { type: 'image_url', image_url: { url: typeof part.image_url === 'string' ? part.image_url : '' } }
    case 'input_file':
      return { type: 'file', file: part }
    default:
      return invalid(`${where}: unsupported content type ${JSON.stringify(part.type)}`)
  }
}

/** A message's `content` (or a function_call_output's `output`): a string or an array of parts. */
function chatContent(content: unknown, where: string): unknown | Response {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return invalid(`${where} must be a string or an array of content parts`)
  const parts: unknown[] = []
  for (const [i, p] of content.entries()) {
    const part = chatPart(p, `${where}[${i}]`)
    if (part instanceof Response) return part
    parts.push(part)
  }
  return parts
}

function parseItem(raw: unknown, i: number): InputItem | Response {
  const where = `input[${i}]`
  if (!isObject(raw)) return invalid(`${where}: expected an object`)
  const type = raw.type ?? (raw.role !== undefined && raw.content !== undefined ? 'message' : undefined)
  if (type === 'message') {
    if (typeof raw.role !== 'string' || !MESSAGE_ROLES.has(raw.role)) {
      return invalid(`${where}.role must be user, assistant, system or developer`)
    }
    const content = chatContent(raw.content, `${where}.content`)
    if (content instanceof Response) return content
    return { type, message: { role: raw.role, content } }
  }
  if (type === 'function_call') {
    if (typeof raw.call_id !== 'string' || typeof raw.name !== 'string' || typeof raw.arguments !== 'string') {
      return invalid(`${where}: a function_call needs string call_id, name and arguments`)
    }
    return { type, callId: raw.call_id, name: raw.name, message: { role: 'assistant', content: raw.arguments } }
  }
  if (type === 'function_call_output') {
    if (typeof raw.call_id !== 'string') return invalid(`${where}.call_id must be a string`)
    const content = chatContent(raw.output, `${where}.output`)
    if (content instanceof Response) return content
    const output = textParts(content).join('\n')
    return { type, callId: raw.call_id, output, message: { role: 'tool', content } }
  }
  return invalid(`${where}: unsupported item type ${JSON.stringify(type ?? null)}`)
}

function parseInput(raw: unknown): InputItem[] | Response {
  if (typeof raw === 'string') return [{ type: 'message', message: { role: 'user', content: raw } }]
  if (!Array.isArray(raw) || raw.length === 0) {
    return invalid('Input required: specify "input" as a string or a non-empty array of items')
  }
  const items: InputItem[] = []
  const calls = new Set<string>()
  for (const [i, r] of raw.entries()) {
    const item = parseItem(r, i)
    if (item instanceof Response) return item
    if (item.type === 'function_call') calls.add(item.callId)
    if (item.type === 'function_call_output' && !calls.has(item.callId)) return invalid(`No tool call found for function call output with call_id ${item.callId}.`)
    items.push(item)
  }
  return items
}

function parseTools(raw: unknown): unknown[] | Response {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return invalid('tools must be an array')
  const bad = raw.findIndex((t) => !isObject(t) || typeof t.type !== 'string' || (t.type === 'function' && typeof t.name !== 'string'))
  return bad >= 0 ? invalid(`tools[${bad}]: expected {type:"function", name, parameters}`) : raw
}

const optionalNumber = (v: unknown, name: string): number | null | Response =>
  v === undefined || v === null ? null : typeof v === 'number' ? v : invalid(`${name} must be a number`)

function parseResponsesRequest(body: unknown, autoPool: readonly string[]): ResponsesRequest | Response {
  if (!isObject(body)) return invalid('Request body must be a JSON object')
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    return invalid('previous_response_id is not supported')
  }
  const candidates = parseCandidates({ model: body.model, models: body.models, provider: body.provider }, autoPool)
  if (candidates instanceof Response) return candidates
  if (!outputsText(candidates[0]!.model)) {
    return openRouterError(404, 'No endpoints found that support the requested output modalities: text', {
      error_type: 'not_found',
    })
  }
  const items = parseInput(body.input)
  if (items instanceof Response) return items
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string') {
    return invalid('instructions must be a string')
  }
  const tools = parseTools(body.tools)
  if (tools instanceof Response) return tools
  const functions = tools.filter((t): t is FunctionTool => isObject(t) && t.type === 'function')
  const toolChoice = body.tool_choice ?? 'auto'
  if (isObject(toolChoice) && !functions.some((f) => f.name === toolChoice.name)) {
    return invalid(`tool_choice names a function that is not in tools: ${JSON.stringify(toolChoice.name ?? null)}`)
  }
  const max = body.max_output_tokens
  if (max !== undefined && max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max < 1)) {
    return invalid('max_output_tokens must be a positive integer')
  }
  const temperature = optionalNumber(body.temperature, 'temperature')
  if (temperature instanceof Response) return temperature
  const topP = optionalNumber(body.top_p, 'top_p')
  if (topP instanceof Response) return topP
  const maxOutputTokens = typeof max === 'number' ? max : null
  return {
    chat: {
      candidates,
      messages: items.map((it) => it.message),
      stream: body.stream === true,
      maxTokens: maxOutputTokens,
      choices: 1,
      wantsImage: false,
      aspectRatio: undefined,
      user: typeof body.user === 'string' ? body.user : null,
      article: false,
      webResults: null,
      promptExtras: [body.tools],
    },
    items,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    tools,
    functions,
    toolChoice,
    maxOutputTokens,
    temperature,
    topP,
  }
}

/** input_tokens; see the header. */
function countInputTokens(req: ResponsesRequest): number {
  const text = req.items.reduce((n, it) => n + textParts(it.message.content).reduce((m, t) => m + codePoints(t), 0), codePoints(req.instructions ?? ''))
  const tools = req.tools.length > 0 ? Math.ceil(codePoints(JSON.stringify(req.tools)) / 4) : 0
  return Math.ceil(text / 4) + 4 * req.items.length + tools
}

// ---------------------------------------------------------------- what to answer

/** The function the answer calls, if any (see the header for the rule). */
function calledFunction(req: ResponsesRequest): FunctionTool | null {
  const { functions, toolChoice, items } = req
  if (functions.length === 0 || toolChoice === 'none') return null
  const said = lastUserText(req.chat.messages).toLowerCase()
  const chosen = isObject(toolChoice) ? functions.find((f) => f.name === toolChoice.name) : undefined
  const named = chosen ?? functions.find((f) => said.includes(f.name.toLowerCase()))
  if (items.at(-1)!.type === 'function_call_output') {
    const loop = TOOL_LOOP.exec(said)
    const outputs = items.filter((it) => it.type === 'function_call_output').length
    return loop && outputs < Number(loop[1]) ? (named ?? functions[0]!) : null
  }
  return named ?? (toolChoice === 'required' ? functions[0]! : null)
}

/** Every required string parameter set to "демо". */
function demoArguments(fn: FunctionTool): string {
  const params = isObject(fn.parameters) ? fn.parameters : {}
  const props = isObject(params.properties) ? params.properties : {}
  const required = Array.isArray(params.required) ? params.required.filter((r): r is string => typeof r === 'string') : []
  const isString = (schema: unknown) => isObject(schema) && (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string')))
  return JSON.stringify(Object.fromEntries(required.filter((r) => isString(props[r])).map((r) => [r, DEMO_ARGUMENT])))
}

const argumentPieces = (args: string) => (args.match(new RegExp(`[^]{1,${ARGUMENT_PIECE_CHARS}}`, 'gu')) ?? []) as string[]

/** The text answer after a function_call_output: it quotes what the function returned. */
function toolReply(req: ResponsesRequest): string | undefined {
  const last = req.items.at(-1)!
  if (last.type !== 'function_call_output') return undefined
  const call = req.items.find((it) => it.type === 'function_call' && it.callId === last.callId)
  const name = call?.type === 'function_call' ? call.name : last.callId
  return `Демо-ответ: функция ${name} вернула «${snippet(last.output)}». Это локально сгенерированный ответ демо-режима AI Gateway; подключите OPENROUTER_API_KEY для настоящих моделей.`
}

/** One answer: the generation that bills it and what the Responses API calls its parts. */
type Answer = {
  gen: Generation
  req: ResponsesRequest
  id: string
  /** The output item's id (`msg_…` or `fc_…`). */
  itemId: string
  call: { callId: string; name: string } | null
}

function planResponse(req: ResponsesRequest, state: DemoState, faults: ReturnType<typeof requestFaults>): Answer {
  const fn = calledFunction(req)
  const chat: ChatRequest = { ...req.chat, reply: toolReply(req) }
  let plan = { ...planAnswer(chat, faults, state.opts.tokenDelayMs, state.opts.faults), promptTokens: countInputTokens(req), apiType: 'responses' as const }
  if (fn) {
    const all = argumentPieces(demoArguments(fn))
    const cut = req.maxOutputTokens !== null && all.length > req.maxOutputTokens
    plan = { ...plan, pieces: cut ? all.slice(0, req.maxOutputTokens!) : all, finishReason: cut ? 'length' : 'tool_calls' }
  }
  return {
    gen: new Generation(plan, state),
    req,
    // Linked to the generation: resp_<the X-Generation-Id without "gen-">.
    id: `resp_${plan.id.replace(/^gen-/, '')}`,
    itemId: randomId(fn ? 'fc' : 'msg'),
    call: fn ? { callId: randomId('call'), name: fn.name } : null,
  }
}

// ---------------------------------------------------------------- the Response object

type Status = 'in_progress' | 'completed' | 'incomplete' | 'failed'

/** The status a finished answer has: incomplete when cut by max_output_tokens. */
const finalStatus = (a: Answer): Status => (a.gen.plan.finishReason === 'length' ? 'incomplete' : 'completed')

/** The output item as delivered so far; `status` is the item's own (in_progress | completed | incomplete). */
function outputItem(a: Answer, status: 'in_progress' | 'completed' | 'incomplete', started = true) {
  const delivered = a.gen.content(0)
  if (a.call) {
    return {
      type: 'function_call',
      id: a.itemId,
      call_id: a.call.callId,
      name: a.call.name,
      arguments: started ? delivered : '',
      status,
    }
  }
  return {
    type: 'message',
    id: a.itemId,
    status,
    role: 'assistant',
    content: started ? [outputText(delivered)] : [],
  }
}

const outputText = (text: string) => ({ type: 'output_text', text, annotations: [] })

function usage(a: Answer) {
  const { gen } = a
  const input = gen.plan.promptTokens
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: gen.emitted,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + gen.emitted,
    ...gen.billing(),
  }
}

function responseObject(a: Answer, status: Status) {
  const { req, gen } = a
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete'
  return {
    id: a.id,
    object: 'response',
    created_at: gen.plan.created,
    model: gen.plan.answer.reportedId,
    status,
    error: status === 'failed' ? { code: 'server_error', message: FAILURE_MESSAGE } : null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: req.instructions,
    max_output_tokens: req.maxOutputTokens,
    metadata: {},
    output: status === 'in_progress' ? [] : [outputItem(a, itemStatus)],
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: req.temperature,
    text: { format: { type: 'text' } },
    tool_choice: req.toolChoice,
    tools: req.tools,
    top_p: req.topP,
    usage: status === 'in_progress' ? null : usage(a),
  }
}

// ---------------------------------------------------------------- delivery

async function respondJson(a: Answer, ctx: RequestContext): Promise<Response> {
  const { gen } = a
  const gone = await generatePieces(gen, ctx)
  if (gone) return gone
  if (gen.plan.faults.has('break')) return brokenJson(gen, responseObject(a, 'completed'))
  const headers = { 'X-Generation-Id': gen.plan.id }
  if (failsMidway(gen.plan.faults)) {
    gen.finish({ finishReason: 'error', cancelled: false })
    return json(responseObject(a, 'failed'), 200, headers)
  }
  gen.finish({ finishReason: gen.plan.finishReason, cancelled: false })
  return json(responseObject(a, finalStatus(a)), 200, headers)
}

/**
 * response.created, response.in_progress, response.output_item.added, then for text
 * response.content_part.added, response.output_text.delta × pieces, response.output_text.done,
 * response.content_part.done, and for a function call response.function_call_arguments.delta ×
 * pieces, response.function_call_arguments.done; then response.output_item.done and
 * response.completed (response.incomplete when cut). A mid-answer failure ends with response.failed
 * right after the last delta. Every event's data has `type` and a `sequence_number` counting from 0.
 */
async function pump(a: Answer, out: SseWriter, ctx: RequestContext): Promise<void> {
  const { gen } = a
  let sequence = 0
  const emit = (type: string, fields: Record<string, unknown>) => out.event(type, { type, sequence_number: sequence++, ...fields })
  const at = { item_id: a.itemId, output_index: 0 }
  const textAt = { ...at, content_index: 0 }
  out.comment()
  emit('response.created', { response: responseObject(a, 'in_progress') })
  emit('response.in_progress', { response: responseObject(a, 'in_progress') })
  emit('response.output_item.added', { output_index: 0, item: outputItem(a, 'in_progress', false) })
  if (!a.call) emit('response.content_part.added', { ...textAt, part: outputText('') })
  const delivered = await streamPieces(gen, out, ctx, (_index, piece) =>
    a.call ? emit('response.function_call_arguments.delta', { ...at, delta: piece }) : emit('response.output_text.delta', { ...textAt, delta: piece, logprobs: [] }),
  )
  if (!delivered) return
  if (gen.plan.faults.has('break')) return breakStream(gen, out)
  if (failsMidway(gen.plan.faults)) {
    emit('response.failed', { response: responseObject(a, 'failed') })
    gen.finish({ finishReason: 'error', cancelled: false })
    return out.close()
  }
  const status = finalStatus(a)
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete'
  const content = gen.content(0)
  if (a.call) {
    emit('response.function_call_arguments.done', { ...at, name: a.call.name, arguments: content })
  } else {
    emit('response.output_text.done', { ...textAt, text: content, logprobs: [] })
    emit('response.content_part.done', { ...textAt, part: outputText(content) })
  }
  emit('response.output_item.done', { output_index: 0, item: outputItem(a, itemStatus) })
  emit(`response.${status}`, { response: responseObject(a, status) })
  gen.finish({ finishReason: gen.plan.finishReason, cancelled: false })
  if (gen.plan.faults.has('linger')) await sleep(LINGER_MS, ctx.signal)
  out.close()
}

// ---------------------------------------------------------------- entry

export async function handleResponses(body: unknown, state: DemoState, ctx: RequestContext): Promise<Response> {
  const req = parseResponsesRequest(body, state.opts.autoRouterModels)
  if (req instanceof Response) return req
  const faults = requestFaults([lastUserText(req.chat.messages)], body as Record<string, unknown>, state)
  const refused = httpFaultResponse(faults)
  if (refused) return refused
  const answer = planResponse(req, state, faults)
  if (faults.has('timeout')) {
    await untilAborted(ctx.signal)
    return cancelled(answer.gen)
  }
  return req.chat.stream ? sseResponse(answer.gen, ctx, (_g, out, c) => pump(answer, out, c)) : respondJson(answer, ctx)
}
