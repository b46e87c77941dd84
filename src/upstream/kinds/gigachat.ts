// GigaChat (Sber) behind the gateway: OpenAI chat completions and embeddings in, GigaChat's v1 REST
// contract on the wire (reference/providers-and-payments.md §1), OpenAI shapes back out.
//
// What the v1 contract changes, and how it is bridged here:
// - auth is an OAuth token (30 min) bought with the Basic key: cached per client, renewed a minute
//   early, one in-flight request shared by everyone waiting, and once more after an API 401;
// - `tools`/`tool_choice` become `functions`/`function_call`; a call's `arguments` is a JSON object on
//   GigaChat's side and a JSON string on OpenAI's; a tool result must be a serialised JSON object;
// - one system message, and first; text-only content; no `id` in answers; `object` stays
//   `chat.completion` in stream events; usage names cached tokens `precached_prompt_tokens`;
// - errors are `{status, message}` (OAuth: `{code, message}`).
import { readFileSync } from 'node:fs'
import { OpenAIError } from '../../lib/errors'
import { isObject } from '../../lib/json'
import { eventsOf, SseSplitter, sseData } from '../../lib/sse'
import type { FetchLike } from '../fetch-like'
import type { GigachatEntry, KindClient, KindClientOptions } from './types'

/** Renew when less than this remains (the official SDK's token_expiry_buffer_ms). */
const RENEW_BEFORE_MS = 60_000
/** GigaChat wants temperature > 0; 0…0.001 is its most deterministic mode, which is what OpenAI's 0 asks for. */
const MIN_TEMPERATURE = 0.001

export const TEXT_ONLY_MESSAGE = 'Модель GigaChat в этом шлюзе принимает только текст'

type Json = Record<string, unknown>

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** An OpenAI-shaped error answer (lib/errors' shape, as the gateway's own). */
const errorResponse = (status: number, message: string, type: string, code: string, retryAfter?: string) =>
  new OpenAIError(status, message, type, code, { retryAfter }).asResponse()

/** A request we cannot translate: a 400 before anything goes upstream. */
class BadRequest extends Error {}
/** The OAuth host refused us a token: our credentials' problem, never the customer's. */
class AuthFailure extends Error {}

// ---- request translation -------------------------------------------------------------------------

/** Text of an OpenAI content (string or parts); anything but text is refused. */
function textOf(content: unknown): string {
  if (content === null || content === undefined) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw new BadRequest('content должен быть строкой или массивом частей')
  const texts: string[] = []
  for (const part of content) {
    if (!isObject(part)) throw new BadRequest('content должен быть строкой или массивом частей')
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text)
    // A refusal the model gave earlier is still its text in the history.
    else if (part.type === 'refusal' && typeof part.refusal === 'string') texts.push(part.refusal)
    else throw new BadRequest(TEXT_ONLY_MESSAGE)
  }
  // Parts are separate paragraphs to the author; gluing them would merge words.
  return texts.join('\n')
}

/** OpenAI's JSON-string arguments → GigaChat's object. */
function argumentsObject(args: unknown): Json {
  if (isObject(args)) return args
  if (typeof args !== 'string' || args.trim() === '') return {}
  try {
    const parsed = JSON.parse(args)
    if (isObject(parsed)) return parsed
  } catch {}
  return { arguments: args }
}

/** A tool's result as GigaChat wants it: a serialised JSON object. */
function functionResult(text: string): string {
  try {
    const parsed = JSON.parse(text)
    return isObject(parsed) ? text : JSON.stringify({ result: parsed })
  } catch {
    return JSON.stringify({ result: text })
  }
}

type GigaMessage = { role: 'system' | 'user' | 'assistant' | 'function'; content: string; name?: string; function_call?: { name: string; arguments: Json } }

function toGigachatMessages(raw: unknown): GigaMessage[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new BadRequest('messages должен быть непустым массивом')
  const system: string[] = []
  const rest: GigaMessage[] = []
  /** tool_call_id → function name, for the `function` messages that answer them. */
  const calls = new Map<string, string>()
  /** Calls past the first of a message: GigaChat never saw them, so their results are dropped too. */
  const dropped = new Set<string>()
  for (const m of raw) {
    if (!isObject(m)) throw new BadRequest('Каждое сообщение должно быть объектом')
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(textOf(m.content))
        break
      case 'user':
        rest.push({ role: 'user', content: textOf(m.content) })
        break
      case 'assistant': {
        const toolCalls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObject) : []
        const first = toolCalls[0]
        if (!first) {
          rest.push({ role: 'assistant', content: textOf(m.content) })
          break
        }
        // GigaChat's v1 message carries one function call: the first is kept.
        const fn = isObject(first.function) ? first.function : {}
        const name = typeof fn.name === 'string' ? fn.name : ''
        if (!name) throw new BadRequest('tool_calls[0].function.name обязателен')
        if (typeof first.id === 'string') calls.set(first.id, name)
        for (const other of toolCalls.slice(1)) if (typeof other.id === 'string') dropped.add(other.id)
        rest.push({ role: 'assistant', content: '', function_call: { name, arguments: argumentsObject(fn.arguments) } })
        break
      }
      case 'tool': {
        const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : ''
        if (dropped.has(id)) break
        const name = calls.get(id)
        if (!name) throw new BadRequest(`Сообщение role "tool" отвечает на неизвестный tool_call_id "${id}"`)
        rest.push({ role: 'function', name, content: functionResult(textOf(m.content)) })
        break
      }
      case 'function': {
        // OpenAI's deprecated function-calling history: already GigaChat's shape.
        if (typeof m.name !== 'string' || !m.name) throw new BadRequest('Сообщение role "function" должно иметь name')
        rest.push({ role: 'function', name: m.name, content: functionResult(textOf(m.content)) })
        break
      }
      default:
        throw new BadRequest(`GigaChat не поддерживает сообщения с role "${String(m.role)}"`)
    }
  }
  // GigaChat takes exactly one system message, and only first (422 otherwise).
  return system.length ? [{ role: 'system', content: system.join('\n\n') }, ...rest] : rest
}

type GigaFunction = { name: string; description?: string; parameters: Json }

function toFunctions(tools: unknown): GigaFunction[] {
  if (!Array.isArray(tools)) return []
  const out: GigaFunction[] = []
  for (const t of tools) {
    // Only custom functions: GigaChat's built-ins (text2image…) are not offered through this gateway.
    if (!isObject(t) || t.type !== 'function' || !isObject(t.function)) continue
    const f = t.function
    if (typeof f.name !== 'string' || !f.name) throw new BadRequest('tools[].function.name обязателен')
    out.push({
      name: f.name,
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      parameters: isObject(f.parameters) ? f.parameters : { type: 'object', properties: {} },
    })
  }
  return out
}

/** OpenAI's tool_choice → GigaChat's function_call. GigaChat cannot force "some call": 'required' is 'auto'. */
function toFunctionCall(choice: unknown): 'auto' | 'none' | { name: string } {
  if (choice === 'none') return 'none'
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') return { name: choice.function.name }
  return 'auto'
}

/** The OpenAI chat body in GigaChat's v1 terms; every field GigaChat would reject (or misread) is left out. */
export function toGigachatChat(body: Json): Json {
  if (typeof body.model !== 'string' || !body.model) throw new BadRequest('model обязателен')
  const out: Json = { model: body.model, messages: toGigachatMessages(body.messages) }
  const functions = toFunctions(body.tools)
  // function_call only with custom functions: a bare 'auto' would switch on GigaChat's built-in ones.
  if (functions.length) {
    out.functions = functions
    out.function_call = toFunctionCall(body.tool_choice)
  }
  if (num(body.temperature) !== undefined) out.temperature = Math.max(body.temperature as number, MIN_TEMPERATURE)
  if (num(body.top_p) !== undefined) out.top_p = body.top_p
  if (num(body.n) !== undefined) out.n = body.n
  const maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens)
  if (maxTokens !== undefined) out.max_tokens = maxTokens
  if (num(body.repetition_penalty) !== undefined) out.repetition_penalty = body.repetition_penalty
  if (body.stream === true) out.stream = true
  return out
}

// ---- answer translation --------------------------------------------------------------------------

const FINISH: Record<string, string> = {
  stop: 'stop',
  length: 'length',
  function_call: 'tool_calls',
  // A topic GigaChat refuses to talk about: OpenAI's name for a filtered answer.
  blacklist: 'content_filter',
  // Invalid arguments for a custom function: the answer ended, OpenAI has no "error" reason.
  error: 'stop',
}
const finishReason = (r: unknown) => (typeof r === 'string' ? (FINISH[r] ?? 'stop') : null)

/**
 * GigaChat's usage in OpenAI's terms. `precached_prompt_tokens` are taken as a part of
 * `prompt_tokens` (as OpenAI's cached_tokens are), and the total is recomputed as OpenAI defines it.
 */
export function openaiUsage(u: unknown) {
  if (!isObject(u)) return undefined
  const prompt = num(u.prompt_tokens) ?? 0
  const completion = num(u.completion_tokens) ?? 0
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: num(u.precached_prompt_tokens) ?? 0 } }
}

const toolCall = (fc: Json) => ({
  id: `call_${crypto.randomUUID()}`,
  type: 'function' as const,
  function: { name: typeof fc.name === 'string' ? fc.name : '', arguments: typeof fc.arguments === 'string' ? fc.arguments : JSON.stringify(fc.arguments ?? {}) },
})

function openaiCompletion(json: Json, model: string): Json {
  const choices = Array.isArray(json.choices) ? json.choices.filter(isObject) : []
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    object: 'chat.completion',
    created: num(json.created) ?? Math.floor(Date.now() / 1000),
    model: typeof json.model === 'string' ? json.model : model,
    choices: choices.map((c, i) => {
      const m = isObject(c.message) ? c.message : {}
      const fc = isObject(m.function_call) ? m.function_call : null
      const content = typeof m.content === 'string' ? m.content : null
      const message: Json = { role: 'assistant', content: fc && !content ? null : content }
      if (fc) message.tool_calls = [toolCall(fc)]
      if (typeof m.reasoning_content === 'string') message.reasoning_content = m.reasoning_content
      return { index: num(c.index) ?? i, message, finish_reason: finishReason(c.finish_reason) ?? 'stop' }
    }),
    ...(json.usage ? { usage: openaiUsage(json.usage) } : {}),
  }
}

/** One GigaChat stream event → the OpenAI chunk, or null when nothing in it is for the customer. */
function openaiChunk(ev: Json, id: string, model: string): Json | null {
  const choices: Json[] = []
  for (const [i, c] of (Array.isArray(ev.choices) ? ev.choices.filter(isObject) : []).entries()) {
    const d = isObject(c.delta) ? c.delta : {}
    // Progress of GigaChat's built-in functions: never asked for here.
    if (d.role === 'function_in_progress') continue
    const delta: Json = {}
    if (d.role === 'assistant') delta.role = 'assistant'
    if (typeof d.content === 'string') delta.content = d.content
    if (typeof d.reasoning_content === 'string') delta.reasoning_content = d.reasoning_content
    // GigaChat sends a call whole, in one event: it becomes the one tool_calls delta OpenAI allows to carry everything.
    if (isObject(d.function_call)) delta.tool_calls = [{ index: 0, ...toolCall(d.function_call) }]
    choices.push({ index: num(c.index) ?? i, delta, finish_reason: finishReason(c.finish_reason) })
  }
  const usage = openaiUsage(ev.usage)
  if (!choices.length && !usage) return null
  return {
    id,
    object: 'chat.completion.chunk',
    created: num(ev.created) ?? Math.floor(Date.now() / 1000),
    model: typeof ev.model === 'string' ? ev.model : model,
    choices,
    ...(usage ? { usage } : {}),
  }
}

/** GigaChat's SSE → OpenAI's, event by event as they arrive (events may be split across reads). */
function streamTranslator(model: string): TransformStream<Uint8Array, Uint8Array> {
  const id = `chatcmpl-${crypto.randomUUID()}`
  const splitter = new SseSplitter()
  const encoder = new TextEncoder()
  const emit = (block: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n')
    if (!data) return
    if (data.trim() === '[DONE]') return controller.enqueue(encoder.encode('data: [DONE]\n\n'))
    let ev: unknown
    try {
      ev = JSON.parse(data)
    } catch {
      return
    }
    if (!isObject(ev)) return
    if (!Array.isArray(ev.choices) && typeof ev.message === 'string') {
      // An error inside the stream: passed on in OpenAI's shape so the relay sees a failure.
      const status = num(ev.status) ?? 500
      const { message, type, code } = upstreamError(status, ev.message)
      return controller.enqueue(encoder.encode(sseData({ error: { message, type, code, param: null } })))
    }
    const chunk = openaiChunk(ev, id, model)
    if (chunk) controller.enqueue(encoder.encode(sseData(chunk)))
  }
  return new TransformStream({
    transform(bytes, controller) {
      for (const event of eventsOf(splitter.pushBlock(bytes))) emit(event, controller)
    },
    flush(controller) {
      const rest = splitter.rest()
      if (rest) emit(rest, controller)
    },
  })
}

// ---- errors --------------------------------------------------------------------------------------

const ERRORS: Record<number, [ru: string, code: string, type: string]> = {
  400: ['GigaChat отклонил запрос', 'invalid_request_error', 'invalid_request_error'],
  401: ['GigaChat не принял токен доступа шлюза', 'upstream_auth_failed', 'server_error'],
  402: ['У шлюза закончился оплаченный объём токенов GigaChat', 'upstream_payment_required', 'server_error'],
  403: ['GigaChat отказал шлюзу в доступе', 'upstream_permission_denied', 'server_error'],
  404: ['GigaChat не знает такой модели', 'model_not_found', 'invalid_request_error'],
  413: ['Запрос не помещается в контекст модели GigaChat', 'context_length_exceeded', 'invalid_request_error'],
  422: ['GigaChat счёл параметры запроса неверными', 'invalid_request_error', 'invalid_request_error'],
  429: ['GigaChat перегружен запросами, повторите позже', 'rate_limit_exceeded', 'rate_limit_error'],
}

function upstreamError(status: number, theirs: string) {
  const [ru, code, type] =
    ERRORS[status] ?? (status >= 500 ? ['Сбой на стороне GigaChat', 'upstream_error', 'server_error'] : ['GigaChat вернул ошибку', 'upstream_error', 'invalid_request_error'])
  return { message: theirs ? `${ru}: ${theirs}` : ru, code, type }
}

/** GigaChat's `{status, message}` (or whatever a proxy in front of it sent) → OpenAI's shape, same status. */
async function translateError(res: Response): Promise<Response> {
  const text = await res.text().catch(() => '')
  let theirs = text.trim().slice(0, 300) || res.statusText
  try {
    const json = JSON.parse(text)
    if (isObject(json) && typeof json.message === 'string') theirs = json.message
  } catch {}
  const { message, code, type } = upstreamError(res.status, theirs)
  const retryAfter = res.headers.get('retry-after')
  return errorResponse(res.status, message, type, code, retryAfter ?? undefined)
}

/** A 200's JSON body, or a 502 when it is not one (a proxy's page, a cut connection). */
async function answerJson(res: Response): Promise<Json | Response> {
  const text = await res.text()
  try {
    const json = JSON.parse(text)
    if (isObject(json)) return json
  } catch {}
  return errorResponse(502, `GigaChat прислал ответ, который не удалось прочитать: ${text.trim().slice(0, 200)}`, 'server_error', 'upstream_error')
}

// ---- embeddings ----------------------------------------------------------------------------------

function toGigachatEmbeddings(body: Json): Json {
  if (typeof body.model !== 'string' || !body.model) throw new BadRequest('model обязателен')
  const input = typeof body.input === 'string' ? [body.input] : body.input
  if (!Array.isArray(input) || input.length === 0 || !input.every((s) => typeof s === 'string')) {
    throw new BadRequest('GigaChat принимает в input только текст: строку или массив строк')
  }
  // GigaChat cannot shorten vectors: answering with full-length ones would break the caller's index.
  if (body.dimensions !== undefined) throw new BadRequest('Модели эмбеддингов GigaChat не поддерживают параметр dimensions')
  if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
    throw new BadRequest('encoding_format должен быть float или base64')
  }
  return { model: body.model, input }
}

/** Float32 little-endian bytes in base64, as OpenAI sends `encoding_format: "base64"` (its SDKs ask for it by default). */
const base64Vector = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString('base64')

function openaiEmbeddings(json: Json, model: string, base64: boolean): Json {
  const items = (Array.isArray(json.data) ? json.data.filter(isObject) : []).map((d, i) => ({
    index: num(d.index) ?? i,
    vector: Array.isArray(d.embedding) ? (d.embedding as number[]) : [],
    // GigaChat counts tokens per input; OpenAI once for the request.
    tokens: isObject(d.usage) ? (num(d.usage.prompt_tokens) ?? 0) : 0,
  }))
  items.sort((a, b) => a.index - b.index)
  const tokens = items.reduce((sum, d) => sum + d.tokens, 0)
  return {
    object: 'list',
    data: items.map((d) => ({ object: 'embedding', index: d.index, embedding: base64 ? base64Vector(d.vector) : d.vector })),
    model: typeof json.model === 'string' ? json.model : model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  }
}

// ---- the client ----------------------------------------------------------------------------------

type Token = { value: string; expiresAt: number }

export type GigachatClient = KindClient & { tokenExpiresAt(): number | null }

export function createGigachatClient(entry: GigachatEntry, opts: KindClientOptions = {}): GigachatClient {
  const now = opts.now ?? Date.now
  const doFetch: FetchLike = opts.fetch ?? fetch
  // Trusted for this upstream's two hosts only (Russian Trusted Root CA); verification stays on.
  const tls = entry.caFile ? { ca: [readFileSync(entry.caFile, 'utf8')] } : undefined
  const send = (url: string, init: RequestInit) => {
    const withCa: BunFetchRequestInit = tls ? { ...init, tls } : init
    return doFetch(url, withCa)
  }
  const base = entry.baseUrl.replace(/\/+$/, '')

  let token: Token | null = null
  let pending: Promise<Token> | null = null

  async function requestToken(): Promise<Token> {
    const res = await send(entry.authUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${entry.authKey}`,
        rquid: crypto.randomUUID(),
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ scope: entry.scope }).toString(),
    })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {}
    if (res.status === 200 && isObject(json) && typeof json.access_token === 'string' && num(json.expires_at) !== undefined) {
      const exp = json.expires_at as number
      // The docs' example shows seconds, the real host milliseconds: a seconds value is read as such.
      return { value: json.access_token, expiresAt: exp < 1e11 ? exp * 1000 : exp }
    }
    const theirs = isObject(json) && typeof json.message === 'string' ? json.message : text.trim().slice(0, 200) || `HTTP ${res.status}`
    throw new AuthFailure(`GigaChat не выдал шлюзу токен доступа (HTTP ${res.status}): ${theirs}`)
  }

  /** A usable token; `stale` is one the API just refused, so it is not good enough even if not expired. */
  function freshToken(stale?: string): Promise<Token> {
    if (token && token.value !== stale && token.expiresAt - now() >= RENEW_BEFORE_MS) return Promise.resolve(token)
    // Everyone needing a token now waits for the same request (the token host allows 10 per second).
    pending ??= requestToken()
      .then((t) => (token = t))
      .finally(() => {
        pending = null
      })
    return pending
  }

  async function call(path: string, payload: Json, signal: AbortSignal, headers: Record<string, string>, stream: boolean): Promise<Response> {
    const requestId = Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-request-id')?.[1]
    const init = (t: Token): RequestInit => ({
      method: 'POST',
      signal,
      headers: {
        authorization: `Bearer ${t.value}`,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        ...(stream ? { 'cache-control': 'no-store' } : {}),
        ...(requestId ? { 'x-request-id': requestId } : {}),
      },
      body: JSON.stringify(payload),
    })
    const first = await freshToken()
    const res = await send(base + path, init(first))
    if (res.status !== 401) return res
    // Revoked or expired early: one new token, one more try; a second 401 is the answer.
    await res.body?.cancel().catch(() => {})
    return send(base + path, init(await freshToken(first.value)))
  }

  async function chat(body: Json, signal: AbortSignal, headers: Record<string, string>): Promise<Response> {
    const payload = toGigachatChat(body)
    const model = payload.model as string
    const stream = payload.stream === true
    const res = await call('/chat/completions', payload, signal, headers, stream)
    if (!res.ok) return translateError(res)
    if (!stream) {
      const json = await answerJson(res)
      return json instanceof Response ? json : Response.json(openaiCompletion(json, model))
    }
    if (!res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      await res.body?.cancel().catch(() => {})
      return errorResponse(502, 'GigaChat ответил не потоком событий, хотя поток был запрошен', 'server_error', 'upstream_error')
    }
    return new Response(res.body.pipeThrough(streamTranslator(model)), {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    })
  }

  async function embeddings(body: Json, signal: AbortSignal, headers: Record<string, string>): Promise<Response> {
    const payload = toGigachatEmbeddings(body)
    const res = await call('/embeddings', payload, signal, headers, false)
    if (!res.ok) return translateError(res)
    const json = await answerJson(res)
    return json instanceof Response ? json : Response.json(openaiEmbeddings(json, payload.model as string, body.encoding_format === 'base64'))
  }

  return {
    async post(path, body, signal, headers = {}) {
      const route = path.split('?')[0]!.replace(/\/+$/, '')
      try {
        if (route === '/chat/completions') return await chat(body, signal, headers)
        if (route === '/embeddings') return await embeddings(body, signal, headers)
        return errorResponse(404, `GigaChat не поддерживает ${path}`, 'invalid_request_error', 'unsupported_endpoint')
      } catch (e) {
        if (e instanceof BadRequest) return errorResponse(400, e.message, 'invalid_request_error', 'invalid_request_error')
        if (e instanceof AuthFailure) return errorResponse(502, e.message, 'server_error', 'upstream_auth_failed')
        throw e
      }
    },
    tokenExpiresAt: () => token?.expiresAt ?? null,
  }
}
