import { and, desc, eq, gte, isNull, lt, type SQL, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { MSK_OFFSET_MS } from '../content/moscow'
import { selectRows } from '../db/sql'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { type AccountRef, ledgerEntries, moscowDay } from '../money'
import { teams } from '../teams/schema'

/** The offset written into the grouping SQL as a literal: a parameter in both SELECT and GROUP BY would be two different expressions to PostgreSQL. */
const MSK_SQL = sql.raw(String(MSK_OFFSET_MS))

/** The ledger rows of an account: a team's, or the user's personal ones (no team). */
const ofAccount = (a: AccountRef): SQL => (a.teamId ? eq(ledgerEntries.teamId, a.teamId) : and(eq(ledgerEntries.userId, a.userId), isNull(ledgerEntries.teamId))!)

/** The same, spelled for the hand-written grouped query. */
const ofAccountRaw = (a: AccountRef): SQL => (a.teamId ? sql`team_id = ${a.teamId}` : sql`user_id = ${a.userId} and team_id is null`)

export const billingStore = (db: Db) => ({
  balanceRow: async (a: AccountRef) =>
    a.teamId
      ? (await db.select({ balanceMicros: teams.balanceMicros, lowBalanceAlertMicros: teams.lowBalanceAlertMicros }).from(teams).where(eq(teams.id, a.teamId)).limit(1))[0]
      : (await db.select({ balanceMicros: users.balanceMicros, lowBalanceAlertMicros: users.lowBalanceAlertMicros }).from(users).where(eq(users.id, a.userId)).limit(1))[0],

  /** Sets (null turns off) the account's low-balance alert level; the next drop below it alerts. */
  async setAlert(a: AccountRef, micros: number | null, audit?: (q: Db) => Promise<void>) {
    await write(db, async (q) => {
      if (a.teamId) await q.update(teams).set({ lowBalanceAlertMicros: micros, lowBalanceAlerted: false }).where(eq(teams.id, a.teamId))
      else await q.update(users).set({ lowBalanceAlertMicros: micros, lowBalanceAlerted: false }).where(eq(users.id, a.userId))
      await audit?.(q)
    })
  },

  /** Newest first; ids are time-ordered UUIDv7, so they break ties within one millisecond. */
  transactions(a: AccountRef, limit: number) {
    return db.select().from(ledgerEntries).where(ofAccount(a)).orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id)).limit(limit)
  },

  /**
   * The history as people read it: every movement but usage charges on its own line, and usage
   * charges summed per Moscow day (count, sum, the balance after the day's last charge). One
   * aggregate query over the (user_id, created_at) index, newest first, paged by offset. The day is
   * a day number (Moscow is UTC+3 all year), the same integer arithmetic on both stores.
   */
  async groupedTransactions(a: AccountRef, limit: number, offset: number) {
    type Row = {
      kind: 'entry' | 'usage_day'
      id: string
      type: string
      amount: number | string
      balanceAfter: number | string
      description: string
      at: number | string
      n: number | string
      dayNumber: number | string | null
    }
    const rows = await selectRows<Row>(
      db,
      sql`
      select * from (
        select 'entry' as kind, id, type, amount_micros as amount, balance_after_micros as "balanceAfter",
               description, created_at as at, 1 as n, null as "dayNumber"
          from ledger_entries where ${ofAccountRaw(a)} and type <> 'usage'
        union all
        select 'usage_day' as kind, g.last_id as id, 'usage' as type, g.amount, e.balance_after_micros as "balanceAfter",
               '' as description, g.at, g.n, g.day_number as "dayNumber"
          from (select (created_at + ${MSK_SQL}) / 86400000 as day_number, max(id) as last_id, sum(amount_micros) as amount,
                       max(created_at) as at, count(*) as n
                  from ledger_entries where ${ofAccountRaw(a)} and type = 'usage'
                 group by (created_at + ${MSK_SQL}) / 86400000) g
          join ledger_entries e on e.id = g.last_id
      ) h order by at desc, id desc limit ${limit} offset ${offset}`,
    )
    return rows.map((r) => ({
      kind: r.kind,
      id: r.id,
      type: r.type,
      amount: Number(r.amount),
      balanceAfter: Number(r.balanceAfter),
      description: r.description,
      at: Number(r.at),
      n: Number(r.n),
      day: r.dayNumber == null ? null : moscowDay(Number(r.dayNumber) * 86_400_000 - MSK_OFFSET_MS),
    }))
  },

  /** The usage charges of [from, to): what one day's grouped line expands to, newest first. */
  usageCharges(a: AccountRef, from: Date, to: Date, limit: number, offset: number) {
    return db
      .select()
      .from(ledgerEntries)
      .where(and(ofAccount(a), eq(ledgerEntries.type, 'usage'), gte(ledgerEntries.createdAt, from), lt(ledgerEntries.createdAt, to)))
      .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
      .limit(limit)
      .offset(offset)
  },

  /** Sum of all movements; equals the balance when the books are right (used by tests and audits). */
  async ledgerSumMicros(a: AccountRef): Promise<number> {
    const [row] = await db
      .select({ s: sql<number>`coalesce(sum(${ledgerEntries.amountMicros}), 0)`.mapWith(Number) })
      .from(ledgerEntries)
      .where(ofAccount(a))
    return row?.s ?? 0
  },
})
