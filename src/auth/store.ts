import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { prepared } from '../db/prepared'
import type { Tx } from '../billing/ledger'
import { passwordResets, refreshTokens, users } from './schema'

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
