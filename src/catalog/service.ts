// The catalogue: synced from the upstream into the database (startup + hourly), served from memory.
// With several instances on one database one of them syncs (a lease, exclusive.ts) and the others
// re-read the stored catalogue once they see it is newer than their copy (its latest syncedAt).
import { eq, inArray, max } from 'drizzle-orm'
import { exclusively } from '../db/leases'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import type { Dec } from '../lib/decimal'
import type { UpstreamClient, UpstreamModel, VoiceModality } from '../upstream/client'
import type { UpstreamEntry } from '../upstream/kinds/types'
import { isSpeech, isTranscription, isVariable, rubPricing } from './pricing'
import { type CatalogRoutes, catalogRoutes, type Route, RUB_RATE } from './routes'
import { type ModelRow, models } from './schema'

const price = (v: string | undefined) => (v && v.trim() !== '' && !Number.isNaN(Number(v)) ? v.trim() : '0')

function toRow(m: UpstreamModel, now: Date): typeof models.$inferInsert {
  return {
    id: m.id,
    name: m.name || m.id,
    description: m.description ?? '',
    contextLength: m.context_length ?? m.top_provider?.context_length ?? 0,
    promptUsd: price(m.pricing?.prompt),
    completionUsd: price(m.pricing?.completion),
    imageUsd: price(m.pricing?.image),
    requestUsd: price(m.pricing?.request),
    imageOutputUsd: price(m.pricing?.image_output),
    webSearchUsd: price(m.pricing?.web_search),
    reasoningUsd: price(m.pricing?.internal_reasoning),
    audioUsd: price(m.pricing?.audio),
    cacheWriteUsd: price(m.pricing?.input_cache_write),
    inputModalities: m.architecture?.input_modalities ?? ['text'],
    outputModalities: m.architecture?.output_modalities ?? ['text'],
    supportedVoices: Array.isArray(m.supported_voices) && m.supported_voices.length ? m.supported_voices.filter((v) => typeof v === 'string').slice(0, 100) : null,
    maxCompletionTokens: m.top_provider?.max_completion_tokens ?? null,
    created: m.created ?? 0,
    isActive: true,
    syncedAt: now,
  }
}

export const canOutputImages = (m: ModelRow) => m.outputModalities.includes('image')
export const isEmbedding = (m: ModelRow) => m.outputModalities.includes('embeddings')
export { isSpeech, isTranscription }
/** Models that only speak or only listen: served by /v1/audio/*, refused by the chat routes. */
export const isVoice = (m: ModelRow) => isSpeech(m) || isTranscription(m)

const VOICE_MODALITIES: VoiceModality[] = ['speech', 'transcription']

/** What a model is for, as /v1/models names it (`type`): the route that serves it. */
export function modelKind(m: ModelRow): 'chat' | 'image' | 'embeddings' | 'speech' | 'transcription' {
  if (isEmbedding(m)) return 'embeddings'
  if (isSpeech(m)) return 'speech'
  if (isTranscription(m)) return 'transcription'
  return canOutputImages(m) ? 'image' : 'chat'
}

/** The lease of the catalogue sync, and how long one sync may take at most (two upstream lists of 30 s each). */
export const CATALOG_SYNC_LEASE = 'catalog-sync'
const SYNC_LEASE_MS = 2 * 60_000

/**
 * The catalogue of this process: the first router's models, loaded from the database (async: it reads
 * the stored models first), and the models UPSTREAMS_FILE's other upstreams list (routes.ts), each
 * public id once.
 */
export async function createCatalog(db: Db, upstream: UpstreamClient, entries: readonly UpstreamEntry[] = []) {
  let byId = new Map<string, ModelRow>()
  let sorted: ModelRow[] = []
  let routes: CatalogRoutes = catalogRoutes([], entries)
  /** The latest syncedAt of the stored catalogue when it was loaded: every sync moves it forward. */
  let version = -1
  const storedVersion = async () => {
    const [row] = await db.select({ at: max(models.syncedAt) }).from(models)
    return row?.at ? +row.at : 0
  }
  const load = async () => {
    const at = await storedVersion()
    const rows = await db.select().from(models).where(eq(models.isActive, true))
    routes = catalogRoutes(rows, entries)
    const all = routes.rows()
    all.sort((a, b) => b.created - a.created || a.id.localeCompare(b.id))
    sorted = all
    byId = new Map(sorted.map((m) => [m.id, m]))
    version = at
  }
  /** Re-reads the stored catalogue when another instance (or this one) synced it since it was loaded. */
  const reloadIfNewer = async () => {
    if ((await storedVersion()) !== version) await load()
  }
  await load()

  async function syncFromUpstream(): Promise<number> {
    const valid = (m: UpstreamModel) => typeof m?.id === 'string' && !!m.id
    const list = (await upstream.listModels()).filter(valid)
    if (list.length === 0) throw new Error('upstream returned an empty catalogue; keeping the old one')
    let embeddings: UpstreamModel[] | null = null
    try {
      embeddings = (await upstream.listEmbeddingModels())
        .filter((m) => valid(m) && !list.some((c) => c.id === m.id))
        .map((m) => ({ ...m, architecture: { ...m.architecture, output_modalities: ['embeddings'] } }))
    } catch (e) {
      console.warn(`[catalog] embedding models unavailable, keeping the known ones: ${(e as Error).message}`)
    }
    // Voice models have lists of their own; an entry there is marked with its modality, whatever the main list said.
    const voice = new Map<string, UpstreamModel>()
    const voiceFailed = new Set<string>()
    for (const modality of VOICE_MODALITIES) {
      try {
        for (const m of (await upstream.listVoiceModels(modality)).filter(valid)) voice.set(m.id, { ...m, architecture: { ...m.architecture, output_modalities: [modality] } })
      } catch (e) {
        voiceFailed.add(modality)
        console.warn(`[catalog] ${modality} models unavailable, keeping the known ones: ${(e as Error).message}`)
      }
    }
    const all = [...list.filter((m) => !voice.has(m.id)), ...(embeddings ?? []), ...voice.values()]
    const listed = new Set(all.map((m) => m.id))
    const now = new Date()
    const keptAnyway = (outputs: string[]) => (embeddings === null && outputs.includes('embeddings')) || outputs.some((o) => voiceFailed.has(o))
    await tx(db, async (q) => {
      // What to retire is decided on the stored catalogue, which may be newer than this copy.
      const active = await q.select({ id: models.id, outputModalities: models.outputModalities }).from(models).where(eq(models.isActive, true))
      const retired = active.filter((m) => !listed.has(m.id) && !keptAnyway(m.outputModalities)).map((m) => m.id)
      for (const m of all) {
        const row = toRow(m, now)
        await q.insert(models).values(row).onConflictDoUpdate({ target: models.id, set: row })
      }
      if (retired.length) await q.update(models).set({ isActive: false }).where(inArray(models.id, retired))
    })
    await load()
    return all.length
  }

  return {
    get: (id: string) => byId.get(id),
    list: () => sorted,
    /** Who may answer a public id, in UPSTREAMS_FILE order (empty: not in the catalogue). */
    routes: (id: string): readonly Route[] => routes.of(id),
    isEmpty: () => sorted.length === 0,
    reloadIfNewer,

    /**
     * Upserts every upstream model (the embedding, speech and transcription models come from lists of
     * their own) and retires the ones it no longer lists. When only one of those lists fails, the known
     * models of its kind stay.
     * One instance at a time asks the upstream; one that finds another syncing waits for it and
     * adopts what it stored. Answers the number of models now served.
     */
    async sync(): Promise<number> {
      const done = await exclusively(db, CATALOG_SYNC_LEASE, SYNC_LEASE_MS, () => syncFromUpstream())
      if (done.ran) return done.value
      await reloadIfNewer()
      return sorted.length
    },

    /**
     * The /v1/models entry: OpenAI's model object plus our ruble prices (from the first route's
     * currency: USD × `rate` × markup, RUB × markup), capabilities and where its routes keep data.
     */
    toApi(m: ModelRow, rate: Dec, markup: Dec) {
      const first = routes.of(m.id)[0]
      if (first?.currency === 'RUB') rate = RUB_RATE
      return {
        id: m.id,
        object: 'model' as const,
        created: m.created,
        owned_by: m.id.split('/')[0] ?? 'unknown',
        name: m.name,
        description: m.description,
        context_length: m.contextLength,
        pricing: rubPricing(m, rate, markup),
        capabilities: {
          image: canOutputImages(m),
          vision: m.inputModalities.includes('image'),
          files: m.inputModalities.includes('file'),
          embeddings: isEmbedding(m),
          speech: isSpeech(m),
          transcription: isTranscription(m),
        },
        type: modelKind(m),
        ...(isSpeech(m) ? { voices: m.supportedVoices ?? [] } : {}),
        variable_pricing: isVariable(m.promptUsd) || isVariable(m.completionUsd),
        data_residency: routes.residencies(m.id),
      }
    },
  }
}

export type Catalog = Awaited<ReturnType<typeof createCatalog>>
