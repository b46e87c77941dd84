// The `auth` and `admin` macros: resolve the signed-in user once per request from the Bearer JWT.
// The user is re-read from the database each time, so a deleted account loses access at once, and
// the token's session (`sid`, a refresh-token family) must still be open, so logout, "log out
// everywhere" and a password reset end access tokens at once instead of when they expire.

import { jwt } from '@elysiajs/jwt'
import { Elysia } from 'elysia'
import type { Config } from '../config'
import { forbidden, unauthorized } from '../lib/errors'
import { clientIp } from '../lib/http'
import type { Acting, Permission } from '../teams/service'
import type { AuthService, PublicUser } from './service'

export const bearer = (header: string | undefined) => {
  const match = header?.match(/^Bearer\s+(\S+)$/i)
  return match?.[1]
}

export type AccessClaims = { sub: string; sid: string; exp?: number; iat?: number }
type Verifier = { verify(token?: string): Promise<false | AccessClaims> }

/** The account a request acts in (teams/service.ts `acting`: the role matrix and the 404/403). */
export type ResolveAccount = (user: PublicUser, teamId: string | undefined, permission: Permission, ip: string) => Promise<Acting>

/** A management key's owner and account (keys/service.ts managementKey); throws its refusals, undefined for no such key. */
export type ResolveManagementKey = (secret: string, ip: string) => Promise<{ userId: string; teamId: string | null } | undefined>

/**
 * What a management key (issue 36) may call: the keys of its account, the balance and the activity
 * log — reading and managing, never spending (it is refused on /v1).
 */
export function managementKeyMay(method: string, path: string): boolean {
  if (path === '/api/auth/api-keys' || path.startsWith('/api/auth/api-keys/')) return true
  if (method !== 'GET') return false
  return path === '/api/billing/balance' || path === '/api/activity' || path.startsWith('/api/activity/')
}

export const MANAGEMENT_KEY_SCOPE =
  'Управляющий ключ работает только с ключами (/api/auth/api-keys), балансом (GET /api/billing/balance) и журналом активности (GET /api/activity); для остального войдите в аккаунт.'

type Server = { requestIP(r: Request): { address: string } | null } | null

/** An API key (sk-gw-…) where the web session's token is expected. */
const looksLikeKey = (token: string | undefined): token is string => token?.startsWith('sk-gw-') === true

export function authGuard(config: Config, auth: AuthService, resolveAccount: ResolveAccount, resolveKey: ResolveManagementKey) {
  const signer = jwt({ name: 'accessJwt', secret: config.jwtSecret, exp: `${config.accessTokenTtlSec}s` }).decorator.accessJwt
  /**
   * The plugin's verifier plus the session check. Everything that reads access tokens takes
   * `accessJwt` from this plugin's context (the /v1 gateway and uploads too), so all of them
   * refuse a token whose session has ended.
   */
  const accessJwt = {
    sign: (claims: { sub: string; sid: string }) => signer.sign(claims),
    async verify(token?: string): Promise<false | AccessClaims> {
      const payload = await signer.verify(token)
      if (!payload || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return false
      if (!(await auth.sessionActive(payload.sid, payload.sub))) return false
      return payload as AccessClaims
    },
  }

  /** The user behind an access token, or null (bad signature, expired, account gone). */
  async function userFromAccessToken(jwt: Verifier, token: string | undefined): Promise<PublicUser | null> {
    if (!token) return null
    const payload = await jwt.verify(token)
    if (!payload) return null
    return (await auth.userForToken(payload.sub)) ?? null
  }

  const admins = new WeakMap<Request, PublicUser>()

  /**
   * A key presented to /api: a management key's owner and account on the routes it may call (`scoped`:
   * the route acts on an account), 403 on any other; any other key is not a credential here (401).
   */
  async function managementKeyFor(token: string, request: Request, server: Server, scoped: boolean) {
    const key = await resolveKey(token, clientIp(request, server, config.trustProxy))
    const owner = key && (await auth.userForToken(key.userId))
    if (!key || !owner) throw unauthorized()
    if (!scoped || !managementKeyMay(request.method, new URL(request.url).pathname)) throw forbidden(MANAGEMENT_KEY_SCOPE)
    return { owner, teamId: key.teamId }
  }

  return new Elysia({ name: 'auth-guard' })
    .decorate('accessJwt', accessJwt)
    .derive({ as: 'scoped' }, ({ accessJwt }) => ({
      /** Signs a short-lived access token for a user's session. */
      signAccess: (userId: string, sid: string) => accessJwt.sign({ sub: userId, sid }),
    }))
    .macro({
      auth: {
        async resolve({ headers, accessJwt, request, server }) {
          const token = bearer(headers.authorization)
          // A management key reaches only the routes that act on an account (`account`); here it is refused.
          if (looksLikeKey(token)) await managementKeyFor(token, request, server, false)
          const user = await userFromAccessToken(accessJwt, token)
          if (!user) throw unauthorized()
          return { user }
        },
      },
      /**
       * The signed-in user and the account the request acts in: personal, or the team its
       * X-Team-Id header names, where the caller's role must have `permission` (404 for a team the
       * caller is not in, 403 for a role without it).
       */
      account: (permission: Permission) => ({
        async resolve({ headers, accessJwt, request, server }) {
          const token = bearer(headers.authorization)
          const ip = clientIp(request, server, config.trustProxy)
          if (looksLikeKey(token)) {
            // A management key acts in its own account (its team's when it was made there), as its owner.
            const { owner, teamId } = await managementKeyFor(token, request, server, true)
            const acting = await resolveAccount(owner, teamId ?? undefined, permission, ip)
            return { user: owner, acting: { ...acting, viaKey: 'management' as const } }
          }
          const user = await userFromAccessToken(accessJwt, token)
          if (!user) throw unauthorized()
          const acting = await resolveAccount(user, headers['x-team-id'], permission, ip)
          return { user, acting }
        },
      }),
      /**
       * Checked in `transform`, which runs before body and params validation: without a token an
       * admin route answers 401 and for a non-admin 403, whatever the request carries.
       */
      admin: {
        async transform({ request, headers, accessJwt }) {
          const user = await userFromAccessToken(accessJwt, bearer(headers.authorization))
          if (!user) throw unauthorized()
          if (user.role !== 'admin') throw forbidden()
          admins.set(request, user)
        },
        resolve: ({ request }): { user: PublicUser } => ({ user: admins.get(request)! }),
      },
    })
}

export type AuthGuard = ReturnType<typeof authGuard>
