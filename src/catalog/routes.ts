// One catalogue over several upstreams: which upstreams may answer each public id, in UPSTREAMS_FILE
// order. A router (`openrouter`) serves the models its list names (the first router's list is the
// synced catalogue, stored in `models`); every other kind serves the models its file entry lists,
// priced per token in its own currency. A public id is listed once, with the first route's entry.
import { dec, mul, toDecimalString } from '../lib/decimal'
import type { Currency, FileModel, Residency, UpstreamEntry, UpstreamKind } from '../upstream/kinds/types'
import type { ModelRow } from './schema'

/** One upstream that may answer a public id. */
export type Route = {
  /** The upstream's id (UPSTREAMS_FILE `id`; `primary`, `fallback` for the routers set by environment). */
  upstream: string
  kind: UpstreamKind
  /** The name the upstream knows the model by (a router's: the public id itself). */
  upstreamModel: string
  currency: Currency
  residency: Residency
  /**
   * The model as this upstream prices it, per token in `currency` (the row's `…Usd` fields hold that
   * currency's amounts for a RUB route: the pricing code multiplies them by the route's rate).
   */
  row: ModelRow
  /** Per cached prompt token, in `currency`, when the upstream bills those apart (null: as any prompt token). */
  cachedPrompt: string | null
}

/** Rubles per ruble: the rate a route priced in rubles is multiplied by where a dollar route takes the Central Bank's. */
export const RUB_RATE = dec(1)

const MILLIONTH = dec('0.000001')
/** Per 1 000 000 tokens, as the file writes prices → per token (exact: a shift of six places). */
const perToken = (perMillion: string) => toDecimalString(mul(dec(perMillion), MILLIONTH))

/** A file model as a catalogue entry: text in, text out, priced per token in its upstream's currency. */
function fileRow(m: FileModel, at: Date): ModelRow {
  return {
    id: m.id,
    name: m.name,
    description: '',
    contextLength: m.context,
    promptUsd: perToken(m.prompt),
    completionUsd: perToken(m.completion),
    imageUsd: '0',
    requestUsd: '0',
    imageOutputUsd: '0',
    webSearchUsd: '0',
    reasoningUsd: '0',
    audioUsd: '0',
    cacheWriteUsd: '0',
    inputModalities: ['text'],
    outputModalities: [m.type === 'embeddings' ? 'embeddings' : 'text'],
    supportedVoices: null,
    maxCompletionTokens: null,
    created: 0,
    isActive: true,
    syncedAt: at,
  }
}

/** The router a catalogue has when it was given none (config.upstreams always names one: upstream/registry.ts). */
const DEFAULT_ROUTER: UpstreamEntry = { id: 'primary', kind: 'openrouter', baseUrl: '', apiKey: '', residency: 'foreign', currency: 'USD' }

export function catalogRoutes(synced: readonly ModelRow[], given: readonly UpstreamEntry[]) {
  const entries = given.some((e) => e.kind === 'openrouter') ? given : [DEFAULT_ROUTER, ...given]
  const byId = new Map<string, Route[]>()
  const add = (id: string, r: Route) => {
    const list = byId.get(id)
    if (list) list.push(r)
    else byId.set(id, [r])
  }
  const at = new Date(0)
  for (const e of entries) {
    if (e.kind === 'openrouter') {
      for (const row of synced) add(row.id, { upstream: e.id, kind: e.kind, upstreamModel: row.id, currency: e.currency, residency: e.residency, row, cachedPrompt: null })
      continue
    }
    for (const m of e.models)
      add(m.id, {
        upstream: e.id,
        kind: e.kind,
        upstreamModel: m.upstreamModel,
        currency: e.currency,
        residency: e.residency,
        row: fileRow(m, at),
        cachedPrompt: m.cachedPrompt === undefined ? null : perToken(m.cachedPrompt),
      })
  }
  const residencies = new Map<string, Residency[]>()
  for (const [id, list] of byId) residencies.set(id, [...new Set(list.map((r) => r.residency))].sort())

  return {
    /** Every public id once, as its first route prices it. */
    rows: (): ModelRow[] => [...byId.values()].map((list) => list[0]!.row),
    of: (id: string): readonly Route[] => byId.get(id) ?? [],
    /** `data_residency`: where the routes of an id keep data (`["ru"]`, `["foreign"]`, both). */
    residencies: (id: string): Residency[] => residencies.get(id) ?? [],
  }
}

export type CatalogRoutes = ReturnType<typeof catalogRoutes>
