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
import { clientIp } from '../lib/http'
import type { Endpoint } from '../money'
import { can, denial } from '../teams/service'
import { type Caller, callerForKey, callerForUser } from './callers'
import { admit, logRefusal, PolicyRefusal } from './policy'

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

/** The route a /v1 path is, for the activity log's row of a refused request (null: a lookup, not logged). */
function endpointOf(path: string): Endpoint | null {
  if (path.startsWith('/v1/chat/')) return 'chat'
  if (path.startsWith('/v1/responses')) return 'responses'
  if (path.startsWith('/v1/messages')) return 'messages'
  if (path.startsWith('/v1/embeddings')) return 'embeddings'
  if (path.startsWith('/v1/images/')) return 'images'
  if (path.startsWith('/v1/audio/speech')) return 'speech'
  if (path.startsWith('/v1/audio/')) return 'transcription'
  return null
}

/** The key's policy on this request (policy.ts); a refusal goes to the activity log before it is thrown. */
async function admitLogged(db: Db, caller: Caller, ip: string, path: string, stream = false): Promise<Record<string, string>> {
  try {
    return await admit(db, caller, ip)
  } catch (e) {
    const endpoint = endpointOf(path)
    if (e instanceof PolicyRefusal && endpoint) logRefusal(db, caller, e, { endpoint, model: '—', stream })
    throw e
  }
}

/**
 * The credentials a request carried, checked again whenever it is called (each turn of a WebSocket:
 * a key disabled since the handshake stops the next turn, as on HTTP; each turn is a request of the
 * key's policy, from the handshake's address). Only the credential headers are kept, not the request.
 */
export function credentialsAgain(db: Db, request: Request, jwt: Verifier, ip: string): () => Promise<Caller> {
  const headers = new Headers()
  for (const name of ['authorization', 'x-api-key']) {
    const value = request.headers.get(name)
    if (value) headers.set(name, value)
  }
  const path = new URL(request.url).pathname
  return async () => {
    const caller = await authenticate(db, headers, jwt)
    await admitLogged(db, caller, ip, path, true)
    return caller
  }
}

/**
 * The caller a public route's request names, if it names a valid one (GET /v1/models: a key bound to
 * Russia or to a list of models sees only what it may use); a key its policy refuses is refused here too.
 */
export async function callerIfAny(db: Db, headers: Headers, jwt: Verifier, ip: string, set: { headers: Record<string, unknown> }): Promise<Caller | null> {
  if (!headers.has('authorization') && !headers.has('x-api-key')) return null
  const caller = await authenticateOnce(db, headers, jwt, false).catch(() => null)
  if (caller) Object.assign(set.headers, await admit(db, caller, ip))
  return caller
}

export function callerAuth(db: Db, guard: AuthGuard, trustProxy: boolean) {
  const callers = new WeakMap<Request, Caller>()
  /** The caller, admitted by its key's policy once per request; a limited key's x-ratelimit-* headers go on whatever it is answered. */
  async function identify(request: Request, jwt: Verifier, server: Admitting['server'], set: Admitting['set']) {
    const caller = await authenticate(db, request.headers, jwt)
    Object.assign(set.headers, await admitLogged(db, caller, clientIp(request, server, trustProxy), new URL(request.url).pathname))
    callers.set(request, caller)
  }
  return new Elysia({ name: 'gateway-auth' }).use(guard).macro({
    /**
     * An API key (sk-gw-…) or the web session's access token, as the Bearer credential, checked before
     * the body is read: a caller without a valid key gets 401 at once, whatever the size of what it
     * sends. Then the body, through the same size and depth limits as every route's (lib/body.ts).
     * The OpenAPI document learns it from here: every such route is marked as needing the Bearer.
     */
    caller: {
      detail: { security: [{ bearerAuth: [] }] },
      parse: bodyReader(async ({ request, accessJwt, server, set }: Admitting, contentType: string) => {
        await identify(request, accessJwt, server, set)
        const body = await readBody(request, contentType, { limit: V1_BODY_LIMIT })
        dropNulls(body)
        return body
      }),
      // GET routes have no parse phase; `transform` still runs before the query is validated (401, not 400).
      async transform({ request, accessJwt, server, set }) {
        if (!callers.has(request)) await identify(request, accessJwt, server, set)
      },
      // The x-request-id the client is answered with (protocol.ts) goes with the request to its usage row.
      // The answer's headers go too: what the pipeline decides (x-max-tokens-clamped) is said there.
      resolve: ({ request, set }): { caller: Caller } => ({
        caller: { ...callers.get(request)!, requestId: String(set.headers['x-request-id'] ?? '') || undefined, answerHeaders: set.headers },
      }),
    },
  })
}

type Admitting = {
  request: Request
  accessJwt: Verifier
  server: { requestIP(r: Request): { address: string } | null } | null
  set: { headers: Record<string, unknown> }
}

export type CallerAuth = ReturnType<typeof callerAuth>
