// The service's state for everyone (/status, /api/status) and the upstreams' for the admin: what the
// breakers of this instance say now, and the incidents every instance recorded over 90 days.
import type { Config } from '../config'
import type { ComponentState } from '../content/status'
import { INSTANCE_ID } from '../db/instance'
import type { Db } from '../db/types'
import type { Transition } from '../upstream/breaker'
import { type UpstreamName, upstreamLabel } from '../upstream/names'
import type { Upstreams } from '../upstream/pool'
import type { Status } from './model'
import { incidentsStore } from './store'
import { DAY_MS, dailyUptime, type Merged, mergeIncidents, outages } from './timeline'

export const HISTORY_DAYS = 90
/** An open incident's row is vouched for this often while the breaker stays open… */
const HEARTBEAT_MS = 60_000
/** …and one not vouched for in this long belongs to an instance that stopped: it ends where it was last vouched for. */
const STALE_MS = 5 * HEARTBEAT_MS
/** /api/status is public: one answer serves everyone for this long. */
const CACHE_MS = 5_000
/** Epoch ms as the wire writes instants (null stays null). */
const toIso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export type StatusDeps = { db: Db; config: Config; upstreams: Upstreams }

export function statusService({ db, config, upstreams }: StatusDeps) {
  const store = incidentsStore(db)
  /** This instance's open incident per upstream (its row id, once written). */
  const open = new Map<UpstreamName, Promise<string | null>>()

  async function record(name: UpstreamName, t: Transition) {
    const at = new Date(t.at)
    try {
      if (t.to === 'open' && t.from === 'closed') {
        open.set(
          name,
          store.open(name, INSTANCE_ID, at, t.reason).catch((e) => {
            console.error(`[status] the incident of ${name} could not be recorded: ${(e as Error).message}`)
            return null
          }),
        )
      } else if (t.to === 'open') {
        const id = await open.get(name)
        if (id) await store.touch(id, at, t.reason)
      } else if (t.to === 'closed') {
        const id = await open.get(name)
        open.delete(name)
        if (id) await store.close(id, at)
      }
    } catch (e) {
      console.error(`[status] the incident of ${name} could not be updated: ${(e as Error).message}`)
    }
  }
  upstreams.onTransition((name, t) => void record(name, t))

  // While a breaker stays open (no traffic, no probes), its row is still vouched for.
  const heartbeat = setInterval(() => {
    for (const row of open.values()) void row.then((id) => (id ? store.touch(id, new Date()) : undefined)).catch(() => {})
  }, HEARTBEAT_MS)
  heartbeat.unref?.()

  const breakerState = (name: UpstreamName): ComponentState => {
    const state = upstreams.byName(name).breaker.state
    return state === 'open' ? 'outage' : state === 'half-open' ? 'degraded' : 'operational'
  }

  let cached: { at: number; value: Promise<Status> } | null = null

  async function build(now: number): Promise<Status> {
    let merged: Merged[] = []
    let database = true
    try {
      merged = mergeIncidents(await store.since(new Date(now - HISTORY_DAYS * DAY_MS)), now, STALE_MS)
    } catch (e) {
      database = false
      console.error(`[status] incidents could not be read: ${(e as Error).message}`)
    }
    const names: UpstreamName[] = upstreams.list().map((u) => u.name)
    const upstreamState = (name: UpstreamName): ComponentState => {
      const own = breakerState(name)
      // Another instance may see an outage this one has not (yet): then at least a partial one.
      if (own === 'operational' && merged.some((m) => m.upstream === name && m.ongoing)) return 'degraded'
      return own
    }
    const components = [
      { id: 'api', name: 'API и сайт', state: (database ? 'operational' : 'outage') as ComponentState, note: database ? null : 'База данных недоступна' },
      ...names.map((name) => ({ id: `upstream-${name}`, name: upstreamLabel(name), state: upstreamState(name), note: null as string | null })),
      {
        id: 'payments',
        name: 'Платежи',
        state: 'operational' as ComponentState,
        note: config.yookassaShopId ? 'ЮKassa' : 'Тестовый режим оплаты',
      },
    ]
    // Models answer while any upstream does: the first down with a working second one is a partial failure.
    const models = names.map(upstreamState)
    const modelsState: ComponentState = models.every((s) => s === 'outage') ? 'outage' : models.some((s) => s !== 'operational') ? 'degraded' : 'operational'
    const overall: ComponentState = !database || modelsState === 'outage' ? 'outage' : modelsState
    return {
      status: overall,
      updatedAt: new Date(now).toISOString(),
      components,
      incidents: merged.map((m) => ({
        upstream: m.upstream,
        what: `${upstreamLabel(m.upstream)}: ${m.reasons.join(', ')}`,
        startedAt: new Date(m.start).toISOString(),
        endedAt: m.ongoing ? null : new Date(m.end).toISOString(),
        durationSec: Math.max(1, Math.round((m.end - m.start) / 1000)),
      })),
      days: dailyUptime(outages(merged, names.length > 1), now, HISTORY_DAYS),
    }
  }

  return {
    /** The public status, at most CACHE_MS old. */
    current(now = Date.now()): Promise<Status> {
      if (!cached || now - cached.at > CACHE_MS) cached = { at: now, value: build(now) }
      return cached.value
    },

    /** The breakers of this instance, for the admin's dashboard. */
    upstreams() {
      return {
        instanceId: INSTANCE_ID,
        upstreams: upstreams.list().map((u) => ({
          name: u.name,
          label: upstreamLabel(u.name),
          // The host only: a base URL may carry credentials.
          host: u.host,
          kind: u.kind,
          residency: u.residency,
          models: upstreams.listedModels(u.name),
          tokenExpiresAt: toIso(u.tokenExpiresAt?.() ?? null),
          windowSec: Math.round(config.breaker.windowMs / 1000),
          ...u.breaker.snapshot(),
        })),
      }
    },

    stop: () => clearInterval(heartbeat),
  }
}

export type StatusService = ReturnType<typeof statusService>
