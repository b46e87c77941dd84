// Holds: reserve a request's worst case before the upstream call, settle to the real cost after.
// Each step is one transaction, so a hold, its charge, its ledger row and its usage row never part.
import { and, eq, gte, lt, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { newId } from '../lib/crypto'
import { users } from '../auth/schema'
import { apiKeys } from '../keys/schema'
import { postMovement, type Tx } from './ledger'
import { holds, usageLogs, type UsageLogRow } from './schema'

export class HoldRefused extends Error {
  constructor(
    readonly reason: 'balance' | 'key_limit',
    /** What could still be held: the spendable balance, or what the key's monthly limit leaves. */
    readonly availableMicros: number,
  ) {
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

export const availableMicros = (db: Tx, userId: string) =>
  db.select({ a: sql<number>`${users.balanceMicros} - ${users.heldMicros}` }).from(users).where(eq(users.id, userId)).get()?.a ?? 0

/** Micro-rubles reserved right now by requests in flight with this key. */
export const keyOpenHoldsMicros = (db: Tx, apiKeyId: string) =>
  db.select({ s: sql<number>`coalesce(sum(${holds.amountMicros}), 0)` }).from(holds)
    .where(and(eq(holds.apiKeyId, apiKeyId), eq(holds.status, 'open'))).get()?.s ?? 0

export function placeHold(db: Db, req: HoldRequest): string {
  if (!Number.isSafeInteger(req.amountMicros) || req.amountMicros < 0) throw new RangeError('hold must be a non-negative integer')
  return db.transaction((tx) => {
    if (req.keyLimit && req.apiKeyId) {
      const left = req.keyLimit.limitMicros - req.keyLimit.spentMicros - keyOpenHoldsMicros(tx, req.apiKeyId)
      if (req.amountMicros > left || left <= 0) throw new HoldRefused('key_limit', Math.max(0, left))
    }
    // One conditional UPDATE: two concurrent holds can never both take the same micro-ruble.
    const held = tx
      .update(users)
      .set({ heldMicros: sql`${users.heldMicros} + ${req.amountMicros}` })
      .where(and(eq(users.id, req.userId), gte(sql`${users.balanceMicros} - ${users.heldMicros}`, req.amountMicros)))
      .returning({ id: users.id })
      .all()
    if (held.length === 0) throw new HoldRefused('balance', Math.max(0, availableMicros(tx, req.userId)))
    const id = newId()
    tx.insert(holds).values({ id, userId: req.userId, apiKeyId: req.apiKeyId, amountMicros: req.amountMicros, createdAt: new Date() }).run()
    return id
  })
}

/** Closes an open hold (idempotent: a second close does nothing) and returns it. */
function closeHold(tx: Tx, holdId: string, status: 'settled' | 'released') {
  const [hold] = tx
    .update(holds)
    .set({ status, closedAt: new Date() })
    .where(and(eq(holds.id, holdId), eq(holds.status, 'open')))
    .returning()
    .all()
  if (hold) tx.update(users).set({ heldMicros: sql`${users.heldMicros} - ${hold.amountMicros}` }).where(eq(users.id, hold.userId)).run()
  return hold
}

function logUsage(tx: Tx, hold: { userId: string; apiKeyId: string | null }, facts: UsageFacts, costMicros: number, now: Date) {
  tx.insert(usageLogs).values({ ...facts, id: newId(), userId: hold.userId, apiKeyId: hold.apiKeyId, costMicros, createdAt: now }).run()
  if (hold.apiKeyId) tx.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, hold.apiKeyId)).run()
}

/**
 * Settles a hold to the real cost: releases the reservation, charges (never below a zero balance),
 * writes the ledger row and the usage row. Returns what was charged, or null if already closed.
 */
export function settleHold(db: Db, holdId: string, chargeMicros: number, facts: UsageFacts): { chargedMicros: number } | null {
  return db.transaction((tx) => {
    const hold = closeHold(tx, holdId, 'settled')
    if (!hold) return null
    const now = new Date()
    const balance = tx.select({ b: users.balanceMicros }).from(users).where(eq(users.id, hold.userId)).get()?.b ?? 0
    const charged = Math.max(0, Math.min(chargeMicros, balance))
    if (charged < chargeMicros) console.error(`[billing] user ${hold.userId}: cost ${chargeMicros} µ₽ exceeds balance ${balance} µ₽; charged ${charged}`)
    if (charged > 0)
      postMovement(tx, { userId: hold.userId, type: 'usage', amountMicros: -charged, description: `Запрос к модели ${facts.model}`, reference: `usage:${holdId}`, now })
    logUsage(tx, hold, facts, charged, now)
    return { chargedMicros: charged }
  })
}

/** Releases a hold without charging (failed request) and logs the attempt. */
export function releaseHold(db: Db, holdId: string, facts: UsageFacts): void {
  db.transaction((tx) => {
    const hold = closeHold(tx, holdId, 'released')
    if (hold) logUsage(tx, hold, facts, 0, new Date())
  })
}

/**
 * Releases holds left open by a crash (at startup: every open hold; from the sweep: those older
 * than `olderThan`). Single-instance assumption: with several instances, only the sweep may run.
 */
export function releaseStaleHolds(db: Db, olderThan = new Date()): number {
  return db.transaction((tx) => {
    const stale = tx.select().from(holds).where(and(eq(holds.status, 'open'), lt(holds.createdAt, olderThan))).all()
    for (const h of stale) closeHold(tx, h.id, 'released')
    return stale.length
  })
}
