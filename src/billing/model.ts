import { t } from 'elysia'
import { LEDGER_TYPES, USAGE_STATUSES } from './schema'

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

export const TransactionsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 50, error: 'limit должен быть целым числом от 1 до 500' })),
})

export const UsageQuery = t.Object({
  startDate: t.Optional(t.String({ format: 'date-time', error: 'startDate должен быть датой в формате ISO 8601' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 50, error: 'limit должен быть целым числом от 1 до 500' })),
  apiKeyId: t.Optional(t.String({ maxLength: 64 })),
  model: t.Optional(t.String({ maxLength: 200 })),
})

export const ExportQuery = t.Object({
  startDate: UsageQuery.properties.startDate,
  apiKeyId: UsageQuery.properties.apiKeyId,
  model: UsageQuery.properties.model,
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
    filters: t.Object({
      apiKeys: t.Array(t.Object({ id: t.String(), name: t.String() })),
      models: t.Array(t.String()),
    }),
    logs: t.Array(
      t.Object({
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
        durationMs: t.Integer(),
        createdAt: t.String({ format: 'date-time' }),
      }),
    ),
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
