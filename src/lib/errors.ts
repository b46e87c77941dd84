// One error vocabulary for /api. The error plugin in http.ts turns these into `{success:false, error}`.
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new AppError(400, message)
export const unauthorized = (message = 'Требуется авторизация') => new AppError(401, message)
export const forbidden = (message = 'Недостаточно прав') => new AppError(403, message)
export const notFound = (message = 'Не найдено') => new AppError(404, message)
export const conflict = (message: string) => new AppError(409, message)
/** 429 whose message says when to try again, with the same figure in Retry-After. */
export const tooManyRequests = (retryAfterSec: number, what = 'Слишком много попыток') =>
  new AppError(429, `${what}. Повторите через ${formatWait(retryAfterSec)}`, {
    'retry-after': String(retryAfterSec),
  })

function formatWait(sec: number): string {
  if (sec < 60) return `${sec} сек.`
  return `${Math.ceil(sec / 60)} мин.`
}

/** True for SQLite's (and, by code name, PostgreSQL's) unique-constraint violation. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string; cause?: unknown }
  if (err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === '23505') return true
  if (typeof err?.message === 'string' && err.message.includes('UNIQUE constraint failed')) return true
  return err?.cause ? isUniqueViolation(err.cause) : false
}

/**
 * A /v1 failure in OpenAI's shape: `{error:{message, type, code, param, action?}}`. The SDKs map the
 * status to an exception class and retry 408/409/429/5xx unless `x-should-retry: false` says not to.
 */
export class OpenAIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string,
    readonly extra: {
      param?: string | null
      action?: { label: string; url: string }
      /** Machine-readable details (OpenRouter's `error.metadata`): which budget refused, its limit and reset. */
      metadata?: Record<string, unknown>
      shouldRetry?: boolean
      retryAfter?: string
      /** More headers of the answer (a limited key's x-ratelimit-*). */
      headers?: Record<string, string>
    } = {},
  ) {
    super(message)
  }

  body() {
    return {
      error: {
        message: this.message,
        type: this.type,
        code: this.code,
        param: this.extra.param ?? null,
        ...(this.extra.action ? { action: this.extra.action } : {}),
        ...(this.extra.metadata ? { metadata: this.extra.metadata } : {}),
      },
    }
  }

  headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' }
    if (this.extra.shouldRetry !== undefined) h['x-should-retry'] = String(this.extra.shouldRetry)
    if (this.extra.retryAfter) h['retry-after'] = this.extra.retryAfter
    return this.extra.headers ? { ...this.extra.headers, ...h } : h
  }

  /** Not named toResponse: Elysia would then bypass our onError for it. */
  asResponse() {
    return new Response(JSON.stringify(this.body()), { status: this.status, headers: this.headers() })
  }
}

/** Anthropic's error type for an HTTP status (its API and SDK's vocabulary). */
export function anthropicErrorType(status: number): string {
  if (status === 400 || status === 422) return 'invalid_request_error'
  if (status === 401) return 'authentication_error'
  if (status === 402) return 'billing_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 503 || status === 529) return 'overloaded_error'
  return 'api_error'
}

/** An error of ours in Anthropic's shape (/v1/messages); a 402 keeps our top-up hint in the message. */
export function anthropicError(e: OpenAIError): Response {
  const hint = e.extra.action ? ` ${e.extra.action.label}: ${e.extra.action.url}` : ''
  const body = { type: 'error', error: { type: anthropicErrorType(e.status), message: `${e.message}${hint}` } }
  return new Response(JSON.stringify(body), { status: e.status, headers: e.headers() })
}

export const TOP_UP_ACTION = { label: 'Пополнить баланс', url: '/app/billing' }

export const insufficientBalance = (message: string, metadata?: Record<string, unknown>) =>
  new OpenAIError(402, message, 'insufficient_balance', 'insufficient_balance', { action: TOP_UP_ACTION, shouldRetry: false, metadata })

export const invalidRequest = (message: string, param: string | null = null, code = 'invalid_request') => new OpenAIError(400, message, 'invalid_request_error', code, { param })
