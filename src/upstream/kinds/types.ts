// The upstreams the gateway may send a request to, as UPSTREAMS_FILE lists them (upstream/registry.ts
// reads and checks the file), and what a kind's client must do for the gateway.
import type { FetchLike } from '../fetch-like'

export const UPSTREAM_KINDS = ['openrouter', 'openai', 'gigachat', 'yandex'] as const
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number]
export const RESIDENCIES = ['ru', 'foreign'] as const
export type Residency = (typeof RESIDENCIES)[number]
export const CURRENCIES = ['USD', 'RUB'] as const
/** What a file model is for: chat (the default; Responses and Messages by translation) or embeddings. */
export const MODEL_TYPES = ['chat', 'embeddings'] as const
export type Currency = (typeof CURRENCIES)[number]

/**
 * A model an upstream serves under one of our public ids (a file's `models` entry). Prices are per
 * 1 000 000 tokens in the upstream's currency, decimal strings as the file wrote them.
 */
export type FileModel = {
  /** Our public id, e.g. `sber/gigachat-2-max`. */
  id: string
  /** What the upstream calls it (`GigaChat-2-Max`; for yandex the part after `gpt://<folder>/`). */
  upstreamModel: string
  name: string
  context: number
  prompt: string
  completion: string
  cachedPrompt?: string
  /** Absent: chat. */
  type?: (typeof MODEL_TYPES)[number]
}

type Common = {
  id: string
  baseUrl: string
  /** PEM file added to the trusted roots for this upstream only (GigaChat's Russian Trusted Root CA). */
  caFile?: string
  residency: Residency
  currency: Currency
}

export type OpenRouterEntry = Common & { kind: 'openrouter'; apiKey: string }
export type OpenAIEntry = Common & { kind: 'openai'; apiKey: string; models: FileModel[] }
export type GigachatEntry = Common & { kind: 'gigachat'; authUrl: string; authKey: string; scope: string; models: FileModel[] }
export type YandexEntry = Common & { kind: 'yandex'; apiKey: string; folderId: string; models: FileModel[] }
export type UpstreamEntry = OpenRouterEntry | OpenAIEntry | GigachatEntry | YandexEntry

/**
 * What the gateway asks of an upstream whose protocol is not the router's: OpenAI chat completions
 * (and embeddings) in, OpenAI shapes out, so everything after it (relay, shapes, settlement) is the
 * router's path. The body's `model` is already the upstream's own name (FileModel.upstreamModel).
 *
 * The answer is a Response with the upstream's status:
 * - 200 plain: an OpenAI `chat.completion` (or embeddings list) with `usage`
 *   (`prompt_tokens`, `completion_tokens`, `total_tokens`, `prompt_tokens_details.cached_tokens`);
 * - 200 streamed: `text/event-stream` of `data: {chat.completion.chunk}` events, the usage in the last
 *   chunk before `data: [DONE]`;
 * - an error: `{"error": {"message", "code", "type"}}` (OpenAI's shape) with the upstream's status and
 *   its Retry-After passed on.
 * A connection failure rejects (as fetch does), so the gateway's failover sees it as one.
 */
export type KindClient = {
  post(path: string, body: Record<string, unknown>, signal: AbortSignal, headers?: Record<string, string>): Promise<Response>
}

/** How a kind's client reaches its upstream (tests pass a fetch bound to a local fake). */
export type KindClientOptions = { fetch?: FetchLike; now?: () => number }
