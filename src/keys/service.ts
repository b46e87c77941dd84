// API keys of an account: the personal one, or a team's (a team key belongs to the team and to the
// member who made it; owners and admins see and manage every key of the team). A key's budget is
// a limit with a Moscow calendar period (money/budgets.ts); the old monthly limit is a budget
// with period month. Who disabled a team key or set its budget is kept with it: the member it
// belongs to cannot undo what an admin or the owner decided (teams/roles.ts restrictionLock).

import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId, randomToken, sha256 } from '../lib/crypto'
import { badRequest, forbidden, notFound, tooManyRequests, unauthorized } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { type BudgetState, budgetToApi, now as clockNow, parseBudget, periodStart, setBudget, spentNow } from '../money'
import { lockDenial, restrictionLock, type SetBy } from '../teams/roles'
import type { KeyDefaults, ResidencyRule } from '../teams/schema'
import { type Acting, auditIn, can } from '../teams/service'
import { hasPolicy, ipAllowed, type KeyPolicy, loosened, modelsWithin, NO_POLICY, type PolicyInput, parsePolicy } from './policy'
import { keyRatesOf } from './rates'
import type { ApiKeyRow, KeyKind } from './schema'
import { type KeyScope, keysStore } from './store'

export const KEY_PREFIX = 'sk-gw-'
/** Shown in lists: "sk-gw-" plus 8 characters — enough to tell keys apart, useless to an attacker. */
const SHOWN_PREFIX_LENGTH = KEY_PREFIX.length + 8
export const MAX_KEYS_PER_USER = 20
const MAX_NAME = 100

export const KEY_MESSAGES = {
  name: 'Введите название ключа',
  nameTooLong: `Название ключа не длиннее ${MAX_NAME} символов`,
  tooMany: `Можно создать не более ${MAX_KEYS_PER_USER} ключей`,
  notFound: 'Ключ не найден',
  widerThanTeam: 'Ключ команды может только сузить её список разрешённых моделей: каждая модель ключа должна быть разрешена команде',
  managementByManagement: 'Управляющим ключом нельзя создать другой управляющий ключ: создайте его на странице API ключей',
  loosened: (lock: string, what: string) => `${lockDenial(lock)} Это изменение ослабляет ${what}.`,
} as const

/** What a key is made with (POST /api/auth/api-keys; «Войти через AI Gateway» names the app's origin). */
export type CreateKeyInput = {
  name: string
  residency?: ResidencyRule
  kind?: KeyKind
  policy?: PolicyInput
  budget?: { limitRub?: unknown; period?: unknown }
  appOrigin?: string
  fitToBalance?: boolean
}

const DAY_MS = 86_400_000

function cleanName(name: string) {
  const trimmed = name.trim()
  if (!trimmed) throw badRequest(KEY_MESSAGES.name)
  if (trimmed.length > MAX_NAME) throw badRequest(KEY_MESSAGES.nameTooLong)
  return trimmed
}

const budgetOf = (k: ApiKeyRow): BudgetState => ({
  limitMicros: k.budgetLimitMicros,
  period: k.budgetPeriod,
  periodStart: k.budgetPeriodStart,
  spentMicros: k.budgetSpentMicros,
  heldMicros: k.budgetHeldMicros,
})
/** Who disabled the key (null while it is active), and who set its budget's limit (null without one). */
const disabledBy = (k: ApiKeyRow): SetBy | null => (k.isActive ? null : { userId: k.disabledBy, role: k.disabledByRole })
const budgetSetBy = (k: ApiKeyRow): SetBy | null => (k.budgetLimitMicros === null ? null : { userId: k.budgetSetBy, role: k.budgetSetByRole })
export const policyOf = (k: Pick<ApiKeyRow, 'rpmLimit' | 'tpmLimit' | 'allowedModels' | 'allowedIps' | 'expiresAt'>): KeyPolicy => ({
  rpmLimit: k.rpmLimit,
  tpmLimit: k.tpmLimit,
  allowedModels: k.allowedModels,
  allowedIps: k.allowedIps,
  expiresAt: k.expiresAt?.getTime() ?? null,
})
const policySetBy = (k: ApiKeyRow): SetBy | null => (hasPolicy(policyOf(k)) ? { userId: k.policySetBy, role: k.policySetByRole } : null)
/** What the caller cannot change on the key, and why (null: they can); the policy they may still tighten. */
const locksOf = (a: Acting, k: ApiKeyRow) => ({
  isActive: restrictionLock(a, 'key.disabled', disabledBy(k), k.userId),
  budget: restrictionLock(a, 'key.budget', budgetSetBy(k), k.userId),
  policy: restrictionLock(a, 'key.policy', policySetBy(k), k.userId),
})
/** The row's policy columns. */
const policyColumns = (p: KeyPolicy) => ({
  rpmLimit: p.rpmLimit,
  tpmLimit: p.tpmLimit,
  allowedModels: p.allowedModels,
  allowedIps: p.allowedIps,
  expiresAt: p.expiresAt === null ? null : new Date(p.expiresAt),
})
/** The team's defaults as the policy of a key made now. */
const fromDefaults = (d: KeyDefaults, at: number): KeyPolicy => ({
  rpmLimit: d.rpmLimit,
  tpmLimit: d.tpmLimit,
  allowedModels: d.allowedModels,
  allowedIps: d.allowedIps,
  expiresAt: d.expiresInDays === null ? null : at + d.expiresInDays * DAY_MS,
})
/** The policy as the API and the audit log state it. */
export const policyToApi = (p: KeyPolicy) => ({ ...p, expiresAt: p.expiresAt === null ? null : new Date(p.expiresAt).toISOString() })
const scopeOf = (a: Acting): KeyScope => ({ userId: a.userId, teamId: a.teamId, all: a.teamId !== null && can(a.role, 'keys.all') })
const shown = (k: { name: string; keyPrefix: string }) => `${k.name} (${k.keyPrefix}…)`

export type KeyPatch = PolicyInput & {
  name?: string
  isActive?: boolean
  residency?: ResidencyRule
  fitToBalance?: boolean
  monthlyLimit?: number | null
  budget?: { limitRub?: unknown; period?: unknown }
}

export function keysService(db: Db) {
  const store = keysStore(db)

  /** `monthSpent`: the budget's own count when its period is the month, else the usage since the Moscow month began. */
  const toApi = (a: Acting, k: ApiKeyRow, ownerEmail: string | null, monthSpentMicros: number, at: number) => {
    const budget = budgetOf(k)
    const policy = policyOf(k)
    return {
      id: k.id,
      name: k.name,
      keyPrefix: k.keyPrefix,
      kind: k.kind,
      isActive: k.isActive,
      ...policyToApi(policy),
      expired: policy.expiresAt !== null && policy.expiresAt <= at,
      appOrigin: k.appOrigin,
      fitToBalance: k.fitToBalance,
      locked: locksOf(a, k),
      teamId: k.teamId,
      owner: k.teamId ? { id: k.userId, email: ownerEmail ?? '' } : null,
      budget: budgetToApi(budget, at),
      monthlyLimit: budget.period === 'month' && budget.limitMicros !== null ? microsToRub(budget.limitMicros) : null,
      monthSpent: microsToRub(monthSpentMicros),
      residency: k.residency,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    }
  }

  async function present(a: Acting, rows: { key: ApiKeyRow; ownerEmail: string | null }[]) {
    const at = clockNow()
    const monthStart = new Date(periodStart('month', at))
    const others = await store.spentSince(
      rows.filter((r) => r.key.budgetPeriod !== 'month').map((r) => r.key.id),
      monthStart,
    )
    return rows.map(({ key, ownerEmail }) => toApi(a, key, ownerEmail, key.budgetPeriod === 'month' ? spentNow(budgetOf(key), at) : (others.get(key.id) ?? 0), at))
  }

  async function owned(a: Acting, id: string) {
    const found = await store.byIdFor(id, scopeOf(a))
    if (!found) throw notFound(KEY_MESSAGES.notFound)
    return found
  }

  return {
    list: async (a: Acting) => present(a, await store.listFor(scopeOf(a))),

    async create(a: Acting, input: CreateKeyInput) {
      const name = cleanName(input.name)
      const kind = input.kind ?? 'inference'
      if (kind === 'management' && a.viaKey === 'management') throw forbidden(KEY_MESSAGES.managementByManagement)
      const at = clockNow()
      const given = parsePolicy(input.policy ?? {}, at)
      const budget = input.budget === undefined ? undefined : parseBudget(input.budget)
      const team = a.teamId ? await store.teamPolicy(a.teamId) : undefined
      // A team key starts from the team's defaults; what the caller gives may tighten them, and may
      // loosen them only when the caller could change what the defaults' setter decided.
      const defaults = team?.keyDefaults ? fromDefaults(team.keyDefaults, at) : null
      const policy: KeyPolicy = { ...(defaults ?? NO_POLICY), ...given }
      const defaultsBy = team?.keyDefaults?.setBy ?? null
      const lock = defaults && hasPolicy(defaults) ? restrictionLock(a, 'key.policy', defaultsBy, a.userId) : null
      if (lock) {
        const what = loosened(policy, defaults!)
        if (what) throw forbidden(KEY_MESSAGES.loosened(lock, what))
      }
      if (team && !modelsWithin(policy.allowedModels ?? team.allowedModels, team.allowedModels)) throw badRequest(KEY_MESSAGES.widerThanTeam)
      if ((await store.countOwn(a.userId, a.teamId)) >= MAX_KEYS_PER_USER) throw badRequest(KEY_MESSAGES.tooMany)
      const key = `${KEY_PREFIX}${randomToken(30)}` // 240 bits of entropy
      const now = new Date()
      // A policy from the defaults stays their setter's; one the caller chose is the caller's (in a team).
      const setBy = !a.teamId || !hasPolicy(policy) ? null : lock ? defaultsBy! : { userId: a.userId, role: a.role! }
      const row = {
        id: newId(),
        userId: a.userId,
        teamId: a.teamId,
        name,
        keyPrefix: key.slice(0, SHOWN_PREFIX_LENGTH),
        keyHash: sha256(key),
        isActive: true,
        residency: input.residency ?? 'any',
        kind,
        ...policyColumns(policy),
        policySetBy: setBy?.userId ?? null,
        policySetByRole: setBy?.role ?? null,
        appOrigin: input.appOrigin ?? null,
        fitToBalance: input.fitToBalance ?? false,
        budgetSetBy: a.teamId && budget?.limitMicros != null ? a.userId : null,
        budgetSetByRole: a.teamId && budget?.limitMicros != null ? a.role : null,
        // Spend is counted from now, in the current month.
        budgetPeriodStart: periodStart('month', at),
        createdAt: now,
      }
      await store.write(async (q) => {
        await store.insert(q, row)
        if (budget) await setBudget(q, { kind: 'key', keyId: row.id }, budget, at)
        if (a.teamId)
          await auditIn(q, {
            teamId: a.teamId,
            actorId: a.userId,
            action: 'key.created',
            target: shown(row),
            ip: a.ip,
            ...(hasPolicy(policy) || kind !== 'inference' ? { details: { kind, ...policyToApi(policy) } } : {}),
          })
      })
      const [created] = await present(a, [await owned(a, row.id)])
      return { ...created!, key }
    },

    async update(a: Acting, id: string, patch: KeyPatch) {
      const { key } = await owned(a, id)
      const name = patch.name === undefined ? undefined : cleanName(patch.name)
      // The monthly limit of older clients is a budget with period month; `budget` wins when both come.
      const budgetInput = patch.budget ?? (patch.monthlyLimit !== undefined ? { limitRub: patch.monthlyLimit, period: 'month' } : undefined)
      const budget = budgetInput === undefined ? undefined : parseBudget(budgetInput)
      const at = clockNow()
      const given = parsePolicy(patch, at)
      const team = key.teamId && given.allowedModels !== undefined ? await store.teamPolicy(key.teamId) : undefined
      // A team key records who disabled it or set its limit, with their role then; a personal key needs neither.
      const by = a.teamId ? { userId: a.userId, role: a.role } : { userId: null, role: null }
      await tx(db, async (q) => {
        // Decided on the row as it is in this unit: an admin's disable racing the member's enable is never lost.
        const now = await store.lock(q, id)
        if (!now) throw notFound(KEY_MESSAGES.notFound)
        const locks = locksOf(a, now)
        const toggled = patch.isActive !== undefined && patch.isActive !== now.isActive
        if (toggled && patch.isActive && locks.isActive) throw forbidden(lockDenial(locks.isActive))
        const rebudgeted = budget !== undefined && (budget.limitMicros !== now.budgetLimitMicros || budget.period !== now.budgetPeriod)
        if (rebudgeted && locks.budget) throw forbidden(lockDenial(locks.budget))
        const before = policyOf(now)
        const policy: KeyPolicy = { ...before, ...given }
        const repolicied = JSON.stringify(policy) !== JSON.stringify(before)
        // A member may tighten what an admin set (it stays the admin's), never loosen it.
        const what = repolicied && locks.policy ? loosened(policy, before) : null
        if (what) throw forbidden(KEY_MESSAGES.loosened(locks.policy!, what))
        if (team && !modelsWithin(policy.allowedModels ?? team.allowedModels, team.allowedModels)) throw badRequest(KEY_MESSAGES.widerThanTeam)
        const policyBy = !hasPolicy(policy) ? { userId: null, role: null } : locks.policy ? { userId: now.policySetBy, role: now.policySetByRole } : by
        const set = {
          ...(repolicied ? { ...policyColumns(policy), policySetBy: policyBy.userId, policySetByRole: policyBy.role } : {}),
          ...(name === undefined ? {} : { name }),
          ...(patch.residency === undefined ? {} : { residency: patch.residency }),
          ...(patch.fitToBalance === undefined ? {} : { fitToBalance: patch.fitToBalance }),
          ...(toggled ? { isActive: patch.isActive, disabledBy: patch.isActive ? null : by.userId, disabledByRole: patch.isActive ? null : by.role } : {}),
          ...(rebudgeted ? { budgetSetBy: budget.limitMicros === null ? null : by.userId, budgetSetByRole: budget.limitMicros === null ? null : by.role } : {}),
        }
        await store.update(q, id, set)
        if (budget) await setBudget(q, { kind: 'key', keyId: id }, budget, at)
        const changed = {
          ...(name === undefined ? {} : { name }),
          ...(patch.isActive === undefined ? {} : { isActive: patch.isActive }),
          ...(patch.residency === undefined || patch.residency === now.residency ? {} : { residency: patch.residency }),
          ...(patch.fitToBalance === undefined || patch.fitToBalance === now.fitToBalance ? {} : { fitToBalance: patch.fitToBalance }),
        }
        if (a.teamId && repolicied)
          await auditIn(q, {
            teamId: a.teamId,
            actorId: a.userId,
            action: 'key.policy_changed',
            target: shown(key),
            ip: a.ip,
            details: { from: policyToApi(before), to: policyToApi(policy) },
          })
        if (a.teamId && (budget || Object.keys(changed).length))
          await auditIn(q, {
            teamId: a.teamId,
            actorId: a.userId,
            action: budget ? 'key.budget_changed' : 'key.updated',
            target: shown(key),
            ip: a.ip,
            details: { ...changed, ...(budget ? { limitRub: budget.limitMicros === null ? null : microsToRub(budget.limitMicros), period: budget.period } : {}) },
          })
      })
      // Deleted meanwhile (another tab, another instance): the same 404 as a key that never was.
      const [fresh] = await present(a, [await owned(a, id)])
      return fresh!
    },

    async remove(a: Acting, id: string) {
      const { key } = await owned(a, id)
      await tx(db, async (q) => {
        if (!(await store.delete(q, id))) throw notFound(KEY_MESSAGES.notFound)
        if (a.teamId) await auditIn(q, { teamId: a.teamId, actorId: a.userId, action: 'key.deleted', target: shown(key), ip: a.ip })
      })
    },

    /**
     * A management key presented to /api (auth/guard.ts): its owner and account, after its own policy
     * (active, not expired, from an allowed address, within its requests per minute); undefined when
     * no management key has this secret.
     */
    async managementKey(secret: string, ip: string): Promise<{ userId: string; teamId: string | null } | undefined> {
      const k = await store.byHash(sha256(secret))
      // An API key for /v1 is not a credential of /api at all: the same 401 as any token that is not a session's.
      if (k?.kind !== 'management') return undefined
      if (!k.isActive) throw unauthorized(`Ключ «${k.name}» отключён`)
      const policy = policyOf(k)
      if (policy.expiresAt !== null && policy.expiresAt <= clockNow()) throw unauthorized(`Срок действия ключа «${k.name}» истёк`)
      if (!ipAllowed(policy.allowedIps, ip)) throw forbidden(`Ключ «${k.name}» нельзя использовать с адреса ${ip}`)
      if (policy.rpmLimit !== null) {
        const taken = await keyRatesOf(db).take(k.id, { rpmLimit: policy.rpmLimit, tpmLimit: null })
        if (!taken.ok) throw tooManyRequests(Math.max(1, Math.ceil(taken.retryAfterMs / 1000)), `Превышен лимит ключа «${k.name}»: ${policy.rpmLimit} запросов в минуту`)
      }
      return { userId: k.userId, teamId: k.teamId }
    },

    /** Micro-rubles a key spent since `since` (GET /v1/key's usage figures). */
    spentSince: async (keyId: string, since: Date) => (await store.spentSince([keyId], since)).get(keyId) ?? 0,

    /** Active keys of an account (a refund needs none). */
    activeCount: (userId: string, teamId: string | null) => store.activeCount(userId, teamId),
  }
}

export type KeysService = ReturnType<typeof keysService>
