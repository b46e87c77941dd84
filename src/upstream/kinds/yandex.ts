// Yandex AI Studio through its OpenAI-compatible API (reference providers-and-payments.md §2) as a
// KindClient: OpenAI chat completions and embeddings in, OpenAI shapes out. Yandex supports only part
// of OpenAI's fields, so the request is rebuilt from a whitelist; its answers are already OpenAI-shaped
// and only get their `model` and `usage` made dependable.
import { readFileSync } from 'node:fs'
import { isObject } from '../../lib/json'
import { eventsOf, SseSplitter } from '../../lib/sse'
import type { KindClient, KindClientOptions, YandexEntry } from './types'

type Json = Record<string, unknown>

/** Requests Yandex runs at once for one embeddings call (its default quota is 10 embedding requests/s per cloud). */
const EMBEDDING_CONCURRENCY = 4

const str = (v: unknown) => (typeof v === 'string' ? v : '')
/** A count as a number; Yandex's native API writes counts as strings, so those are read too. */
const count = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined
}

/** Characters as a reader counts them (code points, not UTF-16 units). */
export function chars(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** Our token estimate when Yandex reports none: a third of the characters, rounded up. */
export const estimateTokens = (characters: number) => Math.ceil(characters / 3)

const contentChars = (content: unknown): number =>
  typeof content === 'string' ? chars(content) : Array.isArray(content) ? content.reduce((n: number, part) => n + (isObject(part) ? chars(str(part.text)) : 0), 0) : 0

const toolCallChars = (calls: unknown): number =>
  Array.isArray(calls) ? calls.reduce((n: number, c) => n + (isObject(c) && isObject(c.function) ? chars(str(c.function.name)) + chars(str(c.function.arguments)) : 0), 0) : 0

/** The prompt's characters: message text, assistant tool calls, and the tools' JSON (the model reads them all). */
export function promptChars(sent: Json): number {
  let n = 0
  for (const m of Array.isArray(sent.messages) ? sent.messages : []) if (isObject(m)) n += contentChars(m.content) + toolCallChars(m.tool_calls)
  if (Array.isArray(sent.tools)) n += chars(JSON.stringify(sent.tools))
  return n
}

/** Characters a message or a delta wrote: text, reasoning (Qwen, gpt-oss) and tool calls. */
const writtenChars = (m: unknown): number => (isObject(m) ? contentChars(m.content) + chars(str(m.reasoning_content)) + toolCallChars(m.tool_calls) : 0)

const estimatedUsage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0 },
  estimated: true,
})

/** Yandex's usage with the fields the gateway reads present and numeric; undefined when it has no counts. */
function normaliseUsage(u: unknown): Json | undefined {
  if (!isObject(u)) return undefined
  const prompt = count(u.prompt_tokens)
  const completion = count(u.completion_tokens)
  if (prompt === undefined && completion === undefined) return undefined
  const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {}
  return {
    ...u,
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: count(u.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
    prompt_tokens_details: { ...details, cached_tokens: count(details.cached_tokens) ?? 0 },
  }
}

const ERROR_KINDS: Record<number, [code: string, type: string]> = {
  400: ['invalid_request', 'invalid_request_error'],
  401: ['invalid_api_key', 'authentication_error'],
  403: ['permission_denied', 'permission_error'],
  404: ['not_found', 'invalid_request_error'],
  408: ['timeout', 'server_error'],
  413: ['request_too_large', 'invalid_request_error'],
  422: ['invalid_request', 'invalid_request_error'],
  429: ['rate_limit_exceeded', 'rate_limit_error'],
  504: ['timeout', 'server_error'],
}
const errorKind = (status: number): [string, string] => ERROR_KINDS[status] ?? (status >= 500 ? ['upstream_error', 'server_error'] : ['upstream_error', 'api_error'])

function errorResponse(status: number, message: string, code: string, type: string, retryAfter?: string | null): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (retryAfter) headers['retry-after'] = retryAfter
  return new Response(JSON.stringify({ error: { message, code, type } }), { status, headers })
}

const badUpstream = (what: string) => errorResponse(502, `YandexGPT вернул некорректный ответ: ${what}`, 'bad_upstream_response', 'server_error')

/**
 * Yandex's error in OpenAI's shape, same status and Retry-After. Its body shape on the OpenAI host is
 * unconfirmed, so `{error:{message}}`, `{error:"text"}`, `{message}` (gRPC-style) and plain text are read.
 */
export async function yandexError(res: Response): Promise<Response> {
  const text = await res.text().catch(() => '')
  let message = ''
  let code: string | undefined
  let type: string | undefined
  try {
    const body: unknown = JSON.parse(text)
    if (isObject(body)) {
      const e = body.error
      if (typeof e === 'string') message = e
      else if (isObject(e)) {
        message = str(e.message)
        if (typeof e.code === 'string' && e.code) code = e.code
        if (typeof e.type === 'string' && e.type) type = e.type
      }
      if (!message) message = str(body.message)
    }
  } catch {}
  // An HTML page from a proxy says nothing useful to a customer.
  if (!message && !text.trimStart().startsWith('<')) message = text.trim().slice(0, 500)
  if (!message) message = `YandexGPT вернул ошибку HTTP ${res.status}`
  const [defaultCode, defaultType] = errorKind(res.status)
  return errorResponse(res.status, message, code ?? defaultCode, type ?? defaultType, res.headers.get('retry-after'))
}

const forcedName = (choice: Json): string => (isObject(choice.function) ? str(choice.function.name) : str(choice.name))
const toolName = (tool: unknown) => (isObject(tool) && isObject(tool.function) ? str(tool.function.name) : '')

/**
 * The chat request Yandex accepts: a whitelist, so anything it does not support (stop, seed, n,
 * stream_options, the router's routing fields…) is dropped rather than failing the request.
 */
export function yandexChatBody(body: Json, folderId: string, model: string): Json {
  const sent: Json = { model: modelUri('gpt', folderId, model) }
  for (const key of ['messages', 'temperature', 'top_p', 'response_format'] as const) if (body[key] !== undefined && body[key] !== null) sent[key] = body[key]
  if (Array.isArray(body.tools) && body.tools.length > 0) sent.tools = body.tools
  // The compatibility page lists max_tokens as supported (max_completion_tokens only appears in the
  // generated reference, as its newer name), so the limit goes as max_tokens; the newer name wins as at OpenAI.
  const limit = body.max_completion_tokens ?? body.max_tokens
  if (limit !== undefined && limit !== null) sent.max_tokens = limit
  if (typeof body.stream === 'boolean') sent.stream = body.stream
  const choice = body.tool_choice
  // Without tools a choice means nothing, and is not sent.
  if (Array.isArray(sent.tools) && choice !== undefined && choice !== null) {
    if (choice === 'auto' || choice === 'none') sent.tool_choice = choice
    else {
      // Yandex knows only auto/none. `required` becomes auto; a forced function also leaves only that
      // tool in the list, so the model may still answer in text but can call nothing else.
      sent.tool_choice = 'auto'
      const name = isObject(choice) ? forcedName(choice) : ''
      const only = name ? sent.tools.filter((t) => toolName(t) === name) : []
      if (only.length > 0) sent.tools = only
    }
  }
  return sent
}

/** `gpt://<folder>/<model>` (or `emb://`), unless the name is a URI already. */
export const modelUri = (scheme: 'gpt' | 'emb', folderId: string, model: string) => (/^(gpt|emb):\/\//.test(model) ? model : `${scheme}://${folderId}/${model}`)

/**
 * A chat stream passed on event by event, with `model` set to our name for it and usage made sure of:
 * Yandex does not support stream_options.include_usage, and whether its last chunk carries usage is
 * unconfirmed, so when no chunk had usage an estimated one is added before `data: [DONE]`.
 */
export function usageStream(model: string, promptTokens: number, now: () => number): TransformStream<Uint8Array, Uint8Array> {
  const splitter = new SseSplitter()
  const encoder = new TextEncoder()
  let sawUsage = false
  let finished = false // a choice ended (finish_reason): the answer is whole
  let done = false
  let completionChars = 0
  let id = ''
  let created = 0

  const emit = (c: TransformStreamDefaultController<Uint8Array>, event: string) => c.enqueue(encoder.encode(event))
  const end = (c: TransformStreamDefaultController<Uint8Array>) => {
    done = true
    if (!sawUsage) {
      const usage = estimatedUsage(promptTokens, estimateTokens(completionChars))
      const chunk = { id: id || `chatcmpl-yandex-${crypto.randomUUID()}`, object: 'chat.completion.chunk', created: created || Math.floor(now() / 1000), model, choices: [], usage }
      emit(c, `data: ${JSON.stringify(chunk)}\n\n`)
    }
    emit(c, 'data: [DONE]\n\n')
  }
  const dispatch = (c: TransformStreamDefaultController<Uint8Array>, data: string[]) => {
    if (data.length === 0) return
    const payload = data.join('\n')
    if (payload.trim() === '[DONE]') return end(c)
    let chunk: unknown
    try {
      chunk = JSON.parse(payload)
    } catch {
      return emit(c, `data: ${payload}\n\n`)
    }
    if (isObject(chunk) && !isObject(chunk.error)) {
      if (typeof chunk.id === 'string' && chunk.id) id = chunk.id
      if (typeof chunk.created === 'number') created = chunk.created
      chunk.model = model
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        if (!isObject(choice)) continue
        completionChars += writtenChars(choice.delta)
        if (choice.finish_reason) finished = true
      }
      const usage = normaliseUsage(chunk.usage)
      if (usage) {
        chunk.usage = usage
        sawUsage = true
      }
    }
    emit(c, `data: ${JSON.stringify(chunk)}\n\n`)
  }
  const event = (c: TransformStreamDefaultController<Uint8Array>, text: string) => {
    if (done) return // nothing after [DONE]
    const data: string[] = []
    for (const l of text.split('\n')) {
      // Keep-alive comments are passed on: they keep the relay's idle watch fed.
      if (l.startsWith(':')) emit(c, `${l}\n\n`)
      else if (l.startsWith('data:')) data.push(l.slice(l.startsWith('data: ') ? 6 : 5))
    }
    dispatch(c, data)
  }

  return new TransformStream({
    transform(bytes, c) {
      for (const e of eventsOf(splitter.pushBlock(bytes))) event(c, e)
    },
    flush(c) {
      const rest = splitter.rest()
      if (rest) event(c, rest)
      // A stream that ended without [DONE] is closed for it only if the answer was whole; a cut one stays
      // cut, so the relay sees the drop.
      if (!done && finished) end(c)
    },
  })
}

export function createYandexClient(entry: YandexEntry, opts: KindClientOptions = {}): KindClient {
  const doFetch = opts.fetch ?? ((url: string, init?: RequestInit) => fetch(url, init))
  const now = opts.now ?? Date.now
  const base = entry.baseUrl.replace(/\/+$/, '')
  // Read once, at start: a missing CA file is a configuration error worth failing loudly on.
  const tls = entry.caFile ? { ca: [readFileSync(entry.caFile, 'utf8')] } : undefined
  const headers = { authorization: `Bearer ${entry.apiKey}`, 'openai-project': entry.folderId, 'content-type': 'application/json' }

  const send = (path: string, payload: Json, signal: AbortSignal) => {
    const init: BunFetchRequestInit = { method: 'POST', headers, body: JSON.stringify(payload), signal }
    if (tls) init.tls = tls
    return doFetch(`${base}${path}`, init)
  }

  const noModel = () => errorResponse(400, 'Не указана модель YandexGPT', 'invalid_request', 'invalid_request_error')

  async function chat(body: Json, signal: AbortSignal): Promise<Response> {
    const model = str(body.model)
    if (!model) return noModel()
    const sent = yandexChatBody(body, entry.folderId, model)
    const res = await send('/chat/completions', sent, signal)
    if (!res.ok) return yandexError(res)
    const promptTokens = estimateTokens(promptChars(sent))
    if (sent.stream === true) {
      if (!res.body) return badUpstream('пустой поток')
      return new Response(res.body.pipeThrough(usageStream(model, promptTokens, now)), {
        status: res.status,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
      })
    }
    const text = await res.text() // a failure here (the client left) rejects, as fetch would
    let answer: unknown
    try {
      answer = JSON.parse(text)
    } catch {
      return badUpstream('не JSON')
    }
    if (!isObject(answer)) return badUpstream('не объект')
    // Our name for the model, not Yandex's URI (that would show the folder to customers).
    answer.model = model
    const choices = Array.isArray(answer.choices) ? answer.choices : []
    answer.usage =
      normaliseUsage(answer.usage) ?? estimatedUsage(promptTokens, estimateTokens(choices.reduce((n: number, ch) => n + (isObject(ch) ? writtenChars(ch.message) : 0), 0)))
    return new Response(JSON.stringify(answer), { status: res.status, headers: { 'content-type': 'application/json' } })
  }

  /** Yandex embeds one string per call: an array becomes calls (a few at a time) merged into one list. */
  async function embeddings(body: Json, signal: AbortSignal): Promise<Response> {
    const model = str(body.model)
    if (!model) return noModel()
    const input = body.input
    const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string') ? (input as string[]) : null
    if (!texts) return errorResponse(400, 'YandexGPT строит эмбеддинги только по тексту: input — строка или непустой массив строк', 'invalid_request', 'invalid_request_error')
    const uri = modelUri('emb', entry.folderId, model)
    // Stops the other calls once one failed, and all of them when the client leaves.
    const ac = new AbortController()
    const leave = () => ac.abort(signal.reason)
    if (signal.aborted) leave()
    signal.addEventListener('abort', leave, { once: true })
    const answers: Json[] = []
    let failed: Response | undefined
    let thrown: { error: unknown } | undefined
    let next = 0
    const worker = async () => {
      while (!failed && !thrown && next < texts.length) {
        const i = next++
        try {
          const res = await send('/embeddings', { model: uri, input: texts[i], encoding_format: 'float' }, ac.signal)
          const answer: unknown = res.ok ? await res.json().catch(() => undefined) : undefined
          if (!res.ok) failed ??= await yandexError(res)
          else if (!isObject(answer) || !Array.isArray(answer.data) || !isObject(answer.data[0]) || !Array.isArray(answer.data[0].embedding)) failed ??= badUpstream('нет вектора')
          else answers[i] = answer
        } catch (error) {
          thrown ??= { error }
        }
        if (failed || thrown) ac.abort()
      }
    }
    try {
      await Promise.all(Array.from({ length: Math.min(EMBEDDING_CONCURRENCY, texts.length) }, worker))
    } finally {
      signal.removeEventListener('abort', leave)
    }
    // The client leaving is the fetch failure the caller sees; a Yandex error beats the aborts it caused.
    if (signal.aborted) throw signal.reason
    if (failed) return failed
    if (thrown) throw thrown.error

    const base64 = body.encoding_format === 'base64'
    let promptTokens = 0
    let estimated = false
    const data = answers.map((answer, index) => {
      const embedding = (answer.data as Json[])[0]!.embedding as number[]
      const tokens = isObject(answer.usage) ? count(answer.usage.prompt_tokens) : undefined
      if (tokens === undefined) estimated = true
      promptTokens += tokens ?? estimateTokens(chars(texts[index]!))
      // Yandex is asked for floats only; base64 (the OpenAI SDK's default) is float32 little-endian, as OpenAI sends it.
      return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(embedding).buffer).toString('base64') : embedding }
    })
    const usage: Json = { prompt_tokens: promptTokens, total_tokens: promptTokens }
    if (estimated) usage.estimated = true
    return new Response(JSON.stringify({ object: 'list', data, model, usage }), { status: 200, headers: { 'content-type': 'application/json' } })
  }

  return {
    async post(path, body, signal) {
      const route = `/${path.split('?')[0]!.replace(/^\/+/, '')}`
      if (route === '/chat/completions') return chat(body, signal)
      if (route === '/embeddings') return embeddings(body, signal)
      return errorResponse(404, `YandexGPT не поддерживает ${path}`, 'unsupported_endpoint', 'invalid_request_error')
    },
  }
}
