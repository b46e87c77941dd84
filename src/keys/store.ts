import { and, count, desc, eq, gte, inArray, isNull, type SQL, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { usageLogs } from '../money'
import { teams } from '../teams/schema'
import { type ApiKeyRow, apiKeys } from './schema'

/** Whose keys: a personal account's, a team member's own in the team, or (admins) all of the team's. */
export type KeyScope = { userId: string; teamId: string | null; all: boolean }

export function scopeWhere(s: KeyScope): SQL {
  if (!s.teamId) return and(eq(apiKeys.userId, s.userId), isNull(apiKeys.teamId))!
  return s.all ? eq(apiKeys.teamId, s.teamId) : and(eq(apiKeys.teamId, s.teamId), eq(apiKeys.userId, s.userId))!
}

export const keysStore = (db: Db) => ({
  listFor: (s: KeyScope) =>
    db
      .select({ key: apiKeys, ownerEmail: users.email })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(scopeWhere(s))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)),
  /** Keys a person holds in one account (the per-account maximum). */
  countOwn: async (userId: string, teamId: string | null) =>
    (
      await db
        .select({ n: count() })
        .from(apiKeys)
        .where(scopeWhere({ userId, teamId, all: false }))
    )[0]?.n ?? 0,
  byIdFor: async (id: string, s: KeyScope) =>
    (
      await db
        .select({ key: apiKeys, ownerEmail: users.email })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(and(eq(apiKeys.id, id), scopeWhere(s)))
        .limit(1)
    )[0],
  /** The key presented as a secret (its hash), whatever its account; the owner must not be deleted. */
  byHash: async (hash: string) =>
    (
      await db
        .select({ key: apiKeys })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(and(eq(apiKeys.keyHash, hash), isNull(users.deletedAt)))
        .limit(1)
    )[0]?.key,
  insert: async (q: Db, row: typeof apiKeys.$inferInsert) => {
    await q.insert(apiKeys).values(row)
  },
  /**
   * Inside a unit: the key as it is now, its row taken first (a no-op write: on PostgreSQL that locks it),
   * so a concurrent change — an admin disabling it — is either seen here or waits for this unit.
   */
  lock: async (q: Db, id: string): Promise<ApiKeyRow | undefined> =>
    (
      await q
        .update(apiKeys)
        .set({ isActive: sql`${apiKeys.isActive}` })
        .where(eq(apiKeys.id, id))
        .returning()
    )[0],
  update: async (
    q: Db,
    id: string,
    set: Partial<
      Pick<
        ApiKeyRow,
        | 'name'
        | 'isActive'
        | 'disabledBy'
        | 'disabledByRole'
        | 'budgetSetBy'
        | 'budgetSetByRole'
        | 'residency'
        | 'fitToBalance'
        | 'rpmLimit'
        | 'tpmLimit'
        | 'allowedModels'
        | 'allowedIps'
        | 'expiresAt'
        | 'policySetBy'
        | 'policySetByRole'
      >
    >,
  ) => {
    if (Object.keys(set).length) await q.update(apiKeys).set(set).where(eq(apiKeys.id, id))
  },
  delete: async (q: Db, id: string) => (await q.delete(apiKeys).where(eq(apiKeys.id, id)).returning({ id: apiKeys.id })).length > 0,

  /** Micro-rubles charged per key since `since` (one grouped query for a whole list). */
  async spentSince(keyIds: string[], since: Date): Promise<Map<string, number>> {
    if (keyIds.length === 0) return new Map()
    const rows = await db
      .select({ keyId: usageLogs.apiKeyId, spent: sql<number>`coalesce(sum(${usageLogs.costMicros}), 0)`.mapWith(Number) })
      .from(usageLogs)
      .where(and(inArray(usageLogs.apiKeyId, keyIds), gte(usageLogs.createdAt, since)))
      .groupBy(usageLogs.apiKeyId)
    return new Map(rows.map((r) => [r.keyId!, r.spent]))
  },

  /** The team's model list and the defaults of its new keys (keys/policy.ts). */
  teamPolicy: async (teamId: string) =>
    (await db.select({ allowedModels: teams.allowedModels, keyDefaults: teams.keyDefaults }).from(teams).where(eq(teams.id, teamId)).limit(1))[0],

  /** Active keys of an account (refunds need none). */
  activeCount: async (userId: string, teamId: string | null) =>
    (
      await db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(teamId ? eq(apiKeys.teamId, teamId) : and(eq(apiKeys.userId, userId), isNull(apiKeys.teamId)), eq(apiKeys.isActive, true)))
    )[0]?.n ?? 0,

  write: <T>(work: (q: Db) => Promise<T>) => write(db, work),
})
