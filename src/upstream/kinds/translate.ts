// The Responses API (Codex) and the Anthropic Messages API (Claude Code) on an upstream that speaks
// only OpenAI chat completions (every kind but the router's): the request is rewritten into a chat
// body, the chat answer back into the protocol's own answer — a Responses `response`, an Anthropic
// `message`, or their SSE events, translated as they arrive — so that the gateway reads it exactly as
// it reads the router's (gateway/responses.ts, gateway/messages.ts).
//
// - usage: the chat counts in the protocol's names, and every other field the chat usage had
//   (`cost_rub`, `cost`, `estimated`…) copied as it is; with no usage at all, an estimate
//   (`estimated: true`, yandex.ts's rule) so that nothing is billed as zero;
// - what a chat model cannot take (images, files, built-in and server tools, stored items) is refused
//   with a 400 before the upstream is called;
// - errors: Responses keeps OpenAI's shape (the answer passes as it came); Messages gets Anthropic's
//   `{type: "error", error: {type, message}}` with the same status and Retry-After;
// - a connection failure rejects, as the wrapped client's does; the caller's signal reaches the upstream.
import { anthropicErrorType } from '../../lib/errors'
import { isObject } from '../../lib/json'
import { dataOf, eventsOf, SseSplitter } from '../../lib/sse'
import type { KindClient } from './types'
import { chars, estimateTokens, promptChars } from './yandex'

type Json = Record<string, unknown>

/** A request the chat protocol cannot carry: refused with a 400 before anything goes upstream. */
class Unsupported extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message)
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : '')
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const hex = () => crypto.randomUUID().replaceAll('-', '')

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } })

/** The upstream's headers worth keeping on a translated answer (its ids, Retry-After, rate limits); never the body's framing. */
function keptHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of res.headers) if (!['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = v
  return out
}

// ---------------------------------------------------------------------------------------------------
// Usage

const CHAT_COUNTS = new Set(['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details', 'completion_tokens_details'])

type Counts = { prompt: number; completion: number; total: number; cached: number; reasoning: number; extra: Json }

/** A chat usage's counts and the fields beyond them; an estimate when the answer had none. */
function countsOf(usage: unknown, estimate: () => { prompt: number; completion: number }): Counts {
  if (!isObject(usage)) {
    const e = estimate()
    return { prompt: e.prompt, completion: e.completion, total: e.prompt + e.completion, cached: 0, reasoning: 0, extra: { estimated: true } }
  }
  const prompt = num(usage.prompt_tokens) ?? 0
  const completion = num(usage.completion_tokens) ?? 0
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {}
  const out = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {}
  const extra: Json = {}
  for (const [k, v] of Object.entries(usage)) if (!CHAT_COUNTS.has(k)) extra[k] = v
  return {
    prompt,
    completion,
    total: num(usage.total_tokens) ?? prompt + completion,
    cached: Math.min(prompt, num(details.cached_tokens) ?? 0),
    reasoning: num(out.reasoning_tokens) ?? 0,
    extra,
  }
}

/** `base` with the extra fields that do not clash with it. */
const withExtra = (base: Json, extra: Json) => {
  const out = { ...base }
  for (const [k, v] of Object.entries(extra)) if (!(k in out)) out[k] = v
  return out
}

const responsesUsage = (c: Counts) =>
  withExtra(
    {
      input_tokens: c.prompt,
      input_tokens_details: { cached_tokens: c.cached },
      output_tokens: c.completion,
      output_tokens_details: { reasoning_tokens: c.reasoning },
      total_tokens: c.total,
    },
    c.extra,
  )

/** Anthropic counts cached input apart from `input_tokens` (messages.ts adds them back for the prompt). */
const anthropicUsage = (c: Counts) =>
  withExtra({ input_tokens: c.prompt - c.cached, output_tokens: c.completion, cache_read_input_tokens: c.cached, cache_creation_input_tokens: 0 }, c.extra)

/** What the chat body costs as a prompt when the upstream does not say. */
const promptEstimate = (sent: Json) => estimateTokens(promptChars(sent))

// ---------------------------------------------------------------------------------------------------
// The chat answer, read

type ChatCall = { id: string; name: string; arguments: string }
type ChatAnswer = { text: string; refusal: string; calls: ChatCall[]; finish: string | null; stopMatched: string | null; model: unknown; usage: unknown }

/** Message content as one text (a chat answer's content is a string, rarely text parts). */
function chatText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p) => (isObject(p) ? str(p.text) : '')).join('')
}

function readChat(body: Json): ChatAnswer | string {
  if (body.error !== undefined && body.error !== null) return str((body.error as Json)?.message) || 'ошибка провайдера'
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined
  if (!isObject(choice) || !isObject(choice.message)) return 'ответ без choices'
  const m = choice.message
  const calls: ChatCall[] = []
  for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    if (!isObject(c)) continue
    const fn = isObject(c.function) ? c.function : {}
    const args = fn.arguments
    calls.push({ id: str(c.id), name: str(fn.name), arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args) })
  }
  return {
    text: chatText(m.content),
    refusal: str(m.refusal),
    calls,
    finish: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    // vLLM-style servers name the stop sequence that ended the answer.
    stopMatched: typeof choice.stop_reason === 'string' ? choice.stop_reason : null,
    model: body.model,
    usage: body.usage,
  }
}

/** The completion's characters, for the estimate when no usage came. */
const writtenChars = (a: { text: string; calls: Array<{ name: string; arguments: string }> }) => chars(a.text) + a.calls.reduce((n, c) => n + chars(c.name) + chars(c.arguments), 0)

/** The events of a chat stream, as they arrive; `done`: its `data: [DONE]`. */
type ChatEvent = { done: true } | { done: false; chunk: Json }

function chatEvents(): { push(bytes: Uint8Array): ChatEvent[]; rest(): ChatEvent[] } {
  const splitter = new SseSplitter()
  const read = (event: string): ChatEvent | null => {
    const data = dataOf(event)
    if (data === undefined) return /^data:\s*\[DONE\]\s*$/m.test(event) ? { done: true } : null
    try {
      const chunk: unknown = JSON.parse(data)
      return isObject(chunk) ? { done: false, chunk } : null
    } catch {
      return null
    }
  }
  const all = (events: string[]) => events.map(read).filter((e): e is ChatEvent => e !== null)
  return {
    push: (bytes) => all(eventsOf(splitter.pushBlock(bytes))),
    rest: () => {
      const rest = splitter.rest()
      return rest ? all([rest]) : []
    },
  }
}

/** A stream's tool calls by their chat index; a new id at a used index is a new call (some servers number every call 0). */
class StreamCalls<C extends { chatId: string }> {
  private readonly byIndex = new Map<number, C>()
  find(index: number, id: string): C | undefined {
    const c = this.byIndex.get(index)
    return c && (!id || !c.chatId || c.chatId === id) ? c : undefined
  }
  add(index: number, call: C) {
    this.byIndex.set(index, call)
  }
}

type Emit = { emit(text: string): void }

/**
 * The chat stream → the protocol's stream, `opening` sent at once. `handlers` get each chat chunk
 * (`'stop'` after an error event: the rest is ignored) and the end: `[DONE]`, or the body's end after
 * a finish reason or usage; a stream cut before either is cut here too, and the gateway settles it as
 * it settles a cut chat stream. Silences the upstream fills with chunks that translate to nothing
 * (reasoning) get a keep-alive comment every 5 s, so the relay's idle watch sees life.
 */
function chatStream(opening: string, handlers: { chunk(c: Json, out: Emit): 'stop' | undefined; end(out: Emit): void; seen(): boolean }): TransformStream<Uint8Array, Uint8Array> {
  const encoder = new TextEncoder()
  const events = chatEvents()
  let ended = false
  let lastWrite = Date.now()
  const run = (list: ChatEvent[], c: TransformStreamDefaultController<Uint8Array>, atEnd: boolean) => {
    let text = ''
    const out: Emit = { emit: (t) => void (text += t) }
    for (const e of list) {
      if (ended) break
      if (e.done) {
        ended = true
        handlers.end(out)
      } else if (handlers.chunk(e.chunk, out) === 'stop') ended = true
    }
    if (atEnd && !ended && handlers.seen()) {
      ended = true
      handlers.end(out)
    }
    if (!text && Date.now() - lastWrite > 5_000) text = ': keep-alive\n\n'
    if (text) {
      c.enqueue(encoder.encode(text))
      lastWrite = Date.now()
    }
  }
  return new TransformStream({
    start: (c) => c.enqueue(encoder.encode(opening)),
    transform: (bytes, c) => {
      if (!ended) run(events.push(bytes), c, false)
    },
    flush: (c) => {
      if (!ended) run(events.rest(), c, true)
    },
  })
}

/** A chat chunk's first choice's delta pieces. */
function deltaOf(chunk: Json) {
  const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0)) : undefined
  if (!isObject(choice)) return null
  const d = isObject(choice.delta) ? choice.delta : {}
  const calls = (Array.isArray(d.tool_calls) ? d.tool_calls : []).filter(isObject).map((t) => {
    const fn = isObject(t.function) ? t.function : {}
    return { index: num(t.index) ?? 0, id: str(t.id), name: str(fn.name), args: str(fn.arguments) }
  })
  return {
    text: str(d.content),
    calls,
    finish: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    stopMatched: typeof choice.stop_reason === 'string' ? choice.stop_reason : null,
  }
}

/** A chat stream chunk that is an error. */
const chunkError = (chunk: Json) => (chunk.error !== undefined && chunk.error !== null ? str((chunk.error as Json)?.message) || 'ошибка провайдера' : null)

// ---------------------------------------------------------------------------------------------------
// The wrapper

type Protocol = {
  toChat(body: Json): Json
  answer(a: ChatAnswer, body: Json, sent: Json): Json
  /** A 200 whose chat body was an error, in the protocol's shape of one (the gateway's readers refuse to bill it). */
  failed(message: string, body: Json): Json
  stream(body: Json, sent: Json): TransformStream<Uint8Array, Uint8Array>
  error(status: number, message: string, param?: string): Response
  /** The chat upstream's error answer in the protocol's shape. */
  upstreamError(res: Response): Promise<Response>
}

async function translate(client: KindClient, p: Protocol, body: Json, signal: AbortSignal, headers?: Record<string, string>): Promise<Response> {
  let sent: Json
  try {
    sent = p.toChat(body)
  } catch (e) {
    if (e instanceof Unsupported) return p.error(400, e.message, e.param)
    throw e
  }
  // anthropic-version and anthropic-beta mean nothing to a chat upstream.
  const chatHeaders = headers && Object.fromEntries(Object.entries(headers).filter(([k]) => !k.toLowerCase().startsWith('anthropic-')))
  const res = await client.post('/chat/completions', sent, signal, chatHeaders)
  if (!res.ok) return p.upstreamError(res)
  const kept = keptHeaders(res)
  if (res.body && res.headers.get('content-type')?.includes('text/event-stream'))
    return new Response(res.body.pipeThrough(p.stream(body, sent)), {
      status: 200,
      headers: { ...kept, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    })
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return p.error(502, 'Провайдер модели вернул ответ, который не удалось разобрать.')
  }
  if (!isObject(parsed)) return p.error(502, 'Провайдер модели вернул ответ, который не удалось разобрать.')
  const a = readChat(parsed)
  return json(200, typeof a === 'string' ? p.failed(a, body) : p.answer(a, body, sent), kept)
}

/** `client` with POST /responses and /messages answered by translation to its /chat/completions; every other path passes through. */
export function translating(client: KindClient): KindClient {
  return {
    post(path, body, signal, headers) {
      if (path === '/responses') return translate(client, responses, body, signal, headers)
      if (path === '/messages') return translate(client, messages, body, signal, headers)
      return client.post(path, body, signal, headers)
    },
  }
}

/** The request fields every chat upstream takes, copied when the caller set them. */
function common(body: Json, out: Json, maxTokens: unknown) {
  if (typeof body.model === 'string') out.model = body.model
  if (num(maxTokens) !== undefined) out.max_tokens = maxTokens
  for (const f of ['temperature', 'top_p'] as const) if (num(body[f]) !== undefined) out[f] = body[f]
  if (body.stream === true) {
    out.stream = true
    out.stream_options = { include_usage: true }
  }
}

// ---------------------------------------------------------------------------------------------------
// Responses API

const RESPONSES_ROLES: Record<string, string> = { user: 'user', assistant: 'assistant', system: 'system', developer: 'system' }
const RESPONSES_PARTS: Record<string, string> = {
  input_image: 'изображения (input_image)',
  input_file: 'файлы (input_file)',
  input_audio: 'аудио (input_audio)',
}
const TEXT_ONLY = 'эта модель принимает только текст'

/** A Responses content (a string or parts) as one text; what is not text is refused. */
function responsesText(content: unknown, at: string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw new Unsupported(`${at}: ожидается строка или массив частей`, at)
  return content
    .map((part, i) => {
      const where = `${at}[${i}]`
      if (!isObject(part)) throw new Unsupported(`${where}: ожидается объект`, where)
      if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') return str(part.text)
      if (part.type === 'refusal') return str(part.refusal)
      const what = RESPONSES_PARTS[str(part.type)]
      throw new Unsupported(`${where}: ${what ?? `части типа «${String(part.type)}»`} не поддерживаются — ${TEXT_ONLY}`, where)
    })
    .join('\n')
}

function responsesItem(item: unknown, at: string, out: Json[]) {
  if (!isObject(item)) throw new Unsupported(`${at}: ожидается объект`, at)
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined)
  if (type === 'message') {
    const role = RESPONSES_ROLES[str(item.role)]
    if (!role) throw new Unsupported(`${at}.role: роль «${String(item.role)}» не поддерживается`, `${at}.role`)
    out.push({ role, content: responsesText(item.content, `${at}.content`) })
    return
  }
  if (type === 'function_call') {
    const call = {
      id: str(item.call_id) || `call_${hex()}`,
      type: 'function',
      function: { name: str(item.name), arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) },
    }
    // Calls right after the assistant's text (or after each other) are one assistant turn.
    const last = out.at(-1)
    if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as unknown[]) ?? []), call]
    else out.push({ role: 'assistant', content: null, tool_calls: [call] })
    return
  }
  if (type === 'function_call_output') {
    const output = typeof item.output === 'string' ? item.output : responsesText(item.output, `${at}.output`)
    out.push({ role: 'tool', tool_call_id: str(item.call_id), content: output })
    return
  }
  // The model's reasoning from an earlier turn (Codex sends it back): a chat model takes none.
  if (type === 'reasoning') return
  if (type === 'item_reference') throw new Unsupported(`${at}: ссылки на сохранённые элементы (item_reference) не поддерживаются для этой модели — передайте элементы целиком`, at)
  throw new Unsupported(`${at}: элементы типа «${String(type)}» не поддерживаются для этой модели — доступны сообщения и вызовы функций`, at)
}

const responses: Protocol = {
  toChat(body) {
    const messages: Json[] = []
    if (typeof body.instructions === 'string') {
      if (body.instructions) messages.push({ role: 'system', content: body.instructions })
    } else if (body.instructions !== undefined && body.instructions !== null) throw new Unsupported('instructions: ожидается строка', 'instructions')
    if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input })
    else if (Array.isArray(body.input)) for (const [i, item] of body.input.entries()) responsesItem(item, `input[${i}]`, messages)
    else throw new Unsupported('input: ожидается строка или массив элементов', 'input')
    const out: Json = { messages }
    common(body, out, body.max_output_tokens)
    const tools = Array.isArray(body.tools) ? body.tools : []
    if (tools.length) {
      out.tools = tools.map((t, i) => {
        if (!isObject(t) || t.type !== 'function')
          throw new Unsupported(
            `tools[${i}]: встроенный инструмент «${String(isObject(t) ? t.type : t)}» не поддерживается этой моделью — доступны только функции (type: function)`,
            `tools[${i}]`,
          )
        const fn: Json = { name: t.name, parameters: isObject(t.parameters) ? t.parameters : { type: 'object', properties: {} } }
        if (typeof t.description === 'string') fn.description = t.description
        if (typeof t.strict === 'boolean') fn.strict = t.strict
        return { type: 'function', function: fn }
      })
      const choice = body.tool_choice
      if (choice === 'auto' || choice === 'none' || choice === 'required') out.tool_choice = choice
      else if (isObject(choice) && choice.type === 'function' && typeof choice.name === 'string') out.tool_choice = { type: 'function', function: { name: choice.name } }
      else if (choice !== undefined && choice !== null) throw new Unsupported('tool_choice: для этой модели доступны auto, none, required и выбор функции по имени', 'tool_choice')
      if (typeof body.parallel_tool_calls === 'boolean') out.parallel_tool_calls = body.parallel_tool_calls
    }
    const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : undefined
    if (format?.type === 'json_schema') {
      const schema: Json = { name: format.name, schema: format.schema }
      if (typeof format.description === 'string') schema.description = format.description
      if (typeof format.strict === 'boolean') schema.strict = format.strict
      out.response_format = { type: 'json_schema', json_schema: schema }
    } else if (format?.type === 'json_object') out.response_format = { type: 'json_object' }
    if (typeof body.user === 'string') out.user = body.user
    return out
  },

  answer(a, body, sent) {
    const incomplete = incompleteReason(a.finish)
    const itemStatus = incomplete ? 'incomplete' : 'completed'
    const output: Json[] = []
    const content: Json[] = []
    if (a.text) content.push({ type: 'output_text', text: a.text, annotations: [] })
    if (a.refusal) content.push({ type: 'refusal', refusal: a.refusal })
    if (content.length) output.push({ type: 'message', id: `msg_${hex()}`, status: itemStatus, role: 'assistant', content })
    for (const c of a.calls) output.push({ type: 'function_call', id: `fc_${hex()}`, call_id: c.id || `call_${hex()}`, name: c.name, arguments: c.arguments, status: itemStatus })
    const counts = countsOf(a.usage, () => ({ prompt: promptEstimate(sent), completion: estimateTokens(writtenChars(a)) }))
    return responseObject(body, {
      id: `resp_${crypto.randomUUID()}`,
      created_at: Math.floor(Date.now() / 1000),
      model: typeof a.model === 'string' && a.model ? a.model : body.model,
      status: incomplete ? 'incomplete' : 'completed',
      incomplete_details: incomplete ? { reason: incomplete } : null,
      output,
      usage: responsesUsage(counts),
    })
  },

  failed: (message, body) =>
    responseObject(body, {
      id: `resp_${crypto.randomUUID()}`,
      created_at: Math.floor(Date.now() / 1000),
      model: body.model,
      status: 'failed',
      error: { code: 'server_error', message },
      incomplete_details: null,
      output: [],
      usage: null,
    }),

  stream: responsesStream,

  error: (status, message, param) =>
    json(status, {
      error: {
        message,
        type: status < 500 ? 'invalid_request_error' : 'server_error',
        code: status < 500 ? 'unsupported_input' : 'bad_upstream_response',
        param: param ?? null,
      },
    }),

  // The chat upstream's error is already OpenAI's shape, as the Responses API's are.
  upstreamError: async (res) => res,
}

/** Why an answer is incomplete, in the Responses API's words; null when it is whole. */
const incompleteReason = (finish: string | null) => (finish === 'length' ? 'max_output_tokens' : finish === 'content_filter' ? 'content_filter' : null)

/** A Responses `response` object: the request's settings echoed around what the answer says. */
function responseObject(body: Json, r: Json): Json {
  return {
    id: r.id,
    object: 'response',
    created_at: r.created_at,
    status: r.status,
    background: false,
    error: r.error ?? null,
    incomplete_details: r.incomplete_details,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: num(body.max_output_tokens) ?? null,
    model: r.model,
    output: r.output,
    parallel_tool_calls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    temperature: num(body.temperature) ?? null,
    text: isObject(body.text) && isObject(body.text.format) ? { format: body.text.format } : { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: num(body.top_p) ?? null,
    truncation: 'disabled',
    usage: r.usage,
    metadata: isObject(body.metadata) ? body.metadata : {},
  }
}

type RMessage = { kind: 'message'; id: string; index: number; text: string }
type RCall = { kind: 'call'; id: string; index: number; chatId: string; callId: string; name: string; args: string }

function responsesStream(body: Json, sent: Json): TransformStream<Uint8Array, Uint8Array> {
  const id = `resp_${crypto.randomUUID()}`
  const created = Math.floor(Date.now() / 1000)
  let seq = 0
  let model: unknown = body.model
  const items: Array<RMessage | RCall> = []
  let message: RMessage | undefined
  const calls = new StreamCalls<RCall>()
  let finish: string | null = null
  let usage: unknown
  const event = (type: string, payload: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...payload })}\n\n`
  const snapshot = (status: string, output: Json[], extra: Json = {}) =>
    responseObject(body, { id, created_at: created, model, status, incomplete_details: null, output, usage: null, ...extra })
  const messageItem = (m: RMessage, status: string, text?: string): Json => ({
    type: 'message',
    id: m.id,
    status,
    role: 'assistant',
    content: text === undefined ? [] : [{ type: 'output_text', text, annotations: [] }],
  })
  const callItem = (c: RCall, status: string): Json => ({
    type: 'function_call',
    id: c.id,
    call_id: c.callId,
    name: c.name,
    arguments: status === 'in_progress' ? '' : c.args,
    status,
  })

  const opening = event('response.created', { response: snapshot('in_progress', []) }) + event('response.in_progress', { response: snapshot('in_progress', []) })
  return chatStream(opening, {
    seen: () => finish !== null || usage !== undefined,
    chunk(chunk, out) {
      const failure = chunkError(chunk)
      if (failure !== null) {
        out.emit(event('error', { code: 'upstream_error', message: failure, param: null }))
        return 'stop'
      }
      if (typeof chunk.model === 'string' && chunk.model) model = chunk.model
      if (isObject(chunk.usage)) usage = chunk.usage
      const d = deltaOf(chunk)
      if (!d) return
      if (d.text) {
        if (!message) {
          message = { kind: 'message', id: `msg_${hex()}`, index: items.length, text: '' }
          items.push(message)
          out.emit(event('response.output_item.added', { output_index: message.index, item: messageItem(message, 'in_progress') }))
          out.emit(
            event('response.content_part.added', { item_id: message.id, output_index: message.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
          )
        }
        message.text += d.text
        out.emit(event('response.output_text.delta', { item_id: message.id, output_index: message.index, content_index: 0, delta: d.text, logprobs: [] }))
      }
      for (const t of d.calls) {
        let c = calls.find(t.index, t.id)
        if (!c) {
          c = { kind: 'call', id: `fc_${hex()}`, index: items.length, chatId: t.id, callId: t.id || `call_${hex()}`, name: t.name, args: '' }
          calls.add(t.index, c)
          items.push(c)
          out.emit(event('response.output_item.added', { output_index: c.index, item: callItem(c, 'in_progress') }))
        } else if (t.name && !c.name) c.name = t.name
        if (t.args) {
          c.args += t.args
          out.emit(event('response.function_call_arguments.delta', { item_id: c.id, output_index: c.index, delta: t.args }))
        }
      }
      if (d.finish) finish = d.finish
    },
    end(out) {
      const incomplete = incompleteReason(finish)
      const status = incomplete ? 'incomplete' : 'completed'
      const output: Json[] = []
      for (const item of items) {
        if (item.kind === 'message') {
          const ids = { item_id: item.id, output_index: item.index, content_index: 0 }
          out.emit(event('response.output_text.done', { ...ids, text: item.text, logprobs: [] }))
          out.emit(event('response.content_part.done', { ...ids, part: { type: 'output_text', text: item.text, annotations: [] } }))
          output.push(messageItem(item, status, item.text))
        } else {
          out.emit(event('response.function_call_arguments.done', { item_id: item.id, output_index: item.index, arguments: item.args }))
          output.push(callItem(item, status))
        }
        out.emit(event('response.output_item.done', { output_index: item.index, item: output.at(-1) }))
      }
      const written = { text: message?.text ?? '', calls: items.filter((i): i is RCall => i.kind === 'call').map((c) => ({ name: c.name, arguments: c.args })) }
      const counts = countsOf(usage, () => ({ prompt: promptEstimate(sent), completion: estimateTokens(writtenChars(written)) }))
      const response = snapshot(status, output, { incomplete_details: incomplete ? { reason: incomplete } : null, usage: responsesUsage(counts) })
      out.emit(event(incomplete ? 'response.incomplete' : 'response.completed', { response }))
    },
  })
}

// ---------------------------------------------------------------------------------------------------
// Anthropic Messages API

const ANTHROPIC_BLOCKS: Record<string, string> = {
  image: 'изображения (image)',
  document: 'документы (document)',
  search_result: 'результаты поиска (search_result)',
}

/** A text-only Anthropic content (a string or text blocks) as one text. */
function anthropicText(content: unknown, at: string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw new Unsupported(`${at}: ожидается строка или массив блоков`, at)
  return content.map((b, i) => blockText(b, `${at}.${i}`)).join('\n')
}

function blockText(block: unknown, at: string): string {
  if (!isObject(block)) throw new Unsupported(`${at}: ожидается объект`, at)
  if (block.type === 'text') return str(block.text)
  throw unsupportedBlock(block, at)
}

const unsupportedBlock = (block: Json, at: string) => {
  const what = ANTHROPIC_BLOCKS[str(block.type)]
  return new Unsupported(what ? `${at}: ${what} не поддерживаются — ${TEXT_ONLY}` : `${at}: блоки типа «${String(block.type)}» не поддерживаются для этой модели`, `${at}.type`)
}

function anthropicMessage(m: unknown, at: string, out: Json[]) {
  if (!isObject(m)) throw new Unsupported(`${at}: ожидается объект`, at)
  const role = m.role
  if (role === 'system') {
    out.push({ role: 'system', content: anthropicText(m.content, `${at}.content`) })
    return
  }
  if (role !== 'user' && role !== 'assistant') throw new Unsupported(`${at}.role: роль «${String(role)}» не поддерживается`, `${at}.role`)
  if (typeof m.content === 'string') {
    out.push({ role, content: m.content })
    return
  }
  if (!Array.isArray(m.content)) throw new Unsupported(`${at}.content: ожидается строка или массив блоков`, `${at}.content`)
  const texts: string[] = []
  if (role === 'assistant') {
    const calls: Json[] = []
    m.content.forEach((b, i) => {
      const where = `${at}.content.${i}`
      if (!isObject(b)) throw new Unsupported(`${where}: ожидается объект`, where)
      if (b.type === 'text') texts.push(str(b.text))
      else if (b.type === 'tool_use') calls.push({ id: str(b.id), type: 'function', function: { name: str(b.name), arguments: JSON.stringify(b.input ?? {}) } })
      else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') throw unsupportedBlock(b, where) // a chat model takes no earlier thinking
    })
    if (!texts.length && !calls.length) return
    const msg: Json = { role: 'assistant', content: texts.length ? texts.join('\n') : null }
    if (calls.length) msg.tool_calls = calls
    out.push(msg)
    return
  }
  // A user turn: its tool results answer the previous turn's calls, so they go first, as tool messages.
  m.content.forEach((b, i) => {
    const where = `${at}.content.${i}`
    if (!isObject(b)) throw new Unsupported(`${where}: ожидается объект`, where)
    if (b.type === 'text') texts.push(str(b.text))
    else if (b.type === 'tool_result') {
      const result = b.content === undefined ? '' : anthropicText(b.content, `${where}.content`)
      out.push({ role: 'tool', tool_call_id: str(b.tool_use_id), content: b.is_error === true ? `Error: ${result}` : result })
    } else throw unsupportedBlock(b, where)
  })
  if (texts.length) out.push({ role: 'user', content: texts.join('\n') })
}

const STOP_REASONS: Record<string, string> = { length: 'max_tokens', tool_calls: 'tool_use', function_call: 'tool_use', content_filter: 'refusal' }

/** Anthropic's stop reason and stop sequence for a chat finish. */
function stopOf(finish: string | null, hasCalls: boolean, stopMatched: string | null, body: Json): [string, string | null] {
  if (finish === 'length') return ['max_tokens', null]
  if (hasCalls) return ['tool_use', null]
  const reason = finish ? STOP_REASONS[finish] : undefined
  if (reason) return [reason, null]
  const stops = Array.isArray(body.stop_sequences) ? body.stop_sequences : []
  if (stopMatched !== null && stops.includes(stopMatched)) return ['stop_sequence', stopMatched]
  return ['end_turn', null]
}

/** Anthropic's ids: letters, digits, _ and - after the prefix. */
const toolUseId = (chatId: string) => (chatId.startsWith('toolu_') ? chatId : `toolu_${chatId.replace(/[^A-Za-z0-9_-]/g, '') || hex()}`)

const anthropicError = (type: string, message: string, extra: Json = {}) => ({ type: 'error', error: { type, message, ...extra } })

const messages: Protocol = {
  toChat(body) {
    const out: Json[] = []
    if (body.system !== undefined && body.system !== null) {
      const system = anthropicText(body.system, 'system')
      if (system) out.push({ role: 'system', content: system })
    }
    if (!Array.isArray(body.messages)) throw new Unsupported('messages: ожидается массив', 'messages')
    for (const [i, m] of body.messages.entries()) anthropicMessage(m, `messages.${i}`, out)
    const chat: Json = { messages: out }
    common(body, chat, body.max_tokens)
    const stops = Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s) => typeof s === 'string') : []
    if (stops.length) chat.stop = stops
    const tools = Array.isArray(body.tools) ? body.tools : []
    if (tools.length) {
      chat.tools = tools.map((t, i) => {
        if (!isObject(t) || (t.type !== undefined && t.type !== null && t.type !== 'custom'))
          throw new Unsupported(
            `tools.${i}: серверный инструмент «${String(isObject(t) ? t.type : t)}» не поддерживается этой моделью — доступны только свои инструменты (name, input_schema)`,
            `tools.${i}`,
          )
        const fn: Json = { name: t.name, parameters: isObject(t.input_schema) ? t.input_schema : { type: 'object', properties: {} } }
        if (typeof t.description === 'string') fn.description = t.description
        return { type: 'function', function: fn }
      })
      const choice = isObject(body.tool_choice) ? body.tool_choice : undefined
      if (choice?.type === 'auto' || choice?.type === 'none') chat.tool_choice = choice.type
      else if (choice?.type === 'any') chat.tool_choice = 'required'
      else if (choice?.type === 'tool' && typeof choice.name === 'string') chat.tool_choice = { type: 'function', function: { name: choice.name } }
      else if (choice) throw new Unsupported('tool_choice: ожидается auto, any, tool или none', 'tool_choice')
      if (choice?.disable_parallel_tool_use === true) chat.parallel_tool_calls = false
    }
    // Structured outputs: Anthropic's output_config.format is chat's response_format (output_config.effort has no chat name).
    const format = isObject(body.output_config) && isObject(body.output_config.format) ? body.output_config.format : undefined
    if (format?.type === 'json_schema' && isObject(format.schema))
      chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } }
    // The gateway names the end user in metadata.user_id (upstream-body.ts); chat's name for it is `user`.
    if (isObject(body.metadata) && typeof body.metadata.user_id === 'string') chat.user = body.metadata.user_id
    return chat
  },

  answer(a, body, sent) {
    const content: Json[] = []
    if (a.text || a.refusal) content.push({ type: 'text', text: a.text || a.refusal, citations: null })
    for (const c of a.calls) content.push({ type: 'tool_use', id: toolUseId(c.id), name: c.name, input: parseInput(c.arguments), caller: { type: 'direct' } })
    const [stopReason, stopSequence] = stopOf(a.finish, a.calls.length > 0, a.stopMatched, body)
    const counts = countsOf(a.usage, () => ({ prompt: promptEstimate(sent), completion: estimateTokens(writtenChars(a)) }))
    return {
      id: `msg_${hex()}`,
      type: 'message',
      role: 'assistant',
      model: typeof a.model === 'string' && a.model ? a.model : body.model,
      content,
      stop_reason: stopReason,
      stop_sequence: stopSequence,
      stop_details: null,
      container: null,
      usage: anthropicUsage(counts),
    }
  },

  failed: (message) => anthropicError('api_error', message),

  stream: messagesStream,

  error: (status, message) => json(status, anthropicError(anthropicErrorType(status), message)),

  async upstreamError(res) {
    const text = await res.text().catch(() => '')
    let message = text.slice(0, 500) || res.statusText || `HTTP ${res.status}`
    const extra: Json = {}
    try {
      const err: unknown = JSON.parse(text)?.error
      if (isObject(err)) {
        if (typeof err.message === 'string') message = err.message
        // The router-style details the gateway reads to tell a model's failure from the upstream's (upstream/client.ts).
        if (isObject(err.metadata)) extra.metadata = err.metadata
      } else if (typeof err === 'string') message = err
    } catch {}
    const retryAfter = res.headers.get('retry-after')
    return json(res.status, anthropicError(anthropicErrorType(res.status), message, extra), retryAfter ? { 'retry-after': retryAfter } : {})
  },
}

/** A tool call's arguments as Anthropic's `input` object ({} when they are not one). */
function parseInput(args: string): unknown {
  try {
    const v: unknown = JSON.parse(args)
    return isObject(v) ? v : {}
  } catch {
    return {}
  }
}

type ABlock = { index: number; kind: 'text' } | { index: number; kind: 'tool'; chatId: string; name: string; args: string }

function messagesStream(body: Json, sent: Json): TransformStream<Uint8Array, Uint8Array> {
  const event = (type: string, payload: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`
  let blocks = 0
  let open: ABlock | undefined
  let text = ''
  const tools: Array<ABlock & { kind: 'tool' }> = []
  const calls = new StreamCalls<ABlock & { kind: 'tool' }>()
  let finish: string | null = null
  let stopMatched: string | null = null
  let usage: unknown
  const close = (out: Emit) => {
    if (open) out.emit(event('content_block_stop', { index: open.index }))
    open = undefined
  }
  // The prompt's count comes with the usage at the end: message_start says our estimate of it, which
  // the final message_delta's input_tokens replaces (never 0: the gateway takes it for a cut stream's prompt).
  const start = {
    message: {
      id: `msg_${hex()}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: promptEstimate(sent), output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  }
  return chatStream(event('message_start', start), {
    seen: () => finish !== null || usage !== undefined,
    chunk(chunk, out) {
      const failure = chunkError(chunk)
      if (failure !== null) {
        out.emit(event('error', { error: { type: 'api_error', message: failure } }))
        return 'stop'
      }
      if (isObject(chunk.usage)) usage = chunk.usage
      const d = deltaOf(chunk)
      if (!d) return
      if (d.text) {
        if (open?.kind !== 'text') {
          close(out)
          open = { index: blocks++, kind: 'text' }
          out.emit(event('content_block_start', { index: open.index, content_block: { type: 'text', text: '', citations: null } }))
        }
        text += d.text
        out.emit(event('content_block_delta', { index: open.index, delta: { type: 'text_delta', text: d.text } }))
      }
      for (const t of d.calls) {
        let c = calls.find(t.index, t.id)
        if (!c) {
          close(out)
          c = { index: blocks++, kind: 'tool', chatId: t.id, name: t.name, args: '' }
          calls.add(t.index, c)
          tools.push(c)
          open = c
          const block = { type: 'tool_use', id: toolUseId(t.id), name: t.name, input: {}, caller: { type: 'direct' } }
          out.emit(event('content_block_start', { index: c.index, content_block: block }))
        }
        if (t.args) {
          c.args += t.args
          out.emit(event('content_block_delta', { index: c.index, delta: { type: 'input_json_delta', partial_json: t.args } }))
        }
      }
      if (d.finish) finish = d.finish
      if (d.stopMatched) stopMatched = d.stopMatched
    },
    end(out) {
      close(out)
      const [stopReason, stopSequence] = stopOf(finish, tools.length > 0, stopMatched, body)
      const written = { text, calls: tools.map((c) => ({ name: c.name, arguments: c.args })) }
      const counts = countsOf(usage, () => ({ prompt: promptEstimate(sent), completion: estimateTokens(writtenChars(written)) }))
      out.emit(event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: stopSequence, stop_details: null, container: null }, usage: anthropicUsage(counts) }))
      out.emit(event('message_stop', {}))
    },
  })
}
