// Entry: config → database + migrations → app → listen → cron; stops gracefully on SIGTERM/SIGINT.
import { cron, Patterns } from '@elysiajs/cron'
import { ConfigError, loadConfig, type Config } from './config'
import { openDatabase, runMigrations } from './db/client'
import { createMailer } from './mail/service'
import { createApp } from './app'
import { purgeExpired } from './system/housekeeping'

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

const { sqlite, db } = openDatabase(config.databaseUrl)
runMigrations(db)
const mailer = createMailer(config)

const app = createApp({ config, db, mailer })
  .use(cron({ name: 'housekeeping', pattern: Patterns.EVERY_HOUR, run: () => purgeExpired(db) }))
  .listen({ hostname: config.host, port: config.port })

const port = app.server!.port
console.log(`[server] listening on http://${config.host}:${port} (public URL ${config.publicUrl})`)
console.log(`[server] database ${config.databaseUrl}; mail ${mailer.mode === 'smtp' ? 'via SMTP' : `to ${config.dataDir}/outbox`}`)
if (!config.openrouterApiKey) console.log('[server] upstream: DEMO mode (no OPENROUTER_API_KEY) — replies are generated locally')
if (config.adminEmails.length === 0) console.log('[server] no ADMIN_EMAILS set: nobody has the admin role')

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  console.log(`[server] ${signal}: finishing in-flight requests and stopping`)
  // In-flight requests get 10 s to finish; then connections are closed.
  const force = setTimeout(() => app.server?.stop(true), 10_000)
  await app.stop()
  clearTimeout(force)
  for (const job of Object.values(app.store.cron ?? {})) (job as { stop(): void }).stop()
  sqlite.close()
  console.log('[server] stopped')
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
