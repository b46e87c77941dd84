import { t } from 'elysia'

export const ApiKey = t.Object(
  {
    id: t.String(),
    name: t.String(),
    keyPrefix: t.String({ description: 'Начало ключа, по которому его можно узнать' }),
    isActive: t.Boolean(),
    monthlyLimit: t.Union([t.Number(), t.Null()], { description: 'Месячный лимит расходов в рублях или null' }),
    monthSpent: t.Number({ description: 'Потрачено ключом в текущем месяце (UTC), рубли' }),
    createdAt: t.String({ format: 'date-time' }),
    lastUsedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { title: 'ApiKey' },
)

export const CreatedApiKey = t.Composite([ApiKey, t.Object({ key: t.String({ description: 'Полный ключ — показывается один раз' }) })], {
  title: 'CreatedApiKey',
})

const NAME_MESSAGE = 'Введите название ключа'
export const CreateKeyBody = t.Object({ name: t.String({ error: NAME_MESSAGE }) }, { error: NAME_MESSAGE })

export const PatchKeyBody = t.Object(
  {
    name: t.Optional(t.String({ error: NAME_MESSAGE })),
    isActive: t.Optional(t.Boolean({ error: 'isActive должен быть true или false' })),
    monthlyLimit: t.Optional(t.Union([t.Number(), t.Null()], { error: 'Лимит должен быть положительным числом' })),
  },
  { error: 'Некорректные данные ключа' },
)

export const KeyParams = t.Object({ id: t.String() })
