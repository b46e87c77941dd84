import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { uploads, type UploadRow } from './schema'

export const uploadsStore = (db: Db) => ({
  insert: (row: UploadRow) => db.insert(uploads).values(row).run(),
  byName: (name: string) => db.select().from(uploads).where(eq(uploads.name, name)).get(),
  byIdsForUser: (ids: string[], userId: string) =>
    ids.length === 0 ? [] : db.select().from(uploads).where(and(inArray(uploads.id, ids), eq(uploads.userId, userId))).all(),
  /** Bytes a customer keeps stored (the quota). */
  totalSizeForUser: (userId: string) =>
    db.select({ n: sql<number>`coalesce(sum(${uploads.size}), 0)` }).from(uploads).where(eq(uploads.userId, userId)).get()?.n ?? 0,
  deleteByIds: (ids: string[]) => (ids.length === 0 ? [] : db.delete(uploads).where(inArray(uploads.id, ids)).returning({ name: uploads.name }).all()),
})
