// The routers the gateway may send a request to: the primary (OPENROUTER_*) and, when configured, a
// second one speaking the same protocol (FALLBACK_UPSTREAM_*), each with its own circuit breaker. The
// second one's catalogue is read too: a request naming a model it does not list is never sent to it.
// Each router also has a breaker per model, for failures the router puts on one model's provider:
// that model is kept away from it while the router and its other models still serve.
import type { Config } from '../config'
import { type BreakerState, CircuitBreaker, type Transition } from './breaker'
import { createUpstreamClient, type UpstreamClient } from './client'
import type { UpstreamName } from './names'

export type { UpstreamName } from './names'

export type Upstream = {
  name: UpstreamName
  client: UpstreamClient
  breaker: CircuitBreaker
  /** The breaker of one model at this router (a catalogue id without variant), made on first use. */
  model(id: string): CircuitBreaker
  /** Whether this router lists every one of these models (ids without variants); the primary's list is our catalogue. */
  serves(modelIds: readonly string[]): boolean
}

/** The second router's list is re-read this often, and a failed read retried after a minute. */
const FALLBACK_CATALOGUE_TTL_MS = 3600_000
const FALLBACK_CATALOGUE_RETRY_MS = 60_000

const verb: Record<BreakerState, string> = { open: 'opened', 'half-open': 'half-open: probing', closed: 'closed' }

export function createUpstreams(config: Config, primaryClient: UpstreamClient) {
  const listeners: Array<(name: UpstreamName, t: Transition) => void> = []
  // Each transition once, as it happens: the operator's timeline of an outage.
  const log = (who: string, t: Transition) => {
    const detail =
      t.to === 'open'
        ? ` — ${t.failures} of ${t.requests} requests failed (${t.reason}); not used for ${Math.round(config.breaker.cooldownMs / 1000)} s`
        : t.to === 'closed'
          ? ' — the probes succeeded'
          : ''
    console.warn(`[upstream] ${who}: circuit ${t.from === 'half-open' && t.to === 'open' ? 're-opened (a probe failed)' : verb[t.to]}${detail}`)
  }
  const breaker = (name: UpstreamName) =>
    new CircuitBreaker(name, config.breaker, (t) => {
      log(name, t)
      for (const l of listeners) l(name, t)
    })
  /** A model's breakers are logged, not recorded as incidents: the router itself is up. Bounded by the catalogue. */
  const modelBreakers = (name: UpstreamName) => {
    const made = new Map<string, CircuitBreaker>()
    return (id: string) => {
      let b = made.get(id)
      if (!b) made.set(id, (b = new CircuitBreaker(`${name} ${id}`, config.breaker, (t) => log(`${name}, model ${id}`, t))))
      return b
    }
  }

  const primary: Upstream = { name: 'primary', client: primaryClient, breaker: breaker('primary'), model: modelBreakers('primary'), serves: () => true }

  let fallback: Upstream | null = null
  let fallbackCatalogue: { models: Set<string>; readAt: number } | null = null
  let reading: Promise<void> | null = null
  let lastTry = 0
  if (config.fallbackUpstream) {
    const client = createUpstreamClient(config, config.fallbackUpstream)
    const read = async () => {
      const models = new Set((await client.listModels()).map((m) => m.id))
      try {
        for (const m of await client.listEmbeddingModels()) models.add(m.id)
      } catch {
        // a router without embeddings still serves the rest
      }
      fallbackCatalogue = { models, readAt: Date.now() }
      console.log(`[upstream] fallback: ${models.size} models listed`)
    }
    const refresh = () => {
      if (reading) return reading
      lastTry = Date.now()
      reading = read()
        .catch((e) => console.error(`[upstream] fallback: its catalogue could not be read: ${(e as Error).message}`))
        .finally(() => {
          reading = null
        })
      return reading
    }
    fallback = {
      name: 'fallback',
      client,
      breaker: breaker('fallback'),
      model: modelBreakers('fallback'),
      serves(ids) {
        const now = Date.now()
        const stale = !fallbackCatalogue || now - fallbackCatalogue.readAt > FALLBACK_CATALOGUE_TTL_MS
        if (stale && now - lastTry > FALLBACK_CATALOGUE_RETRY_MS) void refresh()
        const models = fallbackCatalogue?.models
        return !!models && ids.every((id) => models.has(id))
      },
    }
    void refresh()
  }

  return {
    primary,
    fallback,
    /** In the order they are tried. */
    list: (): Upstream[] => (fallback ? [primary, fallback] : [primary]),
    byName: (name: UpstreamName): Upstream => (name === 'fallback' && fallback ? fallback : primary),
    /** Called on every breaker transition (the status page records incidents from them). */
    onTransition(listener: (name: UpstreamName, t: Transition) => void) {
      listeners.push(listener)
    },
    /** How many models the second router lists (null: not read yet, or none configured). */
    fallbackModels: () => fallbackCatalogue?.models.size ?? null,
  }
}

export type Upstreams = ReturnType<typeof createUpstreams>
