// Shared types and the mutable state of one demo upstream: the request log, generation stats and
// the key's cumulative usage.
import type { Fault } from './faults'
import { femtoToUsd } from './pricing'
import { DEFAULT_AUTO_POOL } from './routing'

export type DemoUpstreamOptions = {
  /** Honour `[[fault:NAME]]` directives (tests only; false in the production demo). */
  faults?: boolean
  /** Delay between streamed tokens, ms (default 15). */
  tokenDelayMs?: number
  /** `GET /generation` answers 404 until this long after the generation ended, ms (default 0). */
  generationStatsDelayMs?: number
  /** When set, every route requires `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string
  /**
   * The models `openrouter/auto` picks from, best first: the first within the request's
   * `provider.max_price` answers (default: GPT-4o-mini alone).
   */
  autoRouterModels?: readonly string[]
  /** Models this router does not have (a second router's smaller catalogue): not listed, and a request naming one is a 404. */
  lacks?: readonly string[]
  /** A router without `POST /messages/count_tokens` (it answers 404, as some do). */
  noCountTokens?: boolean
}

/**
 * A router-wide fault (tests and the chaos bench; needs `faults: true`): the inference requests
 * (chat, Responses, Messages and its token count, embeddings) fail while it lasts, whatever they ask.
 */
export type Outage = {
  /** An HTTP error before anything is generated, `timeout` (no answer head, ever) or `break` (dropped mid-answer). */
  fault: 'http500' | 'http502' | 'http503' | 'http429' | 'credits402' | 'timeout' | 'break'
  /** Only the next N inference requests, then healthy again; unset: until cleared. */
  requests?: number
  /** The share of inference requests hit (0–1, default 1), drawn at random per request. */
  share?: number
}

export type RecordedRequest = {
  method: string
  /** URL path including the base prefix, without the query string, e.g. `/api/v1/chat/completions`. */
  path: string
  /** The query string with its `?`, or '' when there is none. */
  query: string
  /** Request headers, names lower-cased. */
  headers: Record<string, string>
  /** Parsed JSON body, or null (no body or not JSON). */
  body: unknown
  /** Date.now() when the request arrived. */
  at: number
  /** True when the client went away before the answer was complete. */
  aborted: boolean
}

/** What `GET /generation?id=` serves in `data` (protocols.md 1.10). */
export type GenerationStats = {
  id: string
  model: string
  provider_name: 'Demo'
  created_at: string
  total_cost: number
  usage: number
  upstream_inference_cost: null
  cache_discount: null
  tokens_prompt: number
  tokens_completion: number
  native_tokens_prompt: number
  native_tokens_completion: number
  native_tokens_reasoning: number
  native_tokens_cached: number
  native_tokens_completion_images: number
  num_media_prompt: number
  num_media_completion: number
  num_search_results: number
  finish_reason: string | null
  native_finish_reason: string | null
  streamed: boolean
  cancelled: boolean
  /** ms from request to first token (null if none came). */
  latency: number | null
  /** ms from request to the end of the generation. */
  generation_time: number
  moderation_latency: null
  api_type: 'completions' | 'responses' | 'embeddings' | 'messages' | 'speech' | 'transcription'
  is_byok: false
  external_user: string | null
  origin: string
}

/** What differs between generations; `generationStats` fills in the rest. */
export type GenerationFacts = {
  id: string
  /** The model id the answer reports. */
  model: string
  /** Date.now() when the request arrived. */
  startedAt: number
  /** Date.now() when the first piece went out, or null when none did. */
  firstTokenAt: number | null
  /** The reported cost (femto-dollars), as billed to the key. */
  costFemto: bigint
  promptTokens: number
  completionTokens: number
  completionImageTokens?: number
  mediaPrompt?: number
  mediaCompletion?: number
  searchResults?: number
  finishReason: string | null
  streamed: boolean
  cancelled: boolean
  apiType: GenerationStats['api_type']
  user: string | null
}

/** The stats `GET /generation` serves for a generation that ends now. */
export function generationStats(f: GenerationFacts): GenerationStats {
  const cost = femtoToUsd(f.costFemto)
  return {
    id: f.id,
    model: f.model,
    provider_name: 'Demo',
    created_at: new Date(f.startedAt).toISOString(),
    total_cost: cost,
    usage: cost,
    upstream_inference_cost: null,
    cache_discount: null,
    tokens_prompt: f.promptTokens,
    tokens_completion: f.completionTokens,
    native_tokens_prompt: f.promptTokens,
    native_tokens_completion: f.completionTokens,
    native_tokens_reasoning: 0,
    native_tokens_cached: 0,
    native_tokens_completion_images: f.completionImageTokens ?? 0,
    num_media_prompt: f.mediaPrompt ?? 0,
    num_media_completion: f.mediaCompletion ?? 0,
    num_search_results: f.searchResults ?? 0,
    finish_reason: f.finishReason,
    native_finish_reason: f.finishReason,
    streamed: f.streamed,
    cancelled: f.cancelled,
    latency: f.firstTokenAt === null ? null : f.firstTokenAt - f.startedAt,
    generation_time: Date.now() - f.startedAt,
    moderation_latency: null,
    api_type: f.apiType,
    is_byok: false,
    external_user: f.user,
    origin: '',
  }
}

export type ResolvedOptions = Required<Omit<DemoUpstreamOptions, 'apiKey'>> & { apiKey: string | undefined }

/**
 * The production demo lives as long as the server, so the log and the stats keep only the newest
 * entries (far more than any test makes).
 */
export const LOG_LIMIT = 10_000
export const GENERATIONS_LIMIT = 10_000

/** A fault a test arms for the next chat request that `match` accepts (for prompts it cannot edit). */
export type ForcedFault = { fault: Fault; match: (body: Record<string, unknown>) => boolean }

export class DemoState {
  readonly log: RecordedRequest[] = []
  readonly forcedFaults: ForcedFault[] = []
  readonly generations = new Map<string, GenerationStats>()
  outage: Outage | null = null
  /** When each generation's stats become visible (the real API lags behind). */
  private readonly readyAt = new Map<string, number>()
  private usageFemto = 0n

  /** `overHttp`: answers go out through Bun.serve (startFakeUpstream), not to an in-process caller. */
  constructor(
    readonly opts: ResolvedOptions,
    readonly overHttp = false,
  ) {}

  logRequest(entry: RecordedRequest): void {
    this.log.push(entry)
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT)
  }

  recordGeneration(stats: GenerationStats, costFemto: bigint): void {
    this.generations.set(stats.id, stats)
    this.readyAt.set(stats.id, Date.now() + this.opts.generationStatsDelayMs)
    this.usageFemto += costFemto
    for (const oldest of this.generations.keys()) {
      if (this.generations.size <= GENERATIONS_LIMIT) break
      this.generations.delete(oldest)
      this.readyAt.delete(oldest)
    }
  }

  /** Stats the API would serve now: unknown ids and not-yet-visible generations give undefined. */
  visibleGeneration(id: string): GenerationStats | undefined {
    const stats = this.generations.get(id)
    return stats && Date.now() >= (this.readyAt.get(id) ?? 0) ? stats : undefined
  }

  keyUsageUsd = (): number => femtoToUsd(this.usageFemto)

  /** The outage's fault for the next inference request, if it is hit (and counts it). */
  outageFault(): Outage['fault'] | null {
    const o = this.outage
    if (!o || !this.opts.faults) return null
    if (o.share !== undefined && Math.random() >= o.share) return null
    if (o.requests !== undefined && --o.requests <= 0) this.outage = null
    return o.fault
  }

  /** Removes and returns the armed faults this request matches (each fires once). */
  takeForcedFaults(body: Record<string, unknown>): Fault[] {
    const hit: Fault[] = []
    for (let i = 0; i < this.forcedFaults.length; ) {
      const f = this.forcedFaults[i]!
      if (f.match(body)) {
        hit.push(f.fault)
        this.forcedFaults.splice(i, 1)
      } else i++
    }
    return hit
  }
}

export function resolveOptions(opts: DemoUpstreamOptions = {}): ResolvedOptions {
  return {
    faults: opts.faults ?? false,
    tokenDelayMs: opts.tokenDelayMs ?? 15,
    generationStatsDelayMs: opts.generationStatsDelayMs ?? 0,
    apiKey: opts.apiKey,
    autoRouterModels: opts.autoRouterModels ?? DEFAULT_AUTO_POOL,
    lacks: opts.lacks ?? [],
    noCountTokens: opts.noCountTokens ?? false,
  }
}
