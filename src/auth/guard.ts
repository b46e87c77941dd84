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

export function authGuard(config: Config, auth: AuthService, resolveAccount: ResolveAccount) {
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

  return new Elysia({ name: 'auth-guard' })
    .decorate('accessJwt', accessJwt)
    .derive({ as: 'scoped' }, ({ accessJwt }) => ({
      /** Signs a short-lived access token for a user's session. */
      signAccess: (userId: string, sid: string) => accessJwt.sign({ sub: userId, sid }),
    }))
    .macro({
      auth: {
        async resolve({ headers, accessJwt }) {
          const user = await userFromAccessToken(accessJwt, bearer(headers.authorization))
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
          const user = await userFromAccessToken(accessJwt, bearer(headers.authorization))
          if (!user) throw unauthorized()
          const acting = await resolveAccount(user, headers['x-team-id'], permission, clientIp(request, server, config.trustProxy))
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
