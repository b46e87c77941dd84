// «Войти через AI Gateway»: OAuth 2.0 authorization code with PKCE (RFC 7636, S256 only), in
// OpenRouter's wire shape. A signed-in user approves an app (its origin, from callback_url) with an
// optional monthly budget; the browser carries a one-time code back to the app, which trades it,
// with the verifier only it knows, for an API key of that user's personal account.

import { createHash, timingSafeEqual } from 'node:crypto'
import type { Config } from '../config'
import type { Db } from '../db/types'
import { type KeysService, MAX_KEYS_PER_USER } from '../keys/service'
import { randomToken, sha256 } from '../lib/crypto'
import { AppError, badRequest, OpenAIError } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { consume } from '../lib/rate-limit'
import { now as clockNow, parseBudget } from '../money'
import type { Acting } from '../teams/service'
import { oauthStore } from './store'

/** A code lives 10 minutes: long enough for a slow redirect, short enough to be useless when leaked later. */
export const CODE_TTL_MS = 10 * 60_000
/** base64url, 43–128 characters (RFC 7636 §4.2; an S256 challenge is exactly 43). */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43,128}$/
/** RFC 7636 §4.1: unreserved characters, 43–128 of them. */
const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/
const MAX_CALLBACK_LENGTH = 2000
/** Plain http is allowed only where no network sits between the browser and the app. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
const MAX_KEY_NAME = 100
/** Exchanges per client address a minute (times AUTH_RATE_LIMIT_SCALE): a real app makes one per sign-in. */
const EXCHANGE_RULE = { limit: 30, windowSec: 60 }
/** Codes one user may have issued an hour: more is a script, not a person clicking «Разрешить». */
const AUTHORIZE_RULE = { limit: 60, windowSec: 3600 }

export const OAUTH_MESSAGES = {
  callbackUrl: 'Некорректный callback_url: нужен адрес https:// (http:// — только для localhost, 127.0.0.1 и [::1]) без логина, пароля и фрагмента (#…)',
  challenge: 'Некорректный code_challenge: нужна строка base64url длиной от 43 до 128 символов',
  method: 'code_challenge_method должен быть S256: метод plain не поддерживается',
  tooManyKeys: `У вас уже ${MAX_KEYS_PER_USER} API-ключей — это максимум. Удалите ненужный на странице «API ключи» и повторите вход.`,
  body: 'Тело запроса должно быть JSON-объектом с полями code и code_verifier',
  invalidCode: 'Код авторизации не найден или недействителен',
  codeUsed: 'Код авторизации уже использован: каждый код можно обменять на ключ только один раз',
  codeExpired: 'Срок действия кода авторизации истёк (10 минут): попросите пользователя войти снова',
  verifier: 'code_verifier не соответствует code_challenge, с которым был выдан код',
} as const

/** As the page passes them on from its address: any JSON, checked here. */
export type AuthorizeRequest = { callbackUrl: unknown; codeChallenge: unknown; codeChallengeMethod?: unknown }

/** The app's callback, checked: where the browser returns, and the origin the user is shown. */
function checkRequest(input: AuthorizeRequest): { callback: URL; origin: string; challenge: string } {
  if (input.codeChallengeMethod !== 'S256') throw badRequest(OAUTH_MESSAGES.method)
  if (typeof input.codeChallenge !== 'string' || !CHALLENGE_RE.test(input.codeChallenge)) throw badRequest(OAUTH_MESSAGES.challenge)
  const raw = input.callbackUrl
  if (typeof raw !== 'string' || raw.length > MAX_CALLBACK_LENGTH) throw badRequest(OAUTH_MESSAGES.callbackUrl)
  let callback: URL
  try {
    callback = new URL(raw)
  } catch {
    throw badRequest(OAUTH_MESSAGES.callbackUrl)
  }
  const secure = callback.protocol === 'https:' || (callback.protocol === 'http:' && LOOPBACK_HOSTS.has(callback.hostname))
  // A fragment never reaches the app's server and would swallow the code we append (RFC 6749 §3.1.2).
  if (!secure || callback.username || callback.password || callback.hash || raw.includes('#')) throw badRequest(OAUTH_MESSAGES.callbackUrl)
  return { callback, origin: callback.origin, challenge: input.codeChallenge }
}

/** callback_url with one more query parameter; the app's own parameters stay. */
function withParam(callback: URL, name: string, value: string): string {
  const url = new URL(callback)
  url.searchParams.set(name, value)
  return url.toString()
}

/** base64url(SHA-256(verifier)) against the stored challenge, in constant time. */
function verifierMatches(verifier: string, challenge: string): boolean {
  const expected = Buffer.from(createHash('sha256').update(verifier).digest('base64url'))
  const given = Buffer.from(challenge)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

const refusal = (code: string, message: string) => new OpenAIError(400, message, 'invalid_request_error', code, { shouldRetry: false })

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The key's name: the app's origin (cut to the keys' name limit; the full origin stays in appOrigin). */
const keyName = (origin: string) => (origin.length <= MAX_KEY_NAME ? origin : `${origin.slice(0, MAX_KEY_NAME - 1)}…`)

export function oauthService({ db, config, keys }: { db: Db; config: Config; keys: KeysService }) {
  const store = oauthStore(db)
  const personal = (user: { id: string; email: string }, ip: string): Acting => ({ userId: user.id, email: user.email, teamId: null, teamName: null, role: null, ip })

  return {
    /** What the approval page shows (and where «Отклонить» goes); a bad link is refused with the reason. */
    check(input: AuthorizeRequest) {
      const { callback, origin } = checkRequest(input)
      return { origin, declineUrl: withParam(callback, 'error', 'access_denied') }
    },

    /** The user approved: a code bound to the challenge, and the address the browser goes to with it. */
    async authorize(user: { id: string; email: string }, ip: string, input: AuthorizeRequest & { budgetRub?: unknown }) {
      const { callback, challenge } = checkRequest(input)
      const { limitMicros } = parseBudget({ limitRub: input.budgetRub, period: 'month' })
      // Said now, while the user can still act on it, rather than to the app after the redirect.
      if ((await keys.list(personal(user, ip))).length >= MAX_KEYS_PER_USER) throw badRequest(OAUTH_MESSAGES.tooManyKeys)
      await consume(db, `oauth-authorize:user:${user.id}`, AUTHORIZE_RULE)
      const code = randomToken(32) // 256 bits; only its hash is stored
      const at = clockNow()
      await store.insert(
        {
          codeHash: sha256(code),
          userId: user.id,
          callbackUrl: callback.toString(),
          codeChallenge: challenge,
          budgetMicros: limitMicros,
          expiresAt: new Date(at + CODE_TTL_MS),
          createdAt: new Date(at),
        },
        at,
      )
      return { redirectUrl: withParam(callback, 'code', code) }
    },

    /**
     * POST /api/v1/auth/keys: the code and its verifier for a key. Every refusal is an OpenAIError
     * (the router's shape); the code is spent only by the exchange that makes the key.
     */
    async exchange(body: unknown, ip: string): Promise<{ key: string; user_id: string }> {
      try {
        await consume(db, `oauth-exchange:ip:${ip}`, { limit: EXCHANGE_RULE.limit * config.authRateLimitScale, windowSec: EXCHANGE_RULE.windowSec })
      } catch (e) {
        if (e instanceof AppError && e.status === 429) throw new OpenAIError(429, e.message, 'rate_limit_error', 'rate_limit_exceeded', { retryAfter: e.headers['retry-after'] })
        throw e
      }
      if (!isRecord(body) || typeof body.code !== 'string' || typeof body.code_verifier !== 'string') throw refusal('invalid_request', OAUTH_MESSAGES.body)
      const method = body.code_challenge_method
      if (method !== undefined && method !== null && method !== 'S256') throw refusal('invalid_code_challenge_method', OAUTH_MESSAGES.method)
      const { code, code_verifier: verifier } = body
      if (!code || code.length > 256) throw refusal('invalid_code', OAUTH_MESSAGES.invalidCode)
      const codeHash = sha256(code)
      const row = await store.byHash(codeHash)
      if (!row) throw refusal('invalid_code', OAUTH_MESSAGES.invalidCode)
      const at = clockNow()
      if (row.usedAt) throw refusal('code_already_used', OAUTH_MESSAGES.codeUsed)
      if (row.expiresAt.getTime() <= at) throw refusal('code_expired', OAUTH_MESSAGES.codeExpired)
      // A wrong verifier does not spend the code: whoever holds the code without it gets nothing anyway.
      if (!VERIFIER_RE.test(verifier) || !verifierMatches(verifier, row.codeChallenge)) throw refusal('invalid_code_verifier', OAUTH_MESSAGES.verifier)
      const user = await store.user(row.userId)
      if (!user) throw refusal('invalid_code', OAUTH_MESSAGES.invalidCode)

      const claimed = await store.claim(codeHash, at)
      if (!claimed) {
        // Another exchange won the race, or the code expired in between.
        const again = await store.byHash(codeHash)
        if (again && !again.usedAt) throw refusal('code_expired', OAUTH_MESSAGES.codeExpired)
        throw refusal('code_already_used', OAUTH_MESSAGES.codeUsed)
      }
      const origin = new URL(claimed.callbackUrl).origin
      try {
        const created = await keys.create(personal(user, ip), {
          name: keyName(origin),
          appOrigin: origin,
          ...(claimed.budgetMicros === null ? {} : { budget: { limitRub: microsToRub(claimed.budgetMicros), period: 'month' } }),
        })
        return { key: created.key, user_id: user.id }
      } catch (e) {
        await store.release(codeHash)
        // The account's key limit (the user made keys after approving): said in the app's shape.
        if (e instanceof AppError && e.status < 500) throw refusal('key_not_created', e.message)
        throw e
      }
    },
  }
}

export type OAuthService = ReturnType<typeof oauthService>
