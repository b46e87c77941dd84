import { t } from 'elysia'

const State = t.UnionEnum(['operational', 'degraded', 'outage'], { description: 'operational — работает, degraded — частичный сбой, outage — не работает' })

/** GET /api/status: the same figures /status shows. */
export const StatusBody = t.Object({
  status: State,
  updatedAt: t.String({ description: 'Когда состояние было проверено (ISO 8601)' }),
  components: t.Array(t.Object({ id: t.String(), name: t.String(), state: State, note: t.Union([t.String(), t.Null()]) })),
  incidents: t.Array(
    t.Object({
      upstream: t.String({ description: 'Провайдер: primary, fallback или id из UPSTREAMS_FILE' }),
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
      name: t.String({ description: 'Провайдер: primary, fallback или id из UPSTREAMS_FILE' }),
      label: t.String(),
      host: t.String(),
      kind: t.UnionEnum(['openrouter', 'openai', 'gigachat', 'yandex'], { description: 'Протокол провайдера' }),
      residency: t.UnionEnum(['ru', 'foreign'], { description: 'Где провайдер обрабатывает данные' }),
      tokenExpiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'GigaChat: когда истекает токен OAuth (null — ещё не получен или это не GigaChat)' }),
      models: t.Union([t.Integer(), t.Null()], {
        description: 'Моделей у провайдера: из его списка или из UPSTREAMS_FILE (null — список ещё не прочитан, или это первый роутер: его список — каталог)',
      }),
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
