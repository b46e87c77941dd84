// The activity log's queries: usage_logs of one scope, newest first, paged by a keyset cursor on
// (created_at, id) — the order of the (user_id | team_id, created_at, id) indexes, so a page is an
// index walk from the cursor on both stores, however deep, and rows inserted meanwhile never shift it.
import { and, asc, desc, eq, gte, isNull, lt, type SQL, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { UsageScope } from '../billing/usage'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { LEDGER, ledgerEntries, usageDaily, usageLogs } from '../money'

/** The filters of the list and the CSV; `keyId: null` means the web session's requests (no key). */
export type ActivityFilter = {
  keyId?: string | null
  model?: string
  status?: 'success' | 'error' | 'cancelled'
  protocol?: (typeof usageLogs.$inferSelect)['endpoint']
  /** A member of the team (those who see the whole team's requests). */
  userId?: string
  from?: Date
  to?: Date
  requestId?: string
}

/** Where a page starts: below this row in the (created_at, id) order. */
export type Cursor = { at: number; id: string }

const row = { log: usageLogs, keyName: apiKeys.name, email: users.email }
export type ActivityRow = { log: typeof usageLogs.$inferSelect; keyName: string | null; email: string | null }

/** The scope's rows: a personal account's (no team), a whole team's, or one member's part of it. */
function scoped(s: UsageScope): SQL[] {
  const where: SQL[] = [s.teamId ? eq(usageLogs.teamId, s.teamId) : isNull(usageLogs.teamId)]
  if (s.userId) where.push(eq(usageLogs.userId, s.userId))
  return where
}

function conditions(scope: UsageScope, f: ActivityFilter): SQL[] {
  const where = scoped(scope)
  // the web session's requests: no key then, and none named (a deleted key's rows keep its name)
  if (f.keyId === null) where.push(isNull(usageLogs.apiKeyId), isNull(usageLogs.keyName))
  else if (f.keyId) where.push(eq(usageLogs.apiKeyId, f.keyId))
  if (f.model) where.push(eq(usageLogs.model, f.model))
  if (f.status) where.push(eq(usageLogs.status, f.status))
  if (f.protocol) where.push(eq(usageLogs.endpoint, f.protocol))
  if (f.userId) where.push(eq(usageLogs.userId, f.userId))
  if (f.from) where.push(gte(usageLogs.createdAt, f.from))
  if (f.to) where.push(lt(usageLogs.createdAt, f.to))
  if (f.requestId) where.push(eq(usageLogs.requestId, f.requestId))
  return where
}

/** Rows strictly after the cursor, newest first: a row-value comparison both stores match against the index. */
const below = (c: Cursor): SQL => sql`(${usageLogs.createdAt}, ${usageLogs.id}) < (${c.at}, ${c.id})`

export function activityStore(db: Db) {
  return {
    /** Up to `limit` rows below `cursor` (from the newest without one). */
    page(scope: UsageScope, f: ActivityFilter, cursor: Cursor | null, limit: number): Promise<ActivityRow[]> {
      const where = conditions(scope, f)
      if (cursor) where.push(below(cursor))
      return db
        .select(row)
        .from(usageLogs)
        .leftJoin(apiKeys, eq(apiKeys.id, usageLogs.apiKeyId))
        .leftJoin(users, eq(users.id, usageLogs.userId))
        .where(and(...where))
        .orderBy(desc(usageLogs.createdAt), desc(usageLogs.id))
        .limit(limit)
    },

    /** One request of the scope; undefined for another account's id. */
    async one(scope: UsageScope, id: string): Promise<ActivityRow | undefined> {
      const [found] = await db
        .select(row)
        .from(usageLogs)
        .leftJoin(apiKeys, eq(apiKeys.id, usageLogs.apiKeyId))
        .leftJoin(users, eq(users.id, usageLogs.userId))
        .where(and(eq(usageLogs.id, id), ...scoped(scope)))
        .limit(1)
      return found
    },

    /**
     * What the filters offer: the scope's keys (by name), the models it has used and, for a whole
     * team, the members who made requests — from the daily rollup, a few rows per day.
     */
    async choices(scope: UsageScope) {
      const daily = and(eq(usageDaily.teamId, scope.teamId ?? ''), scope.userId ? eq(usageDaily.userId, scope.userId) : undefined)
      const keysOf = scope.teamId
        ? and(eq(apiKeys.teamId, scope.teamId), scope.userId ? eq(apiKeys.userId, scope.userId) : undefined)
        : and(eq(apiKeys.userId, scope.userId!), isNull(apiKeys.teamId))
      const keys = await db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(keysOf)
      const models = await db.selectDistinct({ model: usageDaily.model }).from(usageDaily).where(daily).orderBy(asc(usageDaily.model))
      const members =
        scope.teamId && !scope.userId
          ? await db.selectDistinct({ id: usageDaily.userId, email: users.email }).from(usageDaily).innerJoin(users, eq(users.id, usageDaily.userId)).where(daily)
          : []
      return { keys, models: models.map((m) => m.model), members }
    },

    /** The ledger row a settlement wrote (its reference names the hold), if the request was charged. */
    async charge(holdId: string) {
      const [entry] = await db
        .select({ id: ledgerEntries.id, amountMicros: ledgerEntries.amountMicros, balanceAfterMicros: ledgerEntries.balanceAfterMicros, createdAt: ledgerEntries.createdAt })
        .from(ledgerEntries)
        .where(eq(ledgerEntries.reference, LEDGER.usage.reference(holdId)))
        .limit(1)
      return entry
    },
  }
}

export type ActivityStore = ReturnType<typeof activityStore>
