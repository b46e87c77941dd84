// The pipeline every protocol shares: prepare (price the request, hold its worst case) → send (the
// router's answer head) → complete (a whole answer) or stream (relay.ts) → settle to the reported
// cost (charge.ts), or release; a stream that ended without its cost is reconciled (reconcile.ts).
// What differs per protocol is its shape (shape.ts and the protocol's file), its Wire (wire.ts) and
// its body (upstream-body.ts); the protocols' entries are protocols.ts.

import { keyRatesOf } from '../keys/rates'
import { dec } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import {
  CallerChanged,
  now as clockNow,
  closeDurably,
  closeForAnswer,
  type Endpoint,
  type HoldLevel,
  HoldRefused,
  noteGeneration,
  placeHold,
  releaseHold,
  type Settled,
  settleHold,
  type UsageFacts,
} from '../money'
import type { Caller } from './callers'
import { answered, chargeFor, sendAlerts, usageFacts } from './charge'
import { currentRate, fromFetchFailure, upstreamFailed } from './errors'
import { planHold } from './estimate'
import { callerAccount, forwarder } from './forward'
import { exhausted, refusal, spendable } from './limits'
import { checkModels, logRefusal, PolicyRefusal } from './policy'
import { reconciler } from './reconcile'
import { Relay } from './relay'
import { routeRequest, type Target } from './routing'
import type { ChatShape } from './shape'
import type { GatewayDeps, Prepared } from './types'
import { upstreamBody } from './upstream-body'
import type { Usage, Wire } from './wire'

type PrepareOptions = { endpoint: Endpoint; stream: boolean; headers?: Record<string, string> }

export function pipeline(deps: GatewayDeps) {
  const { db, config, rates, upstreams } = deps
  const { forward } = forwarder(upstreams, config.upstreamTimeoutMs)
  /** The router that answered `p` (its /generation lookup is asked there). */
  const answeredBy = (p: Prepared) => upstreams.byName(p.upstream).router
  const markup = dec(String(config.markup))
  const markupText = String(config.markup)

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

  /**
   * Prices the request and holds its worst case. A caller this instance cached (callers.ts) is tried
   * first when its snapshot could not have limited the plan; its hold is checked against the key,
   * the membership and the account as they are now, and when anything is unsure the caller is read
   * afresh and the request planned again.
   */
  async function prepare(caller: Caller, asked: ChatShape, opts: PrepareOptions): Promise<Prepared> {
    allowModels(caller, asked, opts)
    const routed = routeRequest(asked.shape, opts.endpoint, caller.residency, deps.catalog, upstreams)
    const cs = { ...asked, shape: routed.shape }
    if (caller.cached && caller.reread) {
      try {
        const prepared = await hold(caller, cs, opts, true, routed.targets)
        if (prepared) return prepared
      } catch (e) {
        if (!(e instanceof CallerChanged)) throw e
      }
      caller = { ...(await caller.reread()), requestId: caller.requestId, answerHeaders: caller.answerHeaders }
    }
    return (await hold(caller, cs, opts, false, routed.targets))!
  }

  /** 403 model_not_allowed (in the activity log) when the key or the team may not call a model the request may reach. */
  function allowModels(caller: Caller, asked: ChatShape, opts: PrepareOptions) {
    if (caller.modelRules.length === 0) return
    try {
      checkModels(
        caller,
        asked.shape.candidates.map((c) => c.model.id),
      )
    } catch (e) {
      if (e instanceof PolicyRefusal) logRefusal(db, caller, e, { endpoint: opts.endpoint, model: asked.modelId, stream: opts.stream })
      throw e
    }
  }

  /** Plans and places the hold; from a cached caller (`cached`), undefined when its balance or budgets could have limited the plan. */
  async function hold(caller: Caller, cs: ChatShape, opts: PrepareOptions, cached: boolean, targets: Target[]): Promise<Prepared | undefined> {
    const rate = currentRate(rates)
    const key = caller.apiKey
    const at = clockNow()
    const { bound, limited } = spendable(caller, at)
    // Without max_tokens the answer is capped to what may be spent, exactly as to a small balance. A
    // plan from a cached snapshot is the one nothing would limit, taken only when the snapshot has room for it.
    let plan = planHold(cs.shape, cached ? Number.MAX_SAFE_INTEGER : bound.remainingMicros, rate, markup, limited)
    if (cached && (plan.kind === 'refuse' || plan.holdMicros > bound.remainingMicros)) return undefined
    // Answers that fit the balance (issue 37): a max_tokens the money cannot cover becomes what it can, if that is at least 16 tokens.
    if (plan.kind === 'refuse' && plan.affordableTokens && caller.fitToBalance) {
      const tokens = plan.affordableTokens
      const fitted = planHold({ ...cs.shape, requestedTokens: tokens }, bound.remainingMicros, rate, markup, limited)
      if (fitted.kind === 'hold') {
        plan = { ...fitted, maxTokens: tokens }
        if (caller.answerHeaders) caller.answerHeaders['x-max-tokens-clamped'] = String(tokens)
      }
    }
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
      targets,
      upstream: targets[0]?.upstream ?? upstreams.primary.name,
    }
  }

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
    const priced = chargeFor(p, usage, markup, fallbackCompletion, by.candidate)
    const charge = { ...priced, micros: Math.min(priced.micros, capMicros) }
    const completionTokens = usage?.completion_tokens ?? fallbackCompletion
    const promptTokens = usage?.prompt_tokens ?? (usage ? 0 : p.shape.prompt.tokens)
    const facts = usageFacts(p, markupText, {
      status,
      model: by.id,
      promptTokens,
      completionTokens,
      totalTokens: usage?.total_tokens,
      images: usage?.pictures || null,
      upstreamCostUsd: charge.upstreamCostUsd,
      upstreamCostRub: charge.upstreamCostRub,
      upstreamId,
      ...extra,
    })
    // The database not answering does not lose the charge: the hold stays and the settlement is
    // retried until it commits; the answer the router delivered goes out with the charge it will get.
    // A charge within the hold does not wait for the commit on SQLite (money closeForAnswer).
    const account = { userId: p.caller.userId, teamId: p.caller.teamId, apiKeyId: p.caller.apiKey?.id ?? null }
    // The tokens the upstream reported count against the key's tokens per minute (keys/rates.ts).
    const tpm = p.caller.apiKey?.policy.tpmLimit
    if (tpm)
      void keyRatesOf(db)
        .spend(p.caller.apiKey!.id, tpm, facts.totalTokens || promptTokens + completionTokens)
        .catch(() => {})
    const unit = () => settleHold(db, p.holdId, charge.micros, facts, { withinHold: p.limited, account, onApplied: alert })
    const giveBack = (e: Error) => void release(p, `settlement failed: ${e.message}`, upstreamId).catch(() => {})
    return closeForAnswer(p.holdId, { micros: charge.micros, heldMicros: p.holdMicros }, unit, alert, giveBack)
  }

  const alert = (settled: Settled | null) => sendAlerts(deps.notify, settled)

  /** Gives the hold back; when the database is not answering, later (the customer's error stays the upstream's). */
  const release = async (p: Prepared, error: string, upstreamId: string | null = null, status: 'error' | 'cancelled' = 'error', extra?: Partial<UsageFacts>) => {
    const facts = usageFacts(p, markupText, { status, error: error.slice(0, 500), upstreamId, ...extra })
    await closeDurably(p.holdId, () => releaseHold(db, p.holdId, facts))
  }

  /** The router named the answer's generation: the hold remembers it, so a crash before settling still charges it. */
  function known(p: Prepared, generationId: string | null) {
    if (generationId) noteGeneration(db, p.holdId, generationId, { upstream: p.upstream, endpoint: p.endpoint, model: p.modelId, stream: p.stream, limited: p.limited })
  }

  const reconcile = reconciler(answeredBy, settle)

  /**
   * POSTs one request to a router and waits for its answer's head (forward.ts: retried before the first
   * byte, moved to the second router while the first is down). A failure is thrown as the customer's
   * error; the hold is left to the caller.
   */
  async function post(p: Prepared, path: string, body: Record<string, unknown>, clientSignal: AbortSignal) {
    const models = p.shape.candidates.map((c) => c.model.id)
    const sent = await forward({ path, body, headers: p.headers, stream: p.stream, models, targets: p.targets, account: callerAccount(p.caller) }, clientSignal)
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

  return { prepare, body: upstreamBody, forward, post, send, complete, stream, settle, release, answeredBy }
}

export type Pipeline = ReturnType<typeof pipeline>
