// Usage statistics of an account — personal, a team's, or one member's part of it. Whole days come
// from the usage_daily rollup (a few rows per day), so a period costs the same with a thousand or a
// million requests; only a period that starts mid-day reads that first partial day from usage_logs,
// through the (user, created_at) or (team, created_at) index.
import { and, desc, eq, gte, inArray, isNull, lt, type SQL, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { microsToRub } from '../lib/money'
import { daysBetween, moscowDay, moscowDayStart, nextDay, usageDaily, usageLogs } from '../money'

export type UsageFilter = { apiKeyId?: string; model?: string; userId?: string }

/**
 * Whose requests: a personal account's (teamId null), a whole team's (userId null: owners, admins,
 * billing), or one member's part of a team (a member sees their own requests only).
 */
export type UsageScope = { userId: string | null; teamId: string | null }

type Sums = { requests: number; tokens: number; audioSeconds: number; characters: number; cost: number }
type Grouped = Sums & { k: string }

/** usage_logs rows of a scope. */
export function logScope(s: UsageScope): SQL[] {
  const where: SQL[] = [s.teamId ? eq(usageLogs.teamId, s.teamId) : isNull(usageLogs.teamId)]
  if (s.userId) where.push(eq(usageLogs.userId, s.userId))
  return where
}

/** usage_daily rows of a scope ('' is the personal account there). */
function dailyScope(s: UsageScope): SQL[] {
  const where: SQL[] = [eq(usageDaily.teamId, s.teamId ?? '')]
  if (s.userId) where.push(eq(usageDaily.userId, s.userId))
  return where
}

/** The usage_logs conditions for a scope's period (from `since`) and filters. */
export function logConditions(scope: UsageScope, since: Date | null, f: UsageFilter): SQL[] {
  const where: SQL[] = logScope(scope)
  if (f.userId) where.push(eq(usageLogs.userId, f.userId))
  if (since) where.push(gte(usageLogs.createdAt, since))
  if (f.apiKeyId) where.push(eq(usageLogs.apiKeyId, f.apiKeyId))
  if (f.model) where.push(eq(usageLogs.model, f.model))
  return where
}

/** How a period maps onto the rollup: whole days from `fullFrom`, plus the raw rows of [since, headEnd). */
export function splitPeriod(since: Date | null) {
  if (!since) return { fullFrom: null, head: null }
  const day = moscowDay(since)
  if (+moscowDayStart(day) === +since) return { fullFrom: day, head: null }
  const next = nextDay(day)
  return { fullFrom: next, head: { day, since, until: moscowDayStart(next) } }
}

const toLog = ({ log: r, keyName, email }: { log: typeof usageLogs.$inferSelect; keyName: string | null; email?: string | null }) => ({
  id: r.id,
  model: r.model,
  promptTokens: r.promptTokens,
  completionTokens: r.completionTokens,
  totalTokens: r.totalTokens,
  audioSeconds: r.audioSeconds,
  characters: r.characters,
  cost: microsToRub(r.costMicros),
  status: r.status,
  apiKeyId: r.apiKeyId,
  apiKeyName: keyName ?? null,
  userId: r.userId,
  email: email ?? null,
  durationMs: r.durationMs,
  createdAt: r.createdAt.toISOString(),
})

export function usageReader(db: Db) {
  const sums = {
    requests: sql<number>`sum(${usageDaily.requests})`.mapWith(Number),
    tokens: sql<number>`sum(${usageDaily.tokens})`.mapWith(Number),
    audioSeconds: sql<number>`sum(${usageDaily.audioSeconds})`.mapWith(Number),
    characters: sql<number>`sum(${usageDaily.characters})`.mapWith(Number),
    cost: sql<number>`sum(${usageDaily.costMicros})`.mapWith(Number),
  }

  /** Whole days of the period from the rollup, summed in SQL per day, model, key or member. */
  function rolled(scope: UsageScope, fullFrom: string | null, f: UsageFilter, by: 'day' | 'model' | 'apiKeyId' | 'userId'): Promise<Grouped[]> {
    const where: SQL[] = dailyScope(scope)
    if (f.userId) where.push(eq(usageDaily.userId, f.userId))
    if (fullFrom) where.push(gte(usageDaily.day, fullFrom))
    if (f.apiKeyId) where.push(eq(usageDaily.apiKeyId, f.apiKeyId))
    if (f.model) where.push(eq(usageDaily.model, f.model))
    const col = usageDaily[by]
    return db
      .select({ k: col, ...sums })
      .from(usageDaily)
      .where(and(...where))
      .groupBy(col)
  }

  /** The period's partial first day from the raw rows, per model, key and member (a day's rows at most). */
  function head(scope: UsageScope, h: { since: Date; until: Date }, f: UsageFilter) {
    const where = [...logConditions(scope, h.since, f), lt(usageLogs.createdAt, h.until)]
    return db
      .select({
        model: usageLogs.model,
        apiKeyId: sql<string>`coalesce(${usageLogs.apiKeyId}, '')`,
        userId: usageLogs.userId,
        requests: sql<number>`count(*)`.mapWith(Number),
        tokens: sql<number>`coalesce(sum(${usageLogs.totalTokens}), 0)`.mapWith(Number),
        audioSeconds: sql<number>`coalesce(sum(${usageLogs.audioSeconds}), 0)`.mapWith(Number),
        characters: sql<number>`coalesce(sum(${usageLogs.characters}), 0)`.mapWith(Number),
        cost: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number),
      })
      .from(usageLogs)
      .where(and(...where))
      .groupBy(usageLogs.model, sql`coalesce(${usageLogs.apiKeyId}, '')`, usageLogs.userId)
  }

  /** Adds `extra` into the map under `key`. */
  function addTo(map: Map<string, Sums>, key: string, extra: Sums) {
    const acc = map.get(key) ?? { requests: 0, tokens: 0, audioSeconds: 0, characters: 0, cost: 0 }
    acc.requests += extra.requests
    acc.tokens += extra.tokens
    acc.audioSeconds += extra.audioSeconds
    acc.characters += extra.characters
    acc.cost += extra.cost
    map.set(key, acc)
  }

  /** Per-day, per-model, per-key and (teams) per-member sums of the period, the partial head day included. */
  async function aggregate(scope: UsageScope, since: Date | null, f: UsageFilter) {
    const { fullFrom, head: h } = splitPeriod(since)
    const byDay = new Map<string, Sums>()
    const byModel = new Map<string, Sums>()
    const byKey = new Map<string, Sums>()
    const byMember = new Map<string, Sums>()
    for (const r of await rolled(scope, fullFrom, f, 'day')) addTo(byDay, r.k, r)
    for (const r of await rolled(scope, fullFrom, f, 'model')) addTo(byModel, r.k, r)
    for (const r of await rolled(scope, fullFrom, f, 'apiKeyId')) addTo(byKey, r.k, r)
    if (scope.teamId) for (const r of await rolled(scope, fullFrom, f, 'userId')) addTo(byMember, r.k, r)
    if (h)
      for (const r of await head(scope, h, f)) {
        addTo(byDay, h.day, r)
        addTo(byModel, r.model, r)
        addTo(byKey, r.apiKeyId, r)
        if (scope.teamId) addTo(byMember, r.userId, r)
      }
    return { byDay, byModel, byKey, byMember }
  }

  /** Every key of the scope, to filter by (a key unused in the period simply shows nothing). */
  async function scopeKeys(scope: UsageScope) {
    const where = scope.teamId
      ? and(eq(apiKeys.teamId, scope.teamId), scope.userId ? eq(apiKeys.userId, scope.userId) : undefined)
      : and(eq(apiKeys.userId, scope.userId!), isNull(apiKeys.teamId))
    return (await db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(where)).sort((a, b) => a.name.localeCompare(b.name, 'ru'))
  }

  /** The models used in the period, whatever the filters say. */
  async function rolledModels(scope: UsageScope, since: Date | null): Promise<string[]> {
    const { fullFrom, head: h } = splitPeriod(since)
    const models = new Set((await rolled(scope, fullFrom, {}, 'model')).map((r) => r.k))
    if (h) for (const r of await head(scope, h, {})) models.add(r.model)
    return [...models]
  }

  function recent(scope: UsageScope, since: Date | null, f: UsageFilter, limit: number) {
    return db
      .select({ log: usageLogs, keyName: apiKeys.name, email: users.email })
      .from(usageLogs)
      .leftJoin(apiKeys, eq(apiKeys.id, usageLogs.apiKeyId))
      .leftJoin(users, eq(users.id, usageLogs.userId))
      .where(and(...logConditions(scope, since, f)))
      .orderBy(desc(usageLogs.createdAt), desc(usageLogs.id))
      .limit(limit)
  }

  /** Names of keys and e-mails of members seen in the sums (deleted keys included). */
  async function labels(keyIds: string[], userIds: string[]) {
    const keys = keyIds.length ? await db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(inArray(apiKeys.id, keyIds)) : []
    const people = userIds.length ? await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, userIds)) : []
    return { keyNames: new Map(keys.map((k) => [k.id, k.name])), emails: new Map(people.map((u) => [u.id, u.email])) }
  }

  const byCost = (a: [string, Sums], b: [string, Sums]) => b[1].cost - a[1].cost || b[1].requests - a[1].requests

  return {
    async stats(scope: UsageScope, since: Date | null, f: UsageFilter, limit: number, now = new Date()) {
      const { byDay, byModel, byKey, byMember } = await aggregate(scope, since, f)
      // The filter options describe the whole period, so choosing one never hides the others.
      const models = f.apiKeyId || f.model || f.userId ? await rolledModels(scope, since) : [...byModel.keys()]
      const { keyNames, emails } = await labels([...byKey.keys()].filter(Boolean), [...byMember.keys()])
      let cost = 0
      let tokens = 0
      let requests = 0
      for (const d of byDay.values()) {
        cost += d.cost
        tokens += d.tokens
        requests += d.requests
      }

      const today = moscowDay(now)
      const firstDay = since ? moscowDay(since) : [...byDay.keys()].sort()[0]
      const days = firstDay && firstDay <= today ? daysBetween(firstDay, today) : []

      return {
        totalCost: microsToRub(cost),
        totalTokens: tokens,
        totalRequests: requests,
        daily: days.map((date) => {
          const d = byDay.get(date)
          return { date, cost: microsToRub(d?.cost ?? 0), requests: d?.requests ?? 0, tokens: d?.tokens ?? 0 }
        }),
        topModels: [...byModel.entries()]
          .sort((a, b) => b[1].cost - a[1].cost || b[1].requests - a[1].requests)
          .slice(0, 10)
          .map(([model, v]) => ({ model, cost: microsToRub(v.cost), requests: v.requests, tokens: v.tokens, audioSeconds: v.audioSeconds, characters: v.characters })),
        byKey: [...byKey.entries()].sort(byCost).map(([id, v]) => ({
          apiKeyId: id || null,
          name: id ? (keyNames.get(id) ?? 'Удалённый ключ') : 'Веб-сессия',
          cost: microsToRub(v.cost),
          requests: v.requests,
          tokens: v.tokens,
        })),
        byMember: [...byMember.entries()].sort(byCost).map(([id, v]) => ({
          userId: id,
          email: emails.get(id) ?? '',
          cost: microsToRub(v.cost),
          requests: v.requests,
          tokens: v.tokens,
        })),
        filters: {
          apiKeys: await scopeKeys(scope),
          models: models.sort(),
        },
        logs: (await recent(scope, since, f, limit)).map(toLog),
      }
    },

    /** The newest requests of a customer, whatever the period (the admin's user page). */
    recent: async (userId: string, limit: number) => (await recent({ userId, teamId: null }, null, {}, limit)).map(toLog),
  }
}
