// Usage statistics. Whole days come from the usage_daily rollup (a few rows per day), so a period
// costs the same with a thousand or a million requests; only a period that starts mid-day reads
// that first partial day from usage_logs, through the (user, created_at) index.
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client'
import { microsToRub } from '../lib/money'
import { apiKeys } from '../keys/schema'
import { usageDaily, usageLogs } from './schema'
import { daysBetween, moscowDay, moscowDayStart, nextDay } from './days'

export type UsageFilter = { apiKeyId?: string; model?: string }

type Bucket = { day: string; model: string; apiKeyId: string; requests: number; tokens: number; cost: number }

/** How a period maps onto the rollup: whole days from `fullFrom`, plus the raw rows of [since, headEnd). */
export function splitPeriod(since: Date | null) {
  if (!since) return { fullFrom: null, head: null }
  const day = moscowDay(since)
  if (+moscowDayStart(day) === +since) return { fullFrom: day, head: null }
  const next = nextDay(day)
  return { fullFrom: next, head: { day, since, until: moscowDayStart(next) } }
}

export function usageReader(db: Db) {
  /** Per day × model × key buckets of the period (the partial head day read from the raw rows). */
  function buckets(userId: string, since: Date | null, f: UsageFilter): Bucket[] {
    const { fullFrom, head } = splitPeriod(since)
    const rolled: SQL[] = [eq(usageDaily.userId, userId)]
    if (fullFrom) rolled.push(gte(usageDaily.day, fullFrom))
    if (f.apiKeyId) rolled.push(eq(usageDaily.apiKeyId, f.apiKeyId))
    if (f.model) rolled.push(eq(usageDaily.model, f.model))
    const rows: Bucket[] = db
      .select({
        day: usageDaily.day,
        model: usageDaily.model,
        apiKeyId: usageDaily.apiKeyId,
        requests: usageDaily.requests,
        tokens: usageDaily.tokens,
        cost: usageDaily.costMicros,
      })
      .from(usageDaily)
      .where(and(...rolled))
      .all()
    if (head) {
      const raw: SQL[] = [eq(usageLogs.userId, userId), gte(usageLogs.createdAt, head.since), lt(usageLogs.createdAt, head.until)]
      if (f.apiKeyId) raw.push(eq(usageLogs.apiKeyId, f.apiKeyId))
      if (f.model) raw.push(eq(usageLogs.model, f.model))
      const partial = db
        .select({
          model: usageLogs.model,
          apiKeyId: sql<string>`coalesce(${usageLogs.apiKeyId}, '')`,
          requests: sql<number>`count(*)`,
          tokens: sql<number>`coalesce(sum(${usageLogs.totalTokens}), 0)`,
          cost: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`,
        })
        .from(usageLogs)
        .where(and(...raw))
        .groupBy(usageLogs.model, usageLogs.apiKeyId)
        .all()
      for (const r of partial) rows.push({ ...r, day: head.day })
    }
    return rows
  }

  function keyNames(ids: string[]): Map<string, string> {
    if (ids.length === 0) return new Map()
    const rows = db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(inArray(apiKeys.id, ids)).all()
    return new Map(rows.map((r) => [r.id, r.name]))
  }

  function recent(userId: string, since: Date | null, f: UsageFilter, limit: number) {
    const where: SQL[] = [eq(usageLogs.userId, userId)]
    if (since) where.push(gte(usageLogs.createdAt, since))
    if (f.apiKeyId) where.push(eq(usageLogs.apiKeyId, f.apiKeyId))
    if (f.model) where.push(eq(usageLogs.model, f.model))
    return db
      .select({ log: usageLogs, keyName: apiKeys.name })
      .from(usageLogs)
      .leftJoin(apiKeys, eq(apiKeys.id, usageLogs.apiKeyId))
      .where(and(...where))
      .orderBy(desc(usageLogs.createdAt), desc(usageLogs.id))
      .limit(limit)
      .all()
  }

  return {
    stats(userId: string, since: Date | null, f: UsageFilter, limit: number, now = new Date()) {
      const filtered = buckets(userId, since, f)
      // The filter options describe the whole period, so choosing one never hides the others.
      const all = f.apiKeyId || f.model ? buckets(userId, since, {}) : filtered

      const byDay = new Map<string, { cost: number; requests: number; tokens: number }>()
      const byModel = new Map<string, { cost: number; requests: number; tokens: number }>()
      let cost = 0
      let tokens = 0
      let requests = 0
      for (const b of filtered) {
        cost += b.cost
        tokens += b.tokens
        requests += b.requests
        for (const [map, k] of [[byDay, b.day], [byModel, b.model]] as const) {
          const acc = map.get(k) ?? { cost: 0, requests: 0, tokens: 0 }
          acc.cost += b.cost
          acc.requests += b.requests
          acc.tokens += b.tokens
          map.set(k, acc)
        }
      }

      const today = moscowDay(now)
      const firstDay = since ? moscowDay(since) : [...byDay.keys()].sort()[0]
      const days = firstDay && firstDay <= today ? daysBetween(firstDay, today) : []
      const keyIds = [...new Set(all.map((b) => b.apiKeyId).filter(Boolean))]
      const names = keyNames(keyIds)

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
          .map(([model, v]) => ({ model, cost: microsToRub(v.cost), requests: v.requests, tokens: v.tokens })),
        filters: {
          apiKeys: keyIds
            .map((id) => ({ id, name: names.get(id) ?? 'Удалённый ключ' }))
            .sort((a, b) => a.name.localeCompare(b.name, 'ru')),
          models: [...new Set(all.map((b) => b.model))].sort(),
        },
        logs: recent(userId, since, f, limit).map(({ log: r, keyName }) => ({
          id: r.id,
          model: r.model,
          promptTokens: r.promptTokens,
          completionTokens: r.completionTokens,
          totalTokens: r.totalTokens,
          cost: microsToRub(r.costMicros),
          status: r.status,
          apiKeyId: r.apiKeyId,
          apiKeyName: keyName ?? null,
          durationMs: r.durationMs,
          createdAt: r.createdAt.toISOString(),
        })),
      }
    },
  }
}
