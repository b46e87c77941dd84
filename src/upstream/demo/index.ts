// The demo upstream: a local stand-in for the OpenRouter API (protocols.md section 1) that answers
// with locally generated text, pictures and sound. Production uses it when no OPENROUTER_API_KEY is set;
// tests start it as a fake upstream (with `faults: true`) and talk to it over real HTTP.
//
// Routes match by path SUFFIX, so any base prefix works (`/api/v1/models`, `/v1/models`, `/models`).
import { findModel, listEmbeddingModels, listModels, modelEndpoints } from './catalogue'
import { handleChat, type RequestContext } from './chat'
import { handleEmbeddings } from './embeddings'
import { type Fault, httpFaultResponse } from './faults'
import { authoriseMessages, handleCountTokens, handleMessages, MESSAGES_PATH } from './messages'
import { handleResponses } from './responses'
import { DemoState, type DemoUpstreamOptions, type GenerationStats, type Outage, type RecordedRequest, resolveOptions } from './state'
import { handleSpeech, handleTranscription } from './voice'
import { json, openRouterError, untilAborted } from './wire'

export { ARTICLE_FORMAT_NAME } from './article'
export { CATALOGUE, EMBEDDING_MODELS, type Model, VOICE_MODELS } from './catalogue'
export { FAULTS, type Fault } from './faults'
export type { DemoUpstreamOptions, GenerationStats, Outage, RecordedRequest } from './state'

export type DemoUpstream = {
  /** A Bun.serve-compatible handler; may also be called in-process. */
  fetch(req: Request): Promise<Response>
  /** Every request received, in arrival order. */
  log: RecordedRequest[]
  /** What `GET /generation` serves (completed, cancelled and failed generations). */
  generations: Map<string, GenerationStats>
  /** Cumulative USD charged to the key, as `GET /key` reports it. */
  keyUsageUsd(): number
  /**
   * Tests only (needs `faults: true`): the next chat request that `match` accepts fails with
   * `fault`, as if its prompt carried `[[fault:NAME]]` — for prompts a test cannot write itself.
   */
  failNext(fault: Fault, match?: (body: Record<string, unknown>) => boolean): void
  /** Tests only (needs `faults: true`): every inference request fails as `outage` says, until it runs out or is cleared (null). */
  outage(outage: Outage | null): void
}

export type RunningFakeUpstream = DemoUpstream & {
  /** Base URL including `/api/v1`, e.g. `http://127.0.0.1:PORT/api/v1`. */
  url: string
  /** Stops listening: connections are refused (for `ms`, when given, else until `accept()`). */
  refuse(ms?: number): Promise<void>
  /** Listens again on the same port. */
  accept(): void
  stop(): Promise<void>
}

export function createDemoUpstream(opts?: DemoUpstreamOptions): DemoUpstream {
  return upstreamOn(new DemoState(resolveOptions(opts)))
}

function upstreamOn(state: DemoState): DemoUpstream {
  return {
    fetch: (req) => handle(req, state),
    log: state.log,
    generations: state.generations,
    keyUsageUsd: state.keyUsageUsd,
    failNext: (fault, match = () => true) => void state.forcedFaults.push({ fault, match }),
    outage: (outage) => {
      state.outage = outage && { ...outage }
    },
  }
}

export async function startFakeUpstream(opts?: DemoUpstreamOptions): Promise<RunningFakeUpstream> {
  const state = new DemoState(resolveOptions(opts), true)
  const demo = upstreamOn(state)
  const listen = (port: number) =>
    Bun.serve({
      port,
      hostname: '127.0.0.1',
      // 0 disables Bun's idle cut-off, which would otherwise end `timeout` and `slow` answers early.
      idleTimeout: 0,
      fetch: (req) => (CONTROL_PATH.test(new URL(req.url).pathname) ? control(req) : demo.fetch(req)),
      error: () => openRouterError(500, 'Internal Server Error'),
    })
  let server: ReturnType<typeof Bun.serve> | null = listen(0)
  const port = server.port!
  let reopen: ReturnType<typeof setTimeout> | undefined
  const accept = () => {
    clearTimeout(reopen)
    server ??= listen(port)
  }
  const refuse = async (ms?: number) => {
    clearTimeout(reopen)
    const s = server
    server = null
    await s?.stop(true)
    if (ms !== undefined) reopen = setTimeout(accept, ms)
  }
  /** POST …/__faults {outage?, refuseMs?}: the same switches over HTTP, for a router in another process (faults on only). */
  async function control(req: Request): Promise<Response> {
    if (!state.opts.faults || req.method !== 'POST') return openRouterError(404, 'Not Found')
    const body = (await readJson(req)) as { outage?: Outage | null; refuseMs?: number } | null
    if (body?.outage !== undefined) demo.outage(body.outage)
    if (typeof body?.refuseMs === 'number') setTimeout(() => void refuse(body.refuseMs), 10) // after this answer went out
    return json({ ok: true })
  }
  return {
    ...demo,
    url: `http://127.0.0.1:${port}/api/v1`,
    refuse,
    accept,
    stop: async () => {
      clearTimeout(reopen)
      await server?.stop(true)
      server = null
    },
  }
}

const CONTROL_PATH = /\/__faults$/

// ---------------------------------------------------------------- request handling

async function readJson(req: Request): Promise<unknown> {
  if (req.method === 'GET' || req.method === 'HEAD') return null
  const text = await req.text().catch(() => '')
  if (!text) return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

/** Logs the request and wires its abort signal; see RequestContext for the meaning of each hook. */
function track(req: Request, url: URL, state: DemoState): { entry: RecordedRequest; ctx: RequestContext } {
  const entry: RecordedRequest = {
    method: req.method,
    path: url.pathname,
    query: url.search,
    headers: Object.fromEntries(req.headers),
    body: null,
    at: Date.now(),
    aborted: false,
  }
  state.logRequest(entry)
  const controller = new AbortController()
  let finished = false
  const forward = () => controller.abort()
  if (req.signal.aborted) controller.abort()
  else req.signal.addEventListener('abort', forward, { once: true })
  controller.signal.addEventListener('abort', () => {
    if (!finished) entry.aborted = true
  })
  const ctx: RequestContext = {
    signal: controller.signal,
    cancel: () => controller.abort(),
    markFinished: () => {
      finished = true
      req.signal.removeEventListener('abort', forward)
    },
  }
  return { entry, ctx }
}

function authorised(req: Request, url: URL, apiKey: string | undefined): Response | null {
  if (apiKey === undefined) return null
  if (MESSAGES_PATH.test(decodePath(url.pathname))) return authoriseMessages(req, apiKey)
  const header = req.headers.get('authorization')
  if (!header) return openRouterError(401, 'No auth credentials found')
  if (header !== `Bearer ${apiKey}`) return openRouterError(401, 'User not found.')
  return null
}

async function handle(req: Request, state: DemoState): Promise<Response> {
  const url = new URL(req.url)
  const { entry, ctx } = track(req, url, state)
  try {
    entry.body = await readJson(req)
    const res = authorised(req, url, state.opts.apiKey) ?? lacking(url, entry.body, state) ?? (await outage(req.method, url, entry.body, state, ctx))
    // A streamed answer (events, or audio) marks itself finished when its last piece is written.
    const type = res.headers.get('content-type') ?? ''
    if (!type.startsWith('text/event-stream') && !type.startsWith('audio/')) ctx.markFinished()
    return res
  } catch (err) {
    ctx.markFinished()
    console.error('demo upstream: unexpected error', err)
    return openRouterError(500, 'Internal Server Error')
  }
}

const INFERENCE = /\/(chat\/completions|responses|messages|messages\/count_tokens|embeddings|audio\/speech|audio\/transcriptions)$/

/** A model this router does not have (`lacks`): 404 as for any unknown model. */
function lacking(url: URL, body: unknown, state: DemoState): Response | null {
  if (!state.opts.lacks.length || !INFERENCE.test(decodePath(url.pathname)) || typeof body !== 'object' || body === null) return null
  const { model, models } = body as { model?: unknown; models?: unknown }
  const named = [model, ...(Array.isArray(models) ? models : [])].filter((m): m is string => typeof m === 'string')
  const missing = named.find((id) => state.opts.lacks.includes(id.replace(/:[a-z]+$/, '')))
  return missing ? unknownModel(missing) : null
}

/** The request under a router-wide outage (`outage()`), else routed as usual. */
async function outage(method: string, url: URL, body: unknown, state: DemoState, ctx: RequestContext): Promise<Response> {
  const fault = method === 'POST' && INFERENCE.test(decodePath(url.pathname)) ? state.outageFault() : null
  if (fault === 'timeout') {
    await untilAborted(ctx.signal)
    return openRouterError(408, 'Request Timeout')
  }
  if (fault === 'break') {
    // Armed for this very request: its handler takes it before it first waits.
    const armed = { fault, match: () => true }
    state.forcedFaults.push(armed)
    const answer = route(method, url, body, state, ctx)
    const left = state.forcedFaults.indexOf(armed)
    if (left >= 0) state.forcedFaults.splice(left, 1) // a request refused before its faults were read
    return answer
  }
  return (fault && httpFaultResponse(new Set([fault]))) || route(method, url, body, state, ctx)
}

const decodePath = (p: string) => {
  try {
    return decodeURIComponent(p).replace(/\/+$/, '')
  } catch {
    return p
  }
}

type Route = {
  method: 'GET' | 'POST'
  pattern: RegExp
  run: (m: RegExpExecArray, url: URL, body: unknown, state: DemoState, ctx: RequestContext) => Response | Promise<Response>
}

// Most specific first: `/models/{author}/{slug}` must win over `/models`.
const ROUTES: Route[] = [
  { method: 'POST', pattern: /\/chat\/completions$/, run: (_m, _u, body, state, ctx) => handleChat(body, state, ctx) },
  { method: 'POST', pattern: /\/responses$/, run: (_m, _u, body, state, ctx) => handleResponses(body, state, ctx) },
  { method: 'POST', pattern: /\/embeddings$/, run: (_m, _u, body, state, ctx) => handleEmbeddings(body, state, ctx) },
  { method: 'POST', pattern: /\/audio\/speech$/, run: (_m, _u, body, state, ctx) => handleSpeech(body, state, ctx) },
  { method: 'POST', pattern: /\/audio\/transcriptions$/, run: (_m, _u, body, state) => handleTranscription(body, state) },
  { method: 'GET', pattern: /\/embeddings\/models$/, run: (_m, url, _b, state) => json(without(listEmbeddingModels(url.searchParams), state)) },
  { method: 'POST', pattern: /\/messages\/count_tokens$/, run: (_m, _u, body, state) => (state.opts.noCountTokens ? openRouterError(404, 'Not Found') : handleCountTokens(body)) },
  { method: 'POST', pattern: /\/messages$/, run: (_m, _u, body, state, ctx) => handleMessages(body, state, ctx) },
  { method: 'GET', pattern: /\/models\/([^/]+\/[^/]+)\/endpoints$/, run: (m) => modelEndpointsRoute(m[1]!) },
  { method: 'GET', pattern: /\/models?\/([^/]+\/[^/]+)$/, run: (m) => modelRoute(m[1]!) },
  { method: 'GET', pattern: /\/models$/, run: (_m, url, _b, state) => json(without(listModels(url.searchParams), state)) },
  { method: 'GET', pattern: /(?:^|\/)(?:auth\/)?key$/, run: (_m, _u, _b, state) => keyRoute(state) },
  { method: 'GET', pattern: /\/credits$/, run: (_m, _u, _b, state) => creditsRoute(state) },
  { method: 'GET', pattern: /\/generation$/, run: (_m, url, _b, state) => generationRoute(url, state) },
]

function route(method: string, url: URL, body: unknown, state: DemoState, ctx: RequestContext) {
  const path = decodePath(url.pathname)
  for (const r of ROUTES) {
    const m = r.pattern.exec(path)
    if (!m) continue
    if (method !== r.method) return openRouterError(405, 'Method Not Allowed')
    return r.run(m, url, body, state, ctx)
  }
  return openRouterError(404, 'Not Found', { error_type: 'not_found' })
}

/** A list without the models this router lacks. */
const without = <L extends { data: Array<{ id: string }>; total_count?: number }>(list: L, state: DemoState): L => {
  if (!state.opts.lacks.length) return list
  const data = list.data.filter((m) => !state.opts.lacks.includes(m.id))
  return { ...list, data, total_count: (list.total_count ?? list.data.length) - (list.data.length - data.length) }
}

const unknownModel = (id: string) => openRouterError(404, `Model ${id} not found`, { error_type: 'not_found' })

function modelRoute(id: string): Response {
  const model = findModel(id)
  return model ? json({ data: model }) : unknownModel(id)
}

function modelEndpointsRoute(id: string): Response {
  const model = findModel(id)
  return model ? json({ data: modelEndpoints(model) }) : unknownModel(id)
}

/** protocols.md 1.8: a key without a cap; every window's usage is the process lifetime's usage. */
function keyRoute(state: DemoState): Response {
  const usage = state.keyUsageUsd()
  return json({
    data: {
      label: 'demo',
      limit: null,
      limit_remaining: null,
      limit_reset: null,
      include_byok_in_limit: false,
      usage,
      usage_daily: usage,
      usage_weekly: usage,
      usage_monthly: usage,
      byok_usage: 0,
      byok_usage_daily: 0,
      byok_usage_weekly: 0,
      byok_usage_monthly: 0,
      is_free_tier: false,
      is_management_key: false,
      is_provisioning_key: false,
      creator_user_id: null,
      expires_at: null,
      rate_limit: { requests: -1, interval: '10s', note: 'This field is deprecated and safe to ignore.' },
    },
  })
}

const DEMO_CREDITS_USD = 1000

function creditsRoute(state: DemoState): Response {
  return json({ data: { total_credits: DEMO_CREDITS_USD, total_usage: state.keyUsageUsd() } })
}

function generationRoute(url: URL, state: DemoState): Response {
  const id = url.searchParams.get('id')
  if (!id) return openRouterError(400, 'Query parameter "id" is required', { error_type: 'invalid_request' })
  const stats = state.visibleGeneration(id)
  return stats ? json({ data: stats }) : openRouterError(404, `Generation ${id} not found`, { error_type: 'not_found' })
}
