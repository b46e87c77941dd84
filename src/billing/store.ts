import { and, desc, eq, gte, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { users } from '../auth/schema'
import { ledgerEntries, usageLogs } from './schema'

export const billingStore = (db: Db) => ({
  balanceMicros(userId: string): number | undefined {
    return db.select({ b: users.balanceMicros }).from(users).where(eq(users.id, userId)).get()?.b
  },

  /** Newest first; ids are time-ordered UUIDv7, so they break ties within one millisecond. */
  transactions(userId: string, limit: number) {
    return db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.userId, userId))
      .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
      .limit(limit)
      .all()
  },

  usageTotals(userId: string, since: Date) {
    return db
      .select({
        cost: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`,
        tokens: sql<number>`coalesce(sum(${usageLogs.totalTokens}), 0)`,
        requests: sql<number>`count(*)`,
      })
      .from(usageLogs)
      .where(and(eq(usageLogs.userId, userId), gte(usageLogs.createdAt, since)))
      .get()!
  },

  recentUsage(userId: string, since: Date, limit: number) {
    return db
      .select()
      .from(usageLogs)
      .where(and(eq(usageLogs.userId, userId), gte(usageLogs.createdAt, since)))
      .orderBy(desc(usageLogs.createdAt), desc(usageLogs.id))
      .limit(limit)
      .all()
  },

  /** Sum of all movements; equals the balance when the books are right (used by tests and audits). */
  ledgerSumMicros(userId: string): number {
    return (
      db
        .select({ s: sql<number>`coalesce(sum(${ledgerEntries.amountMicros}), 0)` })
        .from(ledgerEntries)
        .where(eq(ledgerEntries.userId, userId))
        .get()?.s ?? 0
    )
  },
})
