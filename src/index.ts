// Entry: config → database + migrations → app → listen → cron; stops gracefully on SIGTERM/SIGINT.
import { cron, Patterns } from '@elysiajs/cron'
import type { Elysia } from 'elysia'
import { createApp, createServices } from './app'
import { type Config, ConfigError, loadConfig } from './config'
import { openDatabase, runMigrations, startCheckpointer } from './db/client'
import { DIALECT } from './db/dialect'
import { INSTANCE_ID } from './db/instance'
import { watchDatabase } from './db/outage'
import { generationSettler } from './gateway/reconcile'
import { purgeExpiredResponses } from './gateway/stored-responses'
import { closeSockets } from './gateway/ws'
import { createMailer } from './mail/service'
import { chargesApplied, releaseStaleHolds, startHoldLeases, stopReserves } from './money'
import { purgeExpired } from './system/housekeeping'
import { startWebhookWorker } from './teams/webhooks'

let config: Config
try {
  config = loadConfig()
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(`[config] ${e.message}`)
    process.exit(1)
  }
  throw e
}

const database = openDatabase(config.databaseUrl)
const { db } = database
await runMigrations(db)
watchDatabase(db) // an outage is logged once, and its end when this probe answers again
const stopCheckpointer = startCheckpointer(db, config.databaseUrl)
const mailer = createMailer(config)

const services = await createServices(config, db, mailer)
const { catalog, rates } = services

// Renews the leases of this instance's holds and gives back those of instances that died (a crash
// of this very process included, once its lease lapses): never a live instance's reservations.
// A dead instance's hold whose answer the router had named is charged from the router's record.
const settler = generationSettler(services)
const stopHoldLeases = startHoldLeases(db, settler)
// Team webhooks wait in an outbox table: any instance delivers them (each claims a delivery first).
const stopWebhooks = startWebhookWorker(db, config.allowPrivateWebhooks)

/** Logs instead of throwing: a failed sync keeps the last good catalogue and rate. */
const syncCatalog = () =>
  catalog.sync().then(
    (n) => console.log(`[catalog] synced ${n} models from the ${services.upstream.mode} upstream`),
    (e) => console.error(`[catalog] sync failed, keeping ${catalog.list().length} models: ${(e as Error).message}`),
  )
// First start: wait for a catalogue and a rate; later starts serve the stored ones and refresh behind.
const firstRun = Promise.all([syncCatalog(), rates.refresh()])
if (catalog.isEmpty() || !rates.current()) await firstRun

const STALE_HOLD_MS = 2 * 3600 * 1000
// Typed as a plain Elysia: the full route table's type is too deep for tsc where only start and stop matter.
const app = (createApp(services) as unknown as Elysia)
  .use(cron({ name: 'housekeeping', pattern: Patterns.EVERY_HOUR, run: () => void purgeExpired(db).catch((e) => console.error(`[housekeeping] failed: ${(e as Error).message}`)) }))
  .use(cron({ name: 'catalog-sync', pattern: '7 * * * *', run: () => void syncCatalog() }))
  .use(
    cron({
      name: 'stored-responses',
      pattern: '27 * * * *',
      run: () => void purgeExpiredResponses(db).catch((e) => console.error(`[responses] retention purge failed: ${(e as Error).message}`)),
    }),
  )
  .use(cron({ name: 'exchange-rate', pattern: '17 * * * *', run: () => void rates.refresh() }))
  .use(
    cron({
      name: 'stale-holds',
      pattern: '*/5 * * * *',
      run: () =>
        void releaseStaleHolds(db, new Date(Date.now() - STALE_HOLD_MS), settler).catch((e) => console.error(`[billing] stale-hold sweep failed: ${(e as Error).message}`)),
    }),
  )
  // Every minute: publishes when a schedule slot is due (the slot's unique run row stops double runs).
  .use(
    cron({
      name: 'autopost',
      pattern: config.autopostCron,
      run: () => void services.autopost.tick().catch((e) => console.error(`[autopost] tick failed: ${(e as Error).message}`)),
    }),
  )
  // Auto top-up (issue 37): every instance refreshes which accounts have it on; one charges those due.
  .use(
    cron({
      name: 'auto-topup',
      pattern: config.paymentReconcileCron,
      run: () => void services.autoTopup.tick().catch((e) => console.error(`[auto-topup] tick failed: ${(e as Error).message}`)),
    }),
  )
  .use(
    cron({
      name: 'payments-reconcile',
      pattern: config.paymentReconcileCron,
      run: () => void services.payments.reconcile().catch((e) => console.error(`[payments] reconciliation failed: ${(e as Error).message}`)),
    }),
  )
  .listen({ hostname: config.host, port: config.port })

const port = app.server!.port
console.log(`[server] listening on http://${config.host}:${port} (public URL ${config.publicUrl})`)
console.log(
  `[server] database ${DIALECT === 'pg' ? 'PostgreSQL' : config.databaseUrl} (instance ${INSTANCE_ID}); mail ${mailer.mode === 'smtp' ? 'via SMTP' : `to ${config.dataDir}/outbox`}`,
)
if (!config.openrouterApiKey) console.log('[server] upstream: DEMO mode (no OPENROUTER_API_KEY) — replies are generated locally')
if (!config.yookassaShopId) console.log('[server] payments: TEST mode (no YOOKASSA_SHOP_ID) — top-ups go through the built-in test payment page')
if (config.testPaymentsBanner) console.warn('[server] ALLOW_TEST_PAYMENTS=true: every page shows the test-payments banner; test top-ups are never refundable')
if (config.adminEmails.length === 0) console.log('[server] no ADMIN_EMAILS set: nobody has the admin role')

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  console.log(`[server] ${signal}: finishing in-flight requests and stopping`)
  // In-flight requests get 10 s to finish; then connections are closed.
  const force = setTimeout(() => app.server?.stop(true), 10_000)
  closeSockets() // the server's stop waits for WebSockets too
  await app.stop()
  clearTimeout(force)
  // (Read through a narrow type: the app's full store type is too deep for tsc to instantiate here.)
  for (const job of Object.values((app.store as { cron?: Record<string, { stop(): void }> }).cron ?? {})) job.stop()
  stopCheckpointer()
  // The charges of answers already sent are applied, and this instance's reserves given back.
  await chargesApplied(db)
  await stopReserves(db).catch((e) => console.error(`[billing] reserves not closed at stop: ${(e as Error).message}; the others apply and release them once the lease lapses`))
  stopHoldLeases()
  stopWebhooks()
  await database.close()
  console.log('[server] stopped')
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
