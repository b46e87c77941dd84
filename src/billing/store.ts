import { and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm'
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

  /**
   * The history as people read it: every movement but usage charges on its own line, and usage
   * charges summed per Moscow day (count, sum, the balance after the day's last charge). One
   * aggregate query over the (user_id, created_at) index, newest first, paged by offset.
   * SQLite takes a bare column from the row holding max(): the day's last balance.
   */
  groupedTransactions(userId: string, limit: number, offset: number) {
    type Row = {
      kind: 'entry' | 'usage_day'
      id: string
      type: string
      amount: number
      balanceAfter: number
      description: string
      at: number
      n: number
      day: string | null
    }
    return db.all<Row>(sql`
      select * from (
        select 'entry' as kind, id, type, amount_micros as amount, balance_after_micros as balanceAfter,
               description, created_at as at, 1 as n, null as day
          from ledger_entries where user_id = ${userId} and type <> 'usage'
        union all
        select 'usage_day' as kind, max(id) as id, 'usage' as type, sum(amount_micros) as amount, balance_after_micros as balanceAfter,
               '' as description, max(created_at) as at, count(*) as n, day
          from (select id, amount_micros, balance_after_micros, created_at,
                       strftime('%Y-%m-%d', (created_at + 10800000) / 1000, 'unixepoch') as day
                  from ledger_entries where user_id = ${userId} and type = 'usage')
         group by day
      ) order by at desc, id desc limit ${limit} offset ${offset}`)
  },

  /** The usage charges of [from, to): what one day's grouped line expands to, newest first. */
  usageCharges(userId: string, from: Date, to: Date, limit: number, offset: number) {
    return db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.type, 'usage'), gte(ledgerEntries.createdAt, from), lt(ledgerEntries.createdAt, to)))
      .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
      .limit(limit)
      .offset(offset)
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
