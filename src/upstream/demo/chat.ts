// `POST /chat/completions`: validates the request, plans a locally generated answer and delivers it
// as one JSON body or as an SSE stream, token by token, billing exactly what was delivered.
//
// Billing follows the router (protocols.md 1.11); the gateway's hold relies on these rules:
//   - `models: [...]` fallbacks: candidates = `models` (with `model` prepended when given and not in
//     it), else [`model`]; all must resolve. The first answers; under the `fallback` fault the last.
//     The answering candidate's prices are billed and its id is the answer's `model`.
//   - `provider.max_price`: candidates priced above a cap are skipped, `openrouter/auto` picks the
//     first model of its pool that fits, none left is a 404 (routing.ts).
//   - `base:VARIANT` ids (online, nitro, floor, thinking, exacto, extended) answer and bill as the
//     base model and report the id with its suffix; `:online` turns web search on.
//   - `n` choices, each the full reply cut to max_tokens; completion_tokens = pieces over all
//     choices; an image answer draws one picture per choice.
//   - prompt: pricing.prompt × prompt_tokens (replies.ts) + pricing.image × `image_url` parts.
//   - web search (web plugin, `:online`, `web_search_options`): max_results (1..20, default 5) ×
//     the per-result price (pricing.ts webResultPriceFemto), unless cancelled before the first piece.

import { articleJson, isArticleRequest } from './article'
import { type Model, outputsImage, outputsText, type ResolvedChatModel } from './catalogue'
import {
  type Fault,
  httpFaultResponse,
  LONG_MIN_TOKENS,
  OVERBILL_FACTOR,
  PIECES_BEFORE_FAILURE,
  parseFaults,
  SLOW_MIN_TOKENS,
  SLOW_TOKEN_DELAY_MS,
  stripDirectives,
} from './faults'
import { promptImageDataUrl } from './png'
import { computeCost, femtoToUsd } from './pricing'
import { type ChatMessage, countInputImages, countMediaParts, countPromptTokens, lastUserText, padToTokens, replyText, splitTokens } from './replies'
import { routeCandidates, routeError } from './routing'
import { type DemoState, type GenerationStats, generationStats } from './state'
import { generationId, json, openRouterError, sleep, untilAborted } from './wire'

/** Image output is billed as this many image tokens per picture (Gemini's figure). */
export const IMAGE_TOKENS_PER_IMAGE = 1290
const PROVIDER = 'Demo'
const KEEP_ALIVE = ': OPENROUTER PROCESSING\n\n'
const KEEP_ALIVE_EVERY_MS = 1000
const BREAK_FLUSH_MS = 50
/** A request without `model` goes to the account default, which is the router. */
const DEFAULT_MODEL = 'openrouter/auto'
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool'])
/** Web results when the request does not say how many, and the most it may ask for. */
export const DEFAULT_WEB_RESULTS = 5
export const MAX_WEB_RESULTS = 20

export type ChatRequest = {
  /** Every model the router may answer with, in order (`models` fallbacks, else just `model`). */
  candidates: ResolvedChatModel[]
  messages: ChatMessage[]
  stream: boolean
  /** Per choice. */
  maxTokens: number | null
  /** `n`: how many choices the answer has. */
  choices: number
  wantsImage: boolean
  aspectRatio: unknown
  user: string | null
  /** The blog's article request: answered with the article JSON instead of the usual echo. */
  article: boolean
  /** Results the request's web search asks for (web plugin / web_search_options); null = none asked. */
  webResults: number | null
  /** The body's `tools`, `response_format` and `functions`, counted as prompt tokens. */
  promptExtras: unknown[]
  /** A reply the caller decided instead of the usual echo (the Responses API after a tool result). */
  reply?: string
}

/** What one request will answer, decided up front so cancellation can bill a prefix of it. */
export type Plan = {
  id: string
  created: number
  startedAt: number
  req: ChatRequest
  /** The candidate that answers: its model is billed, its id is reported. */
  answer: ResolvedChatModel
  faults: Set<Fault>
  /** One choice's pieces; every choice gets the same ones. */
  pieces: string[]
  /** `tool_calls` when the pieces are a function call's arguments (the Responses API). */
  finishReason: 'stop' | 'length' | 'tool_calls'
  /** One picture per choice when set. */
  imageUrl: string | null
  promptTokens: number
  inputImages: number
  /** Web results billed once the search counts (0 = no search). */
  webResults: number
  tokenDelayMs: number
  /** What `GET /generation` reports as `api_type`. */
  apiType: GenerationStats['api_type']
}

/**
 * What the router gives each request: a signal that aborts when the client goes away (HTTP
 * disconnect or a cancelled body stream), `cancel` to raise it, and `markFinished` once the answer
 * is complete, after which an abort no longer counts as the client's.
 */
export type RequestContext = { signal: AbortSignal; cancel: () => void; markFinished: () => void }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function parseMaxTokens(body: Record<string, unknown>): number | null | Response {
  const raw = body.max_completion_tokens ?? body.max_tokens
  if (raw === undefined || raw === null) return null
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) {
    return openRouterError(400, 'max_tokens must be a positive integer', { error_type: 'invalid_request' })
  }
  return raw
}

function parseMessages(raw: unknown): ChatMessage[] | Response {
  if (!Array.isArray(raw) || raw.length === 0) {
    return openRouterError(400, 'Input required: specify "messages" as a non-empty array', {
      error_type: 'invalid_request',
    })
  }
  const bad = raw.findIndex((m) => !isObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role))
  if (bad >= 0) {
    return openRouterError(400, `messages[${bad}]: expected an object with role system|developer|user|assistant|tool`, {
      error_type: 'invalid_request',
    })
  }
  return raw as ChatMessage[]
}

function parseChoices(body: Record<string, unknown>): number | Response {
  const raw = body.n
  if (raw === undefined || raw === null) return 1
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) {
    return openRouterError(400, 'n must be a positive integer', { error_type: 'invalid_request' })
  }
  return raw
}

/**
 * Candidates = `models` when it is a non-empty array (with `model` prepended when given and not
 * already in it), else [`model`] (the account default when absent). Every one must resolve; those
 * above `provider.max_price` are skipped, and `openrouter/auto` picks from `autoPool` (routing.ts).
 */
export function parseCandidates(body: Record<string, unknown>, autoPool?: readonly string[]): ResolvedChatModel[] | Response {
  const model = body.model ?? undefined
  if (model !== undefined && typeof model !== 'string') {
    return openRouterError(400, 'model must be a string', { error_type: 'invalid_request' })
  }
  const list = Array.isArray(body.models) && body.models.length > 0 ? (body.models as unknown[]) : null
  const ids: unknown[] = !list ? [model ?? DEFAULT_MODEL] : model !== undefined && !list.includes(model) ? [model, ...list] : list
  const routed = routeCandidates(ids, body, autoPool)
  return 'failure' in routed ? routeError(routed) : routed
}

/** Results the web plugin or `web_search_options` ask for; null when neither is there. */
function requestedWebResults(body: Record<string, unknown>): number | null {
  const plugin = Array.isArray(body.plugins) ? body.plugins.find((p) => isObject(p) && p.id === 'web') : undefined
  if (isObject(plugin)) {
    const max = plugin.max_results
    return typeof max === 'number' && Number.isInteger(max) && max > 0 ? Math.min(max, MAX_WEB_RESULTS) : DEFAULT_WEB_RESULTS
  }
  return isObject(body.web_search_options) ? DEFAULT_WEB_RESULTS : null
}

function parseChatRequest(body: unknown, autoPool: readonly string[]): ChatRequest | Response {
  if (!isObject(body)) return openRouterError(400, 'Request body must be a JSON object', { error_type: 'invalid_request' })
  const messages = parseMessages(body.messages)
  if (messages instanceof Response) return messages
  const candidates = parseCandidates(body, autoPool)
  if (candidates instanceof Response) return candidates
  const maxTokens = parseMaxTokens(body)
  if (maxTokens instanceof Response) return maxTokens
  const choices = parseChoices(body)
  if (choices instanceof Response) return choices
  const wantsImage = Array.isArray(body.modalities) && body.modalities.includes('image')
  // Whichever candidate answers must be able to draw.
  if (wantsImage && candidates.some((c) => !outputsImage(c.model))) {
    return openRouterError(404, 'No endpoints found that support the requested output modalities: image', {
      error_type: 'not_found',
    })
  }
  const imageConfig = isObject(body.image_config) ? body.image_config : {}
  return {
    candidates,
    messages,
    stream: body.stream === true,
    maxTokens,
    choices,
    wantsImage,
    aspectRatio: imageConfig.aspect_ratio,
    user: typeof body.user === 'string' ? body.user : null,
    article: isArticleRequest(body),
    webResults: requestedWebResults(body),
    promptExtras: [body.tools, body.response_format, body.functions],
  }
}

/** Web results this answer bills: what the request asked for, else the default for an `:online` id. */
const webResultsFor = (req: ChatRequest, answer: ResolvedChatModel) => req.webResults ?? (answer.variant === 'online' ? DEFAULT_WEB_RESULTS : 0)

export function planAnswer(req: ChatRequest, faults: Set<Fault>, tokenDelayMs: number, faultsOn: boolean): Plan {
  const answer = faults.has('fallback') ? req.candidates.at(-1)! : req.candidates[0]!
  const model: Model = answer.model
  const webResults = webResultsFor(req, answer)
  const rawText = lastUserText(req.messages)
  const userText = faultsOn ? stripDirectives(rawText) : rawText
  const drawsImage = outputsImage(model) && (req.wantsImage || !outputsText(model))
  const article = req.article && !drawsImage
  let text = !outputsText(model) ? '' : article ? articleJson(rawText) : (req.reply ?? replyText(userText, drawsImage ? 'image' : 'text'))
  if (text && !article && webResults > 0) text += ` Демо-поиск в интернете: учтено результатов — ${webResults}.`
  if (faults.has('slow')) text = padToTokens(text, SLOW_MIN_TOKENS)
  if (faults.has('long')) text = padToTokens(text, LONG_MIN_TOKENS)
  if (faults.has('empty')) text = ''
  const all = splitTokens(text)
  const cut = req.maxTokens !== null && all.length > req.maxTokens
  return {
    id: generationId(),
    created: Math.floor(Date.now() / 1000),
    startedAt: Date.now(),
    req,
    answer,
    faults,
    pieces: cut ? all.slice(0, req.maxTokens!) : all,
    finishReason: cut ? 'length' : 'stop',
    imageUrl: drawsImage && !faults.has('empty') ? promptImageDataUrl(userText, req.aspectRatio) : null,
    promptTokens: countPromptTokens(req.messages, req.promptExtras),
    inputImages: countInputImages(req.messages),
    webResults,
    tokenDelayMs: faults.has('slow') ? SLOW_TOKEN_DELAY_MS : tokenDelayMs,
    apiType: 'completions',
  }
}

type Outcome = { finishReason: string | null; cancelled: boolean }

/**
 * Tracks what has been delivered and records the generation exactly once, however it ends. Choices
 * are generated one after another: piece k of the whole answer is piece k mod P of choice ⌊k / P⌋.
 */
export class Generation {
  /** Pieces delivered over all choices. */
  emitted = 0
  /** Pictures delivered (one per choice). */
  images = 0
  private firstTokenAt: number | null = null
  private recorded = false
  private cancelled = false

  constructor(
    readonly plan: Plan,
    private readonly state: DemoState,
  ) {}

  /** Pieces in the whole answer: every choice's. */
  get totalPieces(): number {
    return this.plan.pieces.length * this.plan.req.choices
  }

  /** What choice `index` has received so far. */
  content(index: number): string {
    const per = this.plan.pieces.length
    const got = Math.min(Math.max(this.emitted - index * per, 0), per)
    return this.plan.pieces.slice(0, got).join('')
  }

  emitPiece(): { index: number; piece: string } {
    this.firstTokenAt ??= Date.now()
    const per = this.plan.pieces.length
    const k = this.emitted++
    return { index: Math.floor(k / per), piece: this.plan.pieces[k % per]! }
  }

  /** The search is billed once a piece went out or the answer ended other than by cancellation. */
  private get webResults(): number {
    return this.cancelled && this.emitted === 0 ? 0 : this.plan.webResults
  }

  private cost() {
    return computeCost(this.plan.answer.model.pricing, {
      promptTokens: this.plan.promptTokens,
      completionTokens: this.emitted,
      outputImages: this.images,
      inputImages: this.plan.inputImages,
      webResults: this.webResults,
    })
  }

  /** What the router reports: the true cost, or 10× it under `overbill`. */
  private reported(femto: bigint): bigint {
    return this.plan.faults.has('overbill') ? femto * OVERBILL_FACTOR : femto
  }

  /**
   * The router's billing fields of `usage` (protocols.md 1.4); `nocost` drops `cost` and
   * `cost_details` so a client must fall back to prices.
   */
  billing() {
    const cost = this.cost()
    const [prompt, completion, total] = [cost.prompt, cost.completion, cost.total].map((f) => this.reported(f))
    const server_tool_use = { web_search_requests: this.webResults > 0 ? 1 : 0 }
    if (this.plan.faults.has('nocost')) return { is_byok: false, server_tool_use }
    return {
      cost: femtoToUsd(total),
      is_byok: false,
      cost_details: {
        upstream_inference_cost: null,
        upstream_inference_prompt_cost: femtoToUsd(prompt),
        upstream_inference_completions_cost: femtoToUsd(completion),
      },
      server_tool_use,
    }
  }

  /** Chat's `usage` (protocols.md 1.4). */
  usage() {
    return {
      prompt_tokens: this.plan.promptTokens,
      completion_tokens: this.emitted,
      total_tokens: this.plan.promptTokens + this.emitted,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0, audio_tokens: 0, video_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        image_tokens: this.images * IMAGE_TOKENS_PER_IMAGE,
      },
      ...this.billing(),
    }
  }

  finish(outcome: Outcome): void {
    if (this.recorded) return
    this.recorded = true
    this.cancelled = outcome.cancelled
    const { plan } = this
    const total = this.reported(this.cost().total)
    const stats = generationStats({
      id: plan.id,
      model: plan.answer.reportedId,
      startedAt: plan.startedAt,
      firstTokenAt: this.firstTokenAt,
      costFemto: total,
      promptTokens: plan.promptTokens,
      completionTokens: this.emitted,
      completionImageTokens: this.images * IMAGE_TOKENS_PER_IMAGE,
      mediaPrompt: countMediaParts(plan.req.messages),
      mediaCompletion: this.images,
      searchResults: this.webResults,
      finishReason: outcome.finishReason,
      streamed: plan.req.stream,
      cancelled: outcome.cancelled,
      apiType: plan.apiType,
      user: plan.req.user,
    })
    if (!plan.faults.has('nostats')) this.state.recordGeneration(stats, total)
  }

  /**
   * What a `break` errors the body with. Over HTTP the client only sees a reset connection, and an
   * `undefined` reason keeps Bun.serve from logging the error; in-process readers get a real Error.
   */
  get breakReason(): unknown {
    return this.state.overHttp ? undefined : new Error('demo upstream: connection broken on purpose ([[fault:break]])')
  }

  /** The fields every streamed chunk starts with. */
  chunkHead() {
    const { plan } = this
    return { id: plan.id, object: 'chat.completion.chunk', created: plan.created, model: plan.answer.reportedId, provider: PROVIDER }
  }
}

const imageItems = (url: string) => [{ type: 'image_url', image_url: { url } }]

/** Faults under which the generation dies after a few pieces. */
export const failsMidway = (faults: Set<Fault>) => faults.has('error200') || faults.has('midstream') || faults.has('break')

/** Pieces over all choices that go out before the answer ends (or fails). */
export const piecesToSend = (gen: Generation) => (failsMidway(gen.plan.faults) ? Math.min(PIECES_BEFORE_FAILURE, gen.totalPieces) : gen.totalPieces)

const choiceIndexes = (plan: Plan) => Array.from({ length: plan.req.choices }, (_, i) => i)

const providerError = () => ({
  code: 502,
  message: 'Upstream provider error',
  metadata: { error_type: 'provider_unavailable', provider_code: 'demo_fault' },
})

// ---------------------------------------------------------------- non-stream

/** The answer's choices; a failure (`error`) marks every one of them. */
function completionBody(gen: Generation, finishReason: string, error?: ReturnType<typeof providerError>) {
  const { plan } = gen
  const choices = choiceIndexes(plan).map((index) => {
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: gen.content(index),
      refusal: null,
      reasoning: null,
    }
    if (gen.images > index && plan.imageUrl) message.images = imageItems(plan.imageUrl)
    const choice: Record<string, unknown> = {
      index,
      logprobs: null,
      finish_reason: finishReason,
      native_finish_reason: finishReason,
      message,
    }
    if (error) choice.error = error
    return choice
  })
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.answer.reportedId,
    provider: PROVIDER,
    system_fingerprint: null,
    choices,
    usage: gen.usage(),
  }
}

/**
 * `break` without streaming: a 200 whose JSON body (`whole`, the answer as it would have been) is
 * cut off by a connection error. Records the generation as failed.
 */
export function brokenJson(gen: Generation, whole: unknown): Response {
  gen.finish({ finishReason: 'error', cancelled: false })
  const text = JSON.stringify(whole)
  const reason = gen.breakReason
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(text.slice(0, Math.floor(text.length / 2))))
      await sleep(BREAK_FLUSH_MS)
      controller.error(reason)
    },
  })
  return new Response(body, { headers: { 'Content-Type': 'application/json', 'X-Generation-Id': gen.plan.id } })
}

/**
 * Generates a non-streamed answer's pieces (all, or those before a mid-answer failure). Only `slow`
 * makes it take time (for disconnect tests); otherwise it is instant. Null when they are all
 * generated; when the client went away, the generation is recorded as cancelled and the (unread)
 * response for it is returned.
 */
export async function generatePieces(gen: Generation, ctx: RequestContext): Promise<Response | null> {
  const delay = gen.plan.faults.has('slow') ? gen.plan.tokenDelayMs : 0
  for (let i = piecesToSend(gen); i > 0; i--) {
    await sleep(delay, ctx.signal)
    if (ctx.signal.aborted) return cancelled(gen)
    gen.emitPiece()
  }
  return null
}

async function respondJson(gen: Generation, ctx: RequestContext): Promise<Response> {
  const { plan } = gen
  const gone = await generatePieces(gen, ctx)
  if (gone) return gone
  const headers = { 'X-Generation-Id': plan.id }
  if (plan.faults.has('break')) return brokenJson(gen, completionBody(gen, 'stop'))
  if (failsMidway(plan.faults)) {
    gen.finish({ finishReason: 'error', cancelled: false })
    return json(completionBody(gen, 'error', providerError()), 200, headers)
  }
  if (plan.imageUrl) gen.images = plan.req.choices
  gen.finish({ finishReason: plan.finishReason, cancelled: false })
  return json(completionBody(gen, plan.finishReason), 200, headers)
}

/** Records the generation as cancelled by the client. */
export function cancelled(gen: Generation): Response {
  gen.finish({ finishReason: null, cancelled: true })
  // Nobody reads this: the client has gone.
  return new Response(null, { status: 499 })
}

// ---------------------------------------------------------------- stream

/** Writes SSE frames; after the client cancels, writes are dropped instead of throwing. */
export class SseWriter {
  private readonly encoder = new TextEncoder()
  closed = false

  /** `keepAlive`: the frame `comment()` writes; the Messages API pings with an event instead. */
  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly keepAlive = KEEP_ALIVE,
  ) {}

  private write(text: string): void {
    if (this.closed) return
    try {
      this.controller.enqueue(this.encoder.encode(text))
    } catch {
      this.closed = true
    }
  }

  /** The keep-alive frame: `: OPENROUTER PROCESSING` unless the writer was given another. */
  comment(): void {
    this.write(this.keepAlive)
  }

  data(payload: unknown): void {
    this.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`)
  }

  /** A named event (`event: NAME` then `data: JSON`), as the Responses and Messages APIs stream. */
  event(name: string, payload: unknown): void {
    this.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`)
  }

  /** Ends the body; a no-op once the consumer has cancelled it. */
  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      this.controller.close()
    } catch {
      // already closed by a cancel
    }
  }

  /** Errors the body so the client sees a truncated response / network error. */
  fail(reason: unknown): void {
    if (this.closed) return
    this.closed = true
    this.controller.error(reason)
  }
}

/** Waits `ms`, sending a keep-alive comment every second of a long wait (as OpenRouter does). */
export async function waitWithKeepAlive(out: SseWriter, ms: number, signal: AbortSignal): Promise<void> {
  let remaining = ms
  while (remaining > KEEP_ALIVE_EVERY_MS && !signal.aborted) {
    await sleep(KEEP_ALIVE_EVERY_MS, signal)
    if (!signal.aborted) out.comment()
    remaining -= KEEP_ALIVE_EVERY_MS
  }
  await sleep(remaining, signal)
}

function deltaChunk(gen: Generation, index: number, delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    ...gen.chunkHead(),
    choices: [{ index, delta: { role: 'assistant', ...delta }, finish_reason: finishReason, native_finish_reason: finishReason }],
  }
}

/** The final SSE event of a mid-stream failure (protocols.md 1.5): top-level `error`, every choice finished "error". */
const midStreamError = (gen: Generation) => ({
  ...gen.chunkHead(),
  error: providerError(),
  choices: choiceIndexes(gen.plan).map((index) => ({
    index,
    delta: { content: '' },
    finish_reason: 'error',
    native_finish_reason: 'error',
  })),
})

/**
 * Streams the answer's pieces (all, or those before a mid-answer failure), one per token delay with
 * keep-alives in long waits, each written by `write`. Returns false when the client went away, after
 * recording the generation as cancelled and closing the stream.
 */
export async function streamPieces(gen: Generation, out: SseWriter, ctx: RequestContext, write: (index: number, piece: string) => void): Promise<boolean> {
  for (let i = piecesToSend(gen); i > 0; i--) {
    await waitWithKeepAlive(out, gen.plan.tokenDelayMs, ctx.signal)
    if (ctx.signal.aborted) {
      cancelled(gen)
      out.close()
      return false
    }
    const { index, piece } = gen.emitPiece()
    write(index, piece)
  }
  return true
}

/** `break` mid-stream: records the generation as failed and resets the connection. */
export async function breakStream(gen: Generation, out: SseWriter): Promise<void> {
  gen.finish({ finishReason: 'error', cancelled: false })
  // Let the last chunks reach the socket first: erroring the stream drops anything still queued.
  await sleep(BREAK_FLUSH_MS)
  out.fail(gen.breakReason)
}

async function pump(gen: Generation, out: SseWriter, ctx: RequestContext): Promise<void> {
  const { plan } = gen
  out.comment()
  if (plan.faults.has('toplevel200')) {
    out.data({ error: { code: 500, message: 'Provider returned error' } })
    return out.close()
  }
  if (!(await streamPieces(gen, out, ctx, (index, piece) => out.data(deltaChunk(gen, index, { content: piece }))))) return
  if (plan.faults.has('break')) return breakStream(gen, out)
  if (failsMidway(plan.faults)) {
    out.data(midStreamError(gen))
    gen.finish({ finishReason: 'error', cancelled: false })
    return out.close()
  }
  // Each choice's picture (if any) and its finish chunk, in choice order.
  for (const index of choiceIndexes(plan)) {
    if (plan.imageUrl) {
      out.data(deltaChunk(gen, index, { content: '', images: imageItems(plan.imageUrl) }))
      gen.images++
    }
    out.data(deltaChunk(gen, index, { content: '' }, plan.finishReason))
  }
  out.data({ ...gen.chunkHead(), choices: [], usage: gen.usage() })
  out.data('[DONE]')
  gen.finish({ finishReason: plan.finishReason, cancelled: false })
  out.close()
}

/**
 * An SSE response whose events `pump` writes; the request is finished when it returns. `keepAlive`:
 * the frame sent in long waits (default: the router's `: OPENROUTER PROCESSING` comment).
 */
export function sseResponse(gen: Generation, ctx: RequestContext, pump: (gen: Generation, out: SseWriter, ctx: RequestContext) => Promise<void>, keepAlive?: string): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const out = new SseWriter(controller, keepAlive)
      pump(gen, out, ctx)
        .catch((err: unknown) => {
          console.error('demo upstream: stream failed', err)
          out.fail(err)
        })
        .finally(ctx.markFinished)
    },
    // The consumer (a disconnected HTTP client or an in-process reader) gave up.
    cancel: ctx.cancel,
  })
  const named: Record<string, string> = gen.plan.faults.has('noheader') ? {} : { 'X-Generation-Id': gen.plan.id }
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...named } })
}

// ---------------------------------------------------------------- entry

/** The faults a request carries: directives in `texts` plus armed ones it matches; none unless `faults: true`. */
export function requestFaults(texts: readonly string[], body: Record<string, unknown>, state: DemoState): Set<Fault> {
  const faults = new Set<Fault>()
  if (!state.opts.faults) return faults
  for (const text of texts) for (const f of parseFaults(text)) faults.add(f)
  for (const f of state.takeForcedFaults(body)) faults.add(f)
  return faults
}

export async function handleChat(body: unknown, state: DemoState, ctx: RequestContext): Promise<Response> {
  const req = parseChatRequest(body, state.opts.autoRouterModels)
  if (req instanceof Response) return req
  const faults = requestFaults([lastUserText(req.messages)], body as Record<string, unknown>, state)
  const refused = httpFaultResponse(faults)
  if (refused) return refused
  const gen = new Generation(planAnswer(req, faults, state.opts.tokenDelayMs, state.opts.faults), state)
  if (faults.has('timeout')) {
    await untilAborted(ctx.signal)
    return cancelled(gen)
  }
  if (faults.has('toplevel200') && !req.stream) return json({ error: { code: 500, message: 'Provider returned error' } })
  return req.stream ? sseResponse(gen, ctx, pump) : respondJson(gen, ctx)
}
