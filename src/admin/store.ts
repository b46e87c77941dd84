// The admin's queries: platform totals (sums come from the usage_daily rollup, so they stay cheap
// with millions of requests), the user list with per-user counts, and account deletion.
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import type { Tx } from '../billing/ledger'
import { passwordResets, refreshTokens, users } from '../auth/schema'
import { ledgerEntries, uncoveredCosts, usageDaily } from '../billing/schema'
import { apiKeys } from '../keys/schema'

const alive = isNull(users.deletedAt)

/** `%` and `_` typed into the search box are literal characters, not wildcards. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const adminStore = (db: Db) => ({
  userCounts(weekAgo: Date, todayStart: Date) {
    const row = db
      .select({
        total: count(),
        newWeek: sql<number>`coalesce(sum(case when ${users.createdAt} >= ${+weekAgo} then 1 else 0 end), 0)`,
        newToday: sql<number>`coalesce(sum(case when ${users.createdAt} >= ${+todayStart} then 1 else 0 end), 0)`,
        balance: sql<number>`coalesce(sum(${users.balanceMicros}), 0)`,
      })
      .from(users)
      .where(alive)
      .get()
    return { total: row?.total ?? 0, newWeek: row?.newWeek ?? 0, newToday: row?.newToday ?? 0, balanceMicros: row?.balance ?? 0 }
  },

  ledgerCount: () => db.select({ n: count() }).from(ledgerEntries).get()?.n ?? 0,
  apiKeyCount: () => db.select({ n: count() }).from(apiKeys).get()?.n ?? 0,

  /** Requests, tokens, rubles charged and the upstream's USD cost over all time, from the rollup. */
  usageTotals() {
    const row = db
      .select({
        requests: sql<number>`coalesce(sum(${usageDaily.requests}), 0)`,
        tokens: sql<number>`coalesce(sum(${usageDaily.tokens}), 0)`,
        costMicros: sql<number>`coalesce(sum(${usageDaily.costMicros}), 0)`,
        upstreamNano: sql<number>`coalesce(sum(${usageDaily.upstreamCostNanoUsd}), 0)`,
      })
      .from(usageDaily)
      .get()
    return { requests: row?.requests ?? 0, tokens: row?.tokens ?? 0, costMicros: row?.costMicros ?? 0, upstreamNano: row?.upstreamNano ?? 0 }
  },

  /** What customers' balances could not pay (billing/holds.ts): the total and the newest requests. */
  uncovered(limit: number) {
    const total = db
      .select({ requests: count(), micros: sql<number>`coalesce(sum(${uncoveredCosts.uncoveredMicros}), 0)` })
      .from(uncoveredCosts)
      .get()
    const rows = limit <= 0 ? [] : db
      .select({ row: uncoveredCosts, email: users.email })
      .from(uncoveredCosts)
      .leftJoin(users, eq(users.id, uncoveredCosts.userId))
      .orderBy(desc(uncoveredCosts.createdAt))
      .limit(limit)
      .all()
    return { requests: total?.requests ?? 0, micros: total?.micros ?? 0, rows }
  },

  /** Live accounts matching the search, newest first, with key and request counts. */
  users(search: string, limit: number) {
    // `like … escape` is spelled out: drizzle's like() has no escape argument.
    const filter = search ? and(alive, sql`${users.emailNormalized} like ${likePattern(search.toLowerCase())} escape '\\'`) : alive
    const total = db.select({ n: count() }).from(users).where(filter).get()?.n ?? 0
    const rows = db
      .select({
        user: users,
        // Spelled out with table names: drizzle leaves columns unqualified here, and "id" would bind to the subquery's table.
        apiKeys: sql<number>`(select count(*) from "api_keys" k where k."user_id" = "users"."id")`,
        usageLogs: sql<number>`(select coalesce(sum(d."requests"), 0) from "usage_daily" d where d."user_id" = "users"."id")`,
      })
      .from(users)
      .where(filter)
      .orderBy(desc(users.createdAt), desc(users.id))
      .limit(limit)
      .all()
    return { total, rows }
  },

  liveUser: (id: string) => db.select().from(users).where(and(eq(users.id, id), alive)).get(),

  /**
   * Soft delete: the row stays for the ledger and usage rows that must be kept, but the e-mail is
   * anonymised, the password made unusable and every credential (keys, sessions, reset links) removed.
   */
  anonymise(tx: Tx, id: string, now: Date) {
    const email = `deleted-${id}@deleted.invalid`
    tx.update(users)
      .set({ email, emailNormalized: email, passwordHash: '!deleted', lowBalanceAlertMicros: null, deletedAt: now, updatedAt: now })
      .where(and(eq(users.id, id), alive))
      .run()
    const keys = tx.delete(apiKeys).where(eq(apiKeys.userId, id)).returning({ id: apiKeys.id }).all().length
    const sessions = tx.delete(refreshTokens).where(eq(refreshTokens.userId, id)).returning({ id: refreshTokens.id }).all().length
    tx.delete(passwordResets).where(eq(passwordResets.userId, id)).run()
    return { keys, sessions }
  },
})
