// The teams' queries. `db` is the database, or a unit's `q` (db/tx.ts) for statements that must
// share its transaction; writes outside a unit go through `write`.
import { and, asc, count, desc, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { newId } from '../lib/crypto'
import { budgetSelection, usageDaily } from '../money'
import { type KeyDefaults, type ResidencyRule, type TeamRole, type TeamRow, teamAudit, teamInvitations, teamMembers, teams, webhookDeliveries } from './schema'

const live = isNull(teams.deletedAt)

/** How many of the newest teams the admin's name search looks through. */
const ADMIN_SEARCH_SCAN = 10_000

export type AuditEntry = {
  teamId: string
  actorId: string | null
  action: string
  target?: string | null
  ip?: string | null
  details?: Record<string, unknown>
  at?: Date
}

const memberColumns = {
  userId: teamMembers.userId,
  email: users.email,
  role: teamMembers.role,
  joinedAt: teamMembers.joinedAt,
  ...budgetSelection(teamMembers),
  budgetSetBy: teamMembers.budgetSetBy,
  budgetSetByRole: teamMembers.budgetSetByRole,
}

export const teamsStore = (db: Db) => ({
  async insertTeam(q: Db, row: typeof teams.$inferInsert) {
    await q.insert(teams).values(row)
  },
  async insertMember(q: Db, row: typeof teamMembers.$inferInsert) {
    await q.insert(teamMembers).values(row)
  },

  /** A live team's row. */
  team: async (id: string): Promise<TeamRow | undefined> =>
    (
      await db
        .select()
        .from(teams)
        .where(and(eq(teams.id, id), live))
        .limit(1)
    )[0],

  /** The user's role in a live team, with the team; undefined when not a member (or no such team). */
  membership: async (teamId: string, userId: string) =>
    (
      await db
        .select({ role: teamMembers.role, team: teams })
        .from(teamMembers)
        .innerJoin(teams, eq(teams.id, teamMembers.teamId))
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId), live))
        .limit(1)
    )[0],

  /** The live teams a user belongs to, with the role, oldest membership first. */
  teamsOf: (userId: string) =>
    db
      .select({
        id: teams.id,
        name: teams.name,
        role: teamMembers.role,
        balanceMicros: teams.balanceMicros,
        residency: teams.residency,
        memberCount: sql<number>`(select count(*) from "team_members" m where m."team_id" = "teams"."id")`.mapWith(Number),
      })
      .from(teamMembers)
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(and(eq(teamMembers.userId, userId), live))
      .orderBy(asc(teamMembers.joinedAt)),

  countTeamsOf: async (userId: string) =>
    (
      await db
        .select({ n: count() })
        .from(teamMembers)
        .innerJoin(teams, eq(teams.id, teamMembers.teamId))
        .where(and(eq(teamMembers.userId, userId), live))
    )[0]?.n ?? 0,

  /** Every member with e-mail, role and budget counters, owners first, then by joining date. */
  members: (teamId: string) =>
    db
      .select(memberColumns)
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .where(eq(teamMembers.teamId, teamId))
      .orderBy(sql`case ${teamMembers.role} when 'owner' then 0 when 'admin' then 1 when 'billing' then 2 else 3 end`, asc(teamMembers.joinedAt)),

  member: async (teamId: string, userId: string) =>
    (
      await db
        .select(memberColumns)
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
        .limit(1)
    )[0],

  /**
   * Inside a unit: a member as they are now, their row taken first (a no-op write: on PostgreSQL that
   * locks it), so a role or budget decided on it cannot be changed underneath by a concurrent change.
   */
  lockMember: async (q: Db, teamId: string, userId: string) =>
    (
      await q
        .update(teamMembers)
        .set({ role: sql`${teamMembers.role}` })
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
        .returning({
          userId: teamMembers.userId,
          role: teamMembers.role,
          ...budgetSelection(teamMembers),
          budgetSetBy: teamMembers.budgetSetBy,
          budgetSetByRole: teamMembers.budgetSetByRole,
        })
    )[0],

  /** Who set a member's budget limit, with their role then (null: no limit). */
  async setBudgetSetter(q: Db, teamId: string, userId: string, by: { userId: string; role: TeamRole } | null) {
    await q
      .update(teamMembers)
      .set({ budgetSetBy: by?.userId ?? null, budgetSetByRole: by?.role ?? null })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
  },

  memberByEmail: async (teamId: string, emailNormalized: string) =>
    (
      await db
        .select({ userId: teamMembers.userId })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(and(eq(teamMembers.teamId, teamId), eq(users.emailNormalized, emailNormalized)))
        .limit(1)
    )[0],

  countMembers: async (teamId: string) => (await db.select({ n: count() }).from(teamMembers).where(eq(teamMembers.teamId, teamId)))[0]?.n ?? 0,

  /** The e-mails of the members with these roles (alert recipients). */
  emailsOf: async (teamId: string, roles: TeamRole[]) =>
    (
      await db
        .select({ email: users.email })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(and(eq(teamMembers.teamId, teamId), inArray(teamMembers.role, roles), isNull(users.deletedAt)))
    ).map((r) => r.email),

  async setRole(q: Db, teamId: string, userId: string, role: TeamRole) {
    await q
      .update(teamMembers)
      .set({ role })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
  },

  /**
   * Removes a member and, in the same unit, their keys of this team: requests with them fail at once.
   * The keys go first — the order the hold unit takes rows in (key, then member) — so a settlement
   * running meanwhile is never deadlocked with this. Answers the keys' names, or null when the member was already gone.
   */
  async removeMember(q: Db, teamId: string, userId: string) {
    const keys = await q
      .delete(apiKeys)
      .where(and(eq(apiKeys.teamId, teamId), eq(apiKeys.userId, userId)))
      .returning({ name: apiKeys.name, keyPrefix: apiKeys.keyPrefix })
    const gone = await q
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .returning({ userId: teamMembers.userId })
    return gone.length === 0 ? null : keys
  },

  async update(teamId: string, set: { name?: string; residency?: ResidencyRule; allowedModels?: string[] | null; keyDefaults?: KeyDefaults | null; fitToBalance?: boolean }) {
    await write(db, (q) => q.update(teams).set(set).where(eq(teams.id, teamId)))
  },

  /** Soft delete, only while nothing is on the balance or held (one conditional UPDATE); then the team's keys and open invitations go. */
  async softDelete(q: Db, teamId: string, now: Date): Promise<boolean> {
    const rows = await q
      .update(teams)
      .set({ deletedAt: now, webhookUrl: null, webhookSecret: null })
      .where(and(eq(teams.id, teamId), live, eq(teams.balanceMicros, 0), eq(teams.heldMicros, 0)))
      .returning({ id: teams.id })
    if (rows.length === 0) return false
    await q.delete(apiKeys).where(eq(apiKeys.teamId, teamId))
    await q
      .update(teamInvitations)
      .set({ revokedAt: now })
      .where(and(eq(teamInvitations.teamId, teamId), isNull(teamInvitations.usedAt), isNull(teamInvitations.revokedAt)))
    return true
  },

  /** Open invitations: not used, not revoked, not expired; newest first. */
  pendingInvitations: (teamId: string, now: Date) =>
    db
      .select({
        id: teamInvitations.id,
        email: teamInvitations.email,
        role: teamInvitations.role,
        createdAt: teamInvitations.createdAt,
        expiresAt: teamInvitations.expiresAt,
        invitedBy: users.email,
      })
      .from(teamInvitations)
      .innerJoin(users, eq(users.id, teamInvitations.invitedBy))
      .where(and(eq(teamInvitations.teamId, teamId), isNull(teamInvitations.usedAt), isNull(teamInvitations.revokedAt), gt(teamInvitations.expiresAt, now)))
      .orderBy(desc(teamInvitations.createdAt)),

  countPendingInvitations: async (teamId: string, now: Date) =>
    (
      await db
        .select({ n: count() })
        .from(teamInvitations)
        .where(and(eq(teamInvitations.teamId, teamId), isNull(teamInvitations.usedAt), isNull(teamInvitations.revokedAt), gt(teamInvitations.expiresAt, now)))
    )[0]?.n ?? 0,

  /**
   * Accepting: marks the invitation used only while it is open — not used, not revoked, not expired —
   * in one conditional UPDATE. A revoke is the same kind of statement on the same row (revokeInvitations),
   * so of an accept and a revoke at once exactly one changes it; the other finds it closed.
   */
  async claimInvitation(q: Db, id: string, now: Date): Promise<boolean> {
    const rows = await q
      .update(teamInvitations)
      .set({ usedAt: now })
      .where(and(eq(teamInvitations.id, id), isNull(teamInvitations.usedAt), isNull(teamInvitations.revokedAt), gt(teamInvitations.expiresAt, now)))
      .returning({ id: teamInvitations.id })
    return rows.length === 1
  },

  /** An invitation's state (used, revoked), to tell the loser of a race what happened. */
  invitationState: async (id: string) =>
    (
      await db
        .select({ teamId: teamInvitations.teamId, usedAt: teamInvitations.usedAt, revokedAt: teamInvitations.revokedAt })
        .from(teamInvitations)
        .where(eq(teamInvitations.id, id))
        .limit(1)
    )[0],

  /** Revokes the open invitations matching: one by id, or every one to an address (a new one replaces them). */
  async revokeInvitations(q: Db, teamId: string, by: { id: string } | { emailNormalized: string }, now: Date) {
    return q
      .update(teamInvitations)
      .set({ revokedAt: now })
      .where(
        and(
          eq(teamInvitations.teamId, teamId),
          'id' in by ? eq(teamInvitations.id, by.id) : eq(teamInvitations.emailNormalized, by.emailNormalized),
          isNull(teamInvitations.usedAt),
          isNull(teamInvitations.revokedAt),
        ),
      )
      .returning({ email: teamInvitations.email, role: teamInvitations.role })
  },

  async audit(q: Db, e: AuditEntry) {
    await q.insert(teamAudit).values({
      id: newId(),
      teamId: e.teamId,
      at: e.at ?? new Date(),
      actorId: e.actorId,
      action: e.action,
      target: e.target ?? null,
      ip: e.ip ?? null,
      details: e.details ?? null,
    })
  },

  /** The audit log, newest first, with the actor's e-mail; `before` pages by time. */
  auditLog: (teamId: string, limit: number, before: Date | null) =>
    db
      .select({
        id: teamAudit.id,
        at: teamAudit.at,
        actorId: teamAudit.actorId,
        actor: users.email,
        action: teamAudit.action,
        target: teamAudit.target,
        ip: teamAudit.ip,
        details: teamAudit.details,
      })
      .from(teamAudit)
      .leftJoin(users, eq(users.id, teamAudit.actorId))
      .where(and(eq(teamAudit.teamId, teamId), before ? lt(teamAudit.at, before) : undefined))
      .orderBy(desc(teamAudit.at), desc(teamAudit.id))
      .limit(limit),

  async setWebhook(teamId: string, url: string | null, secret: string | null) {
    await write(db, (q) => q.update(teams).set({ webhookUrl: url, webhookSecret: secret }).where(eq(teams.id, teamId)))
  },

  recentDeliveries: (teamId: string, limit: number) =>
    db
      .select({
        id: webhookDeliveries.id,
        event: webhookDeliveries.event,
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        lastStatus: webhookDeliveries.lastStatus,
        lastError: webhookDeliveries.lastError,
        createdAt: webhookDeliveries.createdAt,
        deliveredAt: webhookDeliveries.deliveredAt,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.teamId, teamId))
      .orderBy(desc(webhookDeliveries.createdAt))
      .limit(limit),

  /**
   * For the site admin: live teams, newest first, with member count, owner and all-time spend. The
   * name search is done here, not in SQL: SQLite's lower() and LIKE fold only ASCII, and team
   * names are Cyrillic (teams are few next to users; the scan is bounded).
   */
  async adminList(search: string, limit: number) {
    const rows = await db
      .select({
        team: teams,
        members: sql<number>`(select count(*) from "team_members" m where m."team_id" = "teams"."id")`.mapWith(Number),
        owner: sql<string | null>`(select u."email" from "team_members" m join "users" u on u."id" = m."user_id" where m."team_id" = "teams"."id" and m."role" = 'owner' limit 1)`,
        spentMicros: sql<number>`(select coalesce(sum(d."cost_micros"), 0) from "usage_daily" d where d."team_id" = "teams"."id")`.mapWith(Number),
      })
      .from(teams)
      .where(live)
      .orderBy(desc(teams.createdAt), desc(teams.id))
      .limit(search ? ADMIN_SEARCH_SCAN : limit)
    const needle = search.toLowerCase()
    const found = search ? rows.filter((r) => r.team.name.toLowerCase().includes(needle) || r.owner?.toLowerCase().includes(needle)) : rows
    const total = search ? found.length : ((await db.select({ n: count() }).from(teams).where(live))[0]?.n ?? 0)
    return { total, rows: found.slice(0, limit) }
  },

  /** Alert letters: a key's name and its owner's e-mail; a user's e-mail. */
  keyOf: async (keyId: string) => (await db.select({ name: apiKeys.name, userId: apiKeys.userId }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1))[0],
  userEmail: async (userId: string) =>
    (
      await db
        .select({ email: users.email })
        .from(users)
        .where(and(eq(users.id, userId), isNull(users.deletedAt)))
        .limit(1)
    )[0]?.email ?? null,

  /** What members spent from the team in total (the rollup), for the team page. */
  spentByTeam: async (teamId: string) =>
    (
      await db
        .select({ s: sql<number>`coalesce(sum(${usageDaily.costMicros}), 0)`.mapWith(Number) })
        .from(usageDaily)
        .where(eq(usageDaily.teamId, teamId))
    )[0]?.s ?? 0,
})

export type TeamsStore = ReturnType<typeof teamsStore>
