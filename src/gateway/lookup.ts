// The router's lookups, for our callers: what one request cost (GET /v1/generation, the router's
// /generation shape) and what the calling key has spent (GET /v1/key, the router's /key shape).
// Amounts are rubles, our account currency.
import { and, eq, or, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { type Endpoint, usageLogs } from '../billing/schema'
import type { Db } from '../db/client'
import { keysStore, monthStart } from '../keys/store'
import { microsToRub } from '../lib/money'
import type { Caller } from './callers'

/** The router's api_type for each of our endpoints (protocols.md 1.10). */
const API_TYPES: Record<Endpoint, string> = {
  chat: 'completions',
  images: 'image',
  responses: 'responses',
  messages: 'messages',
  embeddings: 'embeddings',
  speech: 'speech',
  transcription: 'transcription',
}

export function lookups(db: Db) {
  const keys = keysStore(db)
  return {
    /**
     * One of the caller's own requests, by the id its answer carried — the generation id (gen-…) or
     * the protocol's own (Messages msg_…, Responses resp_…) — or our usage id; undefined for anyone else's.
     */
    async generation(userId: string, id: string) {
      const [row] = await db
        .select()
        .from(usageLogs)
        .where(and(eq(usageLogs.userId, userId), or(eq(usageLogs.upstreamId, id), eq(usageLogs.responseId, id), eq(usageLogs.id, id))))
        .limit(1)
      if (!row) return undefined
      return {
        id: row.upstreamId ?? row.id,
        response_id: row.responseId,
        model: row.model,
        created_at: row.createdAt.toISOString(),
        total_cost: microsToRub(row.costMicros),
        currency: 'RUB' as const,
        tokens_prompt: row.promptTokens,
        tokens_completion: row.completionTokens,
        audio_seconds: row.audioSeconds,
        characters: row.characters,
        latency: row.durationMs,
        generation_time: row.durationMs,
        status: row.status,
        streamed: row.stream,
        cancelled: row.status === 'cancelled',
        api_type: API_TYPES[row.endpoint],
        /** Which router answered: the primary, or the second one while the first was down. */
        upstream: row.upstream,
        error: row.error,
      }
    },

    /** The calling key (or web session): spend this month and in total, its monthly limit, the account balance. */
    async key(caller: Caller) {
      const [account] = await db.select({ b: users.balanceMicros }).from(users).where(eq(users.id, caller.userId))
      const balance = account?.b ?? 0
      const key = caller.apiKey
      const spent = async (since: Date) => (key ? ((await keys.spentSince([key.id], since)).get(key.id) ?? 0) : sessionSpent(caller.userId, since))
      const monthly = await spent(monthStart())
      const limit = key?.monthlyLimitMicros ?? null
      return {
        label: key ? key.name : 'Веб-сессия',
        usage: microsToRub(await spent(new Date(0))),
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

  async function sessionSpent(userId: string, since: Date): Promise<number> {
    const [row] = await db
      .select({ s: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number) })
      .from(usageLogs)
      .where(and(eq(usageLogs.userId, userId), sql`${usageLogs.apiKeyId} is null`, sql`${usageLogs.createdAt} >= ${+since}`))
    return row?.s ?? 0
  }
}
