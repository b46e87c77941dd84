// Holds: reserve a request's worst case before the upstream call, settle to the real cost after.
// Each step is one atomic unit, so a hold, its charge, its ledger row and its usage row never part.
// These run on every /v1 request: their statements are prepared once (db/prepared.ts) and the units
// of concurrent requests share one commit (db/group-commit.ts); each resolves once committed.
import { and, eq, gte, lt, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { prepared } from '../db/prepared'
import { groupCommit } from '../db/group-commit'
import { newId } from '../lib/crypto'
import { users } from '../auth/schema'
import { apiKeys } from '../keys/schema'
import { postMovement } from './ledger'
import { holds, usageDaily, usageLogs, type UsageLogRow } from './schema'
import { moscowDay } from './days'
import { checkLowBalance, type LowBalance } from './alerts'
import { ceilUnits, dec } from '../lib/decimal'

/** The upstream's reported USD cost in nano-dollars (0 when it reported none). */
const usdToNano = (usd: string | null) => {
  if (!usd) return 0
  try {
    return Math.max(0, ceilUnits(dec(usd), 9))
  } catch {
    return 0
  }
}

export class HoldRefused extends Error {
  constructor(readonly reason: 'balance' | 'key_limit') {
    super(reason)
  }
}

export type HoldRequest = {
  userId: string
  apiKeyId: string | null
  amountMicros: number
  /** The key's monthly cap and what it spent this month, when the key has a cap. */
  keyLimit?: { limitMicros: number; spentMicros: number }
}

/** The usage row's facts; ids, cost and timestamps are filled in here. */
export type UsageFacts = Omit<UsageLogRow, 'id' | 'userId' | 'apiKeyId' | 'costMicros' | 'createdAt'>

const p = sql.placeholder

const statements = (db: Db) =>
  prepared(db, 'holds', () => ({
    available: db
      .select({ a: sql<number>`${users.balanceMicros} - ${users.heldMicros}` })
      .from(users)
      .where(eq(users.id, p('userId')))
      .prepare(),
    openForKey: db
      .select({ s: sql<number>`coalesce(sum(${holds.amountMicros}), 0)` })
      .from(holds)
      .where(eq(holds.apiKeyId, p('keyId')))
      .prepare(),
    // One conditional UPDATE: two concurrent holds can never both take the same micro-ruble.
    reserve: db
      .update(users)
      .set({ heldMicros: sql`${users.heldMicros} + ${p('amount')}` })
      .where(and(eq(users.id, p('userId')), gte(sql`${users.balanceMicros} - ${users.heldMicros}`, p('amount'))))
      .returning({ id: users.id })
      .prepare(),
    // Returns what settling needs next, so it reads the user row no second time.
    unreserve: db
      .update(users)
      .set({ heldMicros: sql`${users.heldMicros} - ${p('amount')}` })
      .where(eq(users.id, p('userId')))
      .returning({ balance: users.balanceMicros, alertLevel: users.lowBalanceAlertMicros, alerted: users.lowBalanceAlerted })
      .prepare(),
    insertHold: db
      .insert(holds)
      .values({ id: p('id'), userId: p('userId'), apiKeyId: p('apiKeyId'), amountMicros: p('amount'), createdAt: p('createdAt') })
      .prepare(),
    // Deleting is closing: settling or releasing twice finds nothing the second time.
    close: db.delete(holds).where(eq(holds.id, p('id'))).returning().prepare(),
    insertUsage: db
      .insert(usageLogs)
      .values({
        id: p('id'),
        userId: p('userId'),
        apiKeyId: p('apiKeyId'),
        endpoint: p('endpoint'),
        model: p('model'),
        promptTokens: p('promptTokens'),
        completionTokens: p('completionTokens'),
        totalTokens: p('totalTokens'),
        costMicros: p('costMicros'),
        upstreamCostUsd: p('upstreamCostUsd'),
        upstreamId: p('upstreamId'),
        status: p('status'),
        error: p('error'),
        durationMs: p('durationMs'),
        stream: p('stream'),
        createdAt: p('createdAt'),
      })
      .prepare(),
    rollup: db
      .insert(usageDaily)
      .values({ userId: p('userId'), day: p('day'), apiKeyId: p('apiKeyId'), model: p('model'), requests: 1, tokens: p('tokens'), costMicros: p('cost'), upstreamCostNanoUsd: p('upstreamNano') })
      .onConflictDoUpdate({
        target: [usageDaily.userId, usageDaily.day, usageDaily.apiKeyId, usageDaily.model],
        set: {
          requests: sql`${usageDaily.requests} + 1`,
          tokens: sql`${usageDaily.tokens} + excluded.tokens`,
          costMicros: sql`${usageDaily.costMicros} + excluded.cost_micros`,
          upstreamCostNanoUsd: sql`${usageDaily.upstreamCostNanoUsd} + excluded.upstream_cost_nano_usd`,
        },
      })
      .prepare(),
    touchKey: db.update(apiKeys).set({ lastUsedAt: sql`${p('now')}` }).where(eq(apiKeys.id, p('keyId'))).prepare(),
  }))

export const availableMicros = (db: Db, userId: string) => statements(db).available.get({ userId })?.a ?? 0

/** Micro-rubles reserved right now by requests in flight with this key. */
export const keyOpenHoldsMicros = (db: Db, apiKeyId: string) => statements(db).openForKey.get({ keyId: apiKeyId })?.s ?? 0

/** Reserves the amount; rejects with HoldRefused when the balance (or the key's limit) cannot cover it. */
export async function placeHold(db: Db, req: HoldRequest): Promise<string> {
  if (!Number.isSafeInteger(req.amountMicros) || req.amountMicros < 0) throw new RangeError('hold must be a non-negative integer')
  const s = statements(db)
  return groupCommit(db)(() => {
    if (req.keyLimit && req.apiKeyId) {
      const left = req.keyLimit.limitMicros - req.keyLimit.spentMicros - keyOpenHoldsMicros(db, req.apiKeyId)
      if (req.amountMicros > left || left <= 0) throw new HoldRefused('key_limit')
    }
    if (s.reserve.all({ userId: req.userId, amount: req.amountMicros }).length === 0)
      throw new HoldRefused('balance')
    const id = newId()
    s.insertHold.run({ id, userId: req.userId, apiKeyId: req.apiKeyId, amount: req.amountMicros, createdAt: new Date() })
    return id
  })
}

/** Closes an open hold and returns its reservation to the balance; undefined if it was not open. */
function closeHold(db: Db, holdId: string) {
  const s = statements(db)
  const [hold] = s.close.all({ id: holdId })
  if (!hold) return undefined
  const [user] = s.unreserve.all({ userId: hold.userId, amount: hold.amountMicros })
  return { ...hold, user }
}

function logUsage(db: Db, hold: { userId: string; apiKeyId: string | null }, facts: UsageFacts, costMicros: number, now: Date) {
  const s = statements(db)
  s.insertUsage.run({ ...facts, id: newId(), userId: hold.userId, apiKeyId: hold.apiKeyId, costMicros, createdAt: now })
  s.rollup.run({ userId: hold.userId, day: moscowDay(now), apiKeyId: hold.apiKeyId ?? '', model: facts.model, tokens: facts.totalTokens, cost: costMicros, upstreamNano: usdToNano(facts.upstreamCostUsd) })
  if (hold.apiKeyId) s.touchKey.run({ keyId: hold.apiKeyId, now: now.getTime() })
}

/**
 * Settles a hold to the real cost: releases the reservation, charges (never below a zero balance),
 * writes the ledger row and the usage row. Returns what was charged (and a low-balance alert when
 * this charge crossed the customer's level), or null if already closed.
 */
export function settleHold(
  db: Db,
  holdId: string,
  chargeMicros: number,
  facts: UsageFacts,
): Promise<{ chargedMicros: number; lowBalance?: LowBalance } | null> {
  return groupCommit(db)(() => {
    const now = new Date()
    const hold = closeHold(db, holdId)
    if (!hold) return null
    const balance = hold.user?.balance ?? 0
    const charged = Math.max(0, Math.min(chargeMicros, balance))
    if (charged < chargeMicros) console.error(`[billing] user ${hold.userId}: cost ${chargeMicros} µ₽ exceeds balance ${balance} µ₽; charged ${charged}`)
    if (charged > 0)
      postMovement(db, { userId: hold.userId, type: 'usage', amountMicros: -charged, description: `Запрос к модели ${facts.model}`, reference: `usage:${holdId}`, now })
    logUsage(db, hold, facts, charged, now)
    // The alert's UPDATE only runs when this charge can have crossed the customer's level.
    const level = hold.user?.alertLevel
    const mayAlert = charged > 0 && level != null && !hold.user!.alerted && balance - charged < level
    return { chargedMicros: charged, lowBalance: mayAlert ? checkLowBalance(db, hold.userId) : undefined }
  })
}

/** Releases a hold without charging (failed request) and logs the attempt. */
export function releaseHold(db: Db, holdId: string, facts: UsageFacts): Promise<void> {
  return groupCommit(db)(() => {
    const now = new Date()
    const hold = closeHold(db, holdId)
    if (hold) logUsage(db, hold, facts, 0, now)
  })
}

/**
 * Releases holds left open by a crash (at startup: every open hold; from the sweep: those older
 * than `olderThan`). Single-instance assumption: with several instances, only the sweep may run.
 */
export function releaseStaleHolds(db: Db, olderThan = new Date()): number {
  return db.transaction(() => {
    const stale = db.select().from(holds).where(lt(holds.createdAt, olderThan)).all()
    for (const h of stale) closeHold(db, h.id)
    return stale.length
  })
}
