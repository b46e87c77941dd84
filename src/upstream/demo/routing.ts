// Which model answers a request, as the router decides it (protocols.md 1.11, 1.13): the candidates
// in order (`model`, then the `models` fallbacks), router pseudo-models such as `openrouter/auto`
// picking a concrete model, and `provider.max_price`, which lets the router use only models whose
// prices are within the caps — USD per million prompt/completion tokens, per request, per input
// image, per audio unit. Candidates above a cap are skipped (the auto router picks the best model
// of its pool that fits); when none fits, nothing is generated and nothing billed: 404.
import { findModel, type Model, type ResolvedChatModel, resolveRequestedModel } from './catalogue'
import { toFemto } from './pricing'
import { openRouterError } from './wire'

/** Router pseudo-models: the auto router picks a concrete model from its pool. */
export const AUTO_ROUTER = 'openrouter/auto'
/** Where the auto router sends a request, best first, unless the upstream was given another pool. */
export const DEFAULT_AUTO_POOL: readonly string[] = ['openai/gpt-4o-mini']

const CAP_FIELDS = ['prompt', 'completion', 'request', 'image', 'audio'] as const
type CapField = (typeof CAP_FIELDS)[number]
/** Femto-dollars: per million tokens for prompt and completion, per unit for the rest. */
export type PriceCap = Partial<Record<CapField, bigint>>

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Why no model can answer: the caller wraps it in its protocol's error shape. */
export type RouteFailure = { failure: { status: 400 | 404; message: string; errorType?: string } }
const fail = (status: 400 | 404, message: string, errorType: string | null = status === 404 ? 'not_found' : 'invalid_request'): RouteFailure => ({
  failure: { status, message, errorType: errorType ?? undefined },
})

/** `provider.max_price` of a request body; null when there is none. */
export function parsePriceCap(body: Record<string, unknown>): PriceCap | null | RouteFailure {
  const provider = body.provider
  if (provider === undefined || provider === null) return null
  if (!isObject(provider)) return fail(400, 'provider must be an object')
  const raw = provider.max_price
  if (raw === undefined || raw === null) return null
  if (!isObject(raw)) return fail(400, 'provider.max_price must be an object')
  const cap: PriceCap = {}
  for (const field of CAP_FIELDS) {
    const v = raw[field]
    if (v === undefined || v === null) continue
    const text = typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v.toFixed(15) : typeof v === 'string' ? v : ''
    if (!/^\d+(\.\d+)?$/.test(text)) return fail(400, `provider.max_price.${field} must be a non-negative number`)
    cap[field] = toFemto(text)
  }
  return cap
}

/** "-1" (varies) never fits a cap; an absent price is free. */
const price = (p: string | undefined) => toFemto(p ?? '0')
const MILLION = 1_000_000n

/** Whether every price the cap names is within it (token prices are per token in the catalogue, per million in the cap). */
export function fitsCap(m: Model, cap: PriceCap): boolean {
  const p = m.pricing
  const within = (have: bigint, limit: bigint | undefined) => limit === undefined || (have >= 0n && have <= limit)
  return (
    within(price(p.prompt) * MILLION, cap.prompt) &&
    within(price(p.completion) * MILLION, cap.completion) &&
    within(price(p.request), cap.request) &&
    within(price(p.image), cap.image) &&
    within(0n, cap.audio) // the demo catalogue prices no audio
  )
}

/**
 * The candidates the router may answer with, in order, after the body's price cap: a router
 * pseudo-model becomes the first model of `autoPool` that fits; other ids must name a catalogue
 * model (or a routing variant of one) and are skipped when above the cap. Unknown ids are a 400
 * whatever the cap; no candidate left is a 404.
 */
export function routeCandidates(ids: readonly unknown[], body: Record<string, unknown>, autoPool: readonly string[] = DEFAULT_AUTO_POOL): ResolvedChatModel[] | RouteFailure {
  const cap = parsePriceCap(body)
  if (cap !== null && 'failure' in cap) return cap
  const fits = (m: Model) => cap === null || fitsCap(m, cap)
  const out: ResolvedChatModel[] = []
  for (const id of ids) {
    if (typeof id !== 'string') return fail(400, 'models must be an array of model IDs')
    if (id === AUTO_ROUTER) {
      const picked = autoPool.map((poolId) => findModel(poolId)).find((m): m is Model => m !== undefined && fits(m))
      if (picked) out.push({ model: picked, reportedId: picked.id, variant: null })
      continue
    }
    const resolved = resolveRequestedModel(id)
    if (!resolved) return fail(400, `${id} is not a valid model ID`, null)
    if (fits(resolved.model)) out.push(resolved)
  }
  if (out.length === 0) return fail(404, 'No endpoints found within the requested max_price')
  return out
}

/** A routing failure in the router's own error shape (chat, Responses, embeddings). */
export const routeError = ({ failure: f }: RouteFailure) => openRouterError(f.status, f.message, f.errorType ? { error_type: f.errorType } : undefined)
