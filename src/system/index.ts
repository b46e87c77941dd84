import { Elysia } from 'elysia'
import pkg from '../../package.json'
import type { Config } from '../config'
import { checkDatabase, DATABASE_NAME } from '../db/outage'
import type { Db } from '../db/types'
import { AppError } from '../lib/errors'
import { envelope, errors, ok } from '../lib/http'
import type { Mailer } from '../mail/service'
import { Health } from './model'

export function systemRoutes(config: Config, db: Db, mailer: Mailer) {
  const started = Date.now()
  return new Elysia({ name: 'system', prefix: '/api', detail: { tags: ['Система'] } }).get(
    '/health',
    async () => {
      // Within the query deadline: a frozen database must not hang the health check either.
      try {
        await checkDatabase(db)
      } catch {
        throw new AppError(503, `База данных (${DATABASE_NAME}) недоступна`, { 'retry-after': '5' })
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
        database: { kind: DATABASE_NAME as 'SQLite' | 'PostgreSQL', status: 'ok' as const },
      })
    },
    {
      response: { 200: envelope(Health), ...errors(500, 503) },
      detail: { summary: 'Проверка работоспособности', description: '503 — база данных не отвечает (названа в сообщении).' },
    },
  )
}
