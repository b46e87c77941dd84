// The upstreams the gateway may send a request to, in UPSTREAMS_FILE order (config.upstreams): routers
// speaking OpenRouter's protocol (the first one's list is our catalogue; the others' lists are read,
// so a request naming a model one does not list is never sent to it) and the other kinds
// (kinds/*.ts), which answer the models their file entry lists. Each has its own circuit breaker,
// and a breaker per model, for failures an upstream puts on one model's provider: that model is kept
// away from it while the upstream and its other models still serve.
import type { Config } from '../config'
import { type BreakerState, CircuitBreaker, type Transition } from './breaker'
import { createUpstreamClient, type UpstreamClient } from './client'
import { createGigachatClient } from './kinds/gigachat'
import { createOpenAIClient } from './kinds/openai'
import { translating } from './kinds/translate'
import type { Currency, KindClient, Residency, UpstreamEntry, UpstreamKind } from './kinds/types'
import { createYandexClient } from './kinds/yandex'
import type { UpstreamName } from './names'

export type { UpstreamName } from './names'

export type Upstream = {
  name: UpstreamName
  kind: UpstreamKind
  residency: Residency
  currency: Currency
  /** Its host as the operator reads it (never the whole base URL: it may carry credentials). */
  host: string
  /** Where its inference requests go (OpenAI chat completions and embeddings for every kind). */
  client: KindClient
  /** A router's own client (its /generation record, its key); null for the other kinds. */
  router: UpstreamClient | null
  breaker: CircuitBreaker
  /** The breaker of one model at this upstream (a catalogue id without variant), made on first use. */
  model(id: string): CircuitBreaker
  /** GigaChat's: when its OAuth token lapses (epoch ms; null before the first). */
  tokenExpiresAt?: () => number | null
  /** Whether this router lists every one of these models (ids without variants); the first router's list is our catalogue. */
  serves(modelIds: readonly string[]): boolean
}

/** A second router's list is re-read this often, and a failed read retried after a minute. */
const FALLBACK_CATALOGUE_TTL_MS = 3600_000
const FALLBACK_CATALOGUE_RETRY_MS = 60_000

const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return ''
  }
}

const routerTarget = (e: UpstreamEntry & { kind: 'openrouter' }) => ({ baseUrl: e.baseUrl, apiKey: e.apiKey, caFile: e.caFile })

const verb: Record<BreakerState, string> = { open: 'opened', 'half-open': 'half-open: probing', closed: 'closed' }

/** The first router's client: OPENROUTER_*'s (the demo router without a key), or UPSTREAMS_FILE's first router. */
export function firstRouterClient(config: Config): UpstreamClient {
  const first = config.upstreams.find((e) => e.kind === 'openrouter')
  return first && first.id !== 'primary' ? createUpstreamClient(config, routerTarget(first)) : createUpstreamClient(config)
}

/** `primaryClient` is the first router's (firstRouterClient: the catalogue is synced through it). */
export function createUpstreams(config: Config, primaryClient: UpstreamClient, entries: readonly UpstreamEntry[] = config.upstreams) {
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

  /** A router after the first: its list is read (and re-read hourly) to know which models it serves. */
  function secondRouter(e: UpstreamEntry & { kind: 'openrouter' }, client: UpstreamClient) {
    let catalogue: { models: Set<string>; readAt: number } | null = null
    let reading: Promise<void> | null = null
    let lastTry = 0
    const read = async () => {
      const models = new Set((await client.listModels()).map((m) => m.id))
      try {
        for (const m of await client.listEmbeddingModels()) models.add(m.id)
      } catch {
        // a router without embeddings still serves the rest
      }
      catalogue = { models, readAt: Date.now() }
      console.log(`[upstream] ${e.id}: ${models.size} models listed`)
    }
    const refresh = () => {
      if (reading) return reading
      lastTry = Date.now()
      reading = read()
        .catch((err) => console.error(`[upstream] ${e.id}: its catalogue could not be read: ${(err as Error).message}`))
        .finally(() => {
          reading = null
        })
      return reading
    }
    void refresh()
    return {
      serves(ids: readonly string[]) {
        const now = Date.now()
        const stale = !catalogue || now - catalogue.readAt > FALLBACK_CATALOGUE_TTL_MS
        if (stale && now - lastTry > FALLBACK_CATALOGUE_RETRY_MS) void refresh()
        const models = catalogue?.models
        return !!models && ids.every((id) => models.has(id))
      },
      size: () => catalogue?.models.size ?? null,
    }
  }

  const listed = new Map<string, () => number | null>()
  let firstRouter = true
  const all: Upstream[] = entries.map((e) => {
    const common = { name: e.id, kind: e.kind, residency: e.residency, currency: e.currency, breaker: breaker(e.id), model: modelBreakers(e.id), host: hostOf(e.baseUrl) }
    if (e.kind === 'openrouter') {
      if (firstRouter) {
        firstRouter = false
        const host = primaryClient.mode === 'demo' ? 'демо-режим' : hostOf(e.baseUrl || config.openrouterBaseUrl)
        return { ...common, host, client: primaryClient, router: primaryClient, serves: () => true }
      }
      const client = createUpstreamClient(config, routerTarget(e))
      const second = secondRouter(e, client)
      listed.set(e.id, second.size)
      return { ...common, client, router: client, serves: second.serves }
    }
    const models = new Set(e.models.map((m) => m.id))
    listed.set(e.id, () => models.size)
    const serves = (ids: readonly string[]) => ids.every((id) => models.has(id))
    // Responses and Messages reach them as chat completions (kinds/translate.ts): Codex and Claude Code run on them too.
    if (e.kind === 'gigachat') {
      const client = createGigachatClient(e)
      return { ...common, client: translating(client), router: null, serves, tokenExpiresAt: () => client.tokenExpiresAt() }
    }
    return { ...common, client: translating(e.kind === 'openai' ? createOpenAIClient(e) : createYandexClient(e)), router: null, serves }
  })
  const byId = new Map(all.map((u) => [u.name, u]))
  const primary = all.find((u) => u.kind === 'openrouter') ?? all[0]!

  return {
    /** The first router: the catalogue's. */
    primary,
    /** In the order they are tried. */
    list: (): readonly Upstream[] => all,
    /** An upstream by id; the first router for an id no longer configured (an old hold's). */
    byName: (name: UpstreamName): Upstream => byId.get(name) ?? primary,
    /** Called on every breaker transition (the status page records incidents from them). */
    onTransition(listener: (name: UpstreamName, t: Transition) => void) {
      listeners.push(listener)
    },
    /** How many models a router after the first lists (null: not read yet, or not such a router). */
    listedModels: (name: UpstreamName) => listed.get(name)?.() ?? null,
  }
}

export type Upstreams = ReturnType<typeof createUpstreams>
