// The gateway's own failures and the router's, as our customers see them (OpenAI shape, Russian text;
// /v1/messages turns the same errors into Anthropic's shape in lib/http.ts).
import type { RateProvider } from '../catalog/rate'
import type { Dec } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import type { UpstreamError } from '../upstream/client'

export const unavailable = (message = 'Сервис временно недоступен. Попробуйте позже.') =>
  new OpenAIError(503, message, 'server_error', 'service_unavailable', { shouldRetry: false })

/** The USD/RUB rate now, or the 503 of whatever cannot be priced without it. */
export function currentRate(rates: Pick<RateProvider, 'current'>): Dec {
  const rate = rates.current()
  if (!rate) throw unavailable('Курс валют временно недоступен. Попробуйте позже.')
  return rate
}

/** An answer the router sent in place of one (a 200 carrying an error, a stream that is not one): 502 with its words. */
export const upstreamFailed = (message: string) => new OpenAIError(502, `Провайдер модели вернул ошибку: ${message}`, 'server_error', 'upstream_error', { shouldRetry: false })

/** A model the catalogue does not have (`model` names it), or one the router says it cannot serve now. */
export const modelNotFound = (message: string) => new OpenAIError(404, message, 'invalid_request_error', 'model_not_found', { param: 'model' })

/**
 * Whose failure a router's error is (the circuit breakers count only `upstream` and `model`):
 *   content  — the request itself was refused, whatever the status: a 4xx verdict, or a 5xx whose
 *              error type, moderation metadata or provider's raw error says the request was bad
 *              (context length, content policy, an invalid argument…). The router is up; another
 *              try, here or at the second router, fails the same way.
 *   model    — one model's provider failed: the router names it (`provider_name`, `model_slug`,
 *              `availability`). Only that model is down, not the router.
 *   upstream — the router itself: a 5xx naming nobody (masked 500s included), its 408, our key or credit refused.
 * A 429 is none of them (busy, not down) and is not asked about.
 */
export type FailureCause = { kind: 'content' } | { kind: 'model'; model: string | null; provider: string | null } | { kind: 'upstream' }

/** The router's error types for a request it could not serve because of what the request is (protocols.md 1.6). */
const CONTENT_ERROR_TYPES = new Set([
  'invalid_request',
  'invalid_prompt',
  'context_length_exceeded',
  'max_tokens_exceeded',
  'string_too_long',
  'invalid_image',
  'image_too_large',
  'unsupported_image_format',
  'image_download_failed',
  'content_policy_violation',
  'refusal',
  'payload_too_large',
  'unprocessable',
  'permission_denied',
  'moderation',
])
/** The provider's own words for a refused request, in its raw error (or the router's message). */
const CONTENT_TEXT =
  /context[ _-]?(length|window)|maximum context|prompt is too long|too many (input )?tokens|content[ _-]?(policy|filter|management)|moderation|flagged|safety|invalid[ _-]?request|invalid[ _-]?argument|request[ _-]?too[ _-]?large|payload[ _-]?too[ _-]?large/i
/** A provider status that is its verdict on the request (401/403/408/429 are about the router's access or load). */
const CONTENT_STATUSES = new Set([400, 413, 422])

const asObject = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined)

/** The provider's raw error (OpenRouter relays it in `metadata.raw`, as a JSON string or an object). */
function rawError(e: UpstreamError): { json?: Record<string, unknown>; text: string } | null {
  const raw = e.details.metadata?.raw
  if (raw === undefined || raw === null) return null
  if (typeof raw !== 'string') return { json: asObject(raw), text: JSON.stringify(raw) }
  try {
    return { json: asObject(JSON.parse(raw)), text: raw }
  } catch {
    return { text: raw }
  }
}

/** The raw error's own message, for the customer: what the provider said about their request. */
function rawMessage(e: UpstreamError): string | null {
  const raw = rawError(e)
  if (!raw) return null
  const inner = asObject(raw.json?.error)
  const message = inner?.message ?? raw.json?.message
  const text = typeof message === 'string' ? message : raw.json ? null : raw.text
  return text ? text.slice(0, 300) : null
}

function refusedForContent(e: UpstreamError): boolean {
  if (e.errorType && CONTENT_ERROR_TYPES.has(e.errorType)) return true
  const meta = e.details.metadata
  if (meta && (Array.isArray(meta.reasons) || typeof meta.flagged_input === 'string')) return true // moderation (protocols.md 1.6)
  const raw = rawError(e)
  if (raw?.json) {
    const inner = asObject(raw.json.error)
    const statuses = [raw.json.status, raw.json.status_code, raw.json.code, inner?.code, inner?.status]
    if (statuses.some((s) => typeof s === 'number' && CONTENT_STATUSES.has(s))) return true
  }
  return CONTENT_TEXT.test(raw?.text ?? '') || CONTENT_TEXT.test(e.message)
}

export function failureCause(e: UpstreamError): FailureCause {
  if (e.status === 401 || e.status === 402 || e.status === 408) return { kind: 'upstream' }
  if (e.status < 500) return { kind: 'content' }
  if (refusedForContent(e)) return { kind: 'content' }
  const meta = e.details.metadata
  const provider = typeof meta?.provider_name === 'string' ? meta.provider_name : null
  const slug = typeof meta?.model_slug === 'string' ? meta.model_slug : null
  const requested = e.details.availability?.requested_models
  const named = slug ?? (Array.isArray(requested) && typeof requested[0] === 'string' ? requested[0] : null)
  if (provider || named || e.details.availability) return { kind: 'model', model: named, provider }
  return { kind: 'upstream' }
}

export function fromUpstream(e: UpstreamError): OpenAIError {
  // The router's 402 means OUR account there is empty — never the customer's balance.
  if (e.status === 402) {
    console.error('[upstream] ALERT: the upstream account is out of credit (402); customers get 503 until it is topped up')
    return unavailable()
  }
  if (e.status === 429)
    return new OpenAIError(429, 'Провайдер модели перегружен, повторите запрос чуть позже.', 'rate_limit_error', 'rate_limit_exceeded', { retryAfter: e.retryAfter })
  if (e.status === 400 || e.status === 413 || e.status === 422)
    return new OpenAIError(400, `Провайдер отклонил запрос: ${e.message}`, 'invalid_request_error', e.errorType ?? 'invalid_request')
  // A 5xx the provider gave because of the request: the customer must change it, a retry will not help.
  if (e.status >= 500 && failureCause(e).kind === 'content')
    return new OpenAIError(400, `Провайдер отклонил запрос: ${rawMessage(e) ?? e.message}`, 'invalid_request_error', e.errorType ?? 'invalid_request')
  if (e.status === 403) return new OpenAIError(403, `Запрос отклонён модерацией провайдера: ${e.message}`, 'invalid_request_error', 'content_blocked')
  if (e.status === 404) return modelNotFound(`Модель сейчас недоступна у провайдера: ${e.message}`)
  if (e.status === 408 || e.status === 504 || e.status === 524)
    return new OpenAIError(504, 'Провайдер модели не ответил вовремя.', 'server_error', 'upstream_timeout', { shouldRetry: false })
  if (e.status === 401) {
    console.error('[upstream] ALERT: the upstream rejected our API key (401)')
    return unavailable()
  }
  return new OpenAIError(502, 'Провайдер модели вернул ошибку. Попробуйте позже или выберите другую модель.', 'server_error', 'upstream_error', { shouldRetry: false })
}

/** A failure of fetch itself: our timeout, or the connection to the router failing. */
export function fromFetchFailure(e: unknown, timedOut: boolean): OpenAIError {
  if (timedOut) return new OpenAIError(504, 'Провайдер модели не ответил вовремя.', 'server_error', 'upstream_timeout', { shouldRetry: false })
  console.error('[upstream] request failed:', (e as Error)?.message)
  return new OpenAIError(502, 'Не удалось связаться с провайдером модели. Попробуйте позже.', 'server_error', 'upstream_unreachable', { shouldRetry: false })
}
