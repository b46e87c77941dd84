// The role matrix, in one place: what each team role may do. Every /api route that acts on an
// account declares the permission it needs (the auth guard's `account` macro); /v1 asks `can` for
// the Playground and keys. In the personal account the user may do everything.
import type { TeamRole } from './schema'

export const ROLE_LABELS: Record<TeamRole, string> = { owner: 'Владелец', admin: 'Администратор', billing: 'Бухгалтер', member: 'Участник' }

const ALL: readonly TeamRole[] = ['owner', 'admin', 'billing', 'member']
const MANAGERS: readonly TeamRole[] = ['owner', 'admin']
const MONEY: readonly TeamRole[] = ['owner', 'admin', 'billing']
const USERS: readonly TeamRole[] = ['owner', 'admin', 'member']

/** Each permission, the roles that have it, and how a refusal names it. */
export const MATRIX = {
  /** See the team, its members and the balance. */
  'team.view': { roles: ALL, what: 'просмотр команды' },
  /** Rename the team, the low-balance alert level. */
  'team.manage': { roles: MANAGERS, what: 'настройки команды' },
  /** Delete the team, transfer ownership. */
  'team.own': { roles: ['owner'] as readonly TeamRole[], what: 'удаление команды и передача владения' },
  /** Invite, revoke invitations, change roles and budgets, remove members. */
  'members.manage': { roles: MANAGERS, what: 'управление участниками, приглашениями и бюджетами' },
  'audit.view': { roles: MANAGERS, what: 'журнал действий' },
  'webhook.manage': { roles: MANAGERS, what: 'настройка вебхука' },
  /** Own API keys of the team. */
  'keys.own': { roles: USERS, what: 'API-ключи' },
  /** Every key of the team. */
  'keys.all': { roles: MANAGERS, what: 'все API-ключи команды' },
  /** The Playground and /v1 on the team's balance (chats, estimates). */
  playground: { roles: USERS, what: 'Playground и запросы к API' },
  /** Card top-ups, payments, refunds, documents. */
  topup: { roles: MONEY, what: 'пополнение баланса, платежи и документы' },
  /** The team's company details for invoices and acts (INN, KPP, name, address, document e-mail). */
  'company.manage': { roles: MONEY, what: 'реквизиты компании' },
  /** The team's money history (ledger). */
  history: { roles: MONEY, what: 'история операций' },
  /** All members' usage (without it a role sees only its own requests). */
  'usage.all': { roles: MONEY, what: 'статистика всей команды' },
  /** Usage statistics: everyone, scoped to their own requests unless they have usage.all. */
  'usage.own': { roles: ALL, what: 'статистика' },
} as const satisfies Record<string, { roles: readonly TeamRole[]; what: string }>

export type Permission = keyof typeof MATRIX

/** Whether a role may do it; null is the personal account, where the user may do everything. */
export const can = (role: TeamRole | null, permission: Permission): boolean => role === null || MATRIX[permission].roles.includes(role)

/** The Russian 403 message for a role that lacks a permission. */
export function denial(role: TeamRole, permission: Permission): string {
  const { roles, what } = MATRIX[permission]
  const who = roles.map((r) => `«${ROLE_LABELS[r]}»`).join(', ')
  return `Недостаточно прав: ${what} — только для ${roles.length > 1 ? 'ролей' : 'роли'} ${who}. Ваша роль в команде — «${ROLE_LABELS[role]}».`
}

/** Every permission a role has (the SPA hides what the role cannot use). */
export const permissionsOf = (role: TeamRole | null): Permission[] => (Object.keys(MATRIX) as Permission[]).filter((p) => can(role, p))
