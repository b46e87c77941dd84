// The `auth` and `admin` macros: resolve the signed-in user once per request from the Bearer JWT.
// The user is re-read from the database each time, so a deleted account loses access at once.
import { Elysia } from 'elysia'
import { jwt } from '@elysiajs/jwt'
import type { Config } from '../config'
import { forbidden, unauthorized } from '../lib/errors'
import type { AuthService, PublicUser } from './service'

export const bearer = (header: string | undefined) => {
  const match = header?.match(/^Bearer\s+(\S+)$/i)
  return match?.[1]
}

type Verifier = { verify(token: string): Promise<false | { sub?: string }> }

export function authGuard(config: Config, auth: AuthService) {
  /** The user behind an access token, or null (bad signature, expired, account gone). */
  async function userFromAccessToken(jwt: Verifier, token: string | undefined): Promise<PublicUser | null> {
    if (!token) return null
    const payload = await jwt.verify(token)
    if (!payload || typeof payload.sub !== 'string') return null
    return auth.userForToken(payload.sub) ?? null
  }

  const admins = new WeakMap<Request, PublicUser>()

  return new Elysia({ name: 'auth-guard' })
    .use(jwt({ name: 'accessJwt', secret: config.jwtSecret, exp: `${config.accessTokenTtlSec}s` }))
    .derive({ as: 'scoped' }, ({ accessJwt }) => ({
      /** Signs a short-lived access token for a user id. */
      signAccess: (userId: string) => accessJwt.sign({ sub: userId }),
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
