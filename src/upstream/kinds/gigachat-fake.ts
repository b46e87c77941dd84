// A local GigaChat for tests: the OAuth host and the v1 REST API on one HTTP(S) server, checking what
// the real ones check (reference/providers-and-payments.md §1) and answering in their exact shapes, so
// a test that passes here proves the client translates, not that the fake is lenient.
//
// Answers are deterministic: prompt tokens = characters of all message contents / 4 (rounded up),
// completion tokens = words, precached = a quarter of the prompt (rounded down). A request with
// `functions` whose last message is the user's and mentions "погода" (or whose function_call names a
// function) gets a call `{city: "Москва"}`; a last `function` message gets a text quoting its result;
// "медленно" in the last user message streams 200 words 20 ms apart (for abort tests).

import type { FileModel, GigachatEntry } from './types'

const VERSION = '2.0.28.2'
const CHAT_MODELS = ['GigaChat', 'GigaChat-2', 'GigaChat-2-Pro', 'GigaChat-2-Max', 'GigaChat-Pro', 'GigaChat-Max']
const EMBEDDING_MODELS = ['Embeddings', 'Embeddings-2', 'EmbeddingsGigaR']
const SCOPES = ['GIGACHAT_API_PERS', 'GIGACHAT_API_B2B', 'GIGACHAT_API_CORP']
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i
/** Top-level fields of the v1 chat request (SDK models/chat.py); anything else is refused. */
const CHAT_FIELDS = new Set([
  'model',
  'messages',
  'function_call',
  'functions',
  'temperature',
  'top_p',
  'n',
  'stream',
  'max_tokens',
  'repetition_penalty',
  'update_interval',
  'profanity_check',
  'flags',
  'storage',
  'reasoning_effort',
])
const MESSAGE_FIELDS = new Set(['role', 'content', 'name', 'function_call', 'functions_state_id', 'attachments'])
const FUNCTION_FIELDS = new Set(['name', 'description', 'parameters', 'few_shot_examples', 'return_parameters'])

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

export type FakeLogEntry = {
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
  /** The status the fake answered with, and whether a failNext() made it. */
  status: number
  injected: boolean
}

export type FakeGigachat = {
  authUrl: string
  baseUrl: string
  port: number
  stop(): Promise<void>
  log: FakeLogEntry[]
  tokensIssued(): number
  /** Makes every issued token invalid: the next API call gets 401. */
  expireTokens(): void
  /** The next API call (after the token check) fails with GigaChat's `{status, message}`; calls queue up. */
  failNext(status: number, message: string, headers?: Record<string, string>): void
  /** Streams whose client went away before the end. */
  streamsCancelled(): number
  /** Its UPSTREAMS_FILE entry (residency ru, rubles) serving `models`. */
  entry(id: string, models: FileModel[]): GigachatEntry
}

export type FakeGigachatOptions = {
  tls?: { cert: string; key: string }
  /** Lifetime of an issued token (the real one: 30 minutes). */
  tokenTtlMs?: number
  /** The Basic authorization key the OAuth host accepts. */
  authKey?: string
  /** The scope that key was issued for. */
  scope?: string
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } })
const apiError = (status: number, message: string, headers?: Record<string, string>) => json(status, { status, message }, headers)
const invalid = (message: string) => apiError(422, `Invalid params: ${message}`)

const words = (s: string) => s.split(/\s+/).filter(Boolean)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Reply = { content: string; functionCall: { name: string; arguments: Json } | null; finish: string }

/** What is wrong with a v1 chat request, as GigaChat would say it; null when it is valid. */
function checkChat(body: Json): Response | null {
  for (const k of Object.keys(body)) if (!CHAT_FIELDS.has(k)) return invalid(`unknown field "${k}"`)
  if (typeof body.model !== 'string' || !CHAT_MODELS.includes(body.model)) return apiError(404, 'No such model')
  if (!Array.isArray(body.messages) || body.messages.length === 0) return invalid('messages must not be empty')
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m)) return invalid('message must be an object')
    for (const k of Object.keys(m)) if (!MESSAGE_FIELDS.has(k)) return invalid(`unknown message field "${k}"`)
    if (!['system', 'user', 'assistant', 'function'].includes(m.role as string)) return invalid(`unknown role "${String(m.role)}"`)
    if (typeof m.content !== 'string') return invalid('message content must be a string')
    if (m.role === 'system' && i !== 0) return invalid('system message must be the first message')
    if (m.role === 'function') {
      if (typeof m.name !== 'string') return invalid('function message must have a name')
      try {
        if (!isObject(JSON.parse(m.content))) throw new Error()
      } catch {
        return invalid('function result must be a JSON object')
      }
    }
    if (m.function_call !== undefined) {
      if (m.role !== 'assistant' || !isObject(m.function_call) || typeof m.function_call.name !== 'string') return invalid('bad function_call')
      if (!isObject(m.function_call.arguments)) return invalid('function_call.arguments must be an object')
    }
  }
  for (const k of ['temperature', 'repetition_penalty'] as const) {
    if (body[k] !== undefined && !(typeof body[k] === 'number' && body[k] > 0)) return invalid(`${k} must be in range (0, +inf)`)
  }
  if (body.top_p !== undefined && !(typeof body.top_p === 'number' && body.top_p >= 0 && body.top_p <= 1)) return invalid('top_p must be in range [0, 1]')
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return invalid('stream must be a boolean')
  const names: string[] = []
  if (body.functions !== undefined) {
    if (!Array.isArray(body.functions)) return invalid('functions must be an array')
    for (const f of body.functions) {
      if (!isObject(f)) return invalid('function must be an object')
      for (const k of Object.keys(f)) if (!FUNCTION_FIELDS.has(k)) return invalid(`unknown function field "${k}"`)
      if (typeof f.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name)) return invalid('function name must be latin and not start with a digit')
      names.push(f.name)
    }
  }
  const fc = body.function_call
  if (fc !== undefined && fc !== 'auto' && fc !== 'none') {
    if (!isObject(fc) || typeof fc.name !== 'string' || !names.includes(fc.name)) return invalid('function_call must be "auto", "none" or {"name"} of a given function')
  }
  return null
}

function reply(body: Json): Reply {
  const messages = body.messages as Json[]
  const last = messages[messages.length - 1]!
  const functions = (body.functions as Json[] | undefined) ?? []
  const fc = body.function_call
  if (functions.length && fc !== 'none') {
    const forced = isObject(fc) ? (fc.name as string) : null
    if (forced || (last.role === 'user' && String(last.content).toLowerCase().includes('погода'))) {
      return { content: '', functionCall: { name: forced ?? (functions[0]!.name as string), arguments: { city: 'Москва' } }, finish: 'function_call' }
    }
  }
  if (last.role === 'function') return { content: `По данным функции ${last.name}: ${last.content}`, functionCall: null, finish: 'stop' }
  const text = String(last.content)
  if (text.includes('медленно')) return { content: Array.from({ length: 200 }, (_, i) => `слово${i + 1}`).join(' '), functionCall: null, finish: 'stop' }
  let content = `Ответ GigaChat: ${text}`
  let finish = 'stop'
  const max = body.max_tokens
  if (typeof max === 'number' && words(content).length > max) {
    content = words(content).slice(0, max).join(' ')
    finish = 'length'
  }
  return { content, functionCall: null, finish }
}

function usage(body: Json, r: Reply) {
  const chars = (body.messages as Json[]).reduce((n, m) => n + String(m.content).length, 0)
  const prompt = Math.ceil(chars / 4)
  const completion = r.functionCall ? 1 : words(r.content).length
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, precached_prompt_tokens: Math.floor(prompt / 4) }
}

export async function startFakeGigachat(opts: FakeGigachatOptions = {}): Promise<FakeGigachat> {
  const ttl = opts.tokenTtlMs ?? 30 * 60_000
  const authKey = opts.authKey ?? 'test-auth-key'
  const scope = opts.scope ?? 'GIGACHAT_API_PERS'
  const tokens = new Map<string, number>()
  let issued = 0
  let cancelled = 0
  const failures: Array<{ status: number; message: string; headers?: Record<string, string> }> = []
  const log: FakeLogEntry[] = []

  function oauth(req: Request, form: string): Response {
    if (req.method !== 'POST') return json(405, { code: 0, message: 'method not allowed' })
    if (req.headers.get('authorization') !== `Basic ${authKey}`) return json(401, { code: 4, message: "Can't decode 'Authorization' header" })
    if (!UUID4.test(req.headers.get('rquid') ?? '')) return json(400, { code: 6, message: 'RqUID is invalid' })
    if (!(req.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) return json(400, { code: 1, message: 'scope data format invalid' })
    const asked = new URLSearchParams(form).get('scope')
    if (!asked) return json(400, { code: 5, message: 'scope is empty' })
    if (!SCOPES.includes(asked)) return json(400, { code: 1, message: 'scope data format invalid' })
    if (asked !== scope) return json(400, { code: 7, message: 'scope from db not fully includes consumed scope' })
    const token = `fake-${crypto.randomUUID()}`
    const expiresAt = Date.now() + ttl
    tokens.set(token, expiresAt)
    issued++
    return json(200, { access_token: token, expires_at: expiresAt })
  }

  function chat(body: Json, req: Request): Response {
    const r = reply(body)
    const u = usage(body, r)
    const created = Math.floor(Date.now() / 1000)
    const model = `${body.model}:${VERSION}`
    const n = typeof body.n === 'number' ? body.n : 1
    const functionCall = r.functionCall ? { function_call: r.functionCall, functions_state_id: crypto.randomUUID() } : {}
    if (body.stream !== true) {
      const choices = Array.from({ length: n }, (_, index) => ({ message: { content: r.content, role: 'assistant', ...functionCall }, index, finish_reason: r.finish }))
      return json(200, { choices, created, model, object: 'chat.completion', usage: u })
    }
    // One event per word; the call (if any) comes whole in the closing event, with the usage.
    const pieces = r.functionCall ? [] : words(r.content).map((w, i, all) => (i < all.length - 1 ? `${w} ` : w))
    const slow = r.content.startsWith('слово1 ')
    const encoder = new TextEncoder()
    let done = false
    let gone = false
    const onGone = () => {
      if (!done && !gone) {
        gone = true
        cancelled++
      }
    }
    req.signal.addEventListener('abort', onGone)
    const event = (data: unknown) => encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          for (const [i, content] of pieces.entries()) {
            if (gone) return
            const delta = i === 0 ? { content, role: 'assistant' } : { content }
            controller.enqueue(event({ choices: [{ delta, index: 0 }], created, model, object: 'chat.completion' }))
            if (slow) await sleep(20)
          }
          const delta = r.functionCall ? { content: '', role: 'assistant', ...functionCall } : { content: '' }
          controller.enqueue(event({ choices: [{ delta, index: 0, finish_reason: r.finish }], created, model, object: 'chat.completion', usage: u }))
          controller.enqueue(event('[DONE]'))
          done = true
          controller.close()
        } catch {
          onGone()
        }
      },
      cancel: onGone,
    })
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  }

  function embeddings(body: Json): Response {
    for (const k of Object.keys(body)) if (k !== 'model' && k !== 'input') return invalid(`unknown field "${k}"`)
    if (typeof body.model !== 'string' || !EMBEDDING_MODELS.includes(body.model)) return apiError(404, 'No such model')
    if (!Array.isArray(body.input) || body.input.length === 0 || !body.input.every((s) => typeof s === 'string')) return invalid('input must be an array of strings')
    const data = (body.input as string[]).map((text, index) => ({
      object: 'embedding',
      index,
      embedding: [text.length / 100, words(text).length, (text.codePointAt(0) ?? 0) / 2048, 0.5],
      usage: { prompt_tokens: Math.ceil(text.length / 4) },
    }))
    return json(200, { object: 'list', model: body.model, data })
  }

  function handle(req: Request, path: string, text: string, entry: FakeLogEntry): Response {
    if (path === '/api/v2/oauth') return oauth(req, text)
    const bearer = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1]
    const expiresAt = bearer ? tokens.get(bearer) : undefined
    if (expiresAt === undefined || expiresAt <= Date.now()) return apiError(401, 'Unauthorized')
    const failure = failures.shift()
    if (failure) {
      entry.injected = true
      return apiError(failure.status, failure.message, failure.headers)
    }
    if (req.method === 'GET' && path === '/api/v1/models') {
      const data = [...CHAT_MODELS.map((id) => ({ id, type: 'chat' })), ...EMBEDDING_MODELS.map((id) => ({ id, type: 'embedder' }))]
      return json(200, { object: 'list', data: data.map((m) => ({ id: m.id, object: 'model', owned_by: 'salutedevices', type: m.type })) })
    }
    if (req.method !== 'POST' || (path !== '/api/v1/chat/completions' && path !== '/api/v1/embeddings')) return apiError(404, 'Not Found')
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return apiError(400, 'Bad Request')
    }
    if (!isObject(body)) return apiError(400, 'Bad Request')
    if (path === '/api/v1/embeddings') return embeddings(body)
    return checkChat(body) ?? chat(body, req)
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    ...(opts.tls ? { tls: opts.tls } : {}),
    async fetch(req) {
      const path = new URL(req.url).pathname
      const text = await req.text()
      let body: unknown = text || undefined
      try {
        body = JSON.parse(text)
      } catch {}
      const entry: FakeLogEntry = { method: req.method, path, headers: Object.fromEntries(req.headers), body, status: 0, injected: false }
      log.push(entry)
      const res = handle(req, path, text, entry)
      entry.status = res.status
      return res
    },
  })
  const origin = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${server.port}`
  return {
    authUrl: `${origin}/api/v2/oauth`,
    baseUrl: `${origin}/api/v1`,
    port: server.port!,
    stop: () => server.stop(true),
    log,
    tokensIssued: () => issued,
    expireTokens: () => tokens.clear(),
    failNext: (status, message, headers) => void failures.push({ status, message, headers }),
    streamsCancelled: () => cancelled,
    entry: (id, models) => ({ id, kind: 'gigachat', baseUrl: `${origin}/api/v1`, authUrl: `${origin}/api/v2/oauth`, authKey, scope, residency: 'ru', currency: 'RUB', models }),
  }
}
