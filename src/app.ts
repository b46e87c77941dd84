// Builds the services once and composes the feature plugins into the one application.

import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import pkg from '../package.json'
import { activityRoutes } from './activity'
import { activityService } from './activity/service'
import { adminRoutes } from './admin'
import { adminService } from './admin/service'
import { authRoutes } from './auth'
import { authGuard, bearer } from './auth/guard'
import { authService, type StoredFiles } from './auth/service'
import { billingRoutes } from './billing'
import { blogAdminRoutes, blogImageRoutes, blogRoutes } from './blog'
import { autopostService } from './blog/autopost'
import { blogService } from './blog/service'
import { createRateProvider } from './catalog/rate'
import { createCatalog } from './catalog/service'
import { chatsRoutes } from './chats'
import { chatPictures, chatsService } from './chats/service'
import type { Config } from './config'
import type { Db } from './db/types'
import { estimateRoutes, gatewayRoutes } from './gateway'
import { forgetCallers } from './gateway/callers'
import { createImageStore } from './gateway/files'
import { v1Protocol } from './gateway/protocol'
import { WS_SERVER_OPTIONS } from './gateway/ws'
import { invoicesAdminRoutes, invoicesRoutes } from './invoices'
import { invoicesService } from './invoices/service'
import { MAX_STATEMENT_BYTES } from './invoices/statement'
import { keysRoutes } from './keys'
import { keysService } from './keys/service'
import { type BodyFamily, bodyLimits, docsSeeThroughBodyReaders, KB, MB, V1_BODY_LIMIT } from './lib/body'
import { unauthorized } from './lib/errors'
import { errorHandler } from './lib/http'
import type { Mailer } from './mail/service'
import { chargesApplied, setClockFile } from './money'
import { oauthRoutes } from './oauth'
import { oauthService } from './oauth/service'
import { paymentsRoutes, refundAdminRoutes, savedPaymentRoutes } from './payments'
import { autoTopupService, methodRemoved } from './payments/auto-topup'
import { paymentMethodsService } from './payments/methods'
import { refundsService } from './payments/refunds'
import { paymentsService } from './payments/service'
import { promoRoutes } from './promo'
import { promoService, setReferralBonus } from './promo/service'
import { spaRoutes } from './spa'
import { statusAdminRoutes, statusRoutes } from './status'
import { statusService } from './status/service'
import { systemRoutes } from './system'
import { teamsRoutes } from './teams'
import { createNotifier } from './teams/notify'
import { teamsService } from './teams/service'
import { uploadsRoutes } from './uploads'
import { MAX_UPLOAD_BYTES, UPLOAD_MESSAGES, uploadsService } from './uploads/service'
import { createUpstreams, firstRouterClient } from './upstream/pool'

export async function createServices(config: Config, db: Db, mailer: Mailer) {
  // Budget periods read "now" here: the real clock, or a test clock outside production.
  setClockFile(config.testClockFile)
  // Payments and invoices credit the referral bonus inside their own units (promo/service.ts).
  setReferralBonus(config.referralBonusRub)
  const upstream = firstRouterClient(config)
  // Requests to /v1 go through these: the routers and the other upstreams, in the order they are tried.
  const upstreams = createUpstreams(config, upstream)
  const rates = await createRateProvider(config, db, upstream.mode === 'demo')
  const catalog = await createCatalog(db, upstream, config.upstreams)
  const uploads = uploadsService(config, db)
  const images = createImageStore(config, db, chatPictures(db))
  // Deleting an account deletes its files: their rows go in the deleting unit, the bytes right after.
  const removeStored = (gone: StoredFiles) => {
    uploads.removeStored(gone.uploads)
    images.removeStored(gone.images)
  }
  const auth = authService({ db, config, mailer, files: { claim: images.claimNamedBy, removeStored } })
  const keys = keysService(db)
  const payments = paymentsService({ db, config })
  // Saved cards and auto top-up (issue 37): it hears every settlement that charged an account with it on.
  const paymentMethods = paymentMethodsService(db, { removed: methodRemoved })
  const autoTopup = autoTopupService({ db, config, mailer, payments })
  const refunds = refundsService(db)
  const teams = teamsService({ db, config, mailer })
  const notify = createNotifier({ db, config, mailer })
  const invoices = invoicesService({ db, config, mailer, teams })
  const blog = blogService(db)
  const autopost = autopostService({ config, db, upstream, catalog, rates })
  const admin = adminService({ db, auth, upstream, rates, blog, teams, keys })
  const chats = chatsService(db, uploads, images)
  const status = statusService({ db, config, upstreams })
  return {
    config,
    db,
    mailer,
    upstream,
    upstreams,
    rates,
    catalog,
    auth,
    keys,
    payments,
    paymentMethods,
    autoTopup,
    refunds,
    teams,
    notify,
    invoices,
    blog,
    autopost,
    admin,
    uploads,
    images,
    chats,
    status,
  }
}

export type Services = Awaited<ReturnType<typeof createServices>>

/**
 * The larger bodies belong to signed-in routes: nobody makes us read megabytes only to hear "sign in"
 * (the token itself is checked by the route, after the body).
 */
const signedIn = (request: Request) => {
  if (!bearer(request.headers.get('authorization') ?? undefined)) throw unauthorized()
}

/**
 * How large a body each route family takes, checked before it is read (lib/body.ts). The /api JSON is
 * small: the largest legitimate bodies are a YooKassa notification (a few KB) and, under /api/chats, a
 * message of up to 100 000 characters (up to 6 bytes each once JSON-escaped). The Playground's estimate
 * gets the very body it then sends to /v1; an upload is a 20 MB file in its multipart framing.
 */
const BODY_FAMILIES: BodyFamily[] = [
  { prefix: '/api/upload', limit: MAX_UPLOAD_BYTES + 64 * KB, message: UPLOAD_MESSAGES.tooLarge, before: signedIn },
  { prefix: '/api/playground/estimate', limit: V1_BODY_LIMIT, before: signedIn },
  { prefix: '/api/chats', limit: 1 * MB, before: signedIn },
  { prefix: '/api/admin/bank-statements', limit: MAX_STATEMENT_BYTES + 64 * KB, before: signedIn },
]
const DEFAULT_BODY_LIMIT = { limit: 64 * KB }
/**
 * Bun's own limit, a backstop for bodies no JS reads: twice the largest family, so that everything up to
 * it still gets our answer in our shape — and /v1 its 401 before its 413.
 */
export const MAX_REQUEST_BODY = 2 * V1_BODY_LIMIT

/** The routes that read a balance, a charge or a usage row: /api's of accounts, money and teams, and /v1's lookups of a generation and of the key. */
const MONEY_READS = ['/api/billing', '/api/activity', '/api/auth', '/api/teams', '/api/admin', '/api/payments', '/api/playground', '/v1/generation', '/v1/key']
const showsMoney = (path: string) => MONEY_READS.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))

/** After a request that may change state through /api, every caller this instance cached is forgotten. */
function forgetAfterChange(request: Request) {
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS' && new URL(request.url).pathname.startsWith('/api/')) forgetCallers()
}

export function createApp(s: Services) {
  const guard = authGuard(s.config, s.auth, s.teams.acting, s.keys.managementKey)
  return (
    new Elysia({ serve: { maxRequestBodySize: MAX_REQUEST_BODY }, websocket: WS_SERVER_OPTIONS })
      .use(errorHandler)
      // /v1 reads its own bodies, after the caller's key is checked (gateway/auth.ts).
      .use(bodyLimits(BODY_FAMILIES, DEFAULT_BODY_LIMIT, ['/v1']))
      .use(v1Protocol)
      .onRequest(({ set }) => {
        set.headers['x-content-type-options'] = 'nosniff'
        set.headers['referrer-policy'] = 'strict-origin-when-cross-origin'
        set.headers['x-frame-options'] = 'DENY'
      })
      // A key, a membership or an account may have changed: /v1 reads its callers afresh (gateway/callers.ts).
      .onAfterHandle({ as: 'global' }, ({ request }) => forgetAfterChange(request))
      // Reads that show money see the charges of answers this instance already sent (money/reserves.ts).
      .onBeforeHandle({ as: 'global' }, async ({ request }) => {
        if (request.method === 'GET' && showsMoney(new URL(request.url).pathname)) await chargesApplied(s.db)
      })
      .use(
        // The routes' body readers (lib/body.ts) are transparent to the document: request bodies stay listed.
        docsSeeThroughBodyReaders(
          openapi({
            // The document only: the UI at /api/docs is served from our origin by src/spa/api-docs.ts
            // (the plugin's own page loads Scalar from a CDN).
            provider: null,
            specPath: '/api/openapi.json',
            documentation: {
              info: {
                title: 'AI Gateway API',
                version: pkg.version,
                description: 'Аккаунты, баланс и OpenAI-совместимый шлюз. Ответы /api: `{success, data}` или `{success:false, error}`; ответы /v1 — в форматах OpenAI.',
              },
              components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT или API-ключ sk-gw-…' } } },
            },
            exclude: { paths: ['/*', '/assets/*'] },
          }),
        ),
      )
      .use(systemRoutes(s.config, s.db, s.mailer))
      .use(statusRoutes(s.status))
      .use(statusAdminRoutes(s.status, guard))
      .use(authRoutes(s.config, s.auth, guard))
      .use(teamsRoutes(s.config, s.teams, guard))
      .use(keysRoutes(s.keys, guard))
      .use(oauthRoutes(s.config, oauthService({ db: s.db, config: s.config, keys: s.keys }), guard))
      .use(billingRoutes(s.db, guard))
      .use(activityRoutes(activityService(s.db), guard))
      .use(paymentsRoutes(s.config, s.payments, s.refunds, guard))
      .use(savedPaymentRoutes(s.paymentMethods, s.autoTopup, guard))
      .use(refundAdminRoutes(s.refunds, guard))
      .use(promoRoutes(promoService(s), guard))
      .use(invoicesRoutes(s.config, s.invoices, guard))
      .use(invoicesAdminRoutes(s.invoices, guard))
      .use(adminRoutes(s.admin, guard))
      .use(blogRoutes(s.config, s.blog))
      .use(blogAdminRoutes(s.blog, s.autopost, guard))
      .use(blogImageRoutes(s.autopost))
      .use(chatsRoutes(s.chats, guard))
      .use(uploadsRoutes(s.uploads, s.auth, guard))
      .use(gatewayRoutes(s, guard))
      .use(estimateRoutes(s, guard))
      .use(spaRoutes(s))
  )
}

export type App = ReturnType<typeof createApp>
