import { t } from 'elysia'
import { Transaction, UsageLog } from '../billing/model'

const numOrNull = (description?: string) => t.Union([t.Number(), t.Null()], description ? { description } : {})

export const AdminStats = t.Object(
  {
    openrouter: t.Object({
      mode: t.UnionEnum(['demo', 'openrouter'], { description: 'demo — встроенная демо-модель' }),
      usage: numOrNull('Потрачено с ключа провайдера, USD'),
      limit: numOrNull('Лимит ключа, USD; null — без лимита'),
      remaining: numOrNull('Остаток лимита, USD; null — без лимита'),
      unlimited: t.Boolean({ description: 'Без лимита (оплата по факту): лимита нет или он ≥ 999999' }),
      error: t.Union([t.String(), t.Null()]),
    }),
    users: t.Object({ total: t.Integer(), newWeek: t.Integer(), newToday: t.Integer() }),
    finance: t.Object({
      totalTransactions: t.Integer({ description: 'Движений по балансам за всё время' }),
      totalBalance: t.Number({ description: 'Сумма балансов пользователей и команд, рубли' }),
      totalRevenue: t.Number({ description: 'Списано с пользователей за запросы, рубли' }),
      openrouterCost: t.Number({ description: 'Расходы у провайдера (запросы пользователей и блог), USD' }),
      providerCostRub: t.Number({ description: 'Расходы у провайдеров, выставляющих счёт в рублях, рубли' }),
      totalMargin: numOrNull('Выручка минус расходы (рублёвые — по текущему курсу), USD; null — курс неизвестен'),
      byUpstream: t.Array(
        t.Object({
          upstream: t.String({ description: 'primary, fallback или id из UPSTREAMS_FILE' }),
          label: t.String(),
          requests: t.Integer(),
          revenue: t.Number({ description: 'Списано с клиентов, рубли' }),
          costUsd: t.Number({ description: 'Расходы у провайдера в долларах' }),
          costRub: t.Number({ description: 'Расходы у провайдера в рублях' }),
          margin: numOrNull('Выручка минус расходы, рубли (долларовые — по текущему курсу); null — курс неизвестен'),
        }),
        { description: 'С начала текущего месяца (по Москве), по провайдерам' },
      ),
      usdRubRate: numOrNull('Курс, по которому посчитана маржа, ₽ за USD'),
      uncoveredCost: t.Number({ description: 'Не покрыто клиентами: стоимость запросов сверх их баланса, рубли (должно быть 0)' }),
      uncoveredRequests: t.Integer({ description: 'Запросов с непокрытой стоимостью' }),
    }),
    usage: t.Object({
      totalApiKeys: t.Integer(),
      totalRequests: t.Integer(),
      totalTokens: t.Integer(),
      totalAudioSeconds: t.Integer({ description: 'Секунд записи, распознанных за всё время' }),
      totalCharacters: t.Integer({ description: 'Символов, озвученных за всё время' }),
    }),
    blog: t.Object({ total: t.Integer(), published: t.Integer() }),
  },
  { title: 'AdminStats' },
)

export const AdminUser = t.Object(
  {
    id: t.String(),
    email: t.String(),
    role: t.UnionEnum(['user', 'admin']),
    balance: t.Number({ description: 'Рубли' }),
    held: t.Number({ description: 'Зарезервировано под выполняющиеся запросы, рубли: списать можно только balance − held' }),
    createdAt: t.String({ format: 'date-time' }),
    apiKeys: t.Integer(),
    usageLogs: t.Integer({ description: 'Запросов к API за всё время' }),
    emailVerified: t.Boolean({ description: 'Адрес подтверждён по ссылке из письма' }),
    lastActiveAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'Последний запрос к API или вход (обновление сессии); null — ни разу' }),
  },
  { title: 'AdminUser' },
)

/** GET /api/admin/users/:id — one customer: the list's line, their ledger, keys and recent requests. */
export const AdminUserDetail = t.Object(
  {
    user: AdminUser,
    transactions: t.Array(Transaction, { description: 'Последние 50 движений по балансу' }),
    keys: t.Array(
      t.Object({
        id: t.String(),
        name: t.String(),
        keyPrefix: t.String(),
        isActive: t.Boolean(),
        createdAt: t.String({ format: 'date-time' }),
        lastUsedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
      }),
    ),
    requests: t.Array(UsageLog, { description: 'Последние 20 запросов' }),
  },
  { title: 'AdminUserDetail' },
)

export const UsersQuery = t.Object({
  search: t.Optional(t.String({ maxLength: 254, error: 'Слишком длинный поисковый запрос' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 100, error: 'limit должен быть целым числом от 1 до 100' })),
})

export const UsersPage = t.Object({
  success: t.Literal(true),
  data: t.Array(AdminUser),
  pagination: t.Object({ total: t.Integer({ description: 'Найдено всего' }), limit: t.Integer() }),
})

export const UserParams = t.Object({ id: t.String({ maxLength: 64, error: 'Пользователь не найден' }) })

// Any JSON is accepted so a wrong value gets the service's Russian message, not a schema dump.
export const BalanceBody = t.Object(
  {
    amount: t.Any({ description: 'Рубли: положительная — пополнение, отрицательная — списание; по модулю до 1 000 000', examples: [500, -100] }),
    description: t.Optional(
      t.Any({
        description:
          'Причина корректировки (до 200 символов): клиент видит её в истории операций как «Корректировка администратора: <причина>»; без неё или «Admin adjustment» — «Корректировка администратора»',
        examples: ['Компенсация за сбой 12 мая', 'Admin adjustment'],
      }),
    ),
  },
  { error: 'Сумма должна быть числом' },
)

export const BalanceResult = t.Object({
  userId: t.String(),
  balance: t.Number({ description: 'Новый баланс, рубли' }),
  transaction: t.Object({
    id: t.String(),
    amount: t.String({ description: 'Со знаком, рубли: "+500.00"' }),
    balanceAfter: t.Number(),
    description: t.String(),
    type: t.Literal('admin'),
    createdAt: t.String({ format: 'date-time' }),
  }),
})

export const Deleted = t.Object({ id: t.String(), deleted: t.Literal(true) })

export const UncoveredQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50, error: 'limit должен быть целым числом от 1 до 100' })),
})

export const UncoveredPage = t.Object({
  success: t.Literal(true),
  total: t.Number({ description: 'Не покрыто всего, рубли' }),
  requests: t.Integer({ description: 'Запросов всего' }),
  data: t.Array(
    t.Object(
      {
        id: t.String(),
        usageId: t.String(),
        userId: t.String(),
        email: t.Union([t.String(), t.Null()]),
        model: t.String(),
        upstreamId: t.Union([t.String(), t.Null()]),
        held: t.Number({ description: 'Зарезервировано, рубли' }),
        cost: t.Number({ description: 'Стоимость по отчёту провайдера × курс × наценка, рубли' }),
        charged: t.Number({ description: 'Списано с клиента, рубли' }),
        uncovered: t.Number({ description: 'Не покрыто, рубли' }),
        createdAt: t.String({ format: 'date-time' }),
      },
      { title: 'UncoveredCost' },
    ),
  ),
})

export const AdminTeam = t.Object(
  {
    id: t.String(),
    name: t.String(),
    balance: t.Number({ description: 'Рубли' }),
    held: t.Number({ description: 'Зарезервировано под выполняющиеся запросы, рубли: списать можно только balance − held' }),
    members: t.Integer(),
    owner: t.Union([t.String(), t.Null()], { description: 'E-mail владельца' }),
    spent: t.Number({ description: 'Потрачено командой за всё время, рубли' }),
    createdAt: t.String({ format: 'date-time' }),
  },
  { title: 'AdminTeam' },
)

export const TeamsQuery = t.Object({
  search: t.Optional(t.String({ maxLength: 100, error: 'Слишком длинный поисковый запрос' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 100, error: 'limit должен быть целым числом от 1 до 100' })),
})

export const TeamsPage = t.Object({
  success: t.Literal(true),
  data: t.Array(AdminTeam),
  pagination: t.Object({ total: t.Integer({ description: 'Найдено всего' }), limit: t.Integer() }),
})

export const TeamParams = t.Object({ id: t.String({ maxLength: 64, error: 'Команда не найдена' }) })

export const TeamBalanceResult = t.Object({
  teamId: t.String(),
  balance: t.Number({ description: 'Новый баланс команды, рубли' }),
  transaction: BalanceResult.properties.transaction,
})
