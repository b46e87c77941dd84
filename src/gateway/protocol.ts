// What every /v1 answer carries whatever the route: an x-request-id (the client's own, echoed, or
// ours) and CORS for any origin, so a browser app can call the API with a key. /api stays
// same-origin: it authenticates with the web session, which must not be usable from other sites.
// (onRequest runs before routing, so it applies to every request of the app that uses this plugin.)
import { Elysia } from 'elysia'
import { newId } from '../lib/crypto'

const ALLOWED_HEADERS =
  'Authorization, Content-Type, x-api-key, anthropic-version, anthropic-beta, x-request-id, OpenAI-Organization, OpenAI-Project, x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout, x-stainless-helper-method, x-stainless-async'
/** A client's id is echoed only when it is a plain token: it ends up in logs and headers. */
const SAFE_ID = /^[\w.:-]{1,128}$/

const isV1 = (url: string) => {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  return url.startsWith('/v1/', start) || url.startsWith('/v1?', start) || url.length === start + 3
}

export const v1Protocol = new Elysia({ name: 'v1-protocol' }).onRequest(({ request, set }) => {
  if (!isV1(request.url)) return
  const given = request.headers.get('x-request-id')
  set.headers['x-request-id'] = given && SAFE_ID.test(given) ? given : `req_${newId()}`
  set.headers['access-control-allow-origin'] = '*'
  set.headers['access-control-expose-headers'] =
    'x-request-id, x-should-retry, retry-after, x-generation-id, x-token-count-estimated, x-max-tokens-clamped, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, x-ratelimit-limit-tokens, x-ratelimit-remaining-tokens, x-ratelimit-reset-tokens'
  if (request.method === 'OPTIONS') {
    set.headers['access-control-allow-methods'] = 'GET, POST, DELETE, OPTIONS'
    set.headers['access-control-allow-headers'] = ALLOWED_HEADERS
    set.headers['access-control-max-age'] = '86400'
    set.status = 204
    return ''
  }
})
