// The gateway's pipeline for every protocol — hold → forward → relay (plain or SSE) → settle to the
// reported cost — and POST /v1/chat/completions on it. What differs per protocol is a Wire (wire.ts).

import type { Notifier } from '../billing/alerts'
import { type HoldLevel, HoldRefused, placeHold, releaseHold, settleHold, type UsageFacts } from '../billing/holds'
import { now as clockNow } from '../billing/periods'
import type { Endpoint } from '../billing/schema'
import { isVariable, usdToMicros } from '../catalog/pricing'
import type { RateProvider } from '../catalog/rate'
import type { ModelRow } from '../catalog/schema'
import type { Catalog } from '../catalog/service'
import type { Config } from '../config'
import type { Db } from '../db/client'
import type { KeysService } from '../keys/service'
import { sha256 } from '../lib/crypto'
import { ceilUnits, type Dec, dec, mul } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import { dataOf, eventsOf, SseSplitter } from '../lib/sse'
import { type UpstreamClient, upstreamErrorFrom } from '../upstream/client'
import type { Caller } from './callers'
import { costUsd, DEFAULT_WEB_RESULTS, hasVariablePrice, planHold, type RequestShape } from './estimate'
import { binding, exhausted, refusal } from './limits'
import { type ChatShape, chatShape } from './shape'
import { fromFetchFailure, fromUpstream, unavailable } from './upstream-errors'
import { chatWire, type StreamReader, type Usage, type Wire } from './wire'

export type GatewayDeps = {
  db: Db
  config: Config
  catalog: Catalog
  rates: RateProvider
  upstream: UpstreamClient
  keys: KeysService
  /** Budget and low-balance alerts, sent after settlement (teams/notify.ts). */
  notify: Notifier
}

/** The parts of an OpenAI chat request we read; everything else is passed through untouched. */
export type ChatBody = {
  model?: string
  models?: string[]
  n?: number
  messages: Array<{ role: string; content?: unknown }>
  max_tokens?: number
  max_completion_tokens?: number
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  [k: string]: unknown
}

/** A request between its hold and its settlement. */
export type Prepared = {
  caller: Caller
  /** The first candidate's catalogue entry (the model the request names). */
  model: ModelRow
  /** The id the request names, variant included. */
  modelId: string
  /** What the hold was computed from. */
  shape: RequestShape
  /** Fields sent instead of the caller's (chatShape). */
  patch: Record<string, unknown>
  rate: Dec
  holdId: string
  maxTokens: number | null
  started: number
  endpoint: Endpoint
  stream: boolean
  /** Headers the router needs besides ours (anthropic-version, anthropic-beta). */
  headers?: Record<string, string>
}

const KEEPALIVE_EVERY_MS = 15_000
/** Reconciliation after a client disconnect: the router publishes generation stats with a delay. */
const GENERATION_RETRY_MS = [500, 1000, 2000, 4000]

/** The hashed end-user id sent upstream, memoised: it is the same on every request of a customer. */
const endUserIds = new Map<string, string>()
export function endUserId(userId: string) {
  let id = endUserIds.get(userId)
  if (id === undefined) {
    if (endUserIds.size >= 10_000) endUserIds.clear() // bounded; recomputing is cheap
    endUserIds.set(userId, (id = sha256(`user:${userId}`).slice(0, 32)))
  }
  return id
}

export function chatService(deps: GatewayDeps) {
  const { db, config, catalog, rates, upstream } = deps
  const markup = dec(String(config.markup))

  const currentRate = () => {
    const rate = rates.current()
    if (!rate) throw unavailable('Курс валют временно недоступен. Попробуйте позже.')
    return rate
  }

  /**
   * The hold a request would get and the most it may cost, without placing anything: the
   * Playground's «Оценка: до X ₽» (the same planHold as the hold itself).
   */
  async function estimate(caller: Caller, cs: ChatShape) {
    const rate = currentRate()
    const at = clockNow()
    const bound = binding(caller, at)
    const worst = planHold(cs.shape, Number.MAX_SAFE_INTEGER, rate, markup)
    const now = planHold(cs.shape, bound.remainingMicros, rate, markup)
    return {
      maxCostMicros: worst.kind === 'hold' && !cs.shape.candidates.some((c) => hasVariablePrice(c.model)) ? worst.holdMicros : null,
      holdMicros: now.kind === 'hold' ? now.holdMicros : null,
      maxTokens: now.kind === 'hold' ? now.maxTokens : null,
      refusal: now.kind === 'refuse' ? refusal(caller, bound.level, at, now.message).message : null,
      limitedBy: now.kind === 'refuse' ? bound.level : null,
    }
  }

  /** A refused request: the 402 naming the level, and the budget's 100 % alert when a budget refused it. */
  function refuse(caller: Caller, level: HoldLevel, at: number, balanceMessage: string): OpenAIError {
    if (level === 'key' || level === 'member') deps.notify.budgets([exhausted(caller, level, at)])
    return refusal(caller, level, at, balanceMessage)
  }

  async function prepare(caller: Caller, cs: ChatShape, opts: { endpoint: Endpoint; stream: boolean; headers?: Record<string, string> }): Promise<Prepared> {
    const rate = currentRate()
    const key = caller.apiKey
    const at = clockNow()
    // What the request may spend is the least any level leaves: the key's and the member's budget, the balance.
    const bound = binding(caller, at)
    // Without max_tokens the answer is capped to what may be spent, exactly as to a small balance.
    const plan = planHold(cs.shape, bound.remainingMicros, rate, markup)
    if (plan.kind === 'refuse') throw refuse(caller, bound.level, at, plan.message)
    let holdId: string
    try {
      holdId = await placeHold(db, {
        userId: caller.userId,
        teamId: caller.teamId,
        apiKeyId: key?.id ?? null,
        amountMicros: plan.holdMicros,
        keyBudget: key?.budget.limitMicros != null,
        memberBudget: caller.team?.memberBudget.limitMicros != null,
      })
    } catch (e) {
      if (!(e instanceof HoldRefused)) throw e
      throw refuse(caller, e.level, at, 'Недостаточно средств на балансе: остаток зарезервирован под выполняющиеся запросы или исчерпан. Пополните баланс.')
    }
    return {
      caller,
      model: cs.shape.candidates[0]!.model,
      modelId: cs.modelId,
      shape: cs.shape,
      patch: cs.patch,
      rate,
      holdId,
      maxTokens: plan.maxTokens,
      started: performance.now(),
      endpoint: opts.endpoint,
      stream: opts.stream,
      headers: opts.headers,
    }
  }

  /** The candidate the router says answered (fallbacks), else the one the request names. */
  function answered(p: Prepared, reported: unknown): { id: string; model: ModelRow } {
    if (typeof reported === 'string' && reported !== p.modelId) {
      const c = p.shape.candidates.find((c) => c.model.id === reported || (c.variant && `${c.model.id}:${c.variant}` === reported))
      if (c) return { id: reported, model: c.model }
    }
    return { id: p.modelId, model: p.model }
  }

  /** The charge for a finished request: the reported cost, else the counts at the answering model's prices. */
  function chargeFor(p: Prepared, usage: Usage | undefined, fallbackCompletion = 0, model = p.model): { micros: number; upstreamCostUsd: string | null } {
    if (typeof usage?.cost === 'number' && Number.isFinite(usage.cost) && usage.cost >= 0)
      return { micros: usdToMicros(dec(usage.cost), p.rate, markup), upstreamCostUsd: String(usage.cost) }
    if ([model.promptUsd, model.completionUsd, model.requestUsd].some(isVariable)) {
      console.warn(`[billing] ${model.id}: no reported cost for a variable-price model; nothing charged`)
      return { micros: 0, upstreamCostUsd: null }
    }
    const s = p.shape
    const candidate = s.candidates.find((c) => c.model === model) ?? s.candidates[0]!
    const usd = costUsd(model, {
      promptTokens: usage?.prompt_tokens ?? s.prompt.tokens,
      images: s.prompt.images,
      audioTokens: s.prompt.audioTokens,
      completionTokens: usage?.completion_tokens ?? fallbackCompletion,
      pictures: usage?.pictures ?? 0,
      webResults: s.webResults || (candidate.variant === 'online' ? DEFAULT_WEB_RESULTS : 0),
      requests: s.calls ?? 1, // the counts above are the request's totals; only the per-call price repeats
    })
    return { micros: ceilUnits(mul(usd, p.rate, markup), 6), upstreamCostUsd: null }
  }

  const facts = (p: Prepared, f: Partial<UsageFacts> & Pick<UsageFacts, 'status'>): UsageFacts => ({
    endpoint: p.endpoint,
    model: f.model ?? p.modelId,
    promptTokens: f.promptTokens ?? 0,
    completionTokens: f.completionTokens ?? 0,
    totalTokens: f.totalTokens ?? (f.promptTokens ?? 0) + (f.completionTokens ?? 0),
    upstreamCostUsd: f.upstreamCostUsd ?? null,
    upstreamId: f.upstreamId ?? null,
    status: f.status,
    error: f.error ?? null,
    durationMs: Math.round(performance.now() - p.started),
    stream: p.stream,
  })

  async function settle(
    p: Prepared,
    usage: Usage | undefined,
    upstreamId: string | null,
    status: 'success' | 'cancelled' = 'success',
    fallbackCompletion = 0,
    reportedModel?: unknown,
  ) {
    const by = answered(p, reportedModel)
    const charge = chargeFor(p, usage, fallbackCompletion, by.model)
    const completionTokens = usage?.completion_tokens ?? fallbackCompletion
    const promptTokens = usage?.prompt_tokens ?? (usage ? 0 : p.shape.prompt.tokens)
    const settled = await settleHold(
      db,
      p.holdId,
      charge.micros,
      facts(p, { status, model: by.id, promptTokens, completionTokens, totalTokens: usage?.total_tokens, upstreamCostUsd: charge.upstreamCostUsd, upstreamId }),
    )
    // The unit has committed: alerts leave in the background, never on the request's path.
    if (settled?.lowBalance) deps.notify.lowBalance(settled.lowBalance)
    if (settled?.budgets.length) deps.notify.budgets(settled.budgets)
    return settled?.chargedMicros ?? 0
  }

  const release = (p: Prepared, error: string, upstreamId: string | null = null, status: 'error' | 'cancelled' = 'error') =>
    releaseHold(db, p.holdId, facts(p, { status, error: error.slice(0, 500), upstreamId }))

  function upstreamBody(p: Prepared, body: ChatBody, stream: boolean): Record<string, unknown> {
    // The model (variants included) and fallbacks go as the caller named them; the hold covers each.
    const out: Record<string, unknown> = { ...body, ...p.patch, stream }
    if (stream) out.stream_options = { include_usage: true }
    else delete out.stream_options
    if (p.maxTokens !== null) {
      delete out.max_completion_tokens
      out.max_tokens = p.maxTokens
    }
    // A stable, non-identifying end-user id helps the router isolate abuse.
    out.user = endUserId(p.caller.userId)
    return out
  }

  /** Sends the request with our timeout linked to the client's disconnect. */
  async function send(p: Prepared, wire: Wire, body: Record<string, unknown>, clientSignal: AbortSignal) {
    const ac = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      ac.abort()
    }, config.upstreamTimeoutMs)
    const onClientAbort = () => ac.abort()
    clientSignal.addEventListener('abort', onClientAbort, { once: true })
    const done = () => {
      clearTimeout(timer)
      clientSignal.removeEventListener('abort', onClientAbort)
    }
    try {
      const res = await upstream.post(wire.path, body, ac.signal, p.headers)
      if (!res.ok) throw fromUpstream(await upstreamErrorFrom(res))
      return { res, ac, done, timedOut: () => timedOut }
    } catch (e) {
      done()
      const err = e instanceof OpenAIError ? e : fromFetchFailure(e, timedOut)
      await release(p, clientSignal.aborted ? 'client disconnected' : err.message, null, clientSignal.aborted ? 'cancelled' : 'error')
      throw err
    }
  }

  const upstreamFailed = (message: string) => new OpenAIError(502, `Провайдер модели вернул ошибку: ${message}`, 'server_error', 'upstream_error', { shouldRetry: false })

  /** A whole (non-streamed) answer, settled before it is returned. */
  async function complete(p: Prepared, wire: Wire, body: Record<string, unknown>, clientSignal: AbortSignal) {
    const { res, done, timedOut } = await send(p, wire, body, clientSignal)
    const upstreamId = res.headers.get('x-generation-id')
    try {
      const json = (await res.json()) as Record<string, unknown>
      const read = wire.answer(json)
      // A 200 can carry an error (reference §1.3): never bill it.
      if (read.error !== undefined) {
        await release(p, read.error, read.id ?? upstreamId)
        throw upstreamFailed(read.error)
      }
      const charged = await settle(p, read.usage, read.id ?? upstreamId, 'success', 0, read.model)
      return wire.withCharge(json, read.usage, charged)
    } catch (e) {
      if (e instanceof OpenAIError) throw e
      await release(p, (e as Error).message, upstreamId, clientSignal.aborted ? 'cancelled' : 'error')
      throw fromFetchFailure(e, timedOut())
    } finally {
      done()
    }
  }

  /** A streamed answer: events are relayed one by one as they arrive. */
  async function stream(p: Prepared, wire: Wire, body: Record<string, unknown>, clientSignal: AbortSignal): Promise<Response> {
    const { res, ac, done } = await send(p, wire, body, clientSignal)
    done() // from here on the relay's own idle watch applies
    if (!res.headers.get('content-type')?.includes('text/event-stream')) {
      const text = await res.text().catch(() => '')
      let message = 'неожиданный ответ провайдера'
      try {
        message = JSON.parse(text)?.error?.message ?? message
      } catch {}
      await release(p, message, res.headers.get('x-generation-id'))
      throw upstreamFailed(message)
    }
    const relay = new Relay(p, wire.reader(), res, ac)
    clientSignal.addEventListener('abort', () => relay.clientGone(), { once: true })
    return new Response(relay.stream, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    })
  }

  /** /v1/chat/completions, plain or streamed. */
  async function chat(caller: Caller, body: ChatBody, clientSignal: AbortSignal) {
    const stream_ = body.stream === true
    const p = await prepare(caller, chatShape(body, catalog.get), { endpoint: 'chat', stream: stream_ })
    const out = upstreamBody(p, body, stream_)
    return stream_ ? stream(p, chatWire, out, clientSignal) : complete(p, chatWire, out, clientSignal)
  }

  /** One relayed stream: forwards events, watches for usage and errors, settles exactly once. */
  class Relay {
    readonly stream: ReadableStream<Uint8Array>
    private readonly encoder = new TextEncoder()
    private readonly splitter = new SseSplitter()
    private upstreamId: string | null
    private pieces = 0
    private usage: Usage | undefined
    private finished = false
    private lastUpstreamAt = Date.now()
    private lastClientWriteAt = Date.now()
    private idleTimedOut = false
    private controller!: ReadableStreamDefaultController<Uint8Array>
    private readonly watch: ReturnType<typeof setInterval>

    constructor(
      private readonly p: Prepared,
      private readonly reader: StreamReader,
      res: Response,
      private readonly ac: AbortController,
    ) {
      this.upstreamId = res.headers.get('x-generation-id')
      const body = res.body!.getReader()
      this.watch = setInterval(() => this.tick(), 1000)
      this.stream = new ReadableStream<Uint8Array>({
        start: (c) => {
          this.controller = c
        },
        pull: async () => {
          for (;;) {
            let chunk: Awaited<ReturnType<typeof body.read>>
            try {
              chunk = await body.read()
            } catch (e) {
              return await this.fail(
                this.idleTimedOut ? 'Провайдер модели перестал отвечать.' : 'Соединение с провайдером модели прервано.',
                (e as Error)?.message ?? 'read failed',
              )
            }
            if (chunk.done) return await this.end()
            this.lastUpstreamAt = Date.now()
            const block = this.splitter.pushBlock(chunk.value)
            const relayed = block ? this.relayBlock(block) : ''
            const out = typeof relayed === 'string' ? relayed : await relayed // only usage and error events wait for the database
            if (this.finished && !out) return
            if (out) {
              this.write(out)
              return
            }
          }
        },
        cancel: () => this.clientGone(),
      })
    }

    private write(text: string) {
      try {
        this.controller.enqueue(this.encoder.encode(text))
        this.lastClientWriteAt = Date.now()
      } catch {
        // the client is gone; clientGone() settles
      }
    }

    private tick() {
      const now = Date.now()
      if (now - this.lastUpstreamAt > config.upstreamTimeoutMs) {
        this.idleTimedOut = true
        this.ac.abort()
      } else if (now - this.lastClientWriteAt > KEEPALIVE_EVERY_MS) this.write(this.reader.keepAlive)
    }

    /** What to send for a block of complete upstream events; ordinary events pass through as they came. */
    private relayBlock(block: string): string | Promise<string> {
      if (this.finished) return ''
      if (this.upstreamId && this.reader.plain(block)) {
        this.pieces += this.reader.pieces(block)
        return block
      }
      return this.relayEvents(eventsOf(block))
    }

    private async relayEvents(events: string[]): Promise<string> {
      let out = ''
      for (const event of events) {
        const piece = this.transform(event)
        out += typeof piece === 'string' ? piece : await piece
      }
      return out
    }

    /** Returns what to send for one upstream event (possibly nothing); settling events resolve after the commit. */
    private transform(event: string): string | Promise<string> {
      if (this.finished) return ''
      const data = dataOf(event)
      if (data === undefined) return `${event}\n\n` // comments (keep-alives), [DONE], other fields
      const seen = this.reader.inspect(event, data, !this.upstreamId)
      if (seen === 'drop') return '' // never relay a non-JSON data line: the SDK would throw on it
      this.upstreamId ??= seen.id ?? null
      if (seen.error !== undefined) {
        // Mid-stream error (reference §1.5): bill nothing, tell the client in the protocol's shape, stop.
        this.finish()
        this.ac.abort()
        return release(this.p, `mid-stream: ${seen.error || 'error'}`, this.upstreamId).then(() =>
          this.reader.errorEvent(`Провайдер модели прервал ответ: ${seen.error || 'ошибка'}`),
        )
      }
      if (seen.usage) {
        const usage = seen.usage
        this.usage = usage
        // Relayed whether or not the client asked for include_usage, as the router sends it: clients
        // that never ask (AI SDK providers, curl) still get the token counts and the charge.
        return settle(this.p, usage, this.upstreamId, 'success', 0, seen.model).then((charged) => seen.render!(usage, charged))
      }
      if (seen.piece) this.pieces++
      return `${event}\n\n`
    }

    private finish() {
      this.finished = true
      clearInterval(this.watch)
    }

    /** The upstream ended the stream. */
    private async end() {
      const rest = this.splitter.rest()
      if (rest) this.write(await this.transform(rest))
      if (!this.finished) {
        this.finish()
        // No usage arrived: bill by tokens (fallback), never more than what was streamed.
        if (!this.usage) await settle(this.p, undefined, this.upstreamId, 'success', this.pieces)
      }
      try {
        this.controller.close()
      } catch {}
    }

    /** The upstream connection broke or went silent. */
    private async fail(message: string, detail: string) {
      if (!this.finished) {
        this.finish()
        if (this.usage) {
          /* already settled from the usage event */
        } else await release(this.p, `${message} (${detail})`, this.upstreamId)
        this.write(this.reader.errorEvent(message))
      }
      try {
        this.controller.close()
      } catch {}
    }

    /** The client went away: stop the upstream, pay what the upstream reports for what it made. */
    clientGone() {
      if (this.finished) return
      this.finish()
      this.ac.abort()
      if (!this.usage) void reconcile(this.p, this.upstreamId, this.pieces) // else settled from the usage event
    }
  }

  /** After a disconnect: ask the router what it billed; fall back to what was streamed. */
  async function reconcile(p: Prepared, upstreamId: string | null, pieces: number) {
    if (upstreamId)
      for (const wait of GENERATION_RETRY_MS) {
        await Bun.sleep(wait)
        try {
          const stats = await upstream.generation(upstreamId)
          if (stats) {
            await settle(p, { cost: stats.totalCost, prompt_tokens: stats.tokensPrompt, completion_tokens: stats.tokensCompletion }, upstreamId, 'cancelled')
            return
          }
        } catch (e) {
          console.warn(`[billing] generation ${upstreamId} lookup failed: ${(e as Error).message}`)
        }
      }
    await settle(p, undefined, upstreamId, 'cancelled', pieces)
  }

  return { estimate, prepare, chat, complete, stream, settle, release, chargeFor }
}

export type ChatService = ReturnType<typeof chatService>
