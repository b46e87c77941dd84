// The admin's queries: platform totals (sums come from the usage_daily rollup, so they stay cheap
// with millions of requests), the user list with per-user counts, and account deletion.
import { and, count, desc, eq, gte, isNull, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { greatest } from '../db/sql'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { ledgerEntries, uncoveredCosts, usageDaily, usageLogs } from '../money'
import { teams } from '../teams/schema'

const alive = isNull(users.deletedAt)

/** `%` and `_` typed into the search box are literal characters, not wildcards. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

// Spelled out with table names: drizzle leaves columns unqualified here, and "id" would bind to the subquery's table.
// The last activity: the newest request (usage_user_created_idx) or session token (a sign-in or a
// renewal, refresh_tokens_user_idx), epoch milliseconds; 0 — neither yet.
const lastRequest = sql`coalesce((select max(l."created_at") from "usage_logs" l where l."user_id" = "users"."id"), 0)`
const lastSession = sql`coalesce((select max(r."created_at") from "refresh_tokens" r where r."user_id" = "users"."id"), 0)`
const listed = {
  user: users,
  apiKeys: sql<number>`(select count(*) from "api_keys" k where k."user_id" = "users"."id")`.mapWith(Number),
  usageLogs: sql<number>`(select coalesce(sum(d."requests"), 0) from "usage_daily" d where d."user_id" = "users"."id")`.mapWith(Number),
  lastActive: greatest(lastRequest, lastSession).mapWith(Number),
}

export const adminStore = (db: Db) => ({
  // Sums come back from PostgreSQL as numeric strings: every aggregate is mapped to a number.
  async userCounts(weekAgo: Date, todayStart: Date) {
    const [row] = await db
      .select({
        total: count(),
        newWeek: sql<number>`coalesce(sum(case when ${users.createdAt} >= ${+weekAgo} then 1 else 0 end), 0)`.mapWith(Number),
        newToday: sql<number>`coalesce(sum(case when ${users.createdAt} >= ${+todayStart} then 1 else 0 end), 0)`.mapWith(Number),
        balance: sql<number>`coalesce(sum(${users.balanceMicros}), 0)`.mapWith(Number),
      })
      .from(users)
      .where(alive)
    // Customers' money is also on team balances.
    const [teamMoney] = await db.select({ balance: sql<number>`coalesce(sum(${teams.balanceMicros}), 0)`.mapWith(Number) }).from(teams)
    return { total: row?.total ?? 0, newWeek: row?.newWeek ?? 0, newToday: row?.newToday ?? 0, balanceMicros: (row?.balance ?? 0) + (teamMoney?.balance ?? 0) }
  },

  ledgerCount: async () => (await db.select({ n: count() }).from(ledgerEntries))[0]?.n ?? 0,
  apiKeyCount: async () => (await db.select({ n: count() }).from(apiKeys))[0]?.n ?? 0,

  /** Requests, tokens, rubles charged and the upstream's USD cost over all time, from the rollup. */
  async usageTotals() {
    const [row] = await db
      .select({
        requests: sql<number>`coalesce(sum(${usageDaily.requests}), 0)`.mapWith(Number),
        tokens: sql<number>`coalesce(sum(${usageDaily.tokens}), 0)`.mapWith(Number),
        audioSeconds: sql<number>`coalesce(sum(${usageDaily.audioSeconds}), 0)`.mapWith(Number),
        characters: sql<number>`coalesce(sum(${usageDaily.characters}), 0)`.mapWith(Number),
        costMicros: sql<number>`coalesce(sum(${usageDaily.costMicros}), 0)`.mapWith(Number),
        upstreamNano: sql<number>`coalesce(sum(${usageDaily.upstreamCostNanoUsd}), 0)`.mapWith(Number),
        upstreamNanoRub: sql<number>`coalesce(sum(${usageDaily.upstreamCostNanoRub}), 0)`.mapWith(Number),
      })
      .from(usageDaily)
    return {
      requests: row?.requests ?? 0,
      tokens: row?.tokens ?? 0,
      audioSeconds: row?.audioSeconds ?? 0,
      characters: row?.characters ?? 0,
      costMicros: row?.costMicros ?? 0,
      upstreamNano: row?.upstreamNano ?? 0,
      upstreamNanoRub: row?.upstreamNanoRub ?? 0,
    }
  },

  /**
   * Per upstream since `since`: requests, what customers paid and what the upstream charged us in
   * its currency. Read from usage_logs (the rollup has no upstream), so the caller caches it.
   */
  spendByUpstream: (since: Date) =>
    db
      .select({
        upstream: usageLogs.upstream,
        requests: count(),
        revenueMicros: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number),
        costUsd: sql<number>`coalesce(sum(cast(${usageLogs.upstreamCostUsd} as numeric)), 0)`.mapWith(Number),
        costRub: sql<number>`coalesce(sum(cast(${usageLogs.upstreamCostRub} as numeric)), 0)`.mapWith(Number),
      })
      .from(usageLogs)
      .where(gte(usageLogs.createdAt, since))
      .groupBy(usageLogs.upstream)
      .orderBy(usageLogs.upstream),

  /** What customers' balances could not pay (money/holds): the total and the newest requests. */
  async uncovered(limit: number) {
    const [total] = await db.select({ requests: count(), micros: sql<number>`coalesce(sum(${uncoveredCosts.uncoveredMicros}), 0)`.mapWith(Number) }).from(uncoveredCosts)
    const rows =
      limit <= 0
        ? []
        : await db
            .select({ row: uncoveredCosts, email: users.email })
            .from(uncoveredCosts)
            .leftJoin(users, eq(users.id, uncoveredCosts.userId))
            .orderBy(desc(uncoveredCosts.createdAt), desc(uncoveredCosts.id))
            .limit(limit)
    return { requests: total?.requests ?? 0, micros: total?.micros ?? 0, rows }
  },

  /** Live accounts matching the search, newest first, with key and request counts and the last activity. */
  async users(search: string, limit: number) {
    // `like … escape` is spelled out: drizzle's like() has no escape argument. LIKE is case-sensitive
    // on PostgreSQL: the stored address is lower-cased, and so is the search.
    const filter = search ? and(alive, sql`${users.emailNormalized} like ${likePattern(search.toLowerCase())} escape '\\'`) : alive
    const total = (await db.select({ n: count() }).from(users).where(filter))[0]?.n ?? 0
    const rows = await db.select(listed).from(users).where(filter).orderBy(desc(users.createdAt), desc(users.id)).limit(limit)
    return { total, rows }
  },

  /** One live account as the list shows it. */
  userListed: async (id: string) =>
    (
      await db
        .select(listed)
        .from(users)
        .where(and(eq(users.id, id), alive))
        .limit(1)
    )[0],

  liveUser: async (id: string) =>
    (
      await db
        .select()
        .from(users)
        .where(and(eq(users.id, id), alive))
        .limit(1)
    )[0],
})
