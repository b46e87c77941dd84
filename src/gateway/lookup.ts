// The router's lookups, for our callers: what one request cost (GET /v1/generation, the router's
// /generation shape) and what the calling key has spent (GET /v1/key, the router's /key shape).
// Amounts are rubles, our account currency.
import { and, eq, or, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { users } from '../auth/schema'
import { usageLogs } from '../billing/schema'
import { keysStore, monthStart } from '../keys/store'
import { microsToRub } from '../lib/money'
import type { Caller } from './callers'

export function lookups(db: Db) {
  const keys = keysStore(db)
  return {
    /** One of the caller's own requests, by the id its answer carried (gen-…) or our usage id; undefined for anyone else's. */
    generation(userId: string, id: string) {
      const row = db
        .select()
        .from(usageLogs)
        .where(and(eq(usageLogs.userId, userId), or(eq(usageLogs.upstreamId, id), eq(usageLogs.id, id))))
        .limit(1)
        .get()
      if (!row) return undefined
      return {
        id: row.upstreamId ?? row.id,
        model: row.model,
        created_at: row.createdAt.toISOString(),
        total_cost: microsToRub(row.costMicros),
        currency: 'RUB' as const,
        tokens_prompt: row.promptTokens,
        tokens_completion: row.completionTokens,
        latency: row.durationMs,
        generation_time: row.durationMs,
        status: row.status,
        streamed: row.stream,
        cancelled: row.status === 'cancelled',
        api_type: row.endpoint === 'images' ? 'image' : 'completions',
        error: row.error,
      }
    },

    /** The calling key (or web session): spend this month and in total, its monthly limit, the account balance. */
    key(caller: Caller) {
      const balance = db.select({ b: users.balanceMicros }).from(users).where(eq(users.id, caller.userId)).get()?.b ?? 0
      const key = caller.apiKey
      const spent = (since: Date) => (key ? (keys.spentSince([key.id], since).get(key.id) ?? 0) : sessionSpent(caller.userId, since))
      const monthly = spent(monthStart())
      const limit = key?.monthlyLimitMicros ?? null
      return {
        label: key ? key.name : 'Веб-сессия',
        usage: microsToRub(spent(new Date(0))),
        usage_monthly: microsToRub(monthly),
        limit: limit === null ? null : microsToRub(limit),
        limit_remaining: limit === null ? null : microsToRub(Math.max(0, limit - monthly)),
        limit_reset: limit === null ? null : ('monthly' as const),
        balance: microsToRub(balance),
        currency: 'RUB' as const,
        is_free_tier: false,
        is_disabled: key ? !key.isActive : false,
      }
    },
  }

  function sessionSpent(userId: string, since: Date) {
    return (
      db
        .select({ s: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)` })
        .from(usageLogs)
        .where(and(eq(usageLogs.userId, userId), sql`${usageLogs.apiKeyId} is null`, sql`${usageLogs.createdAt} >= ${+since}`))
        .get()?.s ?? 0
    )
  }
}
