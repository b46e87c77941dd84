// The router's lookups, for our callers: what one request cost (GET /v1/generation, the router's
// /generation shape) and what the calling key has spent (GET /v1/key, the router's /key shape, plus
// our budgets). Amounts are rubles, our account currency.
import { and, eq, isNull, or, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/types'
import type { KeysService } from '../keys/service'
import { microsToRub } from '../lib/money'
import { type BudgetState, now as clockNow, type Endpoint, nextReset, type Period, periodStart, remainingMicros, spentNow, usageLogs } from '../money'
import { teams } from '../teams/schema'
import type { Caller } from './callers'

const RESETS: Record<Period, 'daily' | 'weekly' | 'monthly' | null> = { day: 'daily', week: 'weekly', month: 'monthly', total: null }

/** A budget in /v1's snake_case: limit, period, this period's spend, what is left, the next reset (none for total). */
function budgetView(b: BudgetState, at: number) {
  const reset = nextReset(b.period, at)
  return {
    limit_rub: b.limitMicros === null ? null : microsToRub(b.limitMicros),
    period: b.period,
    spent_rub: microsToRub(spentNow(b, at)),
    remaining_rub: b.limitMicros === null ? null : microsToRub(Math.max(0, b.limitMicros - spentNow(b, at))),
    available_rub: b.limitMicros === null ? null : microsToRub(remainingMicros(b, at)),
    resets_at: reset === null ? null : new Date(reset).toISOString(),
  }
}

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

export function lookups(db: Db, keys: KeysService) {
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

    /**
     * The calling key (or web session): spend this month and in total, the key's budget as the
     * router's limit fields, the key's and the member's budgets, the acting account's balance.
     */
    async key(caller: Caller) {
      const at = clockNow()
      const [account] = caller.teamId
        ? await db.select({ b: teams.balanceMicros }).from(teams).where(eq(teams.id, caller.teamId))
        : await db.select({ b: users.balanceMicros }).from(users).where(eq(users.id, caller.userId))
      const key = caller.apiKey
      const spent = async (since: Date) => (key ? keys.spentSince(key.id, since) : sessionSpent(caller, since))
      const budget = key?.budget
      const limit = budget?.limitMicros ?? null
      return {
        label: key ? key.name : 'Веб-сессия',
        usage: microsToRub(await spent(new Date(0))),
        usage_monthly: microsToRub(await spent(new Date(periodStart('month', at)))),
        limit: limit === null ? null : microsToRub(limit),
        limit_remaining: limit === null ? null : microsToRub(Math.max(0, limit - spentNow(budget!, at))),
        limit_reset: limit === null ? null : RESETS[budget!.period],
        balance: microsToRub(account?.b ?? 0),
        currency: 'RUB' as const,
        is_free_tier: false,
        is_disabled: key ? !key.isActive : false,
        team: caller.team ? { id: caller.team.id, name: caller.team.name, role: caller.team.role } : null,
        budgets: {
          key: key ? budgetView(key.budget, at) : null,
          member: caller.team ? budgetView(caller.team.memberBudget, at) : null,
        },
      }
    },
  }

  /** What the web session (no key) spent in the acting account since `since`. */
  async function sessionSpent(caller: Caller, since: Date): Promise<number> {
    const [row] = await db
      .select({ s: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number) })
      .from(usageLogs)
      .where(
        and(
          eq(usageLogs.userId, caller.userId),
          caller.teamId ? eq(usageLogs.teamId, caller.teamId) : isNull(usageLogs.teamId),
          sql`${usageLogs.apiKeyId} is null`,
          sql`${usageLogs.createdAt} >= ${+since}`,
        ),
      )
    return row?.s ?? 0
  }
}
