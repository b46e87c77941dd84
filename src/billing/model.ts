import { t } from 'elysia'
import { LEDGER_TYPES, USAGE_STATUSES } from '../money'

export const Balance = t.Object({
  balance: t.Number({ description: 'Баланс в рублях' }),
  lowBalanceThreshold: t.Number({ description: 'Уровень «баланс заканчивается»: около 100 типичных запросов, рубли' }),
  isLow: t.Boolean(),
  alertThreshold: t.Union([t.Number(), t.Null()], { description: 'Порог письма о низком балансе, рубли; null — письма отключены' }),
})

export const AlertsBody = t.Object({
  threshold: t.Union([t.Number(), t.Null()], { error: 'Порог должен быть числом от 1 до 1 000 000 ₽' }),
})

export const Alerts = t.Object({ alertThreshold: t.Union([t.Number(), t.Null()]) })

export const Transaction = t.Object(
  {
    id: t.String(),
    amount: t.String({ description: 'Сумма со знаком, в рублях', examples: ['+50.00', '-0.0123'] }),
    balanceAfter: t.Number({ description: 'Баланс после операции, в рублях' }),
    description: t.String(),
    type: t.UnionEnum([...LEDGER_TYPES]),
    createdAt: t.String({ format: 'date-time' }),
  },
  { title: 'Transaction' },
)

/** One request as the usage page's recent list (and the admin's user page) show it. */
export const UsageLog = t.Object(
  {
    id: t.String(),
    model: t.String(),
    promptTokens: t.Integer(),
    completionTokens: t.Integer(),
    totalTokens: t.Integer(),
    audioSeconds: t.Union([t.Integer(), t.Null()], { description: 'Распознавание речи: секунд записи; null — не голосовой запрос' }),
    characters: t.Union([t.Integer(), t.Null()], { description: 'Озвучка: символов текста; null — не голосовой запрос' }),
    cost: t.Number({ description: 'Списано, рубли' }),
    status: t.UnionEnum([...USAGE_STATUSES]),
    apiKeyId: t.Union([t.String(), t.Null()]),
    apiKeyName: t.Union([t.String(), t.Null()], { description: 'null — запрос из веб-сессии (Playground)' }),
    userId: t.String({ description: 'Кто сделал запрос (в команде — участник)' }),
    email: t.Union([t.String(), t.Null()]),
    durationMs: t.Integer(),
    createdAt: t.String({ format: 'date-time' }),
  },
  { title: 'UsageLog' },
)

export const TransactionsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 50, error: 'limit должен быть целым числом от 1 до 500' })),
})

export const UsageQuery = t.Object({
  startDate: t.Optional(t.String({ format: 'date-time', error: 'startDate должен быть датой в формате ISO 8601' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 50, error: 'limit должен быть целым числом от 1 до 500' })),
  apiKeyId: t.Optional(t.String({ maxLength: 64 })),
  model: t.Optional(t.String({ maxLength: 200 })),
  userId: t.Optional(t.String({ maxLength: 64, description: 'В команде: только запросы этого участника' })),
})

export const ExportQuery = t.Object({
  startDate: UsageQuery.properties.startDate,
  apiKeyId: UsageQuery.properties.apiKeyId,
  model: UsageQuery.properties.model,
  userId: UsageQuery.properties.userId,
  format: t.Optional(t.Literal('csv', { error: 'Поддерживается только format=csv' })),
})

const Totals = { cost: t.Number({ description: 'Рубли' }), requests: t.Integer(), tokens: t.Integer() }

export const UsageStats = t.Object(
  {
    totalCost: t.Number({ description: 'Потрачено за период, рубли' }),
    totalTokens: t.Integer(),
    totalRequests: t.Integer(),
    daily: t.Array(t.Object({ date: t.String({ description: 'День по Москве, YYYY-MM-DD' }), ...Totals }), {
      description: 'По дням периода, без пропусков, старые сначала',
    }),
    topModels: t.Array(
      t.Object({
        model: t.String(),
        ...Totals,
        audioSeconds: t.Integer({ description: 'Секунд распознанной записи (модели распознавания речи)' }),
        characters: t.Integer({ description: 'Озвученных символов (модели озвучки)' }),
      }),
      { description: 'До 10 моделей по расходам' },
    ),
    byKey: t.Array(t.Object({ apiKeyId: t.Union([t.String(), t.Null()], { description: 'null — веб-сессия (Playground)' }), name: t.String(), ...Totals }), {
      description: 'По ключам, дорогие сначала',
    }),
    byMember: t.Array(t.Object({ userId: t.String(), email: t.String(), ...Totals }), { description: 'По участникам команды (в личном аккаунте пусто)' }),
    filters: t.Object({
      apiKeys: t.Array(t.Object({ id: t.String(), name: t.String() })),
      models: t.Array(t.String()),
    }),
    logs: t.Array(UsageLog),
  },
  { title: 'UsageStats' },
)

const Paging = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, error: 'limit должен быть целым числом от 1 до 100' })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, default: 0, error: 'offset должен быть целым неотрицательным числом' })),
}

export const GroupedQuery = t.Object(Paging)

export const UsageDayParams = t.Object({
  day: t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', error: 'day должен быть датой в формате ГГГГ-ММ-ДД', description: 'День по Москве, YYYY-MM-DD' }),
})
export const UsageDayQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 100, error: 'limit должен быть целым числом от 1 до 500' })),
  offset: Paging.offset,
})

export const GroupedTransactions = t.Object(
  {
    items: t.Array(
      t.Object({
        kind: t.UnionEnum(['entry', 'usageDay'], { description: 'usageDay — списания за запросы одного дня по Москве одной строкой' }),
        id: t.String(),
        type: t.UnionEnum([...LEDGER_TYPES]),
        amount: t.String({ description: 'Сумма со знаком, в рублях' }),
        balanceAfter: t.Number({ description: 'Баланс после операции (для дня — после последнего списания), рубли' }),
        description: t.String(),
        createdAt: t.String({ format: 'date-time', description: 'Время операции (для дня — последнего списания)' }),
        day: t.Union([t.String(), t.Null()], { description: 'Для usageDay: день по Москве, YYYY-MM-DD' }),
        requests: t.Integer({ description: 'Для usageDay: число оплаченных запросов; для операции — 1' }),
      }),
    ),
    hasMore: t.Boolean({ description: 'Есть следующая страница (offset + limit)' }),
  },
  { title: 'GroupedTransactions' },
)

const PERIOD_VALUES = ['day', 'week', 'month', 'total'] as const

/** A budget as shown: the limit (null = none), its Moscow calendar period and this period's spend. */
export const Budget = t.Object(
  {
    limitRub: t.Union([t.Number(), t.Null()], { description: 'Лимит в рублях; null — без лимита' }),
    period: t.UnionEnum([...PERIOD_VALUES], { description: 'day, week (пн–вс), month (с 1-го числа) — по московскому времени; total — без сброса' }),
    spent: t.Number({ description: 'Потрачено в текущем периоде, рубли' }),
    remaining: t.Union([t.Number(), t.Null()], { description: 'Осталось до лимита, рубли; null — без лимита' }),
    resetsAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'Следующее обнуление (00:00 МСК); null для total' }),
  },
  { title: 'Budget' },
)

// Any JSON for the limit so a wrong value gets the service's Russian message, not a schema dump.
export const BudgetBody = t.Object(
  {
    limitRub: t.Any({ description: 'Лимит в рублях (больше 0, до 10 000 000) или null — снять лимит', examples: [1000, null] }),
    period: t.Optional(t.Any({ description: 'day | week | month | total (по умолчанию month)', examples: ['month'] })),
  },
  { error: 'Бюджет: передайте {limitRub, period}', description: 'Бюджет с календарным периодом по московскому времени' },
)
