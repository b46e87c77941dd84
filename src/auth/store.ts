import { and, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { prepared } from '../db/prepared'
import type { Tx } from '../billing/ledger'
import { ledgerEntries } from '../billing/schema'
import { emailVerifications, passwordResets, refreshTokens, users } from './schema'

export const authStore = (db: Db) => ({
  /** On every authenticated request: prepared once. A deleted account is not found, so its sessions end at once. */
  userById: (id: string) =>
    prepared(db, 'user-by-id', () =>
      db.select().from(users).where(and(eq(users.id, sql.placeholder('id')), isNull(users.deletedAt))).prepare(),
    ).get({ id }),
  userByEmail: (normalized: string) =>
    db.select().from(users).where(and(eq(users.emailNormalized, normalized), isNull(users.deletedAt))).get(),

  insertUser: (tx: Tx, row: typeof users.$inferInsert) => tx.insert(users).values(row).run(),

  insertRefreshToken: (tx: Tx, row: typeof refreshTokens.$inferInsert) => tx.insert(refreshTokens).values(row).run(),
  refreshTokenByHash: (hash: string) => db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).get(),

  /** Marks a token used only if nobody else did first; false means this is a replay. */
  claimRefreshToken: (tx: Tx, id: string, now: Date) =>
    tx
      .update(refreshTokens)
      .set({ usedAt: now })
      .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
      .returning({ id: refreshTokens.id })
      .all().length === 1,

  /**
   * On every authenticated request: is the session (refresh-token family) an access token names
   * still open? One indexed lookup, prepared once. Logout, "log out everywhere", a replayed
   * refresh token and a password reset all revoke the family, and its access tokens die with it.
   */
  sessionActive: (familyId: string, userId: string, now: Date) =>
    prepared(db, 'session-active', () =>
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
        .limit(1)
        .prepare(),
    ).get({ familyId, userId, now: now.getTime() }) !== undefined,

  revokeFamily: (familyId: string, now: Date) =>
    db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
      .run(),

  revokeAllForUser: (tx: Tx, userId: string, now: Date) =>
    tx
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
      .run(),

  /** "End the other sessions" after a password change: every open family but the current one. */
  revokeOthersForUser: (tx: Tx, userId: string, keepFamilyId: string, now: Date) =>
    tx
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, userId), ne(refreshTokens.familyId, keepFamilyId), isNull(refreshTokens.revokedAt)))
      .run(),

  /**
   * Open sessions (refresh-token families) of a user: started = the first token of the family,
   * last used = the newest token (each refresh issues one), newest activity first.
   */
  openSessions: (userId: string, now: Date) =>
    db
      .select({
        id: refreshTokens.familyId,
        createdAt: sql<number>`min(${refreshTokens.createdAt})`,
        lastUsedAt: sql<number>`max(${refreshTokens.createdAt})`,
        expiresAt: sql<number>`max(${refreshTokens.expiresAt})`,
      })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt), gt(refreshTokens.expiresAt, now)))
      .groupBy(refreshTokens.familyId)
      .orderBy(desc(sql`max(${refreshTokens.createdAt})`))
      .all(),

  /** Revokes one session, only if it is the given user's (a token's sid cannot end someone else's). */
  revokeFamilyOf: (familyId: string, userId: string, now: Date) =>
    db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.familyId, familyId), eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
      .run(),

  insertEmailVerification: (row: typeof emailVerifications.$inferInsert) => db.insert(emailVerifications).values(row).run(),
  emailVerificationByHash: (hash: string) =>
    db.select().from(emailVerifications).where(eq(emailVerifications.tokenHash, hash)).get(),

  /** Single use: succeeds for exactly one caller even when the link is opened twice at once. */
  claimEmailVerification: (tx: Tx, id: string, now: Date) =>
    tx
      .update(emailVerifications)
      .set({ usedAt: now })
      .where(and(eq(emailVerifications.id, id), isNull(emailVerifications.usedAt)))
      .returning({ id: emailVerifications.id })
      .all().length === 1,

  /** Once the address is confirmed, the other links sent to it have nothing left to do. */
  expireOtherVerifications: (tx: Tx, userId: string, now: Date) =>
    tx
      .update(emailVerifications)
      .set({ usedAt: now })
      .where(and(eq(emailVerifications.userId, userId), isNull(emailVerifications.usedAt)))
      .run(),

  markEmailVerified: (tx: Tx, userId: string, now: Date) =>
    tx
      .update(users)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
      .run(),

  /** The welcome bonus is one ledger row per account, found by its unique reference. */
  hasLedgerReference: (tx: Tx, reference: string) =>
    tx.select({ id: ledgerEntries.id }).from(ledgerEntries).where(eq(ledgerEntries.reference, reference)).limit(1).get() !== undefined,

  insertPasswordReset: (row: typeof passwordResets.$inferInsert) => db.insert(passwordResets).values(row).run(),
  passwordResetByHash: (hash: string) =>
    db.select().from(passwordResets).where(eq(passwordResets.tokenHash, hash)).get(),

  /** Single use: succeeds for exactly one caller even under concurrent resets. */
  claimPasswordReset: (tx: Tx, id: string, now: Date) =>
    tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt)))
      .returning({ id: passwordResets.id })
      .all().length === 1,

  /** After a reset, every other outstanding link of the user stops working too. */
  expireOtherResets: (tx: Tx, userId: string, now: Date) =>
    tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)))
      .run(),

  setPassword: (tx: Tx, userId: string, passwordHash: string, now: Date) =>
    tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId)).run(),
})
