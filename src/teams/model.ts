import { t } from 'elysia'
import { Budget, BudgetBody } from '../billing/model'
import { MATRIX } from './roles'
import { TEAM_ROLES } from './schema'

const Role = t.UnionEnum([...TEAM_ROLES], { description: 'owner — владелец, admin — администратор, billing — бухгалтер, member — участник' })

const TeamResidency = t.UnionEnum(['any', 'ru'], { description: 'ru — запросы команды (её ключи и веб-сессии участников) идут только к провайдерам с хранением данных в РФ' })

export const TeamSummary = t.Object(
  {
    id: t.String(),
    name: t.String(),
    role: Role,
    balance: t.Number({ description: 'Баланс команды, рубли' }),
    residency: TeamResidency,
    memberCount: t.Optional(t.Integer()),
    permissions: t.Optional(t.Array(t.UnionEnum(Object.keys(MATRIX) as [string, ...string[]]), { description: 'Что может роль вызывающего в команде' })),
  },
  { title: 'TeamSummary' },
)

export const TeamMember = t.Object(
  {
    userId: t.String(),
    email: t.String(),
    role: Role,
    budget: Budget,
    access: t.Object(
      {
        manage: t.Boolean({ description: 'Вызывающий может сменить роль участника и исключить его' }),
        budget: t.Boolean({ description: 'Вызывающий управляет бюджетом участника' }),
        budgetLock: t.Union([t.String(), t.Null()], { description: 'Почему вызывающему не изменить этот бюджет (его задал владелец или другой администратор); null — может' }),
      },
      { description: 'Что вызывающий может сделать с участником (решает сервер)' },
    ),
    joinedAt: t.String({ format: 'date-time' }),
  },
  { title: 'TeamMember' },
)

const KeyDefaultsObject = t.Object({
  rpmLimit: t.Union([t.Integer(), t.Null()]),
  tpmLimit: t.Union([t.Integer(), t.Null()]),
  allowedModels: t.Union([t.Array(t.String()), t.Null()]),
  allowedIps: t.Union([t.Array(t.String()), t.Null()]),
  expiresInDays: t.Union([t.Integer(), t.Null()], { description: 'Срок действия нового ключа, дней от создания; null — бессрочно' }),
})

export const TeamPolicy = t.Object(
  {
    allowedModels: t.Union([t.Array(t.String()), t.Null()], { description: 'Шаблоны моделей, доступных всей команде (openai/* или точный id); null — все модели' }),
    keyDefaults: t.Union([KeyDefaultsObject, t.Null()], { description: 'Политика новых ключей команды; ключ может её только сузить' }),
    fitToBalance: t.Boolean({ description: 'Ответ по средствам для всех запросов команды: max_tokens уменьшается до того, что покрывают средства, вместо ошибки 402' }),
  },
  { title: 'TeamPolicy' },
)

// Any JSON for the fields the service checks (keys/policy.ts), so a wrong value gets its Russian message.
export const TeamPolicyBody = t.Object(
  {
    allowedModels: t.Optional(t.Any({ description: 'Список шаблонов моделей или null' })),
    keyDefaults: t.Optional(t.Any({ description: '{ rpmLimit, tpmLimit, allowedModels, allowedIps, expiresInDays } или null' })),
    fitToBalance: t.Optional(t.Boolean({ error: 'fitToBalance должен быть true или false' })),
  },
  { error: 'Некорректная политика команды' },
)

export const TeamDetails = t.Object(
  {
    id: t.String(),
    name: t.String(),
    role: Role,
    balance: t.Number({ description: 'Рубли' }),
    residency: TeamResidency,
    createdAt: t.String({ format: 'date-time' }),
    permissions: t.Array(t.UnionEnum(Object.keys(MATRIX) as [string, ...string[]]), { description: 'Что может роль вызывающего (интерфейс скрывает остальное)' }),
    alertThreshold: t.Union([t.Number(), t.Null()], { description: 'Порог уведомления о низком балансе, рубли' }),
    webhookConfigured: t.Boolean(),
    spent: t.Number({ description: 'Потрачено командой за всё время, рубли' }),
    policy: TeamPolicy,
    members: t.Array(TeamMember),
  },
  { title: 'TeamDetails' },
)

export const TeamParams = t.Object({ id: t.String({ maxLength: 64, error: 'Команда не найдена' }) })
export const MemberParams = t.Object({ id: t.String({ maxLength: 64, error: 'Команда не найдена' }), userId: t.String({ maxLength: 64, error: 'Участник не найден' }) })
export const InvitationParams = t.Object({
  id: t.String({ maxLength: 64, error: 'Команда не найдена' }),
  invitationId: t.String({ maxLength: 64, error: 'Приглашение не найдено' }),
})

// Any JSON for the fields the service checks, so a wrong value gets its Russian message.
export const CreateTeamBody = t.Object({ name: t.Any({ description: 'Название команды, до 100 символов', examples: ['Лаборатория ИИ'] }) }, { error: 'Введите название команды' })
export const RenameTeamBody = t.Object(
  {
    name: t.Optional(t.Any({ description: 'Новое название команды, до 100 символов', examples: ['Лаборатория ИИ'] })),
    residency: t.Optional(
      t.UnionEnum(['any', 'ru'], {
        error: 'residency должен быть "any" (любые провайдеры) или "ru" (только с хранением данных в РФ)',
        description: 'ru — все запросы команды только к провайдерам в России (владелец, администратор)',
      }),
    ),
  },
  { error: 'Укажите название команды или residency' },
)

export const TransferBody = t.Object({ userId: t.String({ maxLength: 64, error: 'Укажите участника, которому передаётся владение' }) }, { error: 'Укажите участника' })

export const InviteBody = t.Object(
  {
    email: t.Any({ description: 'Адрес приглашённого', examples: ['colleague@example.ru'] }),
    role: t.Optional(t.Any({ description: 'admin | billing | member (по умолчанию member)', examples: ['member'] })),
  },
  { error: 'Укажите email и роль' },
)

export const Invitation = t.Object(
  {
    id: t.String(),
    email: t.String(),
    role: Role,
    invitedBy: t.Optional(t.String()),
    createdAt: t.Optional(t.String({ format: 'date-time' })),
    expiresAt: t.String({ format: 'date-time' }),
  },
  { title: 'TeamInvitation' },
)

export const TokenBody = t.Object({ token: t.String({ maxLength: 200, error: 'Приглашение недействительно, устарело или отозвано' }) }, { error: 'Передайте token' })

export const InvitationPreview = t.Object({ teamName: t.String(), email: t.String(), role: Role, expiresAt: t.String({ format: 'date-time' }) }, { title: 'InvitationPreview' })

export const Accepted = t.Object({ team: TeamSummary })

export const PatchMemberBody = t.Object(
  {
    role: t.Optional(t.Any({ description: 'admin | billing | member' })),
    budget: t.Optional(BudgetBody),
  },
  { error: 'Передайте role и/или budget {limitRub, period}' },
)

export const RemovedMember = t.Object({ ok: t.Literal(true), revokedKeys: t.Integer({ description: 'Сколько ключей участника в команде отозвано' }) })

export const AuditQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, default: 100, error: 'limit должен быть целым числом от 1 до 200' })),
  before: t.Optional(t.String({ maxLength: 40, description: 'Записи раньше этого времени (ISO 8601): следующая страница' })),
})

export const AuditEntry = t.Object(
  {
    id: t.String(),
    at: t.String({ format: 'date-time' }),
    actor: t.String({ description: 'E-mail того, кто действовал (или «система»)' }),
    action: t.String({ examples: ['member.joined', 'key.created', 'member.budget_changed'] }),
    target: t.Union([t.String(), t.Null()]),
    ip: t.Union([t.String(), t.Null()]),
    details: t.Record(t.String(), t.Any()),
  },
  { title: 'TeamAuditEntry' },
)

export const WebhookBody = t.Object(
  { url: t.Any({ description: 'http(s)-адрес получателя', examples: ['https://example.ru/hooks/ai-gateway'] }) },
  { error: 'Укажите адрес вебхука' },
)

export const WebhookSecret = t.Object({ url: t.String(), secret: t.String({ description: 'Секрет подписи — показывается один раз' }) })

export const WebhookState = t.Object(
  {
    url: t.Union([t.String(), t.Null()]),
    deliveries: t.Array(
      t.Object({
        id: t.String(),
        event: t.String(),
        status: t.UnionEnum(['pending', 'delivered', 'failed']),
        attempts: t.Integer(),
        lastStatus: t.Union([t.Integer(), t.Null()]),
        lastError: t.Union([t.String(), t.Null()]),
        createdAt: t.String({ format: 'date-time' }),
        deliveredAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
      }),
    ),
  },
  { title: 'TeamWebhook' },
)

export const Ok = t.Object({ ok: t.Literal(true) })
