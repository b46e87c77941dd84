// The /api wire shapes: `{success:true, data}` and `{success:false, error}`, plus the one error handler.
import { Elysia, type TSchema, t } from 'elysia'
import { DATABASE_NAME, noteDatabaseFailure } from '../db/outage'
import { BodyRejected } from './body'
import { AppError, anthropicError, OpenAIError } from './errors'

export const ok = <T>(data: T) => ({ success: true as const, data })

/** Response schema of a successful call, for route declarations (and so for OpenAPI). */
export const envelope = <S extends TSchema>(data: S) => t.Object({ success: t.Literal(true), data })

export const ErrorBody = t.Object({ success: t.Literal(false), error: t.String({ description: 'Сообщение об ошибке на русском' }) }, { title: 'Error' })

/** The error statuses a route can answer with, each in the `{success:false, error}` shape. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<number, typeof ErrorBody>

const fail = (status: number, error: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ success: false, error }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  })

/**
 * Maps every failure to a proper status and a Russian message. Validation errors carry the
 * message set on the schema (`error:` option); anything unexpected is logged and becomes a 500
 * without internals.
 */
export const errorHandler = new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error: thrown, request }) => {
  // Elysia wraps whatever a parse hook throws in a PARSE error: the body limits' refusals (413, too
  // deep) and /v1's authentication before the body is read are ours, and answer as themselves.
  const cause = code === 'PARSE' ? (thrown as { cause?: unknown }).cause : undefined
  // The database failing under authentication is an outage, not a malformed body (the 400 invalid_json it used to be).
  if (noteDatabaseFailure(thrown)) return answer(code, databaseUnavailable(), request)
  if (!(cause instanceof AppError || cause instanceof OpenAIError)) return answer(code, thrown, request)
  const res = answer(code, cause, request)
  // Refused before its body was read (or while it was arriving): the connection closes after the
  // answer, or Bun keeps it waiting for the rest of the body — and a graceful stop waits with it.
  if ((request.body && !request.bodyUsed) || cause.status === 413) res.headers.set('connection', 'close')
  return res
})

/** The database is not answering: 503 in every shape, with a hint to retry (outage.ts logs it once). */
export const databaseUnavailable = () =>
  new OpenAIError(503, `Сервис временно недоступен: база данных (${DATABASE_NAME}) не отвечает. Повторите запрос чуть позже.`, 'server_error', 'database_unavailable', {
    retryAfter: '5',
  })

function answer(code: string | number, error: unknown, request: Request): Response {
  const path = new URL(request.url).pathname
  if (path.startsWith('/v1/messages')) return anthropicError(openAIFailure(code, error, path, request.method))
  // /api/v1/… are the router-shaped routes apps call (the PKCE key exchange): OpenAI's shape too.
  if (path.startsWith('/v1/') || path === '/v1' || path.startsWith('/api/v1/')) return openAIFailure(code, error, path, request.method).asResponse()
  if (error instanceof AppError) return fail(error.status, error.message, error.headers)
  if (error instanceof OpenAIError && error.code === 'database_unavailable') return fail(503, error.message, { 'retry-after': '5' })
  switch (code) {
    case 'VALIDATION': {
      const e = error as { customError?: unknown; valueError?: { path?: string } }
      if (typeof e.customError === 'string') return fail(400, e.customError)
      const field = fieldOf(e.valueError?.path)
      return fail(400, field ? `Некорректное значение поля ${field}` : 'Некорректные данные запроса')
    }
    case 'PARSE':
      return fail(400, 'Некорректный JSON в теле запроса')
    case 'NOT_FOUND':
      return fail(404, 'Не найдено')
    case 'INVALID_COOKIE_SIGNATURE':
      return fail(400, 'Некорректный запрос')
  }
  const status = (error as { status?: number }).status
  if (typeof status === 'number' && status >= 400 && status < 500) return fail(status, 'Некорректный запрос')
  console.error(`[error] ${request.method} ${path}:`, error)
  return fail(500, 'Внутренняя ошибка сервера. Попробуйте позже.')
}

/** The field a validation error is about, as `messages.0.content` (TypeBox gives `/messages/0/content`); null for the whole body. */
const fieldOf = (path: string | undefined) => path?.replace(/^\//, '').replace(/\//g, '.') || null

/** The same failures as OpenAI errors, for the /v1 gateway and its SDK clients (Anthropic's clients get them reshaped). */
export function openAIFailure(code: string | number, error: unknown, path: string, method: string): OpenAIError {
  if (error instanceof OpenAIError) return error
  if (error instanceof AppError) {
    const type = error.status === 401 ? 'invalid_request_error' : error.status >= 500 ? 'server_error' : 'invalid_request_error'
    const errorCode = error instanceof BodyRejected ? error.code : error.status === 429 ? 'rate_limit_exceeded' : 'invalid_request'
    return new OpenAIError(error.status, error.message, type, errorCode)
  }
  switch (code) {
    case 'VALIDATION': {
      const e = error as { customError?: unknown; valueError?: { path?: string } }
      const param = fieldOf(e.valueError?.path)
      const message = typeof e.customError === 'string' ? e.customError : `Некорректный параметр ${param ?? 'запроса'}`
      return new OpenAIError(400, message, 'invalid_request_error', 'invalid_request', { param })
    }
    case 'PARSE':
      return new OpenAIError(400, 'Тело запроса должно быть корректным JSON', 'invalid_request_error', 'invalid_json')
    case 'NOT_FOUND':
      return new OpenAIError(404, `Неизвестный адрес ${path}`, 'invalid_request_error', 'not_found')
  }
  console.error(`[error] ${method} ${path}:`, error)
  return new OpenAIError(500, 'Внутренняя ошибка шлюза. Попробуйте позже.', 'server_error', 'internal_error', { shouldRetry: false })
}

/** The caller's address; X-Forwarded-For is believed only when TRUST_PROXY says a proxy sets it. */
export function clientIp(request: Request, server: { requestIP(r: Request): { address: string } | null } | null, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
    if (forwarded) return forwarded
  }
  return server?.requestIP(request)?.address ?? 'unknown'
}
