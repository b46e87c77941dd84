// The holds' compiled statements (db/prepared.ts) and the units every closing of a hold is made of:
// take the hold's row, give its reservations back (budgets first, then the balance, in one order).

import { and, eq, gte, isNull, sql } from 'drizzle-orm'
import { users } from '../../auth/schema'
import { compiled, prepared } from '../../db/prepared'
import { tx } from '../../db/tx'
import type { Db } from '../../db/types'
import { apiKeys } from '../../keys/schema'
import { teams } from '../../teams/schema'
import { type Level, releaseBudget } from '../budgets'
import { holds, uncoveredCosts, usageDaily, usageLogs } from '../schema'

const p = sql.placeholder

export const holdColumns = {
  userId: holds.userId,
  teamId: holds.teamId,
  apiKeyId: holds.apiKeyId,
  amountMicros: holds.amountMicros,
  keyHeldMicros: holds.keyHeldMicros,
  memberHeldMicros: holds.memberHeldMicros,
}

// Compiled statements (db/prepared.ts): values are passed as SQLite stores them, rows come back as arrays.
export const statements = (db: Db) =>
  prepared(db, 'holds', () => ({
    // One conditional UPDATE: two concurrent holds can never both take the same micro-ruble.
    // A deleted account takes no more (as the batch statement, pg/statements.ts).
    reserve: compiled(
      db,
      db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros} + ${p('amount')}` })
        .where(and(eq(users.id, p('userId')), isNull(users.deletedAt), gte(sql`${users.balanceMicros} - ${users.heldMicros}`, p('amount'))))
        .returning({ id: users.id }),
    ),
    // A team's request: the same, on the team's balance (a deleted team takes no more).
    reserveTeam: compiled(
      db,
      db
        .update(teams)
        .set({ heldMicros: sql`${teams.heldMicros} + ${p('amount')}` })
        .where(and(eq(teams.id, p('teamId')), sql`${teams.deletedAt} is null`, gte(sql`${teams.balanceMicros} - ${teams.heldMicros}`, p('amount'))))
        .returning({ id: teams.id }),
    ),
    // Gives a reservation back; returns the balance (for a cost that exceeds it).
    unreserve: compiled(
      db,
      db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros} - ${p('amount')}` })
        .where(eq(users.id, p('userId')))
        .returning({ balance: users.balanceMicros }),
    ),
    unreserveTeam: compiled(
      db,
      db
        .update(teams)
        .set({ heldMicros: sql`${teams.heldMicros} - ${p('amount')}` })
        .where(eq(teams.id, p('teamId')))
        .returning({ balance: teams.balanceMicros }),
    ),
    insertUsage: compiled(
      db,
      db.insert(usageLogs).values({
        id: p('id'),
        userId: p('userId'),
        apiKeyId: p('apiKeyId'),
        teamId: p('teamId'),
        endpoint: p('endpoint'),
        model: p('model'),
        promptTokens: p('promptTokens'),
        completionTokens: p('completionTokens'),
        totalTokens: p('totalTokens'),
        audioSeconds: p('audioSeconds'),
        characters: p('characters'),
        images: p('images'),
        requestedModel: p('requestedModel'),
        keyName: p('keyName'),
        costMicros: p('costMicros'),
        upstreamCostUsd: p('upstreamCostUsd'),
        upstreamCostRub: p('upstreamCostRub'),
        upstreamId: p('upstreamId'),
        responseId: p('responseId'),
        upstream: p('upstream'),
        status: p('status'),
        error: p('error'),
        usdRubRate: p('usdRubRate'),
        markup: p('markup'),
        holdId: p('holdId'),
        holdMicros: p('holdMicros'),
        requestId: p('requestId'),
        durationMs: p('durationMs'),
        ttftMs: p('ttftMs'),
        stream: p('stream'),
        createdAt: p('createdAt'),
      }),
    ),
    rollup: compiled(
      db,
      db
        .insert(usageDaily)
        .values({
          userId: p('userId'),
          teamId: p('teamId'),
          day: p('day'),
          apiKeyId: p('apiKeyId'),
          model: p('model'),
          requests: 1,
          tokens: p('tokens'),
          audioSeconds: p('audioSeconds'),
          characters: p('characters'),
          costMicros: p('cost'),
          upstreamCostNanoUsd: p('upstreamNano'),
          upstreamCostNanoRub: p('upstreamNanoRub'),
        })
        .onConflictDoUpdate({
          target: [usageDaily.userId, usageDaily.teamId, usageDaily.day, usageDaily.apiKeyId, usageDaily.model],
          set: {
            requests: sql`${usageDaily.requests} + 1`,
            tokens: sql`${usageDaily.tokens} + excluded.tokens`,
            audioSeconds: sql`${usageDaily.audioSeconds} + excluded.audio_seconds`,
            characters: sql`${usageDaily.characters} + excluded.characters`,
            costMicros: sql`${usageDaily.costMicros} + excluded.cost_micros`,
            upstreamCostNanoUsd: sql`${usageDaily.upstreamCostNanoUsd} + excluded.upstream_cost_nano_usd`,
            upstreamCostNanoRub: sql`${usageDaily.upstreamCostNanoRub} + excluded.upstream_cost_nano_rub`,
          },
        }),
    ),
    insertUncovered: compiled(
      db,
      db.insert(uncoveredCosts).values({
        id: p('id'),
        userId: p('userId'),
        teamId: p('teamId'),
        usageId: p('usageId'),
        model: p('model'),
        upstreamId: p('upstreamId'),
        heldMicros: p('held'),
        costMicros: p('cost'),
        chargedMicros: p('charged'),
        uncoveredMicros: p('uncovered'),
        createdAt: p('createdAt'),
      }),
    ),
    touchKey: compiled(
      db,
      db
        .update(apiKeys)
        .set({ lastUsedAt: sql`${p('now')}` })
        .where(eq(apiKeys.id, p('keyId'))),
    ),
    // A request's hold: inserted by the reserving unit, deleted (and returned) by the closing one.
    insertHold: compiled(
      db,
      db.insert(holds).values({
        id: p('id'),
        userId: p('userId'),
        teamId: p('teamId'),
        apiKeyId: p('apiKeyId'),
        amountMicros: p('amount'),
        keyHeldMicros: p('keyHeld'),
        memberHeldMicros: p('memberHeld'),
        instanceId: p('instance'),
        leaseToken: p('leaseToken'),
        leaseUntil: p('leaseUntil'),
        createdAt: p('createdAt'),
      }),
    ),
    takeHold: compiled(
      db,
      db
        .delete(holds)
        .where(eq(holds.id, p('id')))
        .returning(holdColumns),
    ),
    renewLeases: compiled(
      db,
      db
        .update(holds)
        .set({ leaseUntil: sql`${p('leaseUntil')}` })
        .where(eq(holds.leaseToken, p('token'))),
    ),
  }))

/** A hold taken from its row: whose it is and what it reserved on each level. */
export type OpenHold = { userId: string; teamId: string | null; apiKeyId: string | null; amountMicros: number; keyHeldMicros: number; memberHeldMicros: number }

/** The budget levels a hold was checked against, with what it reserved on each. */
export function levelsOf(hold: OpenHold): Array<{ level: Level; reserved: number }> {
  const levels: Array<{ level: Level; reserved: number }> = []
  if (hold.apiKeyId) levels.push({ level: { kind: 'key', keyId: hold.apiKeyId }, reserved: hold.keyHeldMicros })
  if (hold.teamId) levels.push({ level: { kind: 'member', teamId: hold.teamId, userId: hold.userId }, reserved: hold.memberHeldMicros })
  return levels
}

/** Gives a hold's reservation back to the balance (no charge); answers the balance left. */
export async function unreserve(q: Db, hold: OpenHold): Promise<number> {
  const s = statements(q)
  const [row] = hold.teamId
    ? await s.unreserveTeam.rows(q, { teamId: hold.teamId, amount: hold.amountMicros })
    : await s.unreserve.rows(q, { userId: hold.userId, amount: hold.amountMicros })
  return row?.balance ?? 0
}

/**
 * Gives everything a hold reserved back: every budget, then the balance. Every unit takes its rows
 * in this one order — the key, the member, the account — so that on PostgreSQL a release never
 * waits for a settlement that waits for it (a deadlock): the key's row is taken even when nothing
 * was reserved on it, because the usage row's lastUsedAt touches it later in the unit.
 */
export async function releaseAll(q: Db, hold: OpenHold): Promise<void> {
  for (const { level, reserved } of levelsOf(hold)) await releaseBudget(q, level, reserved, true)
  await unreserve(q, hold)
}

/** Runs a unit that takes the hold's row; null when it is already closed (settling twice finds nothing). */
export function closing<T>(db: Db, holdId: string, work: (q: Db, hold: OpenHold) => Promise<T>): Promise<T | null> {
  return tx(db, async (q) => {
    const [hold] = await statements(q).takeHold.rows(q, { id: holdId })
    return hold ? work(q, hold) : null
  })
}
