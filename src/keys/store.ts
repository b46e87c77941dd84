import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { usageLogs } from '../billing/schema'
import { apiKeys, type ApiKeyRow } from './schema'

/** First instant of the current calendar month (UTC): monthly limits reset then. */
export const monthStart = (now = new Date()) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))

export const keysStore = (db: Db) => ({
  listForUser: (userId: string) =>
    db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).all(),
  countForUser: (userId: string) =>
    db.select({ n: sql<number>`count(*)` }).from(apiKeys).where(eq(apiKeys.userId, userId)).get()?.n ?? 0,
  byIdForUser: (id: string, userId: string) =>
    db.select().from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId))).get(),
  insert: (row: typeof apiKeys.$inferInsert) => db.insert(apiKeys).values(row).run(),
  update: (id: string, set: Partial<Pick<ApiKeyRow, 'name' | 'isActive' | 'monthlyLimitMicros'>>) =>
    db.update(apiKeys).set(set).where(eq(apiKeys.id, id)).returning().get(),
  delete: (id: string) => db.delete(apiKeys).where(eq(apiKeys.id, id)).run(),

  /** Micro-rubles charged per key since `since` (one grouped query for a whole list). */
  spentSince(keyIds: string[], since: Date): Map<string, number> {
    if (keyIds.length === 0) return new Map()
    const rows = db
      .select({ keyId: usageLogs.apiKeyId, spent: sql<number>`sum(${usageLogs.costMicros})` })
      .from(usageLogs)
      .where(and(inArray(usageLogs.apiKeyId, keyIds), gte(usageLogs.createdAt, since)))
      .groupBy(usageLogs.apiKeyId)
      .all()
    return new Map(rows.map((r) => [r.keyId!, r.spent ?? 0]))
  },
})
