// «Войти через AI Gateway» (OAuth 2.0 + PKCE): the approval page's two session routes and the
// app's code exchange, POST /api/v1/auth/keys in OpenRouter's shape (plain JSON, OpenAI-shaped errors).
import { Elysia } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Config } from '../config'
import { errorsOf } from '../gateway/model'
import { OpenAIError } from '../lib/errors'
import { clientIp, envelope, errors, ok } from '../lib/http'
import { AuthorizeBody, AuthorizeResult, CheckBody, CheckResult, ExchangeBody, ExchangeResult } from './model'
import type { OAuthService } from './service'

export const EXCHANGE_PATH = '/api/v1/auth/keys'

/**
 * The exchange is called from the app's own pages too (PKCE is made for apps without a server): any
 * origin may call it. It takes no cookie and no session — the code and the verifier are the credentials.
 */
const CORS = { 'access-control-allow-origin': '*' }

/** Plain JSON, not the /api envelope: the router's shape, which the apps' code already reads. */
const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json; charset=utf-8', ...CORS } })

/** Refusals are answered here: /api's error handler would wrap them in the /api envelope. */
const refusal = (e: OpenAIError) => {
  const res = e.asResponse()
  for (const [k, v] of Object.entries(CORS)) res.headers.set(k, v)
  return res
}

export function oauthRoutes(config: Config, oauth: OAuthService, guard: AuthGuard) {
  return new Elysia({ name: 'oauth', detail: { tags: ['Вход через AI Gateway'] } })
    .use(guard)
    .post('/api/auth/authorize/check', ({ body }) => ok(oauth.check(body)), {
      auth: true,
      body: CheckBody,
      response: { 200: envelope(CheckResult), ...errors(400, 401) },
      detail: {
        summary: 'Проверка ссылки «Войти через AI Gateway»: адрес приложения для страницы согласия',
        description: 'callback_url — https:// (http:// только для localhost, 127.0.0.1, [::1]); code_challenge — base64url 43–128 символов; code_challenge_method — только S256.',
        security: [{ bearerAuth: [] }],
      },
    })
    .post('/api/auth/authorize', async ({ body, user, request, server }) => ok(await oauth.authorize(user, clientIp(request, server, config.trustProxy), body)), {
      auth: true,
      body: AuthorizeBody,
      response: { 200: envelope(AuthorizeResult), ...errors(400, 401, 429) },
      detail: {
        summary: 'Согласие пользователя: одноразовый code (10 минут) и адрес callback_url?code=… для перехода',
        description: 'budgetRub — лимит ключа приложения в месяц (рубли) или null. Ключ создаётся в личном аккаунте, когда приложение обменяет code на POST /api/v1/auth/keys.',
        security: [{ bearerAuth: [] }],
      },
    })
    .options(
      EXCHANGE_PATH,
      ({ set }) => {
        set.status = 204
        Object.assign(set.headers, CORS, {
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers': 'Content-Type',
          'access-control-max-age': '86400',
        })
        return ''
      },
      { detail: { hide: true } },
    )
    .post(
      EXCHANGE_PATH,
      async ({ body, request, server }) => {
        try {
          return json(await oauth.exchange(body, clientIp(request, server, config.trustProxy)))
        } catch (e) {
          if (e instanceof OpenAIError) return refusal(e)
          throw e
        }
      },
      {
        body: ExchangeBody,
        response: { 200: ExchangeResult, ...errorsOf(400, 429) },
        detail: {
          summary: 'Обмен code на API-ключ (OAuth PKCE, как у OpenRouter): { code, code_verifier } → { key, user_id }',
          description:
            'Без авторизации: code из callback_url и code_verifier, из которого получен code_challenge. Код одноразовый и действует 10 минут. Ошибки — в формате OpenAI, 400: `invalid_code`, `code_already_used`, `code_expired`, `invalid_code_verifier`, `invalid_code_challenge_method`; 429 `rate_limit_exceeded`.',
        },
      },
    )
}
