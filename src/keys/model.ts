import { type TSchema, t } from 'elysia'
import { Budget, BudgetBody } from '../billing/model'

/** Where the key's requests may be processed (wire contract, issue 35). */
export const Residency = t.UnionEnum(['any', 'ru'], {
  error: 'residency должен быть "any" (любые провайдеры) или "ru" (только с хранением данных в РФ)',
  description: 'any — любые провайдеры; ru — только провайдеры, хранящие данные в России (иначе 403 data_residency_violation)',
})

export const KeyKind = t.UnionEnum(['inference', 'management'], {
  error: 'kind должен быть "inference" (запросы к API) или "management" (управление ключами)',
  description: 'inference — запросы к /v1; management — управление ключами, баланс и активность, без доступа к /v1',
})

/** A value or null; the union carries the message (TypeBox reports the union, not its member). */
const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()], { error: schema.error, description: schema.description })
const LIMIT_ERROR = 'Лимит — целое число больше нуля или null (без лимита)'

/** The policy fields of POST and PATCH (keys/policy.ts checks them and answers 400 in Russian). */
const PolicyBody = {
  rpmLimit: t.Optional(nullable(t.Integer({ error: LIMIT_ERROR, description: 'Запросов в минуту; null — без лимита' }))),
  tpmLimit: t.Optional(nullable(t.Integer({ error: LIMIT_ERROR, description: 'Токенов в минуту (по данным провайдера); null — без лимита' }))),
  allowedModels: t.Optional(
    nullable(t.Array(t.String(), { error: 'allowedModels — список шаблонов моделей или null', description: 'Шаблоны: openai/* или точный id; null — все модели' })),
  ),
  allowedIps: t.Optional(nullable(t.Array(t.String(), { error: 'allowedIps — список адресов и сетей или null', description: 'IPv4/IPv6-адреса и CIDR; null — любые адреса' }))),
  expiresAt: t.Optional(
    nullable(t.String({ error: 'expiresAt — дата и время ISO 8601 или null', description: 'Когда ключ перестаёт работать (401 key_expired); null — бессрочно' })),
  ),
  fitToBalance: t.Optional(
    t.Boolean({ error: 'fitToBalance должен быть true или false', description: 'Уменьшать max_tokens до того, что покрывают средства (не меньше 16 токенов), вместо ошибки 402' }),
  ),
}

export const ApiKey = t.Object(
  {
    id: t.String(),
    name: t.String(),
    keyPrefix: t.String({ description: 'Начало ключа, по которому его можно узнать' }),
    kind: KeyKind,
    isActive: t.Boolean(),
    rpmLimit: t.Union([t.Integer(), t.Null()]),
    tpmLimit: t.Union([t.Integer(), t.Null()]),
    allowedModels: t.Union([t.Array(t.String()), t.Null()]),
    allowedIps: t.Union([t.Array(t.String()), t.Null()]),
    expiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    expired: t.Boolean({ description: 'Срок действия истёк: запросы получают 401 key_expired' }),
    appOrigin: t.Union([t.String(), t.Null()], { description: 'Приложение, получившее ключ через «Войти через AI Gateway»; null — ключ создан вручную' }),
    fitToBalance: t.Boolean({
      description: 'Ответ по средствам: max_tokens, который не покрывают баланс и бюджеты, уменьшается (заголовок x-max-tokens-clamped) вместо ошибки 402',
    }),
    locked: t.Object(
      {
        isActive: t.Union([t.String(), t.Null()], { description: 'Почему вызывающий не может включить ключ (его отключил администратор или владелец команды); null — может' }),
        budget: t.Union([t.String(), t.Null()], { description: 'Почему вызывающий не может изменить или снять бюджет ключа; null — может' }),
        policy: t.Union([t.String(), t.Null()], {
          description: 'Почему вызывающий может только ужесточить ограничения ключа (их задал администратор или владелец); null — может любые',
        }),
      },
      { description: 'Что в ключе команды решил администратор или владелец и вызывающему не изменить' },
    ),
    teamId: t.Union([t.String(), t.Null()], { description: 'Команда, с баланса которой платит ключ; null — личный ключ' }),
    owner: t.Union([t.Object({ id: t.String(), email: t.String() }), t.Null()], { description: 'Участник команды, создавший ключ; null для личного' }),
    budget: Budget,
    residency: Residency,
    monthlyLimit: t.Union([t.Number(), t.Null()], { description: 'Устарело: лимит бюджета, если его период — месяц, иначе null' }),
    monthSpent: t.Number({ description: 'Потрачено ключом в текущем месяце (по московскому времени), рубли' }),
    createdAt: t.String({ format: 'date-time' }),
    lastUsedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { title: 'ApiKey' },
)

export const CreatedApiKey = t.Composite([ApiKey, t.Object({ key: t.String({ description: 'Полный ключ — показывается один раз' }) })], {
  title: 'CreatedApiKey',
})

const NAME_MESSAGE = 'Введите название ключа'
export const CreateKeyBody = t.Object(
  { name: t.String({ error: NAME_MESSAGE }), residency: t.Optional(Residency), kind: t.Optional(KeyKind), budget: t.Optional(BudgetBody), ...PolicyBody },
  { error: NAME_MESSAGE },
)

export const PatchKeyBody = t.Object(
  {
    name: t.Optional(t.String({ error: NAME_MESSAGE })),
    isActive: t.Optional(t.Boolean({ error: 'isActive должен быть true или false' })),
    budget: t.Optional(BudgetBody),
    residency: t.Optional(Residency),
    ...PolicyBody,
    monthlyLimit: t.Optional(
      t.Union([t.Number(), t.Null()], { error: 'Лимит должен быть положительным числом', description: 'Устарело (принимается): то же, что budget с периодом month' }),
    ),
  },
  { error: 'Некорректные данные ключа' },
)

export const KeyParams = t.Object({ id: t.String() })
