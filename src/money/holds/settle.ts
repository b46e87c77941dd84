// Settling a hold to the reported cost (or releasing it): the ledger row, the usage row and its daily
// rollup, the budgets' spend, what the balance could not pay recorded as uncovered — once. On
// PostgreSQL the usual case goes in a batch statement (pg/statements.ts), a reserve-backed request as a
// pending charge (reserves.ts); the general unit here spells every rule for SQLite and what the batch
// does not cover.

import { and, eq, gte, sql } from 'drizzle-orm'
import { users } from '../../auth/schema'
import { moneyDb } from '../../db/client'
import { onPostgres } from '../../db/dialect'
import { inUnit, tx, write } from '../../db/tx'
import type { Db } from '../../db/types'
import { newId } from '../../lib/crypto'
import { ceilUnits, dec } from '../../lib/decimal'
import { isUniqueViolation } from '../../lib/errors'
import { teams } from '../../teams/schema'
import { type BudgetCrossing, checkLowBalance, spent } from '../alerts'
import { addBudgetSpent, budgetRoom, crossedThresholds, type Level, releaseBudget, type SpendAfter, settleBudget, spendFromLevel } from '../budgets'
import { moscowDay } from '../days'
import { InsufficientFundsError, LEDGER, type Posted, postMovement } from '../ledger'
import { now as clockNow } from '../periods'
import type { PgPendingItem, PgSettled, PgSettleItem, UsageBindings } from '../pg/statements'
import { reserves } from '../reserves'
import { holds, pendingCharges, usageLogs } from '../schema'
import { pgBatches, servedFromReserve } from './pg'
import { closing, holdColumns, levelsOf, type OpenHold, releaseAll, statements, unreserve } from './statements'
import type { Settled, SettleOptions, UsageFacts } from './types'

/** The upstream's reported USD cost in nano-dollars (0 when it reported none). */
const toNano = (amount: string | null) => {
  if (!amount) return 0
  try {
    return Math.max(0, ceilUnits(dec(amount), 9))
  } catch {
    return 0
  }
}

/** The usage row's facts as the statements bind them (the optional ones null when absent). */
const usageValues = (facts: UsageFacts): UsageBindings => ({
  ...facts,
  upstreamCostRub: facts.upstreamCostRub ?? null,
  audioSeconds: facts.audioSeconds ?? null,
  characters: facts.characters ?? null,
  images: facts.images ?? null,
  requestedModel: facts.requestedModel ?? null,
  keyName: facts.keyName ?? null,
  usdRubRate: facts.usdRubRate ?? null,
  markup: facts.markup ?? null,
  holdId: facts.holdId ?? null,
  holdMicros: facts.holdMicros ?? null,
  requestId: facts.requestId ?? null,
  ttftMs: facts.ttftMs ?? null,
})

// The lastUsedAt each key was last given, per database: concurrent settlements in the same
// millisecond would write the same value again.
const touchedByDb = new WeakMap<object, Map<string, number>>()

/**
 * Writes the usage row, the daily rollup and the key's lastUsedAt (unless the key's settlement set it:
 * `keyTouched`); returns the usage row's id. The three are independent, so they are sent together (on
 * PostgreSQL the driver pipelines them on the unit's connection, in this order): one round trip
 * instead of three while the settling unit holds the hot key and balance rows (bench/README.md,
 * issue 25). Any of them failing still fails the unit.
 */
async function logUsage(q: Db, hold: OpenHold, facts: UsageFacts, costMicros: number, now: Date, keyTouched = false): Promise<string> {
  const s = statements(q)
  const at = now.getTime()
  const id = newId()
  const writes: Array<Promise<void> | void> = []
  writes.push(
    s.insertUsage.run(q, {
      ...usageValues(facts),
      id,
      userId: hold.userId,
      teamId: hold.teamId,
      apiKeyId: hold.apiKeyId,
      costMicros,
      createdAt: at,
    }),
  )
  writes.push(
    s.rollup.run(q, {
      userId: hold.userId,
      teamId: hold.teamId ?? '',
      day: moscowDay(at),
      apiKeyId: hold.apiKeyId ?? '',
      model: facts.model,
      tokens: facts.totalTokens,
      audioSeconds: facts.audioSeconds ?? 0,
      characters: facts.characters ?? 0,
      cost: costMicros,
      upstreamNano: toNano(facts.upstreamCostUsd),
      upstreamNanoRub: toNano(facts.upstreamCostRub ?? null),
    }),
  )
  if (hold.apiKeyId && !keyTouched) {
    let touched = touchedByDb.get(s)
    if (!touched) touchedByDb.set(s, (touched = new Map()))
    if (touched.get(hold.apiKeyId) !== at) {
      if (touched.size >= 10_000) touched.clear()
      touched.set(hold.apiKeyId, at)
      writes.push(s.touchKey.run(q, { keyId: hold.apiKeyId, now: at }))
    }
  }
  await Promise.all(writes)
  return id
}

/**
 * Settles a hold to the real cost: releases the reservations, charges (never below a zero balance,
 * never beyond a budget), writes the ledger row and the usage row. Returns what was charged with the
 * alerts this charge triggers (a balance below its level, budget thresholds crossed), or null if
 * already closed. `withinHold`: a limit the customer set applies, so the charge never exceeds the
 * hold (reserved against that limit); the rest is recorded as uncovered, like what a balance cannot pay.
 */
export async function settleHold(db: Db, holdId: string, chargeMicros: number, facts: UsageFacts, opts: SettleOptions = {}): Promise<Settled | null> {
  const settled = await settleOnce(db, holdId, chargeMicros, facts, opts)
  // The charge may have taken the available balance below an auto top-up threshold: its watcher hears the account.
  if (settled && settled.chargedMicros > 0 && opts.account?.userId) spent(db, { userId: opts.account.userId, teamId: opts.account.teamId })
  return settled
}

async function settleOnce(db: Db, holdId: string, chargeMicros: number, facts: UsageFacts, opts: SettleOptions): Promise<Settled | null> {
  if (onPostgres && !inUnit(db)) {
    const item = settleItem(holdId, chargeMicros, facts, opts)
    // Served from a reserve: the charge is written now and applied right after (its alerts to onApplied).
    const r = await servedFromReserve(db, holdId)
    if (r && (await r.settle(holdId, item, opts.onApplied)) === 'written') return { chargedMicros: chargeMicros, budgets: [] }
    const usual = await settleBatched(db, item)
    if (usual !== 'general') return usual ?? settleWithoutHold(db, holdId, chargeMicros, facts, opts)
  }
  return (await settleGeneral(db, holdId, chargeMicros, facts, opts)) ?? settleWithoutHold(db, holdId, chargeMicros, facts, opts)
}

/**
 * The hold is gone, yet the answer was delivered: another instance gave the hold back because this
 * one's lease lapsed (a database outage longer than the lease, a paused process). The answer is
 * charged all the same, from the balance as it is (never below zero, within a customer's limits and
 * the hold it had; what cannot be taken is recorded as uncovered), and the log says so once. Null when
 * the hold was closed by a settlement or release of its own (its usage row exists: a retry after a
 * commit whose answer was lost, or a sweep that settled it from the router's record) — never twice.
 */
async function settleWithoutHold(db: Db, holdId: string, chargeMicros: number, facts: UsageFacts, opts: SettleOptions): Promise<Settled | null> {
  const owner = opts.account
  if (!owner?.userId) return null // a sweep settling a hold someone else closed: nothing of its own to charge
  const hold: OpenHold = { userId: owner.userId, teamId: owner.teamId, apiKeyId: owner.apiKeyId, amountMicros: 0, keyHeldMicros: 0, memberHeldMicros: 0 }
  try {
    const settled = await tx(db, async (q) => {
      const [closed] = await q.select({ id: usageLogs.id }).from(usageLogs).where(eq(usageLogs.holdId, holdId)).limit(1)
      if (closed) return null
      return settleOpen(q, holdId, hold, chargeMicros, facts, { ...opts, capMicros: facts.holdMicros ?? 0 })
    })
    if (settled)
      console.warn(
        `[billing] request ${holdId} (${facts.model}): its hold was given back by another instance (this instance's lease lapsed); the answer is charged without it: ${settled.chargedMicros} of ${chargeMicros} µ₽`,
      )
    return settled
  } catch (e) {
    if (isUniqueViolation(e)) return null // closed meanwhile by its own settlement: its usage row is there
    throw e
  }
}

/** A settlement as the batched statements take it. */
function settleItem(holdId: string, chargeMicros: number, facts: UsageFacts, opts: SettleOptions): PgSettleItem {
  const at = Date.now()
  return {
    holdId,
    chargeMicros,
    withinHold: opts.withinHold === true,
    account: opts.account,
    now: at,
    ledgerId: newId(),
    description: LEDGER.usage.description(facts.model),
    reference: LEDGER.usage.reference(holdId),
    usageId: newId(),
    usageDay: moscowDay(at),
    upstreamNano: toNano(facts.upstreamCostUsd),
    upstreamNanoRub: toNano(facts.upstreamCostRub ?? null),
    usage: usageValues(facts),
  }
}

/**
 * PostgreSQL: the settlement goes to the database with those of concurrent requests, in one
 * statement (money/pg/statements.ts); 'general' when its account could not take the batch as it is.
 */
async function settleBatched(db: Db, item: PgSettleItem): Promise<Settled | null | 'general'> {
  const done = await pgBatches(db).settle(item)
  if (done === 'closed') return null
  if (done === 'general') return done
  return batchSettled(db, item, done)
}

/** What a batched settlement of `item` means for its alerts: a balance below its level, budget thresholds crossed. */
async function batchSettled(db: Db, item: PgSettleItem, done: PgSettled): Promise<Settled> {
  const { hold, chargedMicros: charged } = done
  if (item.chargeMicros > hold.amountMicros)
    console.warn(`[billing] request ${item.holdId} (${String(item.usage.model)}): cost ${item.chargeMicros} µ₽ exceeds its hold ${hold.amountMicros} µ₽`)
  const account = { userId: hold.userId, teamId: hold.teamId }
  const mayAlert = charged > 0 && done.alertLevelMicros != null && !done.alerted && done.balanceAfterMicros < done.alertLevelMicros
  const open: OpenHold = { ...hold, keyHeldMicros: 0, memberHeldMicros: 0 }
  const levels = levelsOf(open)
  const after = levels.map(({ level }) => spendFromLevel(level.kind === 'key' ? done.key : done.member))
  return {
    chargedMicros: charged,
    lowBalance: mayAlert ? await write(db, (q) => checkLowBalance(q, account)) : undefined,
    budgets: crossings(open, levels, after, charged),
  }
}

/** The reserves of a PostgreSQL database (money/reserves.ts), with what they need of this file. */
export const pgReserves = (db: Db) =>
  reserves(moneyDb(db), {
    hold: (item) => pgBatches(db).hold(item),
    release: (reserveId) => releaseWhere(db, eq(holds.id, reserveId)),
    applyAlone: (item) => applyPendingAlone(db, item),
    settled: (item, done) => batchSettled(db, item, done),
  })

/**
 * A pending charge through the general unit: the pending row deleted (once, whoever runs it), the
 * charge taken off its reserve and off the account's held sum while the reserve still holds it,
 * then settled as a hold of that amount — never below zero, the rest recorded as uncovered. Null
 * when it was applied before, or its account was deleted since (its books are gone with it).
 */
export function applyPendingAlone(db: Db, e: PgPendingItem): Promise<(Settled & { fromReserve: boolean }) | null> {
  return tx(db, async (q) => {
    const gone = await q.delete(pendingCharges).where(eq(pendingCharges.id, e.holdId)).returning({ id: pendingCharges.id })
    if (gone.length === 0) return null
    const account = e.teamId
      ? await q.select({ id: teams.id }).from(teams).where(eq(teams.id, e.teamId))
      : await q.select({ id: users.id }).from(users).where(eq(users.id, e.userId))
    if (account.length === 0) return null
    const off = await q
      .update(holds)
      .set({ amountMicros: sql`${holds.amountMicros} - ${e.chargeMicros}` })
      .where(and(eq(holds.id, e.reserveId), eq(holds.reserve, true), gte(holds.amountMicros, e.chargeMicros)))
      .returning({ id: holds.id })
    const hold: OpenHold = { userId: e.userId, teamId: e.teamId, apiKeyId: e.apiKeyId, amountMicros: off.length ? e.chargeMicros : 0, keyHeldMicros: 0, memberHeldMicros: 0 }
    // The usage facts were stored as the statements bind them: the same fields, absent ones null.
    const settled = await settleOpen(q, e.holdId, hold, e.chargeMicros, e.usage as unknown as UsageFacts, {})
    return { ...settled, fromReserve: off.length > 0 }
  })
}

/** The general settling unit: every rule, statement by statement (SQLite always; PostgreSQL when the usual case does not apply). */
function settleGeneral(db: Db, holdId: string, chargeMicros: number, facts: UsageFacts, opts: SettleOptions): Promise<Settled | null> {
  return closing(db, holdId, (q, hold) => settleOpen(q, holdId, hold, chargeMicros, facts, opts))
}

/** Inside a closing unit (`q`): settles `hold`, taken from its row (or its pending charge's), to the charge. */
async function settleOpen(q: Db, holdId: string, hold: OpenHold, chargeMicros: number, facts: UsageFacts, opts: SettleOptions & { capMicros?: number }): Promise<Settled> {
  const now = new Date()
  const at = clockNow()
  // Every budget counts the charge — capped, when the reported cost exceeds what a budget has
  // left, so that a limit the customer set is never exceeded (the rest is uncovered, below).
  const levels = levelsOf(hold)
  // What the request was held for: its row's amount, or, when the row was given back before, what it had.
  const heldFor = opts.capMicros ?? hold.amountMicros
  let charged = opts.withinHold ? Math.min(chargeMicros, heldFor) : chargeMicros
  const counted: number[] = []
  const after: Array<SpendAfter | undefined> = []
  for (const { level, reserved } of levels) {
    const row = await settleBudget(q, level, reserved, charged, at, now.getTime())
    if (row) {
      counted.push(charged)
      after.push(row)
    } else {
      charged = Math.min(charged, await budgetRoom(q, level, reserved, at))
      counted.push(0)
      after.push(undefined)
    }
  }
  // The key's settlement (levelsOf puts it first) set its lastUsedAt when it counted the charge.
  const keyTouched = levels[0]?.level.kind === 'key' && after[0] !== undefined
  const account = { userId: hold.userId, teamId: hold.teamId }
  const charge = (amountMicros: number, releaseHeldMicros: number) =>
    postMovement(q, {
      ...account,
      type: 'usage',
      amountMicros: -amountMicros,
      releaseHeldMicros,
      description: LEDGER.usage.description(facts.model),
      reference: LEDGER.usage.reference(holdId),
      now,
    })
  const wanted = charged
  let posted: Posted | undefined
  if (charged > 0) {
    try {
      // The usual case: one UPDATE gives the reservation back and takes the charge.
      posted = await charge(charged, hold.amountMicros)
    } catch (e) {
      if (!(e instanceof InsufficientFundsError)) throw e
      // The reported cost exceeds the whole balance: charge what is there, never below zero.
      const balance = await unreserve(q, hold)
      charged = Math.max(0, Math.min(wanted, balance))
      if (charged > 0) posted = await charge(charged, 0)
    }
  } else await unreserve(q, hold)
  // A level that counted more than the final charge (a later level or the balance capped it) gives the difference back.
  for (const [i, { level }] of levels.entries()) {
    if (counted[i] !== charged) after[i] = (await addBudgetSpent(q, level, charged - counted[i]!)) ?? after[i]
  }
  if (chargeMicros > heldFor) console.warn(`[billing] request ${holdId} (${facts.model}): cost ${chargeMicros} µ₽ exceeds its hold ${heldFor} µ₽`)
  const usageId = await logUsage(q, hold, facts, charged, now, keyTouched)
  if (charged < chargeMicros) {
    // Never a silent cap: what the balance or a budget could not take is the platform's loss, recorded per request.
    const uncovered = chargeMicros - charged
    await statements(q).insertUncovered.run(q, {
      id: newId(),
      userId: hold.userId,
      teamId: hold.teamId,
      usageId,
      model: facts.model,
      upstreamId: facts.upstreamId,
      held: heldFor,
      cost: chargeMicros,
      charged,
      uncovered,
      createdAt: now.getTime(),
    })
    console.error(
      `[billing] ALERT uncovered cost: request ${usageId} of ${hold.teamId ? `team ${hold.teamId} (member ${hold.userId})` : `user ${hold.userId}`} (${facts.model}, upstream ${facts.upstreamId ?? '—'}) cost ${chargeMicros} µ₽, held ${heldFor} µ₽, charged ${charged} µ₽; ${uncovered} µ₽ not covered`,
    )
  }
  // The alert's UPDATE only runs when this charge can have crossed the account's level.
  const mayAlert = posted && posted.alertLevelMicros != null && !posted.alerted && posted.balanceAfterMicros < posted.alertLevelMicros
  return { chargedMicros: charged, lowBalance: mayAlert ? await checkLowBalance(q, account) : undefined, budgets: crossings(hold, levels, after, charged) }
}

/** The budget thresholds this charge carried a level across (the alerts are claimed and sent later). */
function crossings(hold: OpenHold, levels: Array<{ level: Level }>, after: Array<SpendAfter | undefined>, charged: number): BudgetCrossing[] {
  const out: BudgetCrossing[] = []
  if (charged <= 0) return out
  for (const [i, { level }] of levels.entries()) {
    const b = after[i]
    if (!b || b.limitMicros === null) continue
    for (const threshold of crossedThresholds(b.limitMicros, b.spentMicros - charged, b.spentMicros))
      out.push({
        level: level.kind,
        keyId: level.kind === 'key' ? level.keyId : null,
        userId: hold.userId,
        teamId: hold.teamId,
        limitMicros: b.limitMicros,
        spentMicros: b.spentMicros,
        period: b.period,
        periodStart: b.periodStart,
        threshold,
      })
  }
  return out
}

/** Releases a hold without charging (failed request) and logs the attempt. */
export async function releaseHold(db: Db, holdId: string, facts: UsageFacts): Promise<void> {
  if (onPostgres && !inUnit(db)) {
    // Served from a reserve: nothing to charge; the usage row goes the way of a charge.
    const r = await servedFromReserve(db, holdId)
    if (r && (await r.settle(holdId, settleItem(holdId, 0, facts, {}))) === 'written') return
  }
  await closing(db, holdId, async (q, hold) => {
    await releaseAll(q, hold)
    await logUsage(q, hold, facts, 0, new Date())
  })
}

/** Deletes the holds matching `where` and gives their reservations back, in one unit; returns how many. */
export function releaseWhere(db: Db, where: ReturnType<typeof and>): Promise<number> {
  return tx(db, async (q) => {
    const gone = await q.delete(holds).where(where).returning(holdColumns)
    // Many holds at once: all the keys, then the members, then the accounts (releaseAll's order),
    // each kind sorted, so a sweep never deadlocks with the settlements running beside it.
    const rank = ({ level: l }: { level: Level }) => (l.kind === 'key' ? `0:${l.keyId}` : `1:${l.teamId}:${l.userId}`)
    const levels = gone.flatMap(levelsOf).sort((a, b) => rank(a).localeCompare(rank(b)))
    for (const { level, reserved } of levels) await releaseBudget(q, level, reserved)
    const account = (h: OpenHold) => h.teamId ?? h.userId
    for (const hold of [...gone].sort((a, b) => account(a).localeCompare(account(b)))) await unreserve(q, hold)
    return gone.length
  })
}

/** A request refused before anything was held (a key's policy, issue 36), as the activity log keeps it. */
export type Refusal = {
  userId: string
  teamId: string | null
  apiKeyId: string | null
  keyName: string | null
  requestId: string | null
  endpoint: UsageFacts['endpoint']
  model: string
  stream: boolean
  error: string
}

/** The refused request's usage row, at no cost (no hold, no ledger row: no money moved); the daily rollup counts it as a request. */
export async function recordRefusal(db: Db, r: Refusal): Promise<void> {
  const account: OpenHold = { userId: r.userId, teamId: r.teamId, apiKeyId: r.apiKeyId, amountMicros: 0, keyHeldMicros: 0, memberHeldMicros: 0 }
  const facts: UsageFacts = {
    endpoint: r.endpoint,
    model: r.model,
    requestedModel: r.model,
    keyName: r.keyName,
    requestId: r.requestId,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    upstreamCostUsd: null,
    upstreamId: null,
    responseId: null,
    upstream: '',
    status: 'error',
    error: r.error.slice(0, 500),
    durationMs: 0,
    stream: r.stream,
  }
  // A refused key is not "used": its lastUsedAt stays.
  await tx(db, (q) => logUsage(q, account, facts, 0, new Date(clockNow()), true))
}
