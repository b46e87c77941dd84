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
  /** Stored Responses (/v1/responses) of every member; without it a member reads and continues only their own. */
  'responses.all': { roles: MANAGERS, what: 'сохранённые ответы всех участников' },
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

// ─── who may act on whom ─────────────────────────────────────────────────────
// The matrix says what a role may do at all; these say on whom: a role's authority over a member,
// and over a restriction someone put on a key or a membership. The services call them in the same
// transaction as the change, and the SPA shows what they answer (ApiKey.locked, TeamMember.access).

/** Authority: the owner above administrators above everyone else. */
const RANK: Record<TeamRole, number> = { owner: 2, admin: 1, billing: 0, member: 0 }

export const OWNER_ONLY = 'Изменить владельца может только владелец команды'
export const ADMIN_BY_OWNER = 'Недостаточно прав: сменить роль другого администратора или исключить его может только владелец команды'

/**
 * Whether `actor` (who has members.manage) may change `target`'s role, budget or remove them: null
 * when they may, else the 403 message. The owner may act on anyone and anyone on themselves (the
 * budget of one's own still answers to restrictionLock); an admin never acts on an owner, and never
 * changes another admin's role nor removes them — one admin cannot demote another.
 */
export function memberDenial(actor: { userId: string; role: TeamRole }, target: { userId: string; role: TeamRole }, action: 'role' | 'budget' | 'remove'): string | null {
  if (actor.role === 'owner' || actor.userId === target.userId) return null
  if (target.role === 'owner') return OWNER_ONLY
  if (target.role === 'admin' && action !== 'budget') return ADMIN_BY_OWNER
  return null
}

/** A restriction one person puts on a key or a membership, which the person it restricts may not lift. */
export type Restriction = 'key.disabled' | 'key.budget' | 'key.policy' | 'member.budget'

/**
 * Who put a restriction in place, as recorded with it, and the role they had then. A restriction from
 * before it was recorded has neither: it counts as an administrator's (only managers could set a
 * member's budget; a member's own key is theirs to ask about).
 */
export type SetBy = { userId: string | null; role: TeamRole | null }

/**
 * Whether `actor` may change a restriction in place (`setBy`; null: nothing is restricted) on
 * `subjectId`'s key or membership: null when they may, else why not, a sentence for the UI (and,
 * after «Недостаточно прав:», the 403). In the personal account, and for the owner, always; anyone
 * may change what they set themselves; otherwise the person it restricts may not (a member cannot
 * re-enable a key an admin disabled nor lift its budget, an admin cannot lift the budget set on
 * them), and an admin may change what an admin or a member set on someone else, not what the owner set.
 * Tightening counts as changing: the restriction stays its setter's.
 */
export function restrictionLock(actor: { userId: string; role: TeamRole | null }, restriction: Restriction, setBy: SetBy | null, subjectId: string): string | null {
  if (actor.role === null || actor.role === 'owner' || setBy === null || setBy.userId === actor.userId) return null
  const setter: TeamRole = setBy.role ?? 'admin'
  const self = actor.userId === subjectId
  if (!self && MANAGERS.includes(actor.role) && RANK[actor.role] >= RANK[setter]) return null
  const who = setter === 'owner' ? 'только владелец' : self && actor.role === 'admin' ? 'владелец или другой администратор' : 'владелец или администратор'
  const by = `${ROLE_LABELS[setter].toLowerCase()} команды`
  switch (restriction) {
    case 'key.disabled':
      return `Ключ отключил ${by} — включить его снова может ${who}.`
    case 'key.budget':
      return `Бюджет ключа задал ${by} — изменить или снять его может ${who}.`
    case 'key.policy':
      return `Ограничения ключа задал ${by} — ужесточить их можно, ослабить или снять может ${who}.`
    case 'member.budget':
      return `${self ? 'Ваш бюджет в команде' : 'Бюджет участника'} задал ${by} — изменить или снять его может ${who}.`
  }
}

/** The 403 message of a lock restrictionLock answered. */
export const lockDenial = (lock: string) => `Недостаточно прав: ${lock.charAt(0).toLowerCase()}${lock.slice(1)}`
