// Settling from the router's record of a generation (its GET /generation), when the request's own
// answer did not say what it cost: a stream the client left or that ended without its usage, and a
// hold whose process died before settling it (the hold sweeps of money/holds).

import { usdToMicros } from '../catalog/pricing'
import { dec } from '../lib/decimal'
import type { Endpoint, GenerationSettler, UsageFacts } from '../money'
import type { GenerationStats, UpstreamClient } from '../upstream/client'
import { sendAlerts } from './charge'
import type { Streamed } from './relay'
import type { GatewayDeps, Prepared } from './types'
import type { Usage } from './wire'

/** The router publishes generation stats with a delay: asked again after each of these waits. */
const GENERATION_RETRY_MS = [500, 1000, 2000, 4000]

/**
 * The router's record of generation `id`, asked after each of `waits` (ms; 0 asks at once) until it is
 * published and `usable`; undefined when it never is. A failed lookup is logged and asked again.
 */
export async function generationRecord(
  router: Pick<UpstreamClient, 'generation'>,
  id: string,
  waits: readonly number[],
  usable: (stats: GenerationStats) => boolean = () => true,
): Promise<GenerationStats | undefined> {
  for (const wait of waits) {
    if (wait) await Bun.sleep(wait)
    try {
      const stats = await router.generation(id)
      if (stats && usable(stats)) return stats
    } catch (e) {
      console.warn(`[billing] generation ${id} lookup failed: ${(e as Error).message}`)
    }
  }
  return undefined
}

/** The pipeline's settle, as reconciling calls it. */
type Settle = (
  p: Prepared,
  usage: Usage | undefined,
  upstreamId: string | null,
  status: 'success' | 'cancelled',
  fallbackCompletion?: number,
  reportedModel?: unknown,
  extra?: Partial<UsageFacts>,
  capMicros?: number,
) => Promise<number>

/**
 * A stream that ended without its usage (the client left, or the router sent none), for every
 * protocol: charged the router's record of its generation (GET /generation, retried while it is not
 * published yet; the record the hold sweeps settle from). Only when it has none, a guess (guessed()).
 */
export function reconciler(answeredBy: (p: Prepared) => Pick<UpstreamClient, 'generation'> | null, settle: Settle) {
  return async function reconcile(p: Prepared, upstreamId: string | null, streamed: Streamed, status: 'success' | 'cancelled' = 'cancelled') {
    // Only a router keeps records of its generations; another upstream's stream is charged the guess.
    const router = answeredBy(p)
    const stats = upstreamId && router ? await generationRecord(router, upstreamId, GENERATION_RETRY_MS) : undefined
    if (stats) {
      const usage = { cost: stats.totalCost, prompt_tokens: stats.tokensPrompt, completion_tokens: stats.tokensCompletion }
      await settle(p, usage, upstreamId, stats.cancelled ? 'cancelled' : status)
      return
    }
    console.warn(`[billing] ${upstreamId ?? 'an unnamed generation'} (${p.modelId}): no record from the router; charged a guess within the hold`)
    await settle(p, guessed(p, streamed), upstreamId, status, 0, undefined, undefined, p.holdMicros)
  }
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
      const router = deps.upstreams.byName(info.upstream).router
      const stats = router ? await router.generation(generationId) : null
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
          upstream: info.upstream,
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
