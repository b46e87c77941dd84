// What a finished request is charged and what its usage row says: the candidate that answered, the
// charge (the cost the router reported × rate × markup, else the counts at the catalogue's prices),
// the row's facts, and the alerts a committed settlement sends.

import { isVariable, usdToMicros } from '../catalog/pricing'
import type { ModelRow } from '../catalog/schema'
import { ceilUnits, type Dec, dec, mul, toDecimalString } from '../lib/decimal'
import type { Notifier, Settled, UsageFacts } from '../money'
import { costUsd, DEFAULT_WEB_RESULTS } from './estimate'
import type { Prepared } from './types'
import type { Usage } from './wire'

/** A settlement has committed: its alerts leave in the background, never on the request's path. */
export function sendAlerts(notify: Notifier, settled: Settled | null) {
  if (settled?.lowBalance) notify.lowBalance(settled.lowBalance)
  if (settled?.budgets.length) notify.budgets(settled.budgets)
}

/** The candidate the router says answered (fallbacks), else the one the request names. */
export function answered(p: Prepared, reported: unknown): { id: string; model: ModelRow } {
  if (typeof reported === 'string' && reported !== p.modelId) {
    const c = p.shape.candidates.find((c) => c.model.id === reported || (c.variant && `${c.model.id}:${c.variant}` === reported))
    if (c) return { id: reported, model: c.model }
  }
  return { id: p.modelId, model: p.model }
}

/** The charge for a finished request: the reported cost, else the counts at the answering model's prices. */
export function chargeFor(p: Prepared, usage: Usage | undefined, markup: Dec, fallbackCompletion = 0, model = p.model): { micros: number; upstreamCostUsd: string | null } {
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
