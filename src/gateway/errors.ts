// The gateway's own failures and the router's, as our customers see them (OpenAI shape, Russian text;
// /v1/messages turns the same errors into Anthropic's shape in lib/http.ts).
import { OpenAIError } from '../lib/errors'
import type { UpstreamError } from '../upstream/client'

export const unavailable = (message = 'Сервис временно недоступен. Попробуйте позже.') =>
  new OpenAIError(503, message, 'server_error', 'service_unavailable', { shouldRetry: false })

/** A model the catalogue does not have (`model` names it), or one the router says it cannot serve now. */
export const modelNotFound = (message: string) => new OpenAIError(404, message, 'invalid_request_error', 'model_not_found', { param: 'model' })

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
