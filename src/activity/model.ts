import { t } from 'elysia'
import { ACTIVITY_PROTOCOLS, ACTIVITY_STATUSES, type ActivityProtocol } from '../content/activity'
import type { Endpoint } from '../money'

// The content module names exactly the endpoints the usage rows record (a compile-time check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export const PROTOCOLS_MATCH: Same<Endpoint, ActivityProtocol> = true

/** An optional query value out of a list (not UnionEnum: an optional UnionEnum defaults to its first value). */
const oneOf = <V extends string>(values: readonly V[], error: string) =>
  t.Optional(
    t.Union(
      values.map((v) => t.Literal(v)),
      { error },
    ),
  )

export const MAX_PAGE = 200

const Filters = {
  keyId: t.Optional(t.String({ maxLength: 64, description: 'Только запросы с этим API-ключом; web — запросы из веб-сессии (Playground)' })),
  model: t.Optional(t.String({ maxLength: 200, description: 'Модель, которая ответила' })),
  status: oneOf(ACTIVITY_STATUSES, 'status должен быть success, error или cancelled'),
  protocol: oneOf(ACTIVITY_PROTOCOLS, `protocol должен быть одним из: ${ACTIVITY_PROTOCOLS.join(', ')}`),
  userId: t.Optional(t.String({ maxLength: 64, description: 'В команде: только запросы этого участника' })),
  from: t.Optional(t.String({ format: 'date-time', error: 'from должен быть датой в формате ISO 8601', description: 'С этого момента включительно' })),
  to: t.Optional(t.String({ format: 'date-time', error: 'to должен быть датой в формате ISO 8601', description: 'До этого момента, не включая его' })),
  requestId: t.Optional(t.String({ maxLength: 128, description: 'x-request-id запроса' })),
}

export const ActivityQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50, error: `limit должен быть целым числом от 1 до ${MAX_PAGE}` })),
  cursor: t.Optional(t.String({ maxLength: 200, description: 'nextCursor предыдущей страницы' })),
  ...Filters,
})

export const ActivityExportQuery = t.Object({ ...Filters, format: t.Optional(t.Literal('csv', { error: 'Поддерживается только format=csv' })) })

export const ActivityParams = t.Object({ id: t.String({ maxLength: 64 }) })

const Nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S, description?: string) => t.Union([s, t.Null()], description ? { description } : {})

/** What the list shows of a request; the detail adds how it was priced and timed. */
const ItemFields = {
  id: t.String(),
  at: t.String({ format: 'date-time', description: 'Когда запрос завершился' }),
  model: t.String({ description: 'Модель, которая ответила' }),
  requestedModel: t.String({ description: 'Модель, указанная в запросе' }),
  protocol: t.UnionEnum([...ACTIVITY_PROTOCOLS]),
  status: t.UnionEnum([...ACTIVITY_STATUSES]),
  error: Nullable(t.String()),
  costRub: t.Number({ description: 'Списано, рубли' }),
  costMicros: t.Integer({ description: 'Списано, микрорубли (1 ₽ = 1 000 000)' }),
  keyId: Nullable(t.String(), 'null — запрос из веб-сессии (Playground)'),
  keyName: Nullable(t.String(), 'null — запрос из веб-сессии (keyId тоже null); ключа больше нет — его название с пометкой «(удалён)», keyId null'),
  userId: t.String({ description: 'Кто сделал запрос (в команде — участник)' }),
  email: Nullable(t.String()),
  promptTokens: t.Integer(),
  completionTokens: t.Integer(),
  totalTokens: t.Integer(),
  images: Nullable(t.Integer(), 'Сгенерировано изображений'),
  audioSeconds: Nullable(t.Integer(), 'Распознавание речи: секунд записи'),
  characters: Nullable(t.Integer(), 'Озвучка: символов текста'),
  latencyMs: t.Integer({ description: 'Длительность запроса, мс' }),
  stream: t.Boolean(),
}

export const ActivityItem = t.Object(ItemFields, { title: 'ActivityItem' })

export const ActivityPage = t.Object(
  {
    items: t.Array(ActivityItem, { description: 'Новые сверху' }),
    nextCursor: Nullable(t.String(), 'Курсор следующей страницы; null — это последняя'),
  },
  { title: 'ActivityPage' },
)

export const ActivityDetail = t.Object(
  {
    ...ItemFields,
    requestId: Nullable(t.String(), 'x-request-id, который получил клиент'),
    generationId: Nullable(t.String(), 'ID генерации у провайдера моделей'),
    responseId: Nullable(t.String(), 'ID ответа, который видел клиент (msg_…, resp_…), если он другой'),
    upstream: t.String({ description: 'Кто ответил: primary (основной провайдер), fallback (резервный) или id провайдера из UPSTREAMS_FILE' }),
    upstreamCostUsd: Nullable(t.String(), 'Стоимость у провайдера, USD; null — провайдер её не сообщил (тогда — по ценам модели)'),
    upstreamCostRub: Nullable(t.String(), 'Стоимость у провайдера, выставляющего счёт в рублях (сообщённая или по его ценам за токены); null — у остальных'),
    rate: Nullable(t.String(), 'Курс USD/RUB, по которому посчитан запрос'),
    markup: Nullable(t.String(), 'Наценка (множитель)'),
    formulaMicros: Nullable(t.Integer(), 'Стоимость у провайдера × курс × наценка, округлённая вверх до микрорубля'),
    holdMicros: Nullable(t.Integer(), 'Зарезервировано до ответа, микрорубли'),
    releasedMicros: Nullable(t.Integer(), 'Возвращено из резерва после расчёта, микрорубли'),
    uncoveredMicros: t.Integer({ description: 'Не списано сверх резерва или баланса, микрорубли' }),
    ledger: Nullable(
      t.Object({
        id: t.String(),
        amountMicros: t.Integer({ description: 'Со знаком: списание отрицательное' }),
        balanceAfterMicros: Nullable(t.Integer(), 'null — роль в команде не видит историю баланса'),
        at: t.String({ format: 'date-time' }),
      }),
      'Операция списания в истории баланса; null — ничего не списано',
    ),
    ttftMs: Nullable(t.Integer(), 'Потоковые ответы: время до первого токена, мс'),
  },
  { title: 'ActivityDetail' },
)

export const ActivityFilters = t.Object(
  {
    keys: t.Array(t.Object({ id: t.String(), name: t.String() }), { description: 'Ключи аккаунта (в команде — видимые роли), по названию' }),
    models: t.Array(t.String(), { description: 'Модели, к которым были запросы' }),
    members: t.Array(t.Object({ userId: t.String(), email: t.String() }), { description: 'В команде — участники, делавшие запросы (тем, кто видит запросы всех)' }),
  },
  { title: 'ActivityFilters' },
)
