// What a finished request is charged and what its usage row says: the candidate that answered, the
// charge (the cost the router reported × rate × markup, else the counts at the catalogue's prices),
// the row's facts, and the alerts a committed settlement sends.

import { isVariable, usdToMicros } from '../catalog/pricing'
import { add, ceilUnits, type Dec, dec, mul, toDecimalString } from '../lib/decimal'
import type { Notifier, Settled, UsageFacts } from '../money'
import { type Candidate, costUsd, DEFAULT_WEB_RESULTS } from './estimate'
import type { Prepared } from './types'
import type { Usage } from './wire'

/** A settlement has committed: its alerts leave in the background, never on the request's path. */
export function sendAlerts(notify: Notifier, settled: Settled | null) {
  if (settled?.lowBalance) notify.lowBalance(settled.lowBalance)
  if (settled?.budgets.length) notify.budgets(settled.budgets)
}

/**
 * The candidate that answered: the route of the upstream that did when it is not a router; of a
 * router's, the one it says answered (fallbacks), else the one the request names.
 */
export function answered(p: Prepared, reported: unknown): { id: string; candidate: Candidate } {
  const route = p.shape.candidates.find((c) => c.route?.upstream === p.upstream && c.route.kind !== 'openrouter')
  if (route) return { id: p.modelId, candidate: route }
  const routers = p.shape.candidates.filter((c) => !c.route || c.route.kind === 'openrouter')
  if (typeof reported === 'string' && reported !== p.modelId) {
    const c = routers.find((c) => c.model.id === reported || (c.variant && `${c.model.id}:${c.variant}` === reported))
    if (c) return { id: reported, candidate: c }
  }
  return { id: p.modelId, candidate: routers[0] ?? p.shape.candidates[0]! }
}

/** A reported amount: a non-negative number, or its decimal string (the aggregators' `cost_rub`). */
function amount(v: unknown): string | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? String(v) : null
  return typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? v.trim() : null
}

/** An upstream that is not a router and bills in rubles (its costs are rubles: usage.cost_rub). */
const billsInRubles = (c: Candidate) => !!c.route && c.route.kind !== 'openrouter' && c.route.currency === 'RUB'

/**
 * What the upstream says the request cost, in its currency: a router's `usage.cost` (USD); another
 * upstream's `usage.cost_rub` when it bills in rubles, else its `usage.cost` (its own currency).
 */
function reportedCost(usage: Usage | undefined, c: Candidate): string | null {
  if (billsInRubles(c)) return amount(usage?.cost_rub) ?? amount(usage?.cost)
  return amount(usage?.cost)
}

/** What a request is charged, micro-rubles, and what the upstream charged us in its currency (the admin's provider cost). */
export type Charge = { micros: number; upstreamCostUsd: string | null; upstreamCostRub: string | null }

/**
 * The charge for a finished request: the reported cost, else the counts at the answering route's
 * prices; × its rate (the request's USD rate, 1 for rubles) × markup. `upstreamCostUsd` is a
 * router's reported cost; `upstreamCostRub` what an upstream billing in rubles charged us (reported,
 * or computed at its prices: it reports none).
 */
export function chargeFor(p: Prepared, usage: Usage | undefined, markup: Dec, fallbackCompletion = 0, candidate = p.shape.candidates[0]!): Charge {
  const rate = candidate.rate ?? p.rate
  const rub = billsInRubles(candidate)
  const cost = reportedCost(usage, candidate)
  if (cost !== null) return { micros: usdToMicros(dec(cost), rate, markup), upstreamCostUsd: rub ? null : cost, upstreamCostRub: rub ? cost : null }
  const model = candidate.model
  if ([model.promptUsd, model.completionUsd, model.requestUsd].some(isVariable)) {
    console.warn(`[billing] ${model.id}: no reported cost for a variable-price model; nothing charged`)
    return { micros: 0, upstreamCostUsd: null, upstreamCostRub: null }
  }
  const s = p.shape
  const promptTokens = usage?.prompt_tokens ?? s.prompt.tokens
  // Cached prompt tokens at the route's own price for them (GigaChat's precached ones are free).
  const cachedPrice = candidate.route?.cachedPrompt
  const cached = cachedPrice == null ? 0 : Math.min(promptTokens, cachedTokens(usage))
  let price = costUsd(model, {
    promptTokens: promptTokens - cached,
    images: s.prompt.images,
    audioTokens: s.prompt.audioTokens,
    completionTokens: usage?.completion_tokens ?? fallbackCompletion,
    pictures: usage?.pictures ?? 0,
    webResults: s.webResults || (candidate.variant === 'online' ? DEFAULT_WEB_RESULTS : 0),
    requests: s.calls ?? 1, // the counts above are the request's totals; only the per-call price repeats
  })
  if (cached) price = add(price, mul(dec(cachedPrice!), dec(cached)))
  return { micros: ceilUnits(mul(price, rate, markup), 6), upstreamCostUsd: null, upstreamCostRub: rub ? toDecimalString(price) : null }
}

/** `usage.prompt_tokens_details.cached_tokens`, 0 when absent. */
function cachedTokens(usage: Usage | undefined): number {
  const details = usage?.prompt_tokens_details as { cached_tokens?: unknown } | undefined
  const n = details?.cached_tokens
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0
}

/** The usage row of `p`: what the endpoint knows (`f`) and what the request carried, with how its charge came about. */
export function usageFacts(p: Prepared, markupText: string, f: Partial<UsageFacts> & Pick<UsageFacts, 'status'>): UsageFacts {
  return {
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
    upstreamCostRub: f.upstreamCostRub ?? null,
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
  }
}
