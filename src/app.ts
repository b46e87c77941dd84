// Builds the services once and composes the feature plugins into the one application.
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
import { keysService } from './keys/service'
import { keysRoutes } from './keys'
import { createUpstreamClient } from './upstream/client'
import { createRateProvider } from './catalog/rate'
import { createCatalog } from './catalog/service'
import { estimateRoutes, gatewayRoutes } from './gateway'
import { v1Protocol } from './gateway/protocol'
import { systemRoutes } from './system'
import { spaRoutes } from './spa'
import { paymentsService } from './payments/service'
import { refundsService } from './payments/refunds'
import { paymentsRoutes, refundAdminRoutes } from './payments'
import { lowBalanceMailer } from './billing/alerts'
import { blogService } from './blog/service'
import { autopostService } from './blog/autopost'
import { blogAdminRoutes, blogImageRoutes, blogRoutes } from './blog'
import { adminService } from './admin/service'
import { adminRoutes } from './admin'
import { uploadsService } from './uploads/service'
import { uploadsRoutes } from './uploads'
import { chatsService } from './chats/service'
import { chatsRoutes } from './chats'
import { createImageStore } from './gateway/files'
import pkg from '../package.json'

export function createServices(config: Config, db: Db, mailer: Mailer) {
  const upstream = createUpstreamClient(config)
  const rates = createRateProvider(config, db, upstream.mode === 'demo')
  const catalog = createCatalog(db, upstream)
  const auth = authService({ db, config, mailer })
  const keys = keysService(db)
  const payments = paymentsService({ db, config })
  const refunds = refundsService(db)
  const notifyLowBalance = lowBalanceMailer(config, mailer)
  const blog = blogService(db)
  const autopost = autopostService({ config, db, upstream, catalog, rates })
  const admin = adminService({ db, auth, upstream, rates, blog })
  const uploads = uploadsService(config, db)
  const chats = chatsService(db, uploads, createImageStore(config))
  return { config, db, mailer, upstream, rates, catalog, auth, keys, payments, refunds, notifyLowBalance, blog, autopost, admin, uploads, chats }
}

export type Services = ReturnType<typeof createServices>

export function createApp(s: Services) {
  const guard = authGuard(s.config, s.auth)
  return new Elysia()
    .use(errorHandler)
    .use(v1Protocol)
    .onRequest(({ set }) => {
      set.headers['x-content-type-options'] = 'nosniff'
      set.headers['referrer-policy'] = 'strict-origin-when-cross-origin'
      set.headers['x-frame-options'] = 'DENY'
    })
    .use(
      openapi({
        // The document only: the UI at /api/docs is served from our origin by src/spa/api-docs.ts
        // (the plugin's own page loads Scalar from a CDN).
        provider: null,
        specPath: '/api/openapi.json',
        documentation: {
          info: {
            title: 'AI Gateway API',
            version: pkg.version,
            description:
              'Аккаунты, баланс и OpenAI-совместимый шлюз. Ответы /api: `{success, data}` или `{success:false, error}`; ответы /v1 — в форматах OpenAI.',
          },
          components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT или API-ключ sk-gw-…' } } },
        },
        exclude: { paths: ['/*', '/assets/*'] },
      }),
    )
    .use(systemRoutes(s.config, s.db, s.mailer))
    .use(authRoutes(s.config, s.auth, guard))
    .use(keysRoutes(s.keys, guard))
    .use(billingRoutes(s.db, guard))
    .use(paymentsRoutes(s.config, s.payments, s.refunds, guard))
    .use(refundAdminRoutes(s.refunds, guard))
    .use(adminRoutes(s.admin, guard))
    .use(blogRoutes(s.config, s.blog))
    .use(blogAdminRoutes(s.blog, s.autopost, guard))
    .use(blogImageRoutes(s.autopost))
    .use(chatsRoutes(s.chats, guard))
    .use(uploadsRoutes(s.uploads, s.auth, guard))
    .use(gatewayRoutes(s, guard))
    .use(estimateRoutes(s, guard))
    .use(spaRoutes(s))
}

export type App = ReturnType<typeof createApp>
