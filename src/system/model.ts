import { t } from 'elysia'

/** GET /api/health: how this installation runs (the SPA labels the demo upstream and test payments). */
export const Health = t.Object({
  status: t.Literal('ok'),
  version: t.String(),
  uptimeSec: t.Integer(),
  upstream: t.UnionEnum(['demo', 'openrouter'], { description: 'demo — встроенная демо-модель' }),
  mail: t.UnionEnum(['smtp', 'outbox']),
  payments: t.UnionEnum(['test', 'yookassa']),
  testPaymentsBanner: t.Boolean({ description: 'ALLOW_TEST_PAYMENTS: каждая страница предупреждает, что оплата тестовая' }),
  emailVerification: t.Boolean({ description: 'Приветственный бонус начисляется после подтверждения e-mail' }),
  database: t.Object({ kind: t.UnionEnum(['SQLite', 'PostgreSQL']), status: t.Literal('ok') }, { description: 'Хранилище; когда оно не отвечает, ответ — 503' }),
})
