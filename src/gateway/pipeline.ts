// The pipeline every protocol shares: prepare (price the request, hold its worst case) → send (the
// router's answer head) → complete (a whole answer) or stream (relay.ts) → settle to the reported
// cost, or release; reconcile after a client left a stream. What differs per protocol is its shape
// (shape.ts and the protocol's file) and its Wire (wire.ts); the protocols' routes are protocols.ts.

import { isVariable, usdToMicros } from '../catalog/pricing'
import type { RateProvider } from '../catalog/rate'
import type { ModelRow } from '../catalog/schema'
import type { Catalog } from '../catalog/service'
import type { Config } from '../config'
import type { Db } from '../db/types'
import type { KeysService } from '../keys/service'
import { sha256 } from '../lib/crypto'
import { ceilUnits, type Dec, dec, isNegative, mul, sub, toDecimalString } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import { isObject } from '../lib/json'
import {
  CallerChanged,
  now as clockNow,
  closeDurably,
  type Endpoint,
  type GenerationSettler,
  type HoldLevel,
  HoldRefused,
  type Notifier,
  noteGeneration,
  placeHold,
  releaseHold,
  type Settled,
  settleHold,
  type UsageFacts,
} from '../money'
import type { UpstreamName, Upstreams } from '../upstream/pool'
import type { Caller } from './callers'
import { fromFetchFailure, unavailable } from './errors'
import { costUsd, DEFAULT_WEB_RESULTS, hasVariablePrice, MIN_AFFORDABLE_TOKENS, type PriceCap, planHold, type RequestShape } from './estimate'
import { callerAccount, forwarder } from './forward'
import { binding, exhausted, refusal } from './limits'
import { Relay, type Streamed } from './relay'
import { type ChatShape, isPrice } from './shape'
import type { Usage, Wire } from './wire'

export type GatewayDeps = {
  db: Db
  config: Config
  catalog: Catalog
  rates: RateProvider
  /** The routers: the primary and, when configured, the second one (upstream/pool.ts). */
  upstreams: Upstreams
  keys: KeysService
  /** Budget and low-balance alerts, sent after settlement (teams/notify.ts). */
  notify: Notifier
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
  /** What the hold reserved, micro-rubles (the activity log shows it beside the charge). */
  holdMicros: number
  maxTokens: number | null
  /** `provider.max_price` to send (a variable-price request under a limit). */
  priceCap: PriceCap | null
  /** A limit the customer set applies: the charge never exceeds the hold. */
  limited: boolean
  /** The id the client sees when it is not the generation id (msg_…, resp_…), once the answer names it. */
  responseId: string | null
  started: number
  /** When the first piece of a streamed answer was relayed (performance.now()); null until then, and for whole answers. */
  firstByteAt: number | null
  endpoint: Endpoint
  stream: boolean
  /** Headers the router needs besides ours (anthropic-version, anthropic-beta). */
  headers?: Record<string, string>
  /** The router that answered (or failed last). */
  upstream: UpstreamName
}

/** A settlement has committed: its alerts leave in the background, never on the request's path. */
function sendAlerts(notify: Notifier, settled: Settled | null) {
  if (settled?.lowBalance) notify.lowBalance(settled.lowBalance)
  if (settled?.budgets.length) notify.budgets(settled.budgets)
}

/** Reconciliation after a client disconnect: the router publishes generation stats with a delay. */
const GENERATION_RETRY_MS = [500, 1000, 2000, 4000]

/** Which protocol's names the forwarded body uses (max_tokens or max_output_tokens, user or metadata.user_id). */
export type BodyProtocol = 'chat' | 'responses' | 'messages' | 'embeddings'

/**
 * The caller's `provider` with our price cap merged in: each of the caller's own caps is kept where
 * it is lower, never loosened past ours (protocols.md 1.13).
 */
export function withPriceCap(provider: unknown, cap: PriceCap): Record<string, unknown> {
  const own = isObject(provider) ? provider : {}
  const theirs = isObject(own.max_price) ? own.max_price : {}
  const merged: Record<string, unknown> = { ...theirs }
  for (const [field, ours] of Object.entries(cap) as Array<[string, string]>) {
    const given = theirs[field]
    merged[field] = isPrice(given) && isNegative(sub(dec(String(given)), dec(ours))) ? given : ours
  }
  return { ...own, max_price: merged }
}

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

export function pipeline(deps: GatewayDeps) {
  const { db, config, rates, upstreams } = deps
  const { forward } = forwarder(upstreams, config.upstreamTimeoutMs)
  /** The router that answered `p` (its /generation lookup is asked there). */
  const answeredBy = (p: Prepared) => upstreams.byName(p.upstream).client
  const markup = dec(String(config.markup))
  const markupText = String(config.markup)

  /**
   * What the caller may spend on this request: the least any level leaves — the key's budget, the
   * member's budget, the balance (limits.ts) — and which level that is. `limited`: a budget the
   * customer set applies, so what the router may bill is capped to the hold (price caps, estimate.ts).
   */
  function spendable(caller: Caller, at: number) {
    const bound = binding(caller, at)
    const limited = caller.apiKey?.budget.limitMicros != null || caller.team?.memberBudget.limitMicros != null
    return { bound, limited }
  }

  /** A refused request: the 402 naming the level, and the budget's 100 % alert when a budget refused it. */
  function refuse(caller: Caller, level: HoldLevel, at: number, balanceMessage: string): OpenAIError {
    if (level === 'key' || level === 'member') deps.notify.budgets([exhausted(caller, level, at)])
    return refusal(caller, level, at, balanceMessage)
  }

  /** A variable-price request a budget applies to whose cost cannot be capped in advance. */
  function uncappable(caller: Caller, message: string): OpenAIError {
    const action = caller.apiKey?.budget.limitMicros != null ? { label: 'Настроить ключ', url: '/app/api-keys' } : { label: 'Бюджеты команды', url: '/app/team' }
    return new OpenAIError(402, message, 'insufficient_balance', 'limit_uncappable', { shouldRetry: false, action })
  }

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
    const worst = planHold(cs.shape, Number.MAX_SAFE_INTEGER, rate, markup)
    const { bound, limited } = spendable(caller, at)
    const now = planHold(cs.shape, bound.remainingMicros, rate, markup, limited)
    return {
      maxCostMicros: worst.kind === 'hold' && !cs.shape.candidates.some((c) => hasVariablePrice(c.model)) ? worst.holdMicros : null,
      holdMicros: now.kind === 'hold' ? now.holdMicros : null,
      maxTokens: now.kind === 'hold' ? now.maxTokens : null,
      refusal: now.kind === 'refuse' ? (now.uncappable ? now.message : refusal(caller, bound.level, at, now.message).message) : null,
      limitedBy: now.kind === 'refuse' && !now.uncappable ? bound.level : null,
      affordableTokens: now.kind === 'refuse' ? (now.affordableTokens ?? null) : null,
    }
  }

  /**
   * Several requests sent at once (the Playground's comparison): each is planned against what the
   * ones before it leave, as their holds would be placed. The most any may cost is the sum; when
   * they do not all fit, `affordableTokens` is the largest max_tokens (one for all, as the
   * comparison sends one) with which they do.
   */
  async function estimateMany(caller: Caller, shapes: ChatShape[]) {
    const rate = currentRate()
    const at = clockNow()
    const { bound, limited } = spendable(caller, at)
    const availableMicros = bound.remainingMicros
    const variable = shapes.some((cs) => cs.shape.candidates.some((c) => hasVariablePrice(c.model)))
    const planAll = (available: number, tokens?: number) => {
      let left = available
      let held = 0
      for (const cs of shapes) {
        const shape = tokens === undefined ? cs.shape : { ...cs.shape, requestedTokens: tokens }
        const plan = planHold(shape, left, rate, markup, limited)
        if (plan.kind === 'refuse')
          return {
            refusal: `${cs.modelId}: ${plan.uncappable ? plan.message : refusal(caller, bound.level, at, plan.message).message}`,
            level: plan.uncappable ? null : bound.level,
            held,
          }
        left -= plan.holdMicros
        held += plan.holdMicros
      }
      return { refusal: null, level: null, held }
    }
    const worst = planAll(Number.MAX_SAFE_INTEGER)
    const now = planAll(availableMicros)
    let affordableTokens: number | null = null
    const requested = shapes.map((cs) => cs.shape.requestedTokens)
    if (now.refusal && requested.every((t) => t !== undefined)) {
      // The largest shared max_tokens that fits, by bisection (planning is cheap and monotonic in it).
      let lo = MIN_AFFORDABLE_TOKENS - 1
      let hi = Math.min(...(requested as number[]))
      while (lo + 1 < hi) {
        const mid = Math.floor((lo + hi) / 2)
        if (planAll(availableMicros, mid).refusal) hi = mid
        else lo = mid
      }
      if (lo >= MIN_AFFORDABLE_TOKENS) affordableTokens = lo
    }
    return {
      maxCostMicros: !variable && !worst.refusal ? worst.held : null,
      holdMicros: now.refusal ? null : now.held,
      maxTokens: null,
      refusal: now.refusal,
      limitedBy: now.level,
      affordableTokens,
    }
  }

  type PrepareOptions = { endpoint: Endpoint; stream: boolean; headers?: Record<string, string> }

  /**
   * Prices the request and holds its worst case. A caller this instance cached (callers.ts) is tried
   * first when its snapshot could not have limited the plan; its hold is checked against the key,
   * the membership and the account as they are now, and when anything is unsure the caller is read
   * afresh and the request planned again.
   */
  async function prepare(caller: Caller, cs: ChatShape, opts: PrepareOptions): Promise<Prepared> {
    if (caller.cached && caller.reread) {
      try {
        const prepared = await hold(caller, cs, opts, true)
        if (prepared) return prepared
      } catch (e) {
        if (!(e instanceof CallerChanged)) throw e
      }
      caller = { ...(await caller.reread()), requestId: caller.requestId }
    }
    return (await hold(caller, cs, opts, false))!
  }

  /** Plans and places the hold; from a cached caller (`cached`), undefined when its balance or budgets could have limited the plan. */
  async function hold(caller: Caller, cs: ChatShape, opts: PrepareOptions, cached: boolean): Promise<Prepared | undefined> {
    const rate = currentRate()
    const key = caller.apiKey
    const at = clockNow()
    const { bound, limited } = spendable(caller, at)
    // Without max_tokens the answer is capped to what may be spent, exactly as to a small balance. A
    // plan from a cached snapshot is the one nothing would limit, taken only when the snapshot has room for it.
    const plan = planHold(cs.shape, cached ? Number.MAX_SAFE_INTEGER : bound.remainingMicros, rate, markup, limited)
    if (cached && (plan.kind === 'refuse' || plan.holdMicros > bound.remainingMicros)) return undefined
    if (plan.kind === 'refuse') throw plan.uncappable ? uncappable(caller, plan.message) : refuse(caller, bound.level, at, plan.message)
    let holdId: string
    try {
      holdId = await placeHold(db, {
        userId: caller.userId,
        teamId: caller.teamId,
        apiKeyId: key?.id ?? null,
        amountMicros: plan.holdMicros,
        keyBudget: key?.budget.limitMicros != null,
        memberBudget: caller.team?.memberBudget.limitMicros != null,
        role: caller.team?.role ?? null,
        cached,
        available: caller.availableMicros,
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
      holdMicros: plan.holdMicros,
      maxTokens: plan.maxTokens,
      priceCap: plan.priceCap ?? null,
      limited,
      responseId: null,
      started: performance.now(),
      firstByteAt: null,
      endpoint: opts.endpoint,
      stream: opts.stream,
      headers: opts.headers,
      upstream: 'primary',
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
    audioSeconds: f.audioSeconds ?? null,
    characters: f.characters ?? null,
    images: f.images ?? null,
    requestedModel: p.modelId,
    keyName: p.caller.apiKey?.name ?? null,
    upstreamCostUsd: f.upstreamCostUsd ?? null,
    upstreamId: f.upstreamId ?? null,
    responseId: p.responseId,
    upstream: p.upstream,
    status: f.status,
    error: f.error ?? null,
    // How the charge came about, for the activity log: cost × rate × markup, and the hold it settles.
    usdRubRate: toDecimalString(p.rate),
    markup: markupText,
    holdId: p.holdId,
    holdMicros: p.holdMicros,
    requestId: p.caller.requestId ?? null,
    durationMs: Math.round(performance.now() - p.started),
    ttftMs: p.firstByteAt === null ? null : Math.round(p.firstByteAt - p.started),
    stream: p.stream,
  })

  async function settle(
    p: Prepared,
    usage: Usage | undefined,
    upstreamId: string | null,
    status: 'success' | 'cancelled' = 'success',
    fallbackCompletion = 0,
    reportedModel?: unknown,
    /** Facts of the usage row the endpoint knows better (voice: seconds, characters, a note on the charge). */
    extra?: Partial<UsageFacts>,
    /** The most it may charge (a guess is never above the hold). */
    capMicros = Number.MAX_SAFE_INTEGER,
  ) {
    const by = answered(p, reportedModel)
    const priced = chargeFor(p, usage, fallbackCompletion, by.model)
    const charge = { ...priced, micros: Math.min(priced.micros, capMicros) }
    const completionTokens = usage?.completion_tokens ?? fallbackCompletion
    const promptTokens = usage?.prompt_tokens ?? (usage ? 0 : p.shape.prompt.tokens)
    const usageFacts = facts(p, {
      status,
      model: by.id,
      promptTokens,
      completionTokens,
      totalTokens: usage?.total_tokens,
      images: usage?.pictures || null,
      upstreamCostUsd: charge.upstreamCostUsd,
      upstreamId,
      ...extra,
    })
    // The database not answering does not lose the charge: the hold stays and the settlement is
    // retried until it commits; the answer the router delivered goes out with the charge it will get.
    const account = { userId: p.caller.userId, teamId: p.caller.teamId, apiKeyId: p.caller.apiKey?.id ?? null }
    const closed = await closeDurably(p.holdId, () => settleHold(db, p.holdId, charge.micros, usageFacts, { withinHold: p.limited, account, onApplied: alert }), alert)
    if (closed.deferred) return charge.micros
    alert(closed.result)
    return closed.result?.chargedMicros ?? 0
  }

  const alert = (settled: Settled | null) => sendAlerts(deps.notify, settled)

  /** Gives the hold back; when the database is not answering, later (the customer's error stays the upstream's). */
  const release = async (p: Prepared, error: string, upstreamId: string | null = null, status: 'error' | 'cancelled' = 'error', extra?: Partial<UsageFacts>) => {
    const usageFacts = facts(p, { status, error: error.slice(0, 500), upstreamId, ...extra })
    await closeDurably(p.holdId, () => releaseHold(db, p.holdId, usageFacts))
  }

  /** The router named the answer's generation: the hold remembers it, so a crash before settling still charges it. */
  function known(p: Prepared, generationId: string | null) {
    if (generationId) noteGeneration(db, p.holdId, generationId, { upstream: p.upstream, endpoint: p.endpoint, model: p.modelId, stream: p.stream, limited: p.limited })
  }

  /**
   * The body the router gets, for every protocol: the caller's (the model, variants and fallbacks as
   * named; the hold covers each) with the shape's patch, our completion cap and price cap, and our
   * end-user id in place of any the caller sent.
   */
  function upstreamBody(p: Prepared, body: Record<string, unknown>, protocol: BodyProtocol): Record<string, unknown> {
    const out: Record<string, unknown> = { ...body, ...p.patch }
    if (protocol !== 'embeddings') out.stream = p.stream
    if (protocol === 'chat') {
      if (p.stream) out.stream_options = { include_usage: true }
      else delete out.stream_options
    }
    if (p.maxTokens !== null) {
      if (protocol === 'responses') out.max_output_tokens = p.maxTokens
      else {
        delete out.max_completion_tokens
        out.max_tokens = p.maxTokens
      }
    }
    if (p.priceCap) out.provider = withPriceCap(out.provider, p.priceCap)
    // A stable, non-identifying end-user id helps the router isolate abuse; the caller's own ids
    // (an e-mail, a user name) never leave us.
    const user = endUserId(p.caller.userId)
    if (protocol === 'messages') {
      delete out.user
      delete out.safety_identifier
      out.metadata = { ...(isObject(out.metadata) ? out.metadata : {}), user_id: user }
    } else {
      out.user = user
      if (out.safety_identifier !== undefined) out.safety_identifier = user
    }
    return out
  }

  /**
   * POSTs one request to a router and waits for its answer's head (forward.ts: retried before the first
   * byte, moved to the second router while the first is down). A failure is thrown as the customer's
   * error; the hold is left to the caller.
   */
  async function post(p: Prepared, path: string, body: Record<string, unknown>, clientSignal: AbortSignal) {
    const models = p.shape.candidates.map((c) => c.model.id)
    const sent = await forward({ path, body, headers: p.headers, stream: p.stream, models, account: callerAccount(p.caller) }, clientSignal)
    p.upstream = sent.upstream
    return sent
  }

  /** post(), releasing the hold when no answer comes. Answers the raw Response: voice relays its audio bytes as they come. */
  async function send(p: Prepared, wire: Pick<Wire, 'path'>, body: Record<string, unknown>, clientSignal: AbortSignal) {
    try {
      return await post(p, wire.path, body, clientSignal)
    } catch (e) {
      const err = e as OpenAIError
      await release(p, clientSignal.aborted ? 'client disconnected' : err.message, null, clientSignal.aborted ? 'cancelled' : 'error')
      throw err
    }
  }

  const upstreamFailed = (message: string) => new OpenAIError(502, `Провайдер модели вернул ошибку: ${message}`, 'server_error', 'upstream_error', { shouldRetry: false })

  /** A whole (non-streamed) answer, settled before it is returned. */
  async function complete(p: Prepared, wire: Wire, body: Record<string, unknown>, clientSignal: AbortSignal) {
    const { res, done, timedOut } = await send(p, wire, body, clientSignal)
    const upstreamId = res.headers.get('x-generation-id')
    known(p, upstreamId)
    try {
      const json = (await res.json()) as Record<string, unknown>
      const read = wire.answer(json)
      p.responseId = read.responseId ?? null
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
    const relay = new Relay(p, wire.reader(), res, ac, { settle, release, reconcile, known, idleMs: config.upstreamTimeoutMs })
    clientSignal.addEventListener('abort', () => relay.clientGone(), { once: true })
    return new Response(relay.stream, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    })
  }

  /**
   * A stream that ended without its usage (the client left, or the router sent none), for every
   * protocol: charged the router's record of its generation (GET /generation, retried while it is not
   * published yet; the record the hold sweeps settle from). Only when it has none, a guess (guessed()).
   */
  async function reconcile(p: Prepared, upstreamId: string | null, streamed: Streamed, status: 'success' | 'cancelled' = 'cancelled') {
    if (upstreamId)
      for (const wait of GENERATION_RETRY_MS) {
        await Bun.sleep(wait)
        try {
          const stats = await answeredBy(p).generation(upstreamId)
          if (stats) {
            const usage = { cost: stats.totalCost, prompt_tokens: stats.tokensPrompt, completion_tokens: stats.tokensCompletion }
            await settle(p, usage, upstreamId, stats.cancelled ? 'cancelled' : status)
            return
          }
        } catch (e) {
          console.warn(`[billing] generation ${upstreamId} lookup failed: ${(e as Error).message}`)
        }
      }
    console.warn(`[billing] ${upstreamId ?? 'an unnamed generation'} (${p.modelId}): no record from the router; charged a guess within the hold`)
    await settle(p, guessed(p, streamed), upstreamId, status, 0, undefined, undefined, p.holdMicros)
  }

  /**
   * What the router could have billed when it keeps no record: the prompt once — as the router counted
   * it when the stream said, else our estimate capped by the context as the hold's is — and the pieces
   * relayed; settle() prices them and caps the charge at the hold.
   */
  function guessed(p: Prepared, streamed: Streamed): Usage {
    const { prompt, promptUncapped } = p.shape
    const context = p.model.contextLength
    const estimate = context > 0 && !promptUncapped ? Math.min(prompt.tokens, context) : prompt.tokens
    return { prompt_tokens: streamed.promptTokens ?? estimate, completion_tokens: streamed.pieces }
  }

  return { estimate, estimateMany, prepare, body: upstreamBody, forward, post, send, complete, stream, settle, release, chargeFor, currentRate, answeredBy }
}

/**
 * Settles the hold of a process that died from the router's record of its generation (the hold
 * sweeps of money/holds): the reported cost at the current rate and markup, as the request's
 * own settlement would have charged it, with the same usage row and alerts.
 */
export function generationSettler(deps: Pick<GatewayDeps, 'config' | 'rates' | 'upstreams' | 'notify'>): GenerationSettler {
  const markup = dec(String(deps.config.markup))
  return {
    async lookup(generationId, info, createdAt) {
      const rate = deps.rates.current()
      if (!rate) return null
      const stats = await deps.upstreams.byName(info.upstream as UpstreamName).client.generation(generationId)
      if (!stats) return null
      return {
        chargeMicros: usdToMicros(dec(stats.totalCost), rate, markup),
        withinHold: info.limited,
        facts: {
          endpoint: info.endpoint as Endpoint,
          model: info.model,
          promptTokens: stats.tokensPrompt,
          completionTokens: stats.tokensCompletion,
          totalTokens: stats.tokensPrompt + stats.tokensCompletion,
          upstreamCostUsd: String(stats.totalCost),
          upstreamId: generationId,
          responseId: null,
          upstream: info.upstream as UpstreamName,
          status: stats.cancelled ? 'cancelled' : 'success',
          error: null,
          durationMs: Math.max(0, Date.now() - createdAt),
          stream: info.stream,
        },
      }
    },
    settled: (s) => sendAlerts(deps.notify, s),
  }
}

export type Pipeline = ReturnType<typeof pipeline>
