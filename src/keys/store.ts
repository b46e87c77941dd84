import { and, count, desc, eq, gte, inArray, sql } from 'drizzle-orm'
import { usageLogs } from '../billing/schema'
import type { Db } from '../db/client'
import { write } from '../db/tx'
import { type ApiKeyRow, apiKeys } from './schema'

/** First instant of the current calendar month (UTC): monthly limits reset then. */
export const monthStart = (now = new Date()) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))

export const keysStore = (db: Db) => ({
  listForUser: (userId: string) => db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)),
  countForUser: async (userId: string) => (await db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, userId)))[0]?.n ?? 0,
  byIdForUser: async (id: string, userId: string) =>
    (
      await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)))
        .limit(1)
    )[0],
  insert: async (row: typeof apiKeys.$inferInsert) => {
    await write(db, (q) => q.insert(apiKeys).values(row))
  },
  update: async (id: string, set: Partial<Pick<ApiKeyRow, 'name' | 'isActive' | 'monthlyLimitMicros'>>) =>
    (await write(db, (q) => q.update(apiKeys).set(set).where(eq(apiKeys.id, id)).returning()))[0],
  delete: async (id: string) => {
    await write(db, (q) => q.delete(apiKeys).where(eq(apiKeys.id, id)))
  },

  /** Micro-rubles charged per key since `since` (one grouped query for a whole list). */
  async spentSince(keyIds: string[], since: Date): Promise<Map<string, number>> {
    if (keyIds.length === 0) return new Map()
    const rows = await db
      .select({ keyId: usageLogs.apiKeyId, spent: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number) })
      .from(usageLogs)
      .where(and(inArray(usageLogs.apiKeyId, keyIds), gte(usageLogs.createdAt, since)))
      .groupBy(usageLogs.apiKeyId)
    return new Map(rows.map((r) => [r.keyId!, r.spent]))
  },
})
