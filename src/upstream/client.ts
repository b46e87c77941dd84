// Client for the model router's protocol (reference/protocols.md §1). Without OPENROUTER_API_KEY it
// talks in-process to the built-in demo upstream, which speaks the same protocol.
import { readFileSync } from 'node:fs'
import type { Config } from '../config'
import { createDemoUpstream } from './demo'
import { type FetchLike, http1FetchOrFetch } from './http1'

export type { FetchLike }

/** Model object as the router lists it (only the fields we use). */
export type UpstreamModel = {
  id: string
  name?: string
  description?: string
  created?: number
  context_length?: number | null
  architecture?: { input_modalities?: string[]; output_modalities?: string[] }
  pricing?: Partial<Record<'prompt' | 'completion' | 'image' | 'request' | 'image_output' | 'web_search' | 'internal_reasoning' | 'audio' | 'input_cache_write', string>>
  top_provider?: { max_completion_tokens?: number | null; context_length?: number | null }
  /** Speech models: the voices they speak with. */
  supported_voices?: string[] | null
}

/** The router's dedicated voice models, each listed only under its own output modality (protocols.md 1.14). */
export type VoiceModality = 'speech' | 'transcription'

/** A router error, normalised from `{error:{code, message, metadata}}` (code may be number or string). */
export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorType?: string,
    readonly retryAfter?: string,
    /** The error's `metadata` and `availability` as the router sent them: whose failure it was (gateway/errors.ts failureCause). */
    readonly details: { metadata?: Record<string, unknown>; availability?: Record<string, unknown> } = {},
  ) {
    super(message)
  }
}

const objectOrUndefined = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined)

export async function upstreamErrorFrom(res: Response): Promise<UpstreamError> {
  const text = await res.text().catch(() => '')
  let message = text.slice(0, 500) || res.statusText
  let errorType: string | undefined
  let details: UpstreamError['details'] = {}
  try {
    const err = JSON.parse(text)?.error
    if (typeof err?.message === 'string') message = err.message
    errorType = err?.metadata?.error_type
    details = { metadata: objectOrUndefined(err?.metadata), availability: objectOrUndefined(err?.availability) }
  } catch {}
  return new UpstreamError(res.status, message, errorType, res.headers.get('retry-after') ?? undefined, details)
}

export type KeyStatus = { usage: number; limit: number | null; limitRemaining: number | null }
export type GenerationStats = { totalCost: number; tokensPrompt: number; tokensCompletion: number; cancelled: boolean }

/** Which router a client talks to: the configured one (OPENROUTER_*), or another given here (FALLBACK_UPSTREAM_*, UPSTREAMS_FILE); `caFile` trusted for it alone. */
export type UpstreamTarget = { baseUrl: string; apiKey: string; caFile?: string }

export function createUpstreamClient(config: Config, target?: UpstreamTarget, fetchOverride?: FetchLike) {
  const apiKey = target ? target.apiKey : config.openrouterApiKey
  const demo = apiKey ? null : createDemoUpstream()
  const base = demo ? 'http://demo.upstream/api/v1' : (target?.baseUrl ?? config.openrouterBaseUrl)
  // The router is reached over kept-alive HTTP/1.1 on the event loop's own sockets (see http1.ts for why not fetch).
  const ca = target?.caFile ? [readFileSync(target.caFile, 'utf8')] : undefined
  const doFetch: FetchLike = fetchOverride ?? (demo ? (url, init) => demo.fetch(new Request(url, init)) : http1FetchOrFetch(base, ca ? { tls: { ca } } : undefined))
  const headers = {
    authorization: `Bearer ${apiKey ?? 'demo'}`,
    'content-type': 'application/json',
    'http-referer': config.publicUrl,
    'x-openrouter-title': 'AI Gateway',
  }

  /** POSTs to one of the router's inference endpoints (/chat/completions, /responses, /messages, /embeddings), with extra headers. */
  function post(path: string, body: Record<string, unknown>, signal: AbortSignal, extra?: Record<string, string>): Promise<Response> {
    return doFetch(`${base}${path}`, { method: 'POST', headers: extra ? { ...headers, ...extra } : headers, body: JSON.stringify(body), signal })
  }

  async function getJson<T>(path: string): Promise<T> {
    const res = await doFetch(base + path, { headers, signal: AbortSignal.timeout(30_000) })
    if (!res.ok) throw await upstreamErrorFrom(res)
    return (await res.json()) as T
  }

  return {
    mode: demo ? ('demo' as const) : ('openrouter' as const),

    /** Every model, image-output ones included (the router hides them without output_modalities=all). */
    async listModels(): Promise<UpstreamModel[]> {
      const body = await getJson<{ data?: UpstreamModel[] }>('/models?output_modalities=all')
      if (!Array.isArray(body.data)) throw new UpstreamError(502, 'models list without data[]')
      return body.data
    },

    /** POSTs a chat completion and returns the raw response (the caller streams or parses it). */
    chat: (body: Record<string, unknown>, signal: AbortSignal): Promise<Response> => post('/chat/completions', body, signal),

    post,

    /** Text-to-speech or speech-to-text models: `GET /models?output_modalities=speech|transcription`. */
    async listVoiceModels(modality: VoiceModality): Promise<UpstreamModel[]> {
      const body = await getJson<{ data?: UpstreamModel[] }>(`/models?output_modalities=${modality}`)
      if (!Array.isArray(body.data)) throw new UpstreamError(502, `${modality} models list without data[]`)
      return body.data
    },

    /** Embedding models, which the router lists apart from /models. */
    async listEmbeddingModels(): Promise<UpstreamModel[]> {
      const body = await getJson<{ data?: UpstreamModel[] }>('/embeddings/models')
      if (!Array.isArray(body.data)) throw new UpstreamError(502, 'embedding models list without data[]')
      return body.data
    },

    async keyStatus(): Promise<KeyStatus> {
      const { data } = await getJson<{ data: { usage?: number; limit?: number | null; limit_remaining?: number | null } }>('/key')
      return { usage: data.usage ?? 0, limit: data.limit ?? null, limitRemaining: data.limit_remaining ?? null }
    },

    /** Generation stats (authoritative cost); null while the router has not published them yet. */
    async generation(id: string): Promise<GenerationStats | null> {
      const res = await doFetch(`${base}/generation?id=${encodeURIComponent(id)}`, { headers, signal: AbortSignal.timeout(15_000) })
      if (res.status === 404) return null
      if (!res.ok) throw await upstreamErrorFrom(res)
      const { data } = (await res.json()) as { data: Record<string, unknown> }
      return {
        totalCost: Number(data.total_cost ?? 0),
        tokensPrompt: Number(data.tokens_prompt ?? data.native_tokens_prompt ?? 0),
        tokensCompletion: Number(data.tokens_completion ?? data.native_tokens_completion ?? 0),
        cancelled: data.cancelled === true,
      }
    },
  }
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>
