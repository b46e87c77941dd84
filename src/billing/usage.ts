// Usage statistics. Whole days come from the usage_daily rollup (a few rows per day), so a period
// costs the same with a thousand or a million requests; only a period that starts mid-day reads
// that first partial day from usage_logs, through the (user, created_at) index.
import { and, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { apiKeys } from '../keys/schema'
import { microsToRub } from '../lib/money'
import { daysBetween, moscowDay, moscowDayStart, nextDay } from './days'
import { usageDaily, usageLogs } from './schema'

export type UsageFilter = { apiKeyId?: string; model?: string }

type Sums = { requests: number; tokens: number; audioSeconds: number; characters: number; cost: number }
type Grouped = Sums & { k: string }

/** The usage_logs conditions for a customer's period (from `since`) and filters. */
export function logConditions(userId: string, since: Date | null, f: UsageFilter): SQL[] {
  const where: SQL[] = [eq(usageLogs.userId, userId)]
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

export function usageReader(db: Db) {
  const sums = {
    requests: sql<number>`sum(${usageDaily.requests})`.mapWith(Number),
    tokens: sql<number>`sum(${usageDaily.tokens})`.mapWith(Number),
    audioSeconds: sql<number>`sum(${usageDaily.audioSeconds})`.mapWith(Number),
    characters: sql<number>`sum(${usageDaily.characters})`.mapWith(Number),
    cost: sql<number>`sum(${usageDaily.costMicros})`.mapWith(Number),
  }

  /** Whole days of the period from the rollup, summed in SQL per day, model or key. */
  function rolled(userId: string, fullFrom: string | null, f: UsageFilter, by: 'day' | 'model'): Promise<Grouped[]> {
    const where: SQL[] = [eq(usageDaily.userId, userId)]
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

  /** The period's partial first day from the raw rows, per model (a day's rows at most). */
  function head(userId: string, h: { since: Date; until: Date }, f: UsageFilter) {
    const where = [...logConditions(userId, h.since, f), lt(usageLogs.createdAt, h.until)]
    return db
      .select({
        model: usageLogs.model,
        requests: sql<number>`count(*)`.mapWith(Number),
        tokens: sql<number>`coalesce(sum(${usageLogs.totalTokens}), 0)`.mapWith(Number),
        audioSeconds: sql<number>`coalesce(sum(${usageLogs.audioSeconds}), 0)`.mapWith(Number),
        characters: sql<number>`coalesce(sum(${usageLogs.characters}), 0)`.mapWith(Number),
        cost: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number),
      })
      .from(usageLogs)
      .where(and(...where))
      .groupBy(usageLogs.model)
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

  /** Per-day and per-model sums of the period, the partial head day included. */
  async function aggregate(userId: string, since: Date | null, f: UsageFilter) {
    const { fullFrom, head: h } = splitPeriod(since)
    const byDay = new Map<string, Sums>()
    const byModel = new Map<string, Sums>()
    for (const r of await rolled(userId, fullFrom, f, 'day')) addTo(byDay, r.k, r)
    for (const r of await rolled(userId, fullFrom, f, 'model')) addTo(byModel, r.k, r)
    if (h)
      for (const r of await head(userId, h, f)) {
        addTo(byDay, h.day, r)
        addTo(byModel, r.model, r)
      }
    return { byDay, byModel }
  }

  /** Every key of the customer, to filter by (a key unused in the period simply shows nothing). */
  const userKeys = async (userId: string) =>
    (await db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.userId, userId))).sort((a, b) => a.name.localeCompare(b.name, 'ru'))

  /** The models used in the period, whatever the filters say. */
  async function rolledModels(userId: string, since: Date | null): Promise<string[]> {
    const { fullFrom, head: h } = splitPeriod(since)
    const models = new Set((await rolled(userId, fullFrom, {}, 'model')).map((r) => r.k))
    if (h) for (const r of await head(userId, h, {})) models.add(r.model)
    return [...models]
  }

  function recent(userId: string, since: Date | null, f: UsageFilter, limit: number) {
    return db
      .select({ log: usageLogs, keyName: apiKeys.name })
      .from(usageLogs)
      .leftJoin(apiKeys, eq(apiKeys.id, usageLogs.apiKeyId))
      .where(and(...logConditions(userId, since, f)))
      .orderBy(desc(usageLogs.createdAt), desc(usageLogs.id))
      .limit(limit)
  }

  return {
    async stats(userId: string, since: Date | null, f: UsageFilter, limit: number, now = new Date()) {
      const { byDay, byModel } = await aggregate(userId, since, f)
      // The filter options describe the whole period, so choosing one never hides the others.
      const models = f.apiKeyId || f.model ? await rolledModels(userId, since) : [...byModel.keys()]
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
        filters: {
          apiKeys: await userKeys(userId),
          models: models.sort(),
        },
        logs: (await recent(userId, since, f, limit)).map(({ log: r, keyName }) => ({
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
          durationMs: r.durationMs,
          createdAt: r.createdAt.toISOString(),
        })),
      }
    },
  }
}
