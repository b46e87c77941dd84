import { t } from 'elysia'
import { UPSTREAM_NAMES } from '../upstream/names'

const State = t.UnionEnum(['operational', 'degraded', 'outage'], { description: 'operational — работает, degraded — частичный сбой, outage — не работает' })

/** GET /api/status: the same figures /status shows. */
export const StatusBody = t.Object({
  status: State,
  updatedAt: t.String({ description: 'Когда состояние было проверено (ISO 8601)' }),
  components: t.Array(t.Object({ id: t.String(), name: t.String(), state: State, note: t.Union([t.String(), t.Null()]) })),
  incidents: t.Array(
    t.Object({
      upstream: t.UnionEnum(UPSTREAM_NAMES),
      what: t.String({ description: 'Что отказало (по-русски)' }),
      startedAt: t.String(),
      endedAt: t.Union([t.String(), t.Null()], { description: 'null — сбой продолжается' }),
      durationSec: t.Integer(),
    }),
    { description: 'Сбои провайдеров за 90 дней, новые сверху; записи всех экземпляров сервиса объединены' },
  ),
  days: t.Array(
    t.Object({
      date: t.String({ description: 'День по Москве, YYYY-MM-DD' }),
      uptime: t.Number({ description: 'Доля времени, когда модели отвечали (0…1); за сегодня — от прошедшей части дня' }),
      downSec: t.Integer(),
    }),
    { description: '90 дней, старые первыми' },
  ),
})

/** GET /api/admin/upstreams: the circuit breakers of the instance that answers. */
export const UpstreamsBody = t.Object({
  instanceId: t.String(),
  upstreams: t.Array(
    t.Object({
      name: t.UnionEnum(UPSTREAM_NAMES),
      label: t.String(),
      host: t.String(),
      models: t.Union([t.Integer(), t.Null()], { description: 'Моделей в каталоге резервного провайдера (null — не прочитан или это основной)' }),
      state: t.UnionEnum(['closed', 'open', 'half-open'], { description: 'closed — запросы идут, open — не отправляются, half-open — пробные запросы' }),
      since: t.String(),
      windowSec: t.Integer({ description: 'Скользящее окно предохранителя, секунд' }),
      requests: t.Integer({ description: 'Запросов в скользящем окне' }),
      failures: t.Integer(),
      retryAfterSec: t.Integer(),
      recentErrors: t.Array(t.Object({ at: t.String(), reason: t.String() }), { description: 'Последние ошибки, новые сверху' }),
    }),
  ),
})

export type Status = typeof StatusBody.static
