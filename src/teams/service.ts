// Teams: accounts of their own with members, roles, invitations, budgets, an audit log and a
// webhook. `acting` is the one place that answers "who is acting, in which account, with which
// role" for every /api route (the auth guard's `account` macro calls it): a non-member gets 404
// (a team's existence and name never leak), a role without the permission 403 (roles.ts).

import type { Config } from '../config'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { modelsWithin, parsePolicy } from '../keys/policy'
import { newId, randomToken } from '../lib/crypto'
import { badRequest, conflict, forbidden, notFound } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { oneTimeLinks } from '../lib/one-time-link'
import { consume } from '../lib/rate-limit'
import type { Mailer } from '../mail/service'
import { teamInvitationLetter } from '../mail/templates'
import { budgetToApi, now as clockNow, parseBudget, setBudget } from '../money'
import { can, denial, lockDenial, memberDenial, OWNER_ONLY, type Permission, permissionsOf, ROLE_LABELS, restrictionLock, type SetBy } from './roles'
import { type KeyDefaults, type ResidencyRule, TEAM_ROLES, type TeamRole, teamInvitations } from './schema'
import { type AuditEntry, teamsStore } from './store'
import { checkWebhookUrl, webhookDeliveries as outbox } from './webhooks'

export { can, denial, type Permission, permissionsOf, ROLE_LABELS, type SetBy } from './roles'
export type { TeamRole } from './schema'

/** Who acts, in which account: `teamId` null is the personal account (then `role` is null too). */
export type Acting = {
  userId: string
  email: string
  teamId: string | null
  teamName: string | null
  role: TeamRole | null
  ip: string
  /** Set when a management key (not the web session) makes the request (keys/service.ts). */
  viaKey?: 'management'
}

const MAX_KEY_DAYS = 3650

/** The defaults of new team keys from what an owner or admin sent (null: none). */
function parseDefaults(input: unknown, at: number, setBy: { userId: string; role: TeamRole }): KeyDefaults | null {
  if (input === null) return null
  if (typeof input !== 'object' || Array.isArray(input)) throw badRequest('keyDefaults — объект { rpmLimit, tpmLimit, allowedModels, allowedIps, expiresInDays } или null')
  const d = input as Record<string, unknown>
  const days = d.expiresInDays ?? null
  if (days !== null && (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_KEY_DAYS))
    throw badRequest(`Срок действия новых ключей — целое число дней от 1 до ${MAX_KEY_DAYS} или null (бессрочно)`)
  const p = parsePolicy({ rpmLimit: d.rpmLimit ?? null, tpmLimit: d.tpmLimit ?? null, allowedModels: d.allowedModels ?? null, allowedIps: d.allowedIps ?? null }, at)
  return { rpmLimit: p.rpmLimit!, tpmLimit: p.tpmLimit!, allowedModels: p.allowedModels!, allowedIps: p.allowedIps!, expiresInDays: days, setBy }
}

export const INVITATION_TTL_DAYS = 7
export const MAX_TEAMS_PER_USER = 20
export const MAX_MEMBERS = 200
export const MAX_PENDING_INVITATIONS = 100
const MAX_NAME = 100
const INVITE_RULE = { limit: 50, windowSec: 3600 }
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DAY_MS = 86_400_000

export const TEAM_MESSAGES = {
  notFound: 'Команда не найдена',
  name: 'Введите название команды',
  nameTooLong: `Название команды не длиннее ${MAX_NAME} символов`,
  tooManyTeams: `Можно состоять не более чем в ${MAX_TEAMS_PER_USER} командах`,
  tooManyMembers: `В команде может быть не более ${MAX_MEMBERS} участников`,
  tooManyInvitations: `Открытых приглашений не может быть больше ${MAX_PENDING_INVITATIONS}`,
  badEmail: 'Некорректный email',
  badRole: 'Роль: admin, billing или member',
  ownerByTransfer: 'Сделать участника владельцем можно только передачей владения',
  alreadyMember: 'Этот пользователь уже состоит в команде',
  youAreMember: 'Вы уже состоите в этой команде',
  invitationInvalid: 'Приглашение недействительно, устарело или отозвано',
  invitationNotFound: 'Приглашение не найдено',
  invitationRevoked: 'Приглашение отозвано: попросите администратора команды прислать новое',
  invitationAccepted: 'Приглашение уже принято: участник в команде. Если доступ ему не нужен, исключите его',
  memberNotFound: 'Участник не найден',
  ownerOnly: OWNER_ONLY,
  lastOwner: 'Нельзя покинуть команду или сменить роль единственному владельцу: сначала передайте владение',
  transferSelf: 'Вы уже владелец команды',
  notEmpty: 'На балансе команды есть средства или идут запросы: израсходуйте остаток или оформите возврат, затем удалите команду',
} as const

const normalizeEmail = (e: string) => e.trim().toLowerCase()

/** The third one-time link (lib/one-time-link.ts), after password resets and e-mail confirmations. */
const invitationLinks = oneTimeLinks(teamInvitations, INVITATION_TTL_DAYS * DAY_MS)

type MemberRow = Awaited<ReturnType<ReturnType<typeof teamsStore>['members']>>[number]

/** Who set a member's budget limit (null: there is none to lift). */
const budgetSetBy = (m: { limitMicros: number | null; budgetSetBy: string | null; budgetSetByRole: TeamRole | null }): SetBy | null =>
  m.limitMicros === null ? null : { userId: m.budgetSetBy, role: m.budgetSetByRole }

export type TeamsDeps = { db: Db; config: Config; mailer: Mailer }

export function teamsService({ db, config, mailer }: TeamsDeps) {
  const store = teamsStore(db)

  function cleanName(raw: unknown): string {
    const name = typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : ''
    if (!name) throw badRequest(TEAM_MESSAGES.name)
    if (name.length > MAX_NAME) throw badRequest(TEAM_MESSAGES.nameTooLong)
    return name
  }

  const audit = (e: AuditEntry) => write(db, (q) => store.audit(q, e))

  /** The acting team (routes under /api/teams/:id, and the X-Team-Id header): a member's role that has the permission. */
  async function inTeam(user: { id: string; email: string }, teamId: string, permission: Permission, ip: string): Promise<Acting & { teamId: string; role: TeamRole }> {
    const id = teamId.trim()
    const m = id && id.length <= 64 ? await store.membership(id, user.id) : undefined
    if (!m) throw notFound(TEAM_MESSAGES.notFound)
    if (!can(m.role, permission)) throw forbidden(denial(m.role, permission))
    return { userId: user.id, email: user.email, teamId: id, teamName: m.team.name, role: m.role, ip }
  }

  /** "Who is acting, in which account, with which role", checked against the permission: no header is the personal account. */
  async function acting(user: { id: string; email: string }, teamId: string | null | undefined, permission: Permission, ip: string): Promise<Acting> {
    const id = teamId?.trim()
    if (!id || id === 'personal') return { userId: user.id, email: user.email, teamId: null, teamName: null, role: null, ip }
    return inTeam(user, id, permission, ip)
  }

  /** The team's policy as the API states it (who set the defaults stays inside). */
  const policyToApi = (t: { allowedModels: string[] | null; keyDefaults: KeyDefaults | null; fitToBalance: boolean }) => {
    if (!t.keyDefaults) return { allowedModels: t.allowedModels, keyDefaults: null, fitToBalance: t.fitToBalance }
    const { setBy: _, ...defaults } = t.keyDefaults
    return { allowedModels: t.allowedModels, keyDefaults: defaults, fitToBalance: t.fitToBalance }
  }

  const summary = (t: { id: string; name: string; balanceMicros: number; residency: ResidencyRule }, role: TeamRole, memberCount?: number) => ({
    id: t.id,
    name: t.name,
    role,
    balance: microsToRub(t.balanceMicros),
    residency: t.residency,
    ...(memberCount === undefined ? {} : { memberCount }),
  })

  /** A member as `viewer` sees them, with what the viewer may do to them (roles.ts decides; the SPA shows it). */
  const memberToApi = (m: MemberRow, at: number, viewer: Acting & { role: TeamRole }) => {
    const manage = can(viewer.role, 'members.manage')
    const budget = manage && memberDenial(viewer, m, 'budget') === null
    return {
      userId: m.userId,
      email: m.email,
      role: m.role,
      budget: budgetToApi(m, at),
      access: {
        manage: manage && m.userId !== viewer.userId && m.role !== 'owner' && memberDenial(viewer, m, 'role') === null,
        budget,
        budgetLock: budget ? restrictionLock(viewer, 'member.budget', budgetSetBy(m), m.userId) : null,
      },
      joinedAt: m.joinedAt.toISOString(),
    }
  }

  function parseRole(raw: unknown): TeamRole {
    if (typeof raw !== 'string' || !TEAM_ROLES.includes(raw as TeamRole)) throw badRequest(TEAM_MESSAGES.badRole)
    if (raw === 'owner') throw badRequest(TEAM_MESSAGES.ownerByTransfer)
    return raw as TeamRole
  }

  async function owners(teamId: string) {
    return (await store.members(teamId)).filter((m) => m.role === 'owner').length
  }

  return {
    acting,
    audit,

    async create(user: { id: string; email: string }, rawName: unknown, ip: string) {
      const name = cleanName(rawName)
      if ((await store.countTeamsOf(user.id)) >= MAX_TEAMS_PER_USER) throw badRequest(TEAM_MESSAGES.tooManyTeams)
      const now = new Date()
      const id = newId()
      await tx(db, async (q) => {
        await store.insertTeam(q, { id, name, createdAt: now })
        await store.insertMember(q, { teamId: id, userId: user.id, role: 'owner', joinedAt: now })
        await store.audit(q, { teamId: id, actorId: user.id, action: 'team.created', target: name, ip, at: now })
      })
      console.log(`[teams] user ${user.id} created team ${id}`)
      return summary({ id, name, balanceMicros: 0, residency: 'any' }, 'owner')
    },

    list: async (userId: string) => (await store.teamsOf(userId)).map((t) => ({ ...summary(t, t.role, t.memberCount), permissions: permissionsOf(t.role) })),

    async get(user: { id: string; email: string }, teamId: string, ip: string) {
      const a = await inTeam(user, teamId, 'team.view', ip)
      const team = (await store.team(teamId))!
      const at = clockNow()
      const members = await store.members(teamId)
      return {
        ...summary(team, a.role),
        createdAt: team.createdAt.toISOString(),
        permissions: permissionsOf(a.role),
        alertThreshold: team.lowBalanceAlertMicros === null ? null : microsToRub(team.lowBalanceAlertMicros),
        webhookConfigured: team.webhookUrl !== null,
        spent: microsToRub(await store.spentByTeam(teamId)),
        policy: policyToApi(team),
        members: members.map((m) => memberToApi(m, at, a)),
      }
    },

    /**
     * The team's key policy (issue 36), owner and admin: the models every request in the team may call
     * and the policy a new team key starts with (a key may narrow it, never widen it). Audited.
     */
    async setPolicy(user: { id: string; email: string }, teamId: string, patch: { allowedModels?: unknown; keyDefaults?: unknown; fitToBalance?: boolean }, ip: string) {
      const a = await inTeam(user, teamId, 'team.manage', ip)
      const before = (await store.team(teamId))!
      const at = clockNow()
      const allowedModels = patch.allowedModels === undefined ? before.allowedModels : parsePolicy({ allowedModels: patch.allowedModels }, at).allowedModels!
      const keyDefaults = patch.keyDefaults === undefined ? before.keyDefaults : parseDefaults(patch.keyDefaults, at, { userId: a.userId, role: a.role })
      if (keyDefaults && !modelsWithin(keyDefaults.allowedModels ?? allowedModels, allowedModels))
        throw badRequest('Модели по умолчанию для новых ключей должны входить в список моделей команды')
      const fitToBalance = patch.fitToBalance ?? before.fitToBalance
      await store.update(teamId, { allowedModels, keyDefaults, fitToBalance })
      const after = { allowedModels, keyDefaults, fitToBalance }
      await audit({ teamId, actorId: a.userId, action: 'team.policy_changed', target: a.teamName, ip, details: { from: policyToApi(before), to: policyToApi(after) } })
      return policyToApi(after)
    },

    /** The name, and where the team's requests may be processed (`residency`: binds its keys and its members' web sessions). */
    async update(user: { id: string; email: string }, teamId: string, patch: { name?: unknown; residency?: ResidencyRule }, ip: string) {
      const a = await inTeam(user, teamId, 'team.manage', ip)
      if (patch.name === undefined && patch.residency === undefined) throw badRequest('Укажите название команды или residency')
      const name = patch.name === undefined ? undefined : cleanName(patch.name)
      const before = (await store.team(teamId))!
      await store.update(teamId, { ...(name === undefined ? {} : { name }), ...(patch.residency === undefined ? {} : { residency: patch.residency }) })
      if (name !== undefined) await audit({ teamId, actorId: a.userId, action: 'team.renamed', target: name, ip, details: { from: a.teamName } })
      if (patch.residency !== undefined && patch.residency !== before.residency)
        await audit({ teamId, actorId: a.userId, action: 'team.residency_changed', target: name ?? a.teamName, ip, details: { from: before.residency, to: patch.residency } })
      return summary({ ...before, ...(name === undefined ? {} : { name }), residency: patch.residency ?? before.residency }, a.role)
    },

    async remove(user: { id: string; email: string }, teamId: string, ip: string) {
      const a = await inTeam(user, teamId, 'team.own', ip)
      const now = new Date()
      const done = await tx(db, async (q) => {
        if (!(await store.softDelete(q, teamId, now))) return false
        await store.audit(q, { teamId, actorId: a.userId, action: 'team.deleted', target: a.teamName, ip, at: now })
        return true
      })
      if (!done) throw badRequest(TEAM_MESSAGES.notEmpty)
      console.log(`[teams] team ${teamId} deleted by its owner ${a.userId}`)
      return { id: teamId, deleted: true as const }
    },

    /** Ownership passes to another member; the former owner stays as an admin. */
    async transfer(user: { id: string; email: string }, teamId: string, toUserId: string, ip: string) {
      const a = await inTeam(user, teamId, 'team.own', ip)
      if (toUserId === a.userId) throw badRequest(TEAM_MESSAGES.transferSelf)
      const target = await store.member(teamId, toUserId)
      if (!target) throw notFound(TEAM_MESSAGES.memberNotFound)
      await tx(db, async (q) => {
        await store.setRole(q, teamId, toUserId, 'owner')
        await store.setRole(q, teamId, a.userId, 'admin')
        await store.audit(q, { teamId, actorId: a.userId, action: 'owner.transferred', target: target.email, ip, details: { userId: toUserId } })
      })
      return { ok: true as const }
    },

    async invite(user: { id: string; email: string }, teamId: string, input: { email: unknown; role?: unknown }, ip: string) {
      const a = await inTeam(user, teamId, 'members.manage', ip)
      const email = typeof input.email === 'string' ? input.email.trim() : ''
      if (!email || email.length > 254 || !EMAIL_RE.test(email)) throw badRequest(TEAM_MESSAGES.badEmail)
      const role = parseRole(input.role ?? 'member')
      const normalized = normalizeEmail(email)
      const now = new Date()
      if (await store.memberByEmail(teamId, normalized)) throw conflict(TEAM_MESSAGES.alreadyMember)
      if ((await store.countMembers(teamId)) >= MAX_MEMBERS) throw badRequest(TEAM_MESSAGES.tooManyMembers)
      if ((await store.countPendingInvitations(teamId, now)) >= MAX_PENDING_INVITATIONS) throw badRequest(TEAM_MESSAGES.tooManyInvitations)
      await consume(db, `team-invite:${teamId}`, INVITE_RULE)
      // A new invitation to the same address replaces the open ones (a resend): one live link per address.
      const { id, token, expiresAt } = await tx(db, async (q) => {
        await store.revokeInvitations(q, teamId, { emailNormalized: normalized }, now)
        const link = await invitationLinks.issue(q, { teamId, email, emailNormalized: normalized, role, invitedBy: a.userId }, now)
        await store.audit(q, { teamId, actorId: a.userId, action: 'invitation.created', target: email, ip, details: { role }, at: now })
        return link
      })
      const link = `${config.publicUrl}/invite/${token}`
      mailer.send(teamInvitationLetter(email, a.teamName!, a.email, ROLE_LABELS[role], link, INVITATION_TTL_DAYS)).catch((e) => {
        console.error(`[mail] invitation ${id} to team ${teamId} failed:`, (e as Error).message)
      })
      return { id, email, role, expiresAt: expiresAt.toISOString() }
    },

    async invitations(user: { id: string; email: string }, teamId: string, ip: string) {
      await inTeam(user, teamId, 'members.manage', ip)
      return (await store.pendingInvitations(teamId, new Date())).map((i) => ({
        id: i.id,
        email: i.email,
        role: i.role,
        invitedBy: i.invitedBy,
        createdAt: i.createdAt.toISOString(),
        expiresAt: i.expiresAt.toISOString(),
      }))
    },

    async revokeInvitation(user: { id: string; email: string }, teamId: string, invitationId: string, ip: string) {
      const a = await inTeam(user, teamId, 'members.manage', ip)
      const now = new Date()
      const gone = await tx(db, async (q) => {
        const rows = await store.revokeInvitations(q, teamId, { id: invitationId }, now)
        if (rows[0]) await store.audit(q, { teamId, actorId: a.userId, action: 'invitation.revoked', target: rows[0].email, ip, at: now })
        return rows.length > 0
      })
      if (!gone) {
        // Used and revoked are final: read after the UPDATE, the state says who won a race with an accept.
        const state = await store.invitationState(invitationId)
        if (state?.teamId === teamId && state.usedAt) throw conflict(TEAM_MESSAGES.invitationAccepted)
        throw notFound(TEAM_MESSAGES.invitationNotFound)
      }
      return { ok: true as const }
    },

    /** What the invitation page shows before accepting: the token holder is the invitee, who may see the team's name. */
    async lookupInvitation(token: string) {
      const row = await invitationLinks.find(db, token)
      const team = row && (await store.team(row.teamId))
      if (!row || !team || row.revokedAt || !invitationLinks.usable(row)) throw badRequest(TEAM_MESSAGES.invitationInvalid)
      return { teamName: team.name, email: row.email, role: row.role, expiresAt: row.expiresAt.toISOString() }
    },

    /** Accepting needs the invited address's own account; the link works once. */
    async accept(user: { id: string; email: string }, token: string, ip: string) {
      const row = await invitationLinks.find(db, token)
      const now = new Date()
      const team = row && (await store.team(row.teamId))
      if (row?.revokedAt) throw badRequest(TEAM_MESSAGES.invitationRevoked)
      if (!row || !team || !invitationLinks.usable(row, now)) throw badRequest(TEAM_MESSAGES.invitationInvalid)
      if (normalizeEmail(user.email) !== row.emailNormalized) throw forbidden(`Приглашение отправлено на адрес ${row.email}: войдите в аккаунт с этим адресом, чтобы принять его`)
      if (await store.membership(team.id, user.id)) throw conflict(TEAM_MESSAGES.youAreMember)
      if ((await store.countTeamsOf(user.id)) >= MAX_TEAMS_PER_USER) throw badRequest(TEAM_MESSAGES.tooManyTeams)
      if ((await store.countMembers(team.id)) >= MAX_MEMBERS) throw badRequest(TEAM_MESSAGES.tooManyMembers)
      const joined = await tx(db, async (q) => {
        // Claimed only while still open: a revoke at the same instant wins or loses as a whole.
        if (!(await store.claimInvitation(q, row.id, now))) return false
        await store.insertMember(q, { teamId: team.id, userId: user.id, role: row.role, joinedAt: now })
        await store.audit(q, { teamId: team.id, actorId: user.id, action: 'member.joined', target: user.email, ip, details: { role: row.role }, at: now })
        return true
      })
      if (!joined) throw badRequest((await store.invitationState(row.id))?.revokedAt ? TEAM_MESSAGES.invitationRevoked : TEAM_MESSAGES.invitationInvalid)
      return { team: summary(team, row.role) }
    },

    /** Role and budget of a member. */
    async updateMember(
      user: { id: string; email: string },
      teamId: string,
      userId: string,
      input: { role?: unknown; budget?: { limitRub?: unknown; period?: unknown } },
      ip: string,
    ) {
      const a = await inTeam(user, teamId, 'members.manage', ip)
      const target = await store.member(teamId, userId)
      if (!target) throw notFound(TEAM_MESSAGES.memberNotFound)
      // Refused before the body is read (an admin learns nothing more about an owner's row); checked again in the unit.
      const early = memberDenial(a, target, input.role !== undefined && input.role !== target.role ? 'role' : 'budget')
      if (early) throw forbidden(early)
      const role = input.role === undefined ? undefined : parseRole(input.role)
      const budget = input.budget === undefined ? undefined : parseBudget(input.budget ?? {})
      if (role && target.role === 'owner' && (await owners(teamId)) <= 1) throw badRequest(TEAM_MESSAGES.lastOwner)
      const at = clockNow()
      await tx(db, async (q) => {
        // Decided on the member as they are in this unit (a concurrent role or budget change waits or is seen).
        const now = await store.lockMember(q, teamId, userId)
        if (!now) throw notFound(TEAM_MESSAGES.memberNotFound)
        const refused = memberDenial(a, now, role && role !== now.role ? 'role' : 'budget')
        if (refused) throw forbidden(refused)
        const rebudgeted = budget !== undefined && (budget.limitMicros !== now.limitMicros || budget.period !== now.period)
        const lock = rebudgeted ? restrictionLock(a, 'member.budget', budgetSetBy(now), userId) : null
        if (lock) throw forbidden(lockDenial(lock))
        if (role && role !== now.role) {
          await store.setRole(q, teamId, userId, role)
          await store.audit(q, { teamId, actorId: a.userId, action: 'member.role_changed', target: target.email, ip, details: { from: now.role, to: role } })
        }
        if (budget) {
          await setBudget(q, { kind: 'member', teamId, userId }, budget, at)
          // The limit is its setter's: the member it restricts cannot lift it (roles.ts restrictionLock).
          if (rebudgeted) await store.setBudgetSetter(q, teamId, userId, budget.limitMicros === null ? null : { userId: a.userId, role: a.role })
          await store.audit(q, {
            teamId,
            actorId: a.userId,
            action: 'member.budget_changed',
            target: target.email,
            ip,
            details: { limitRub: budget.limitMicros === null ? null : microsToRub(budget.limitMicros), period: budget.period },
          })
        }
      })
      return memberToApi((await store.member(teamId, userId))!, clockNow(), a)
    },

    /** Removes a member (or the member leaves): their keys of the team stop working at once. */
    async removeMember(user: { id: string; email: string }, teamId: string, userId: string, ip: string) {
      const self = userId === user.id
      const a = await inTeam(user, teamId, self ? 'team.view' : 'members.manage', ip)
      const target = await store.member(teamId, userId)
      if (!target) throw notFound(TEAM_MESSAGES.memberNotFound)
      const refused = self ? null : memberDenial(a, target, 'remove')
      if (refused) throw forbidden(refused)
      if (target.role === 'owner' && (await owners(teamId)) <= 1) throw badRequest(TEAM_MESSAGES.lastOwner)
      const keys = await tx(db, async (q) => {
        const revoked = await store.removeMember(q, teamId, userId)
        if (revoked === null) return null
        await store.audit(q, {
          teamId,
          actorId: a.userId,
          action: self ? 'member.left' : 'member.removed',
          target: target.email,
          ip,
          details: { role: target.role, revokedKeys: revoked.map((k) => `${k.name} (${k.keyPrefix}…)`) },
        })
        return revoked
      })
      if (keys === null) throw notFound(TEAM_MESSAGES.memberNotFound)
      return { ok: true as const, revokedKeys: keys.length }
    },

    async auditLog(user: { id: string; email: string }, teamId: string, limit: number, before: string | undefined, ip: string) {
      await inTeam(user, teamId, 'audit.view', ip)
      const beforeDate = before ? new Date(before) : null
      if (beforeDate && Number.isNaN(+beforeDate)) throw badRequest('before должен быть датой в формате ISO 8601')
      return (await store.auditLog(teamId, limit, beforeDate)).map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        actor: r.actor ?? (r.actorId ? 'удалённый пользователь' : 'система'),
        action: r.action,
        target: r.target,
        ip: r.ip,
        details: r.details ?? {},
      }))
    },

    async webhook(user: { id: string; email: string }, teamId: string, ip: string) {
      await inTeam(user, teamId, 'webhook.manage', ip)
      const team = (await store.team(teamId))!
      return {
        url: team.webhookUrl,
        deliveries: (await store.recentDeliveries(teamId, 20)).map((d) => ({
          id: d.id,
          event: d.event,
          status: d.status,
          attempts: d.attempts,
          lastStatus: d.lastStatus,
          lastError: d.lastError,
          createdAt: new Date(d.createdAt).toISOString(),
          deliveredAt: d.deliveredAt === null ? null : new Date(d.deliveredAt).toISOString(),
        })),
      }
    },

    /** Sets the webhook's address and a new signing secret, shown in this answer only. */
    async setWebhook(user: { id: string; email: string }, teamId: string, rawUrl: unknown, ip: string) {
      const a = await inTeam(user, teamId, 'webhook.manage', ip)
      const url = await checkWebhookUrl(rawUrl, config.allowPrivateWebhooks)
      const secret = `whsec_${randomToken(32)}`
      await store.setWebhook(teamId, url, secret)
      // The audit names the address without its query (which may carry the receiver's own token), never the secret.
      const shown = new URL(url)
      await audit({ teamId, actorId: a.userId, action: 'webhook.updated', target: `${shown.origin}${shown.pathname}`, ip })
      return { url, secret }
    },

    async deleteWebhook(user: { id: string; email: string }, teamId: string, ip: string) {
      const a = await inTeam(user, teamId, 'webhook.manage', ip)
      await store.setWebhook(teamId, null, null)
      await audit({ teamId, actorId: a.userId, action: 'webhook.deleted', ip })
      return { ok: true as const }
    },

    /** A test event through the real outbox, so the receiver can check its signature check. */
    async testWebhook(user: { id: string; email: string }, teamId: string, ip: string) {
      await inTeam(user, teamId, 'webhook.manage', ip)
      const team = (await store.team(teamId))!
      if (!team.webhookUrl) throw badRequest('Сначала укажите адрес вебхука')
      const id = await outbox(db).enqueue(teamId, 'test', { team: { id: teamId, name: team.name }, message: 'Проверка вебхука AI Gateway' })
      return { deliveryId: id }
    },

    /** The e-mails alerts go to: owners and admins (plus, for a member's own budget, the member — added by the caller). */
    managerEmails: (teamId: string) => store.emailsOf(teamId, ['owner', 'admin']),

    /** A member's e-mail (alert recipient for their own budget). */
    memberEmail: async (teamId: string, userId: string) => (await store.member(teamId, userId))?.email ?? null,

    teamName: async (teamId: string) => (await store.team(teamId))?.name ?? null,

    /** For the site admin. */
    async adminList(search: string | undefined, limit: number) {
      const { total, rows } = await store.adminList(search?.trim() ?? '', limit)
      return {
        data: rows.map((r) => ({
          id: r.team.id,
          name: r.team.name,
          balance: microsToRub(r.team.balanceMicros),
          held: microsToRub(r.team.heldMicros),
          members: r.members,
          owner: r.owner,
          spent: microsToRub(r.spentMicros),
          createdAt: r.team.createdAt.toISOString(),
        })),
        pagination: { total, limit },
      }
    },

    adminTeam: (teamId: string) => store.team(teamId),
  }
}

export type TeamsService = ReturnType<typeof teamsService>

/** A member's or a team key's audit entry written by another feature in its own unit (keys, payments, admin). */
export const auditIn = (q: Db, e: AuditEntry) => teamsStore(q).audit(q, e)
