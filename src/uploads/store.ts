import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { type UploadRow, uploads } from './schema'

export const uploadsStore = (db: Db) => ({
  insert: async (row: UploadRow) => {
    await write(db, (q) => q.insert(uploads).values(row))
  },
  byName: async (name: string) => (await db.select().from(uploads).where(eq(uploads.name, name)).limit(1))[0],
  /** The upload while its owner's account is alive (a deleted account's files are never served, whatever the link). */
  byNameOfLiveOwner: async (name: string) =>
    (
      await db
        .select({ upload: uploads })
        .from(uploads)
        .innerJoin(users, eq(users.id, uploads.userId))
        .where(and(eq(uploads.name, name), isNull(users.deletedAt)))
        .limit(1)
    )[0]?.upload,
  byIdsForUser: async (ids: string[], userId: string) =>
    ids.length === 0
      ? []
      : await db
          .select()
          .from(uploads)
          .where(and(inArray(uploads.id, ids), eq(uploads.userId, userId))),
  /** Bytes a customer keeps stored (the quota); PostgreSQL answers the sum as a string. */
  totalSizeForUser: async (userId: string) =>
    (
      await db
        .select({ n: sql<number>`coalesce(sum(${uploads.size}), 0)`.mapWith(Number) })
        .from(uploads)
        .where(eq(uploads.userId, userId))
    )[0]?.n ?? 0,
  deleteByIds: async (ids: string[]) => (ids.length === 0 ? [] : await write(db, (q) => q.delete(uploads).where(inArray(uploads.id, ids)).returning({ name: uploads.name }))),
})
