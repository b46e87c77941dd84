// The HTTP client for /api (the {success, data} envelope) with the web client's session rule:
// on a 401, renew the access token with the refresh token once (the pair rotates, so the new
// pair is stored), repeat the request, and give up with "войдите снова" if that fails too.
import type { CreatedPayment, UsageStats, User } from '../../src/wire'
import type { ConfigStore, Session, TeamContext } from './config'
import { CliError, EXIT, insufficientBalance, notSignedIn, sessionExpired, unreachable } from './errors'

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

/** Turns an error answer (either wire shape) into the one-line error the user sees. */
export function httpError(status: number, body: unknown): CliError {
  const b = body as { error?: string | { message?: string; code?: string } } | undefined
  const err = b?.error
  const message = typeof err === 'string' ? err : err?.message || `сервер ответил кодом ${status}`
  const code = typeof err === 'object' ? err?.code : undefined
  if (status === 402 && code === 'budget_exceeded')
    return new CliError(message, 'бюджет ключа или ваш бюджет в команде: дождитесь его обновления или попросите увеличить', EXIT.balance)
  if (status === 402) return insufficientBalance(message)
  if (status === 401) return new CliError(message, 'войдите снова: `gw login`', EXIT.auth)
  if (code === 'model_not_found') return new CliError(message, 'список моделей: `gw models`')
  if (status === 429) return new CliError(message, 'подождите и повторите')
  if (status >= 500) return new CliError(message, 'повторите позже; если ошибка не проходит — напишите в поддержку')
  return new CliError(message)
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export function createApi(server: string, store: ConfigStore) {
  /** The team chosen with `gw team use`, only if it belongs to this server. */
  function team(): TeamContext | undefined {
    const config = store.read()
    return config.server === server ? config.team : undefined
  }

  async function send(method: Method, path: string, body: unknown, token: string | null): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (token) headers.authorization = `Bearer ${token}`
    // Signed-in calls act in the chosen team; without one, in the personal account.
    const current = token ? team() : undefined
    if (current) headers['x-team-id'] = current.id
    try {
      return await fetch(server + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    } catch {
      throw unreachable(server)
    }
  }

  async function unwrap<T>(res: Response): Promise<T> {
    const body = (await readJson(res)) as { success?: boolean; data?: T } | undefined
    if (res.ok && body?.success === true) return body.data as T
    throw httpError(res.status, body)
  }

  /** The stored session, only if it belongs to this server. */
  function session(): Session | undefined {
    const config = store.read()
    return config.server === server ? config.session : undefined
  }

  function token(): string {
    const s = session()
    if (!s) throw notSignedIn(server)
    return s.accessToken
  }

  function forget() {
    store.update(({ session: _gone, team: _team, ...rest }) => rest)
  }

  /** A fresh access token after `failed` was refused; another gw process may have renewed already. */
  function renew(failed: string): Promise<string> {
    return store.withLock(async () => {
      const current = session()
      if (!current) throw sessionExpired()
      if (current.accessToken !== failed) return current.accessToken
      const res = await send('POST', '/api/auth/refresh', { refreshToken: current.refreshToken }, null)
      if (res.status === 401 || res.status === 400) {
        forget()
        throw sessionExpired()
      }
      const pair = await unwrap<{ accessToken: string; refreshToken: string }>(res)
      store.update((c) => ({ ...c, session: { ...current, ...pair } }))
      return pair.accessToken
    })
  }

  /** An authenticated /api call with one renewal on 401. */
  async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const first = token()
    let res = await send(method, path, body, first)
    if (res.status === 401) res = await send(method, path, body, await renew(first))
    return unwrap<T>(res)
  }

  return {
    server,
    session,
    team,
    /** Chooses the team to act in (null: the personal account). */
    useTeam(next: TeamContext | null) {
      store.update(({ team: _old, ...rest }) => (next ? { ...rest, team: next } : rest))
    },
    token,
    renew,
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}),
    patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
    put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
    delete: <T>(path: string) => call<T>('DELETE', path),

    async login(email: string, password: string) {
      const res = await send('POST', '/api/auth/login', { email, password }, null)
      if (res.status === 401) {
        const body = (await readJson(res)) as { error?: string } | undefined
        throw new CliError(body?.error ?? 'Неверный email или пароль', `сбросить пароль: ${server}/forgot-password`, EXIT.auth)
      }
      const data = await unwrap<{ user: User; accessToken: string; refreshToken: string }>(res)
      // A new sign-in starts in the personal account (a team chosen by someone else's session does not carry over).
      store.update(({ team: _team, ...c }) => ({ ...c, server, session: { email: data.user.email, accessToken: data.accessToken, refreshToken: data.refreshToken } }))
      return data.user
    },

    /** Revokes the session on the server (best effort) and always forgets it locally. */
    async logout(): Promise<{ was: boolean; revoked: boolean }> {
      const s = session()
      if (!s) return { was: false, revoked: false }
      let revoked = false
      try {
        revoked = (await send('POST', '/api/auth/logout', { refreshToken: s.refreshToken }, null)).ok
      } catch {
        // Unreachable server: the local copy goes anyway, the caller says the server kept it.
      }
      forget()
      return { was: true, revoked }
    },

    /** GET on /v1 (OpenAI shapes, public catalogue). */
    async v1<T>(path: string): Promise<T> {
      const res = await send('GET', `/v1${path}`, undefined, null)
      const body = await readJson(res)
      if (!res.ok) throw httpError(res.status, body)
      return body as T
    },
  }
}

export type Api = ReturnType<typeof createApi>

// ─── server shapes: the wire types of the route schemas (src/wire.ts), imported as types only ─

export type { ActivityDetail, ActivityItem, ActivityPage, ApiKey, Balance, Model, TeamSummary, Transaction, UsageLog, User } from '../../src/wire'
/** GET /api/billing/usage */
export type Usage = UsageStats
/** POST /api/payments/create */
export type Payment = CreatedPayment
