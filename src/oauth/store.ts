// The codes of «Войти через AI Gateway» (auth_codes): written when a user approves an app, claimed
// once when the app exchanges the code for a key.
import { and, eq, gt, isNull, lt } from 'drizzle-orm'
import { users } from '../auth/schema'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { authCodes } from '../keys/schema'

export type AuthCodeRow = typeof authCodes.$inferSelect

/** Codes are kept this long past their expiry: a late exchange still hears «expired», not «unknown». */
const KEEP_EXPIRED_MS = 24 * 3600_000

export const oauthStore = (db: Db) => ({
  /** Writes a new code; the codes that expired over a day ago go in the same unit (no separate purge job). */
  insert: (row: typeof authCodes.$inferInsert, at: number) =>
    tx(db, async (q) => {
      await q.delete(authCodes).where(lt(authCodes.expiresAt, new Date(at - KEEP_EXPIRED_MS)))
      await q.insert(authCodes).values(row)
    }),

  byHash: async (codeHash: string): Promise<AuthCodeRow | undefined> => (await db.select().from(authCodes).where(eq(authCodes.codeHash, codeHash)).limit(1))[0],

  /**
   * Marks the code used if it is still unused and unexpired — one conditional statement, so of two
   * parallel exchanges (on any instances) exactly one gets the row back.
   */
  claim: async (codeHash: string, at: number): Promise<AuthCodeRow | undefined> =>
    (
      await write(db, (q) =>
        q
          .update(authCodes)
          .set({ usedAt: new Date(at) })
          .where(and(eq(authCodes.codeHash, codeHash), isNull(authCodes.usedAt), gt(authCodes.expiresAt, new Date(at))))
          .returning(),
      )
    )[0],

  /** Gives a claimed code back when its key could not be made (the app may try again while it lives). */
  release: (codeHash: string) => write(db, (q) => q.update(authCodes).set({ usedAt: null }).where(eq(authCodes.codeHash, codeHash))),

  /** The approving user, unless the account was deleted meanwhile. */
  user: async (userId: string) =>
    (
      await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(and(eq(users.id, userId), isNull(users.deletedAt)))
        .limit(1)
    )[0],
})
