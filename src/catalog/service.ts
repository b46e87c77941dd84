// The catalogue: synced from the upstream into the database (startup + hourly), served from memory.
import { inArray } from 'drizzle-orm'
import type { Db } from '../db/client'
import type { UpstreamClient, UpstreamModel } from '../upstream/client'
import type { Dec } from '../lib/decimal'
import { isVariable, rubPricing } from './pricing'
import { models, type ModelRow } from './schema'

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
    maxCompletionTokens: m.top_provider?.max_completion_tokens ?? null,
    created: m.created ?? 0,
    isActive: true,
    syncedAt: now,
  }
}

export const canOutputImages = (m: ModelRow) => m.outputModalities.includes('image')
export const isEmbedding = (m: ModelRow) => m.outputModalities.includes('embeddings')

export function createCatalog(db: Db, upstream: UpstreamClient) {
  let byId = new Map<string, ModelRow>()
  let sorted: ModelRow[] = []
  const reload = () => {
    sorted = db.select().from(models).all().filter((m) => m.isActive)
    sorted.sort((a, b) => b.created - a.created || a.id.localeCompare(b.id))
    byId = new Map(sorted.map((m) => [m.id, m]))
  }
  reload()

  return {
    get: (id: string) => byId.get(id),
    list: () => sorted,
    isEmpty: () => sorted.length === 0,

    /**
     * Upserts every upstream model (the embedding models come from their own list) and retires the
     * ones it no longer lists. When only the embeddings list fails, the known embedding models stay.
     */
    async sync(): Promise<number> {
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
      const all = [...list, ...(embeddings ?? [])]
      const listed = new Set(all.map((m) => m.id))
      const retired = sorted.filter((m) => !listed.has(m.id) && (embeddings !== null || !isEmbedding(m))).map((m) => m.id)
      const now = new Date()
      db.transaction((tx) => {
        for (const m of all) {
          const row = toRow(m, now)
          tx.insert(models).values(row).onConflictDoUpdate({ target: models.id, set: row }).run()
        }
        if (retired.length) tx.update(models).set({ isActive: false }).where(inArray(models.id, retired)).run()
      })
      reload()
      return all.length
    },

    /** The /v1/models entry: OpenAI's model object plus our ruble prices and capabilities. */
    toApi(m: ModelRow, rate: Dec, markup: Dec) {
      return {
        id: m.id,
        object: 'model' as const,
        created: m.created,
        owned_by: m.id.split('/')[0] ?? 'unknown',
        name: m.name,
        description: m.description,
        context_length: m.contextLength,
        pricing: rubPricing(m, rate, markup),
        capabilities: { image: canOutputImages(m), vision: m.inputModalities.includes('image'), files: m.inputModalities.includes('file'), embeddings: isEmbedding(m) },
        variable_pricing: isVariable(m.promptUsd) || isVariable(m.completionUsd),
      }
    },
  }
}

export type Catalog = ReturnType<typeof createCatalog>
