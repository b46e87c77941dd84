import { t } from 'elysia'
import { Budget, BudgetBody } from '../billing/model'

/** Where the key's requests may be processed (wire contract, issue 35). */
export const Residency = t.UnionEnum(['any', 'ru'], {
  error: 'residency должен быть "any" (любые провайдеры) или "ru" (только с хранением данных в РФ)',
  description: 'any — любые провайдеры; ru — только провайдеры, хранящие данные в России (иначе 403 data_residency_violation)',
})

export const ApiKey = t.Object(
  {
    id: t.String(),
    name: t.String(),
    keyPrefix: t.String({ description: 'Начало ключа, по которому его можно узнать' }),
    isActive: t.Boolean(),
    locked: t.Object(
      {
        isActive: t.Union([t.String(), t.Null()], { description: 'Почему вызывающий не может включить ключ (его отключил администратор или владелец команды); null — может' }),
        budget: t.Union([t.String(), t.Null()], { description: 'Почему вызывающий не может изменить или снять бюджет ключа; null — может' }),
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
export const CreateKeyBody = t.Object({ name: t.String({ error: NAME_MESSAGE }), residency: t.Optional(Residency) }, { error: NAME_MESSAGE })

export const PatchKeyBody = t.Object(
  {
    name: t.Optional(t.String({ error: NAME_MESSAGE })),
    isActive: t.Optional(t.Boolean({ error: 'isActive должен быть true или false' })),
    budget: t.Optional(BudgetBody),
    residency: t.Optional(Residency),
    monthlyLimit: t.Optional(
      t.Union([t.Number(), t.Null()], { error: 'Лимит должен быть положительным числом', description: 'Устарело (принимается): то же, что budget с периодом month' }),
    ),
  },
  { error: 'Некорректные данные ключа' },
)

export const KeyParams = t.Object({ id: t.String() })
