import { Elysia } from 'elysia'
import pkg from '../../package.json'
import type { Config } from '../config'
import type { Db } from '../db/client'
import { checkDatabase, DATABASE_NAME } from '../db/outage'
import { envelope, errors, ok } from '../lib/http'
import type { Mailer } from '../mail/service'
import { Health } from './model'

export function systemRoutes(config: Config, db: Db, mailer: Mailer) {
  const started = Date.now()
  return new Elysia({ name: 'system', prefix: '/api', detail: { tags: ['Система'] } }).get(
    '/health',
    async ({ set }) => {
      // Within the query deadline: a frozen database must not hang the health check either.
      try {
        await checkDatabase(db)
      } catch {
        set.status = 503
        set.headers['retry-after'] = '5'
        return { success: false as const, error: `База данных (${DATABASE_NAME}) недоступна` }
      }
      return ok({
        status: 'ok' as const,
        version: pkg.version,
        uptimeSec: Math.floor((Date.now() - started) / 1000),
        upstream: config.openrouterApiKey ? ('openrouter' as const) : ('demo' as const),
        mail: mailer.mode,
        payments: config.yookassaShopId ? ('yookassa' as const) : ('test' as const),
        testPaymentsBanner: config.testPaymentsBanner,
        emailVerification: config.requireEmailVerification,
        database: { kind: DATABASE_NAME, status: 'ok' as const },
      })
    },
    { response: { 200: envelope(Health), ...errors(500, 503) }, detail: { summary: 'Проверка работоспособности', description: '503 — база данных не отвечает (названа в сообщении).' } },
  )
}
