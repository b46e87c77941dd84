import { desc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { users } from '../auth/schema'
import { ledgerEntries } from './schema'

export const billingStore = (db: Db) => ({
  balanceRow: (userId: string) =>
    db
      .select({ balanceMicros: users.balanceMicros, lowBalanceAlertMicros: users.lowBalanceAlertMicros })
      .from(users)
      .where(eq(users.id, userId))
      .get(),

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
