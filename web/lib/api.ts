// The one HTTP client of the SPA. Every call goes through `authorizedFetch`, which attaches the
// access token and, on a 401, renews the session once (refresh tokens rotate, so concurrent 401s
// share a single renewal) before repeating the request.
import { navigate } from 'wouter/use-browser-location'
import { currentTeamId } from '../stores/account'
import { ACCESS_TOKEN_KEY, getSession, REFRESH_TOKEN_KEY } from '../stores/session'
import { toast } from '../stores/toasts'

export interface ApiErrorAction {
  label: string
  url: string
}

/** A failed call. `message` is the server's Russian error text, or the caller's fallback. */
export class ApiError extends Error {
  readonly status: number
  /** machine code when the server gives one (the /v1 error shape: insufficient_balance, …) */
  readonly code?: string
  readonly action?: ApiErrorAction
  constructor(status: number, message: string, extra: { code?: string; action?: ApiErrorAction } = {}) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = extra.code
    this.action = extra.action
  }
}

export interface RequestOptions {
  /** Message to use when the server's answer carries no error text. */
  fallback?: string
  signal?: AbortSignal
  headers?: Record<string, string>
}

export const NETWORK_ERROR_MESSAGE = 'Не удалось связаться с сервером. Проверьте подключение к интернету.'
export const SESSION_EXPIRED_MESSAGE = 'Сессия истекла. Войдите снова.'

// Calls that are themselves the credentials exchange: a 401 there is an answer, not an expiry.
const NO_RENEWAL = new Set(['/api/auth/login', '/api/auth/register', '/api/auth/refresh', '/api/auth/logout'])

const pathnameOf = (path: string): string => path.split(/[?#]/, 1)[0] ?? path

function readStorage(key: string): string | null {
  try {
    return localStorage.getItem(key)
  } catch {
    return null
  }
}

function currentAccessToken(): string | null {
  return getSession().accessToken ?? readStorage(ACCESS_TOKEN_KEY)
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError'
}

async function send(path: string, init: RequestInit, token: string | null): Promise<Response> {
  const headers = new Headers(init.headers)
  if (!headers.has('Accept')) headers.set('Accept', 'application/json')
  if (token) headers.set('Authorization', `Bearer ${token}`)
  else headers.delete('Authorization')
  // The account the app acts in (the context switcher): the server answers for that team.
  const teamId = currentTeamId()
  if (teamId && !headers.has('X-Team-Id')) headers.set('X-Team-Id', teamId)
  try {
    return await fetch(path, { ...init, headers, credentials: 'same-origin' })
  } catch (error) {
    if (isAbort(error)) throw error
    throw new ApiError(0, NETWORK_ERROR_MESSAGE)
  }
}

// ─── session renewal ──────────────────────────────────────────────────────────

let renewal: Promise<string | null> | null = null

/** Resolves to a fresh access token, or null when the session cannot be renewed. */
function renewSession(failedToken: string | null): Promise<string | null> {
  // Someone renewed while this request was in flight: just use the new token.
  const current = currentAccessToken()
  if (current && current !== failedToken) return Promise.resolve(current)
  if (!renewal) {
    const knownRefresh = getSession().refreshToken ?? readStorage(REFRESH_TOKEN_KEY)
    const run = () => refreshOnce(knownRefresh)
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined
    // The Web Locks API serialises renewals across tabs of the same origin (secure contexts only).
    const pending: Promise<string | null> = locks?.request ? locks.request('ai-gateway:token-refresh', run) : run()
    renewal = pending.finally(() => {
      renewal = null
    })
  }
  return renewal
}

async function refreshOnce(knownRefresh: string | null): Promise<string | null> {
  // Another tab may have rotated the pair while we waited for the lock: adopt it instead of
  // presenting an already-used refresh token (which the server treats as theft).
  const sharedRefresh = readStorage(REFRESH_TOKEN_KEY)
  const sharedAccess = readStorage(ACCESS_TOKEN_KEY)
  if (knownRefresh && sharedRefresh && sharedAccess && sharedRefresh !== knownRefresh) {
    getSession().setTokens(sharedAccess, sharedRefresh)
    return sharedAccess
  }
  const refreshToken = knownRefresh
  if (!refreshToken) return null

  const response = await send(
    '/api/auth/refresh',
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refreshToken }),
    },
    null,
  )
  if (!response.ok) return null
  const body = (await response.json().catch(() => null)) as unknown
  const data = isRecord(body) && isRecord(body.data) ? body.data : null
  const accessToken = data && typeof data.accessToken === 'string' ? data.accessToken : null
  const nextRefresh = data && typeof data.refreshToken === 'string' ? data.refreshToken : null
  if (!accessToken || !nextRefresh) return null
  getSession().setTokens(accessToken, nextRefresh)
  return accessToken
}

/** Clears the session and sends the user to the login screen. Safe to call repeatedly. */
export function expireSession(): void {
  const wasSignedIn = getSession().isAuthenticated
  getSession().logout()
  if (wasSignedIn) toast.info(SESSION_EXPIRED_MESSAGE)
  if (typeof window !== 'undefined' && window.location.pathname !== '/login') navigate('/login')
}

/**
 * fetch() with the bearer token and one renewal on 401. Returns the raw Response, so streaming
 * callers (SSE) can read the body themselves. Throws ApiError(0) on network failure.
 */
export async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const token = currentAccessToken()
  const response = await send(path, init, token)
  if (response.status !== 401 || NO_RENEWAL.has(pathnameOf(path))) return response

  const renewed = await renewSession(token)
  if (!renewed) {
    expireSession()
    return response
  }
  const retried = await send(path, init, renewed)
  // A brand-new token refused again: the account is gone or blocked; do not loop.
  if (retried.status === 401) expireSession()
  return retried
}

// ─── JSON envelope ────────────────────────────────────────────────────────────

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function defaultMessage(status: number): string {
  if (status === 401) return 'Требуется авторизация'
  if (status === 403) return 'Недостаточно прав'
  if (status === 404) return 'Не найдено'
  if (status === 429) return 'Слишком много запросов. Попробуйте позже.'
  if (status >= 500) return 'Ошибка сервера. Попробуйте позже.'
  return 'Ошибка запроса'
}

function toApiError(status: number, body: unknown, fallback?: string): ApiError {
  const error = isRecord(body) ? body.error : undefined
  if (typeof error === 'string' && error.trim()) return new ApiError(status, error)
  // The /v1 shape: { error: { message, code, action } }
  if (isRecord(error)) {
    const message = typeof error.message === 'string' && error.message.trim() ? error.message : undefined
    const code = typeof error.code === 'string' ? error.code : undefined
    const action =
      isRecord(error.action) && typeof error.action.label === 'string' && typeof error.action.url === 'string' ? { label: error.action.label, url: error.action.url } : undefined
    return new ApiError(status, message ?? fallback ?? defaultMessage(status), { code, action })
  }
  return new ApiError(status, fallback ?? defaultMessage(status))
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '')
  if (!text) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** Unwraps `{success:true, data}`; other JSON (the OpenAI-shaped /v1 answers) is returned whole. */
export async function parseResponse<T>(response: Response, fallback?: string): Promise<T> {
  const body = await readJson(response)
  if (!response.ok) throw toApiError(response.status, body, fallback)
  if (isRecord(body) && 'success' in body) {
    if (body.success === true) return body.data as T
    throw toApiError(response.status, body, fallback)
  }
  return body as T
}

async function request<T>(method: string, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers }
  let payload: BodyInit | undefined
  if (body instanceof FormData) {
    payload = body // the browser sets the multipart boundary
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  const response = await authorizedFetch(path, { method, headers, body: payload, signal: options.signal })
  return parseResponse<T>(response, options.fallback)
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body, options),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, undefined, options),
}

/** SWR fetcher: the key is the path. */
export const fetcher = <T>(path: string): Promise<T> => api.get<T>(path)

/** The text to show for any thrown value: the server's message, else the fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) {
    // a status-only default is less useful than the caller's own wording
    return error.message && error.message !== defaultMessage(error.status) ? error.message : fallback
  }
  return fallback
}
