// Composes the feature plugins into the one application. Used by src/index.ts and by tests.
import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import type { Config } from './config'
import type { Db } from './db/client'
import type { Mailer } from './mail/service'
import { errorHandler } from './lib/http'
import { authService } from './auth/service'
import { authGuard } from './auth/guard'
import { authRoutes } from './auth'
import { billingRoutes } from './billing'
import { systemRoutes } from './system'
import { spaRoutes } from './spa'
import pkg from '../package.json'

export type AppDeps = { config: Config; db: Db; mailer: Mailer }

export function createApp({ config, db, mailer }: AppDeps) {
  const auth = authService({ db, config, mailer })
  const guard = authGuard(config, auth)
  return new Elysia()
    .use(errorHandler)
    .onRequest(({ set }) => {
      set.headers['x-content-type-options'] = 'nosniff'
      set.headers['referrer-policy'] = 'strict-origin-when-cross-origin'
      set.headers['x-frame-options'] = 'DENY'
    })
    .use(
      openapi({
        path: '/api/docs',
        specPath: '/api/openapi.json',
        documentation: {
          info: {
            title: 'AI Gateway API',
            version: pkg.version,
            description: 'Аккаунты, баланс и OpenAI-совместимый шлюз. Ответы /api: `{success, data}` или `{success:false, error}`.',
          },
          components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        },
        exclude: { paths: ['/*', '/assets/*'] },
        // Absolute, because the UI page itself lives under /api/ (a relative URL would double it).
        scalar: { url: '/api/openapi.json' },
      }),
    )
    .use(systemRoutes(config, db, mailer))
    .use(authRoutes(config, auth, guard))
    .use(billingRoutes(db, guard))
    .use(spaRoutes())
}

export type App = ReturnType<typeof createApp>
