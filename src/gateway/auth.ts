// The `caller` macro of /v1: who is calling, resolved once per request before its body is read. An
// API key (sk-gw-…) or the web session's access token, as `Authorization: Bearer` or `x-api-key`;
// the refusals are OpenAI's 401 (and 404 for a team the session is not in, 403 for a team role
// without the Playground permission), which /v1/messages answers in Anthropic's shape (lib/http.ts).
// Routes declare `caller: true` and receive `caller` typed, as /api's declare `auth` (auth/guard.ts).

import { Elysia } from 'elysia'
import { type AuthGuard, bearer } from '../auth/guard'
import type { Db } from '../db/types'
import { KEY_PREFIX } from '../keys/service'
import { bodyReader, readBody, V1_BODY_LIMIT } from '../lib/body'
import { OpenAIError } from '../lib/errors'
import { can, denial } from '../teams/service'
import { type Caller, callerForKey, callerForUser } from './callers'

/**
 * null means absent for an optional parameter (the OpenAI contract; the Python SDK sends
 * `temperature: null`): dropped before validation, at the top level and in stream_options.
 */
export function dropNulls(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return
  const obj = body as Record<string, unknown>
  for (const k of Object.keys(obj)) if (obj[k] === null) delete obj[k]
  if (obj.stream_options) dropNulls(obj.stream_options)
}

const unauthorized = (message: string, code: string) => new OpenAIError(401, message, 'invalid_request_error', code)
const TEAM_NOT_FOUND = () => new OpenAIError(404, 'Команда не найдена', 'invalid_request_error', 'team_not_found')

/** A team request whose member's role may not use the API (billing): 403 naming the role. */
function checkRole(caller: Caller): Caller {
  if (caller.team && !can(caller.team.role, 'playground'))
    throw new OpenAIError(403, denial(caller.team.role, 'playground'), 'permission_error', 'permission_denied', { shouldRetry: false })
  return caller
}

type Verifier = { verify(t: string): Promise<false | { sub?: string }> }

/** The caller of a /v1 request; `fresh` reads past this instance's cache (callers.ts). A cached one can read itself again. */
async function authenticate(db: Db, headers: Headers, jwt: Verifier, fresh = false): Promise<Caller> {
  const caller = await authenticateOnce(db, headers, jwt, fresh)
  if (caller.cached) caller.reread = () => authenticate(db, headers, jwt, true)
  return caller
}

async function authenticateOnce(db: Db, headers: Headers, jwt: Verifier, fresh: boolean): Promise<Caller> {
  // Bearer for OpenAI clients; x-api-key for Anthropic's (Claude Code sends its key there).
  const token = bearer(headers.get('authorization') ?? undefined) ?? headers.get('x-api-key')?.trim()
  if (!token) throw unauthorized('Передайте API-ключ в заголовке Authorization: Bearer <ключ> (или x-api-key)', 'missing_api_key')
  if (token.startsWith(KEY_PREFIX)) {
    // A team key always acts in its team: no header is needed, none is consulted.
    const caller = await callerForKey(db, token, fresh)
    if (!caller) throw unauthorized('Неверный API-ключ', 'invalid_api_key')
    if (!caller.apiKey!.isActive) throw unauthorized(`API-ключ «${caller.apiKey!.name}» отключён. Включите его на странице API ключей.`, 'api_key_disabled')
    return checkRole(caller)
  }
  const payload = await jwt.verify(token)
  if (!payload || typeof payload.sub !== 'string') throw unauthorized('Неверный API-ключ или истёкшая сессия', 'invalid_api_key')
  // The web session acts in the team its X-Team-Id names (the Playground in team context).
  const header = headers.get('x-team-id')?.trim()
  const teamId = header && header !== 'personal' ? header.slice(0, 64) : null
  const caller = await callerForUser(db, payload.sub, teamId, fresh)
  if (!caller) {
    if (teamId && (await callerForUser(db, payload.sub, null, fresh))) throw TEAM_NOT_FOUND()
    throw unauthorized('Неверный API-ключ или истёкшая сессия', 'invalid_api_key')
  }
  return checkRole(caller)
}

/**
 * The credentials a request carried, checked again whenever it is called (each turn of a WebSocket:
 * a key disabled since the handshake stops the next turn, as on HTTP). Only the credential headers
 * are kept, not the request.
 */
export function credentialsAgain(db: Db, request: Request, jwt: Verifier): () => Promise<Caller> {
  const headers = new Headers()
  for (const name of ['authorization', 'x-api-key']) {
    const value = request.headers.get(name)
    if (value) headers.set(name, value)
  }
  return () => authenticate(db, headers, jwt)
}

/** The caller a public route's request names, if it names a valid one (GET /v1/models: a key bound to Russia sees only what it may use). */
export async function callerIfAny(db: Db, headers: Headers, jwt: Verifier): Promise<Caller | null> {
  if (!headers.has('authorization') && !headers.has('x-api-key')) return null
  return authenticateOnce(db, headers, jwt, false).catch(() => null)
}

export function callerAuth(db: Db, guard: AuthGuard) {
  const callers = new WeakMap<Request, Caller>()
  return new Elysia({ name: 'gateway-auth' }).use(guard).macro({
    /**
     * An API key (sk-gw-…) or the web session's access token, as the Bearer credential, checked before
     * the body is read: a caller without a valid key gets 401 at once, whatever the size of what it
     * sends. Then the body, through the same size and depth limits as every route's (lib/body.ts).
     * The OpenAPI document learns it from here: every such route is marked as needing the Bearer.
     */
    caller: {
      detail: { security: [{ bearerAuth: [] }] },
      parse: bodyReader(async ({ request, accessJwt }: { request: Request; accessJwt: Verifier }, contentType: string) => {
        callers.set(request, await authenticate(db, request.headers, accessJwt))
        const body = await readBody(request, contentType, { limit: V1_BODY_LIMIT })
        dropNulls(body)
        return body
      }),
      // GET routes have no parse phase; `transform` still runs before the query is validated (401, not 400).
      async transform({ request, accessJwt }) {
        if (!callers.has(request)) callers.set(request, await authenticate(db, request.headers, accessJwt))
      },
      // The x-request-id the client is answered with (protocol.ts) goes with the request to its usage row.
      resolve: ({ request, set }): { caller: Caller } => ({ caller: { ...callers.get(request)!, requestId: String(set.headers['x-request-id'] ?? '') || undefined } }),
    },
  })
}

export type CallerAuth = ReturnType<typeof callerAuth>
