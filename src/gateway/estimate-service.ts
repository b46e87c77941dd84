// The Playground's «Оценка: до X ₽» (POST /api/playground/estimate): what a /v1 request would hold
// and may cost at most, from the same planHold as the hold itself (estimate.ts), so the Playground
// never shows less than what is then charged. Nothing is placed.

import { dec } from '../lib/decimal'
import { badRequest, OpenAIError } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { now as clockNow, type Endpoint } from '../money'
import { speechShape, transcriptionShape } from './audio'
import { type Caller, callerForUser } from './callers'
import { currentRate } from './errors'
import { hasVariablePrice, MIN_AFFORDABLE_TOKENS, planHold } from './estimate'
import { imagesShape } from './images'
import { refusal, spendable } from './limits'
import type { EstimateRequest } from './model'
import { routeRequest } from './routing'
import { type ChatShape, chatShape } from './shape'
import type { GatewayDeps } from './types'

type EstimateBody = typeof EstimateRequest.static

export function estimateService(deps: Pick<GatewayDeps, 'db' | 'config' | 'catalog' | 'rates' | 'upstreams'>) {
  const { db, catalog, rates } = deps
  const markup = dec(String(deps.config.markup))
  /** The shape over the routes that may answer it, as the hold sees it (routing.ts: a ruble route's prices, the caller's residency). */
  const routed = (caller: Caller, cs: ChatShape, endpoint: Endpoint): ChatShape => ({
    ...cs,
    shape: routeRequest(cs.shape, endpoint, caller.residency, catalog, deps.upstreams).shape,
  })

  /** The hold one request would get now and the most it may cost. */
  function one(caller: Caller, cs: ChatShape) {
    const rate = currentRate(rates)
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
  function many(caller: Caller, shapes: ChatShape[]) {
    const rate = currentRate(rates)
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

  return {
    /** The estimate of the body `body` names (one request, or a comparison's several) for the account the session acts in. */
    async estimate(acting: { userId: string; teamId: string | null }, body: EstimateBody) {
      // Read afresh: the Playground shows what the balance and budgets allow now.
      const caller = await callerForUser(db, acting.userId, acting.teamId, true)
      if (!caller) throw new OpenAIError(401, 'Сессия недействительна', 'invalid_request_error', 'invalid_api_key')
      const get = catalog.get
      if (body.compare) {
        const e = many(
          caller,
          body.compare.map((b) => routed(caller, chatShape(b, get), 'chat')),
        )
        return {
          maxCost: e.maxCostMicros === null ? null : microsToRub(e.maxCostMicros),
          hold: e.holdMicros === null ? null : microsToRub(e.holdMicros),
          maxTokens: null,
          affordable: e.refusal === null,
          message: e.refusal,
          affordableTokens: e.affordableTokens,
        }
      }
      const [cs, endpoint]: [ChatShape | null, Endpoint] = body.chat
        ? [chatShape(body.chat, get), 'chat']
        : body.images
          ? [imagesShape(body.images, get), 'images']
          : body.speech
            ? [speechShape(body.speech, get), 'speech']
            : body.transcription
              ? [transcriptionShape(body.transcription.model, body.transcription.seconds, get), 'transcription']
              : [null, 'chat']
      if (!cs) throw badRequest('Передайте chat, images, speech, transcription или compare — тело запроса, стоимость которого нужно оценить')
      const e = one(caller, routed(caller, cs, endpoint))
      return {
        maxCost: e.maxCostMicros === null ? null : microsToRub(e.maxCostMicros),
        hold: e.holdMicros === null ? null : microsToRub(e.holdMicros),
        maxTokens: e.maxTokens,
        affordable: e.refusal === null,
        message: e.refusal,
        affordableTokens: e.affordableTokens,
        limitedBy: e.limitedBy,
      }
    },
  }
}
