// Holds: reserve a request's worst case before the upstream call, settle to the real cost after.
// The reservation is durable and shared by every instance on the database: the account's held sum
// (users.held_micros, or teams.held_micros for a team's request) changes in the same committed unit
// that inserts or deletes the hold's row, and the reserving UPDATE is conditional, so two concurrent
// requests (on any instances) can never spend the same ruble. The same unit reserves on every budget
// that limits the request — the key's, the member's (billing/budgets.ts) — so no number of
// concurrent requests exceeds any level, and the row records what it took from each. Each row names
// the instance serving the request and a lease that instance renews while it lives (startHoldLeases);
// holds whose lease lapsed belong to a dead instance and are given back by whichever instance sweeps
// first. Nobody releases another live instance's holds, not even at start.
// These run on every /v1 request: their statements are compiled once (db/prepared.ts). On SQLite the
// units of concurrent requests share one commit (db/writer.ts); on PostgreSQL they go to the database
// as one statement per batch (db/batch.ts, db/pg-money.ts), and a well-funded account's holds come
// from the instance's reserve (billing/reserves.ts). Each resolves once committed.
import { and, eq, gte, isNotNull, isNull, lt, ne, notInArray, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { batched } from './pg/queue'
import { moneyDb } from '../db/client'
import { onPostgres } from '../db/dialect'
import { HOLD_LEASE_MS, INSTANCE_ID, LEASE_RENEW_MS, LEASE_TOKEN, leaseHeld, leaseRenewed } from '../db/instance'
import { noteDatabaseFailure } from '../db/outage'
import {
  holdBatch,
  type PgHeld,
  type PgHoldItem,
  type PgPendingItem,
  type PgSettled,
  type PgSettleItem,
  type PgSettleOutcome,
  settleBatch,
  type UsageBindings,
} from './pg/statements'
import { compiled, prepared } from '../db/prepared'
import { inUnit, tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { newId } from '../lib/crypto'
import { ceilUnits, dec } from '../lib/decimal'
import { isUniqueViolation } from '../lib/errors'
import { teams } from '../teams/schema'
import { type BudgetCrossing, checkLowBalance, type LowBalance } from './alerts'
import { addBudgetSpent, budgetRoom, crossedThresholds, type Level, releaseBudget, reserveBudget, type SpendAfter, settleBudget, spendFromLevel } from './budgets'
import { moscowDay } from './days'
import { InsufficientFundsError, type Posted, postMovement } from './ledger'
import { now as clockNow, periodStarts } from './periods'
import { existingReserves, reserves } from './reserves'
import { type HoldGeneration, holds, pendingCharges, type UsageLogRow, uncoveredCosts, usageDaily, usageLogs } from './schema'

/** The upstream's reported USD cost in nano-dollars (0 when it reported none). */
const usdToNano = (usd: string | null) => {
  if (!usd) return 0
  try {
    return Math.max(0, ceilUnits(dec(usd), 9))
  } catch {
    return 0
  }
}

/** The level that refused a hold: the key's or the member's budget, the team's or the personal balance. */
export type HoldLevel = 'key' | 'member' | 'team' | 'personal'

export class HoldRefused extends Error {
  constructor(readonly level: HoldLevel) {
    super(level)
  }
}

/**
 * A hold planned from a cached read of the caller was not taken: the key, the membership or the
 * balance may have changed since (a key disabled or given a budget, a member removed or given
 * another role, the balance spent elsewhere). Nothing was reserved: read the caller again, plan anew.
 */
export class CallerChanged extends Error {
  constructor() {
    super('the caller may have changed since it was read')
  }
}

export type HoldRequest = {
  /** The personal account, or the member acting in `teamId`. */
  userId: string
  /** The team whose balance pays; null = the personal balance. */
  teamId: string | null
  apiKeyId: string | null
  amountMicros: number
  /** Reserve in the key's budget (the key has a limit). */
  keyBudget?: boolean
  /** Reserve in the member's budget (a team request by a member with a limit). */
  memberBudget?: boolean
  /** The member's role the request was planned with (team requests); checked with the hold on PostgreSQL. */
  role?: string | null
  /** Planned from a cached read of the caller: when the hold is not taken, CallerChanged (read it again) rather than a refusal. */
  cached?: boolean
  /** The account's available balance as the caller was read: a well-funded one is held from a reserve (billing/reserves.ts). */
  available?: number
}

/** Facts of the usage row a request may lack (null when absent): voice amounts, pictures, how it was priced and timed. */
type OptionalFacts = 'audioSeconds' | 'characters' | 'images' | 'requestedModel' | 'keyName' | 'usdRubRate' | 'markup' | 'holdId' | 'holdMicros' | 'requestId' | 'ttftMs'

/** The usage row's facts; ids, cost and timestamps are filled in here. */
export type UsageFacts = Omit<UsageLogRow, 'id' | 'userId' | 'teamId' | 'apiKeyId' | 'costMicros' | 'createdAt' | OptionalFacts> & Partial<Pick<UsageLogRow, OptionalFacts>>

const p = sql.placeholder

const holdColumns = {
  userId: holds.userId,
  teamId: holds.teamId,
  apiKeyId: holds.apiKeyId,
  amountMicros: holds.amountMicros,
  keyHeldMicros: holds.keyHeldMicros,
  memberHeldMicros: holds.memberHeldMicros,
}

// Compiled statements (db/prepared.ts): values are passed as SQLite stores them, rows come back as arrays.
const statements = (db: Db) =>
  prepared(db, 'holds', () => ({
    // One conditional UPDATE: two concurrent holds can never both take the same micro-ruble.
    reserve: compiled(
      db,
      db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros} + ${p('amount')}` })
        .where(and(eq(users.id, p('userId')), gte(sql`${users.balanceMicros} - ${users.heldMicros}`, p('amount'))))
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
type OpenHold = { userId: string; teamId: string | null; apiKeyId: string | null; amountMicros: number; keyHeldMicros: number; memberHeldMicros: number }

/** The budget levels a hold was checked against, with what it reserved on each. */
function levelsOf(hold: OpenHold): Array<{ level: Level; reserved: number }> {
  const levels: Array<{ level: Level; reserved: number }> = []
  if (hold.apiKeyId) levels.push({ level: { kind: 'key', keyId: hold.apiKeyId }, reserved: hold.keyHeldMicros })
  if (hold.teamId) levels.push({ level: { kind: 'member', teamId: hold.teamId, userId: hold.userId }, reserved: hold.memberHeldMicros })
  return levels
}

/** Gives a hold's reservation back to the balance (no charge); answers the balance left. */
async function unreserve(q: Db, hold: OpenHold): Promise<number> {
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
async function releaseAll(q: Db, hold: OpenHold): Promise<void> {
  for (const { level, reserved } of levelsOf(hold)) await releaseBudget(q, level, reserved, true)
  await unreserve(q, hold)
}

/** Runs a unit that takes the hold's row; null when it is already closed (settling twice finds nothing). */
function closing<T>(db: Db, holdId: string, work: (q: Db, hold: OpenHold) => Promise<T>): Promise<T | null> {
  return tx(db, async (q) => {
    const [hold] = await statements(q).takeHold.rows(q, { id: holdId })
    return hold ? work(q, hold) : null
  })
}

/**
 * Reserves the amount on every level at once — the key's budget, the member's budget, the balance
 * (the team's or the personal one); rejects with HoldRefused naming the level that cannot cover it
 * (the unit is rolled back, so nothing stays reserved).
 */
export async function placeHold(db: Db, req: HoldRequest): Promise<string> {
  if (!Number.isSafeInteger(req.amountMicros) || req.amountMicros < 0) throw new RangeError('hold must be a non-negative integer')
  const id = newId()
  const amount = req.amountMicros
  const keyHeld = req.keyBudget && req.apiKeyId ? amount : 0
  const memberHeld = req.memberBudget && req.teamId ? amount : 0
  const now = Date.now()
  const row = {
    id,
    userId: req.userId,
    teamId: req.teamId,
    apiKeyId: req.apiKeyId,
    amount,
    keyHeld,
    memberHeld,
    instance: INSTANCE_ID,
    leaseToken: LEASE_TOKEN,
    leaseUntil: now + HOLD_LEASE_MS,
    createdAt: now,
  }
  // PostgreSQL: with the holds of concurrent requests, one statement (db/pg-money.ts). One that a
  // level refused (or that is not as planned) runs the unit below, which names the refusing level.
  if (onPostgres && !inUnit(db)) {
    // No budget limits the request: a well-funded account's hold comes from this instance's reserve, in memory.
    const account = { userId: req.userId, teamId: req.teamId, role: req.role ?? null }
    if (!keyHeld && !memberHeld && req.available !== undefined && (await pgReserves(db).take(id, account, req.apiKeyId, amount, req.available))) return id
    const held = await pgBatches(db).hold({ ...row, role: req.role ?? null })
    if (held === 'placed') return id
    if (req.cached) throw new CallerChanged()
  }
  return tx(db, async (q) => {
    const s = statements(q)
    const at = clockNow()
    if (keyHeld && !(await reserveBudget(q, { kind: 'key', keyId: req.apiKeyId! }, amount, at))) throw new HoldRefused('key')
    if (memberHeld && !(await reserveBudget(q, { kind: 'member', teamId: req.teamId!, userId: req.userId }, amount, at))) throw new HoldRefused('member')
    if (req.teamId) {
      if ((await s.reserveTeam.rows(q, { teamId: req.teamId, amount })).length === 0) throw new HoldRefused('team')
    } else if ((await s.reserve.rows(q, { userId: req.userId, amount })).length === 0) throw new HoldRefused('personal')
    await s.insertHold.run(q, row)
    return id
  })
}

/** The usage row's facts as the statements bind them (the optional ones null when absent). */
const usageValues = (facts: UsageFacts): UsageBindings => ({
  ...facts,
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
 * Writes the usage row, the daily rollup and the key's lastUsedAt; returns the usage row's id. The
 * three are independent, so they are sent together (on PostgreSQL the driver pipelines them on the
 * unit's connection, in this order): one round trip instead of three while the settling unit holds
 * the hot key and balance rows (bench/README.md, issue 25). Any of them failing still fails the unit.
 */
async function logUsage(q: Db, hold: OpenHold, facts: UsageFacts, costMicros: number, now: Date): Promise<string> {
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
      upstreamNano: usdToNano(facts.upstreamCostUsd),
    }),
  )
  if (hold.apiKeyId) {
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

export type SettleOptions = {
  /** A limit the customer set applies: the charge never exceeds the hold (the rest is recorded as uncovered). */
  withinHold?: boolean
  /**
   * Whose the hold is, when the caller knows (the request that placed it); saves PostgreSQL the other
   * levels' work. With `userId`, an answer whose hold another instance gave back is still charged.
   */
  account?: { userId?: string; teamId: string | null; apiKeyId: string | null }
  /** Hears a charge applied after settleHold answered (a reserve-backed request, billing/reserves.ts): its alerts. */
  onApplied?: (settled: Settled) => void
}

/** What settling did: the charge, and the alerts it may trigger (sent after the unit commits). */
export type Settled = { chargedMicros: number; lowBalance?: LowBalance; budgets: BudgetCrossing[] }

/**
 * Settles a hold to the real cost: releases the reservations, charges (never below a zero balance,
 * never beyond a budget), writes the ledger row and the usage row. Returns what was charged with the
 * alerts this charge triggers (a balance below its level, budget thresholds crossed), or null if
 * already closed. `withinHold`: a limit the customer set applies, so the charge never exceeds the
 * hold (reserved against that limit); the rest is recorded as uncovered, like what a balance cannot pay.
 */
export async function settleHold(db: Db, holdId: string, chargeMicros: number, facts: UsageFacts, opts: SettleOptions = {}): Promise<Settled | null> {
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
    description: `Запрос к модели ${facts.model}`,
    reference: `usage:${holdId}`,
    usageId: newId(),
    usageDay: moscowDay(at),
    upstreamNano: usdToNano(facts.upstreamCostUsd),
    usage: usageValues(facts),
  }
}

/**
 * PostgreSQL: the settlement goes to the database with those of concurrent requests, in one
 * statement (db/pg-money.ts); 'general' when its account could not take the batch as it is.
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

/** The batch queues of a PostgreSQL database (db/batch.ts): holds, and settlements. */
function pgBatches(db: Db) {
  let queues = batches.get(db)
  if (!queues) {
    const money = moneyDb(db)
    queues = {
      hold: batched<PgHoldItem, PgHeld>((items) =>
        holdBatch(money, items, { ...periodStarts(clockNow()), instance: INSTANCE_ID, leaseToken: LEASE_TOKEN, leaseUntil: Date.now() + HOLD_LEASE_MS }),
      ),
      settle: batched<PgSettleItem, PgSettleOutcome>((items) => settleBatch(money, items, periodStarts(clockNow()))),
    }
    batches.set(db, queues)
  }
  return queues
}
const batches = new WeakMap<Db, { hold: (item: PgHoldItem) => Promise<PgHeld>; settle: (item: PgSettleItem) => Promise<PgSettleOutcome> }>()

/** The reserves this process made on `db`, if any (PostgreSQL). */
const reservesIfAny = (db: Db) => (onPostgres ? existingReserves(moneyDb(db)) : undefined)

/** This process's reserves when request `holdId` is served from one (once a move of it to a hold row of its own, if under way, is done). */
async function servedFromReserve(db: Db, holdId: string) {
  await carving.get(holdId)
  const r = reservesIfAny(db)
  return r?.has(holdId) ? r : undefined
}

/** The reserves of a PostgreSQL database (billing/reserves.ts), with what they need of this file. */
const pgReserves = (db: Db) =>
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
function applyPendingAlone(db: Db, e: PgPendingItem): Promise<(Settled & { fromReserve: boolean }) | null> {
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
    const row = await settleBudget(q, level, reserved, charged, at)
    if (row) {
      counted.push(charged)
      after.push(row)
    } else {
      charged = Math.min(charged, await budgetRoom(q, level, reserved, at))
      counted.push(0)
      after.push(undefined)
    }
  }
  const account = { userId: hold.userId, teamId: hold.teamId }
  const charge = (amountMicros: number, releaseHeldMicros: number) =>
    postMovement(q, {
      ...account,
      type: 'usage',
      amountMicros: -amountMicros,
      releaseHeldMicros,
      description: `Запрос к модели ${facts.model}`,
      reference: `usage:${holdId}`,
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
  const usageId = await logUsage(q, hold, facts, charged, now)
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
function releaseWhere(db: Db, where: ReturnType<typeof and>): Promise<number> {
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

/**
 * Remembers the router's generation id on the hold (the first id wins), with what a settlement from
 * /generation needs: should this process die before settling, whoever gives the hold back charges
 * what the router delivered instead. Not awaited on the request path. The write goes out once the
 * answer has run NOTE_AFTER_MS, and not at all when the hold's closing has begun by then and commits
 * (an answer that ends sooner, settled at once): the hold is gone, so there is nothing left to
 * recover, and the note would only wait behind the settlement for the hold's row — on PostgreSQL a
 * request served from a reserve would even have to move to a hold row of its own first
 * (bench/README.md, issue 25). When that closing fails or is deferred, the note goes out then.
 */
export function noteGeneration(db: Db, holdId: string, generationId: string, info: HoldGeneration): void {
  if (unnoted.has(holdId)) return
  const send = () => {
    forgetNote(holdId)
    const failed = (e: unknown) => {
      if (!noteDatabaseFailure(e)) console.error(`[billing] hold ${holdId}: generation id not recorded: ${(e as Error).message}`)
    }
    // A request served from a reserve has no row to note it on: it moves to a hold row of its own, with the note.
    const r = reservesIfAny(db)
    if (r?.has(holdId)) {
      const moved = r
        .carveOut(holdId, generationId, info)
        .catch(failed)
        .finally(() => carving.delete(holdId))
      carving.set(holdId, moved)
      return
    }
    void write(db, (q) =>
      q
        .update(holds)
        .set({ generationId, generation: info })
        .where(and(eq(holds.id, holdId), isNull(holds.generationId))),
    ).catch(failed)
  }
  const timer = setTimeout(() => {
    if (unnoted.get(holdId)?.send === send && !closingHere.has(holdId)) send()
  }, NOTE_AFTER_MS)
  unnoted.set(holdId, { send, timer })
}

/** The hold closed: its generation, not yet noted, has nothing left to protect (its timer goes too: one wake-up fewer per answer). */
function forgetNote(holdId: string) {
  const note = unnoted.get(holdId)
  if (!note) return
  clearTimeout(note.timer)
  unnoted.delete(holdId)
}

/**
 * How long an answer runs before its generation is noted. What a crash can then lose is the router's
 * charge for answers in their first tenth of a second (they were never delivered whole); a quicker
 * note costs every short answer a write, and on PostgreSQL a reserve-backed one a move to a hold row.
 */
const NOTE_AFTER_MS = 100

/** Generation ids waiting for NOTE_AFTER_MS to pass (or for their hold's closing), by hold. */
const unnoted = new Map<string, { send: () => void; timer: ReturnType<typeof setTimeout> }>()
/** Reserve-backed requests being moved to hold rows of their own (noteGeneration): their closing waits for it. */
const carving = new Map<string, Promise<unknown>>()
/** Holds whose closing unit (closeDurably) is running in this process. */
const closingHere = new Set<string>()

/** Back-off between tries of a closing the database refused (the last one repeats). */
const CLOSE_RETRY_MS = [250, 500, 1000, 2000, 5000]
/** Holds whose closing waits for the database (the stale-hold sweep leaves them to it). */
const waiting = new Set<string>()

export type Closed<T> = { deferred: false; result: T } | { deferred: true }

/**
 * Runs a closing unit — a settlement or a release. When the database is not answering, the hold
 * stays as it is (reserved, its lease renewed while this process lives) and the unit is tried again
 * in the background until it commits; `late` gets its result then. A retry after a commit whose
 * answer was lost finds the hold closed and changes nothing: never charged twice.
 */
export async function closeDurably<T>(holdId: string, unit: () => Promise<T>, late?: (result: T) => void): Promise<Closed<T>> {
  closingHere.add(holdId)
  try {
    const result = await unit()
    forgetNote(holdId)
    return { deferred: false, result }
  } catch (e) {
    // Not closed: the hold keeps waiting, so it must know its generation (noteGeneration).
    unnoted.get(holdId)?.send()
    if (!noteDatabaseFailure(e)) throw e
    retryClosing(holdId, unit, late, 0)
    return { deferred: true }
  } finally {
    closingHere.delete(holdId)
  }
}

function retryClosing<T>(holdId: string, unit: () => Promise<T>, late: ((result: T) => void) | undefined, attempt: number) {
  waiting.add(holdId)
  setTimeout(
    async () => {
      try {
        const result = await unit()
        waiting.delete(holdId)
        late?.(result)
      } catch (e) {
        if (noteDatabaseFailure(e)) return retryClosing(holdId, unit, late, attempt + 1)
        waiting.delete(holdId)
        console.error(`[billing] hold ${holdId}: closing failed after the database came back: ${(e as Error).message}`)
      }
    },
    CLOSE_RETRY_MS[Math.min(attempt, CLOSE_RETRY_MS.length - 1)],
  )
}

/** A generation's settlement as the gateway prices it (the reported cost at the current rate and markup). */
export type GenerationCharge = { chargeMicros: number; facts: UsageFacts; withinHold: boolean }

/**
 * What the router's /generation says a hold's answer cost; null while it has not answered. Given by
 * the gateway (it knows the routers and the rate); `settled` gets each settlement (its alerts).
 */
export type GenerationSettler = {
  lookup(generationId: string, info: HoldGeneration, createdAt: number): Promise<GenerationCharge | null>
  settled?(result: Settled): void
}

/** Lookups of one generation before its hold is given back without a charge (logged). */
const GENERATION_TRIES = 5
const generationTries = new Map<string, number>()

/**
 * The holds matching `where` that know their generation: each is settled from the router's record,
 * exactly once (settleHold takes the row in its unit, so two sweeping instances cannot both charge).
 * When the router does not answer GENERATION_TRIES lookups (one per sweep), the hold is released.
 */
async function settleFromGenerations(db: Db, where: ReturnType<typeof and>, settler?: GenerationSettler): Promise<{ settled: number; released: number }> {
  const rows = await db
    .select({ id: holds.id, generationId: holds.generationId, generation: holds.generation, createdAt: holds.createdAt })
    .from(holds)
    .where(and(where, isNotNull(holds.generationId)))
    .limit(100)
  let settled = 0
  let released = 0
  for (const row of rows) {
    let charge: GenerationCharge | null = null
    if (settler && row.generation)
      try {
        charge = await settler.lookup(row.generationId!, row.generation, row.createdAt)
      } catch (e) {
        console.warn(`[billing] generation ${row.generationId} lookup failed: ${(e as Error).message}`)
      }
    if (charge) {
      generationTries.delete(row.id)
      const done = await settleHold(db, row.id, charge.chargeMicros, { ...charge.facts, holdId: row.id }, { withinHold: charge.withinHold })
      if (done) {
        settled++
        settler?.settled?.(done)
      }
      continue
    }
    const tries = (generationTries.get(row.id) ?? 0) + 1
    if (tries < GENERATION_TRIES) {
      generationTries.set(row.id, tries)
      continue
    }
    generationTries.delete(row.id)
    const n = await releaseWhere(db, and(where, eq(holds.id, row.id)))
    if (n) console.warn(`[billing] hold ${row.id}: the router did not report generation ${row.generationId} in ${tries} lookups; released without a charge`)
    released += n
  }
  if (generationTries.size > 10_000) generationTries.clear()
  return { settled, released }
}

/**
 * Closes this process's holds older than `olderThan` whose request never ended (the stale-hold
 * sweep): released, or settled from the router when their generation is known. Not those whose
 * closing is waiting for the database. Answers how many.
 */
export async function releaseStaleHolds(db: Db, olderThan: Date, settler?: GenerationSettler): Promise<number> {
  // Reserves outlive requests: they are given back when idle (billing/reserves.ts).
  const stale = and(
    eq(holds.leaseToken, LEASE_TOKEN),
    eq(holds.reserve, false),
    lt(holds.createdAt, olderThan.getTime()),
    waiting.size ? notInArray(holds.id, [...waiting]) : undefined,
  )
  const released = await releaseWhere(db, and(stale, isNull(holds.generationId)))
  const fromRouter = await settleFromGenerations(db, stale, settler)
  return released + fromRouter.settled + fromRouter.released
}

/**
 * Closes the holds of processes that stopped renewing their lease (died, or restarted under the same
 * INSTANCE_ID): released, or settled from the router when their generation is known. Answers how many.
 */
export async function releaseLapsedHolds(db: Db, now = Date.now(), settler?: GenerationSettler): Promise<number> {
  // Not this process's own: its renewal keeps them (a lag of its own is no death), its requests close them.
  const lapsed = and(lt(holds.leaseUntil, now), ne(holds.leaseToken, LEASE_TOKEN))
  // A dead instance's reserves: the charges it had written are applied before what is left is given back.
  const applied = onPostgres ? await applyOrphanCharges(db, now) : 0
  if (applied > 0) console.log(`[billing] applied ${applied} pending charge(s) of stopped instances`)
  const released = await releaseWhere(db, and(lapsed, isNull(holds.generationId)))
  if (released > 0) console.log(`[billing] released ${released} hold(s) of stopped instances`)
  const fromRouter = await settleFromGenerations(db, lapsed, settler)
  if (fromRouter.settled > 0) console.log(`[billing] settled ${fromRouter.settled} hold(s) of stopped instances from the router's generation records`)
  return released + fromRouter.settled + fromRouter.released
}

/**
 * Applies the pending charges of reserves whose lease lapsed (their instance died), and those left
 * behind by a reserve that is gone (applied charges take nothing from it then): each once, by the
 * general unit. Answers how many.
 */
async function applyOrphanCharges(db: Db, now: number): Promise<number> {
  const rows = await db
    .select({ entry: pendingCharges.entry })
    .from(pendingCharges)
    .where(
      sql`exists (select 1 from ${holds} where ${holds.id} = ${pendingCharges.reserveId} and ${holds.leaseUntil} < ${now})
        or (${pendingCharges.createdAt} < ${now - HOLD_LEASE_MS} and not exists (select 1 from ${holds} where ${holds.id} = ${pendingCharges.reserveId}))`,
    )
    .limit(1000)
  let applied = 0
  for (const { entry } of rows) if (await applyPendingAlone(db, entry as unknown as PgPendingItem)) applied++
  return applied
}

/** Resolves once the charges this process has applying (reserves, PostgreSQL) are in the books: reads that show money wait for it. */
export function chargesApplied(db: Db): Promise<unknown> {
  return reservesIfAny(db)?.applied() ?? Promise.resolve()
}

/** At a graceful stop: the pending charges applied, the reserves given back. */
export async function stopReserves(db: Db): Promise<void> {
  await reservesIfAny(db)?.stop()
}

/**
 * While this process runs: renews the lease of its open holds (those of this start only) every third
 * of the lease, and closes those of dead ones. The renewal runs on its own timer, so a slow sweep
 * (lookups at the router) never lets this process's lease lapse. A renewal that finds the lease lost
 * (the process was paused, or the database away, for longer than it) fences the reserves — nothing is
 * served from them until this renewal commits — and holds the sweep back for two renewals, so that
 * the other instances, cut off as well, renew theirs before their holds count as lapsed. Returns a
 * stop function (a graceful stop keeps its holds' leases until they lapse: requests still in flight
 * settle them first).
 */
export function startHoldLeases(
  db: Db,
  settler?: GenerationSettler,
  onError: (e: unknown) => void = (e) => {
    if (!noteDatabaseFailure(e)) console.error(`[billing] hold lease: ${(e as Error).message}`)
  },
): () => void {
  let sweepFrom = 0
  /** The start of the last renewal that committed. */
  let renewed = Date.now()
  /** Whether the lease was found lost (the reserves fenced, the log told once) and not yet renewed. */
  let lost = false
  const renew = async () => {
    const now = Date.now()
    if (!lost && !leaseHeld(now)) {
      lost = true
      const fenced = reservesIfAny(db)?.fence() ?? 0
      console.warn(
        `[billing] ${INSTANCE_ID}: no lease renewal for ${now - renewed} ms (lease ${HOLD_LEASE_MS} ms): other instances may give its holds back; ${fenced} reserve(s) fenced`,
      )
    }
    await write(db, (q) => statements(q).renewLeases.run(q, { token: LEASE_TOKEN, leaseUntil: now + HOLD_LEASE_MS }))
    leaseRenewed(now)
    if (lost) {
      // The others were likely cut off too: their holds are not swept before they had two renewals.
      sweepFrom = Date.now() + 2 * LEASE_RENEW_MS
      console.log(`[billing] ${INSTANCE_ID}: lease renewed after ${now - renewed} ms; requests are held from reserves again`)
      lost = false
    }
    renewed = now
  }
  const sweep = () => releaseLapsedHolds(db, Date.now(), settler)
  const guarded = (job: () => Promise<unknown>) => {
    let running = false
    return () => {
      if (running) return // a slow run is not run twice at once
      running = true
      void job()
        .catch(onError)
        .finally(() => {
          running = false
        })
    }
  }
  const renewing = guarded(renew)
  const sweeping = guarded(sweep)
  const tick = () => {
    renewing()
    if (Date.now() >= sweepFrom) sweeping()
  }
  const timer = setInterval(tick, LEASE_RENEW_MS)
  ;(timer as unknown as { unref(): void }).unref()
  tick()
  return () => clearInterval(timer)
}
