import { sql } from 'drizzle-orm'
import { Elysia } from 'elysia'
import pkg from '../../package.json'
import type { Config } from '../config'
import type { Db } from '../db/client'
import { selectRows } from '../db/sql'
import { envelope, errors, ok } from '../lib/http'
import type { Mailer } from '../mail/service'
import { Health } from './model'

export function systemRoutes(config: Config, db: Db, mailer: Mailer) {
  const started = Date.now()
  return new Elysia({ name: 'system', prefix: '/api', detail: { tags: ['Система'] } }).get(
    '/health',
    async () => {
      await selectRows(db, sql`select 1 as ok`) // throws (→ 500) if the database is unusable
      return ok({
        status: 'ok' as const,
        version: pkg.version,
        uptimeSec: Math.floor((Date.now() - started) / 1000),
        upstream: config.openrouterApiKey ? ('openrouter' as const) : ('demo' as const),
        mail: mailer.mode,
        payments: config.yookassaShopId ? ('yookassa' as const) : ('test' as const),
        testPaymentsBanner: config.testPaymentsBanner,
        emailVerification: config.requireEmailVerification,
      })
    },
    { response: { 200: envelope(Health), ...errors(500) }, detail: { summary: 'Проверка работоспособности' } },
  )
}
