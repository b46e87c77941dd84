import { and, asc, desc, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm'
import { chats } from '../chats/schema'
import { prepared } from '../db/prepared'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { generatedImages, storedResponses } from '../gateway/schema'
import { apiKeys } from '../keys/schema'
import { newId } from '../lib/crypto'
import { ledgerEntries } from '../money'
import { teamAudit, teamMembers } from '../teams/schema'
import { uploads } from '../uploads/schema'
import { passwordResets, refreshTokens, users } from './schema'

/**
 * drizzle's prepared select, on both stores: pg-core's prepare() takes a statement name, sqlite-core's
 * none (its types are the ones the code sees). `await stmt.execute(values)` answers the rows on both.
 */
const prepareNamed = <P>(query: { prepare(): P }, name: string): P => (query.prepare as unknown as (name: string) => P).call(query, name)

/** Statements on every authenticated request, prepared once per database. */
const statements = (db: Db) =>
  prepared(db, 'auth-store', () => ({
    userById: prepareNamed(
      db
        .select()
        .from(users)
        .where(and(eq(users.id, sql.placeholder('id')), isNull(users.deletedAt)))
        .limit(1),
      'user_by_id',
    ),
    sessionActive: prepareNamed(
      db
        .select({ id: refreshTokens.id })
        .from(refreshTokens)
        .where(
          and(
            eq(refreshTokens.familyId, sql.placeholder('familyId')),
            eq(refreshTokens.userId, sql.placeholder('userId')),
            isNull(refreshTokens.revokedAt),
            gt(refreshTokens.expiresAt, sql.placeholder('now')),
          ),
        )
        .limit(1),
      'session_active',
    ),
  }))

/**
 * Functions taking `q` run inside a unit (db/tx.ts) on its connection; the others read, or write
 * one statement through `write`.
 */
export const authStore = (db: Db) => ({
  /** On every authenticated request: prepared once. A deleted account is not found, so its sessions end at once. */
  userById: async (id: string) => (await statements(db).userById.execute({ id }))[0],
  userByEmail: async (normalized: string) =>
    (
      await db
        .select()
        .from(users)
        .where(and(eq(users.emailNormalized, normalized), isNull(users.deletedAt)))
        .limit(1)
    )[0],

  /** False when the address (or id) is taken: instances registering the same e-mail at once never both succeed. */
  insertUser: async (q: Db, row: typeof users.$inferInsert) => (await q.insert(users).values(row).onConflictDoNothing().returning({ id: users.id })).length === 1,

  insertRefreshToken: async (q: Db, row: typeof refreshTokens.$inferInsert) => {
    await q.insert(refreshTokens).values(row)
  },
  refreshTokenByHash: async (hash: string) => (await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).limit(1))[0],

  /** Marks a token used only if nobody else did first; false means this is a replay. */
  claimRefreshToken: async (q: Db, id: string, now: Date) =>
    (
      await q
        .update(refreshTokens)
        .set({ usedAt: now })
        .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
        .returning({ id: refreshTokens.id })
    ).length === 1,

  /**
   * On every authenticated request: is the session (refresh-token family) an access token names
   * still open? One indexed lookup, prepared once. Logout, "log out everywhere", a replayed
   * refresh token and a password reset all revoke the family, and its access tokens die with it.
   */
  sessionActive: async (familyId: string, userId: string, now: Date) => (await statements(db).sessionActive.execute({ familyId, userId, now: now.getTime() })).length > 0,

  revokeFamily: async (familyId: string, now: Date) => {
    await write(db, (q) =>
      q
        .update(refreshTokens)
        .set({ revokedAt: now })
        .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt))),
    )
  },

  revokeAllForUser: async (q: Db, userId: string, now: Date) => {
    await q
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
  },

  /** "End the other sessions" after a password change: every open family but the current one. */
  revokeOthersForUser: async (q: Db, userId: string, keepFamilyId: string, now: Date) => {
    await q
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, userId), ne(refreshTokens.familyId, keepFamilyId), isNull(refreshTokens.revokedAt)))
  },

  /**
   * Open sessions (refresh-token families) of a user: started = the first token of the family,
   * last used = the newest token (each refresh issues one), newest activity first.
   */
  openSessions: (userId: string, now: Date) =>
    db
      .select({
        id: refreshTokens.familyId,
        // Epoch milliseconds; PostgreSQL answers aggregates of bigints as strings.
        createdAt: sql<number>`min(${refreshTokens.createdAt})`.mapWith(Number),
        lastUsedAt: sql<number>`max(${refreshTokens.createdAt})`.mapWith(Number),
        expiresAt: sql<number>`max(${refreshTokens.expiresAt})`.mapWith(Number),
        // Every token of a family carries the sign-in's device and address.
        userAgent: sql<string | null>`max(${refreshTokens.userAgent})`,
        ip: sql<string | null>`max(${refreshTokens.ip})`,
      })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt), gt(refreshTokens.expiresAt, now)))
      .groupBy(refreshTokens.familyId)
      .orderBy(desc(sql`max(${refreshTokens.createdAt})`)),

  /** Revokes one session, only if it is the given user's (a token's sid cannot end someone else's). */
  revokeFamilyOf: async (familyId: string, userId: string, now: Date) => {
    await write(db, (q) =>
      q
        .update(refreshTokens)
        .set({ revokedAt: now })
        .where(and(eq(refreshTokens.familyId, familyId), eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt))),
    )
  },

  markEmailVerified: async (q: Db, userId: string, now: Date) => {
    await q
      .update(users)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
  },

  /** The welcome bonus is one ledger row per account, found by its unique reference. */
  hasLedgerReference: async (q: Db, reference: string) =>
    (await q.select({ id: ledgerEntries.id }).from(ledgerEntries).where(eq(ledgerEntries.reference, reference)).limit(1)).length > 0,

  setPassword: async (q: Db, userId: string, passwordHash: string, now: Date) => {
    await q.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId))
  },

  /**
   * Soft delete (the customer's own or an admin's): the row stays for the ledger and usage rows
   * that must be kept, but the e-mail is anonymised, the password made unusable, every credential
   * (keys, sessions, reset links) removed, and the customer's content deleted: chats, stored Responses
   * answers, uploads and generated pictures (their links answer 404 from this commit on; the caller
   * removes the stored bytes it is given back). Inside a unit (db/tx.ts): `q` is its connection.
   */
  async anonymise(q: Db, id: string, now: Date) {
    // Rows in the hold unit's order — keys, memberships, then the account — so a request of this
    // account settling meanwhile (on PostgreSQL) is never deadlocked with the deletion.
    const keys = (await q.delete(apiKeys).where(eq(apiKeys.userId, id)).returning({ id: apiKeys.id })).length
    await leaveTeams(q, id, now)
    const email = `deleted-${id}@deleted.invalid`
    await q
      .update(users)
      .set({ email, emailNormalized: email, passwordHash: '!deleted', lowBalanceAlertMicros: null, deletedAt: now, updatedAt: now })
      .where(and(eq(users.id, id), isNull(users.deletedAt)))
    const sessions = (await q.delete(refreshTokens).where(eq(refreshTokens.userId, id)).returning({ id: refreshTokens.id })).length
    await q.delete(passwordResets).where(eq(passwordResets.userId, id))
    await q.delete(chats).where(eq(chats.userId, id))
    await q.delete(storedResponses).where(eq(storedResponses.userId, id))
    const files = {
      uploads: (await q.delete(uploads).where(eq(uploads.userId, id)).returning({ name: uploads.name })).map((r) => r.name),
      images: (await q.delete(generatedImages).where(eq(generatedImages.userId, id)).returning({ name: generatedImages.name })).map((r) => r.name),
    }
    return { keys, sessions, files }
  },
})

/** The account leaves its teams; a team it was the only owner of passes to its longest-standing admin (else member). */
async function leaveTeams(q: Db, userId: string, now: Date) {
  const owned = (await q.delete(teamMembers).where(eq(teamMembers.userId, userId)).returning({ teamId: teamMembers.teamId, role: teamMembers.role }))
    .filter((m) => m.role === 'owner')
    .map((m) => m.teamId)
  if (owned.length === 0) return
  const left = await q
    .select({ teamId: teamMembers.teamId, userId: teamMembers.userId, role: teamMembers.role, email: users.email })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(inArray(teamMembers.teamId, owned))
    .orderBy(asc(teamMembers.joinedAt))
  for (const teamId of owned) {
    const members = left.filter((m) => m.teamId === teamId)
    if (members.length === 0 || members.some((m) => m.role === 'owner')) continue
    const heir = members.find((m) => m.role === 'admin') ?? members[0]!
    await q
      .update(teamMembers)
      .set({ role: 'owner' })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, heir.userId)))
    await q
      .insert(teamAudit)
      .values({ id: newId(), teamId, at: now, actorId: null, action: 'owner.inherited', target: heir.email, ip: null, details: { userId: heir.userId, previousOwnerId: userId } })
  }
}
