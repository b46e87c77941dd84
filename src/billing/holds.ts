// Holds: reserve a request's worst case before the upstream call, settle to the real cost after.
// The reservation is durable: users.held_micros changes in the same committed unit that opens or
// closes a hold, and the reserving UPDATE is conditional, so two concurrent requests can never
// spend the same ruble. Which request reserved how much lives in this process's memory: SQLite has
// one writer, this process, and a hold never outlives it (a crash loses the requests in flight, and
// startup gives back every reservation: releaseReservationsAtStartup). Keeping open holds out of the
// database saves an insert and a delete per request (bench/README.md).
// These run on every /v1 request: their statements are prepared once (db/prepared.ts) and the units
// of concurrent requests share one commit (db/group-commit.ts); each resolves once committed.
import { and, eq, gte, ne, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { compiled, prepared } from '../db/prepared'
import { groupCommit } from '../db/group-commit'
import { newId } from '../lib/crypto'
import { users } from '../auth/schema'
import { apiKeys } from '../keys/schema'
import { InsufficientFundsError, postMovement, type Posted } from './ledger'
import { uncoveredCosts, usageDaily, usageLogs, type UsageLogRow } from './schema'
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
    // Gives a reservation back; returns the balance (for a cost that exceeds it).
    unreserve: compiled(
      db,
      db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros} - ${p('amount')}` })
        .where(eq(users.id, p('userId')))
        .returning({ balance: users.balanceMicros }),
    ),
    insertUsage: compiled(
      db,
      db
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
      }),
    ),
    rollup: compiled(
      db,
      db
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
      }),
    ),
    insertUncovered: compiled(
      db,
      db.insert(uncoveredCosts).values({
        id: p('id'),
        userId: p('userId'),
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
    touchKey: compiled(db, db.update(apiKeys).set({ lastUsedAt: sql`${p('now')}` }).where(eq(apiKeys.id, p('keyId')))),
    releaseAll: compiled(db, db.update(users).set({ heldMicros: 0 }).where(ne(users.heldMicros, 0)).returning({ id: users.id })),
  }))

type OpenHold = { userId: string; apiKeyId: string | null; amountMicros: number; createdAt: number }

/** The open holds of one database, with each key's reserved sum kept alongside for monthly limits. */
class OpenHolds {
  private readonly byId = new Map<string, OpenHold>()
  private readonly perKey = new Map<string, number>()

  add(id: string, hold: OpenHold) {
    this.byId.set(id, hold)
    if (hold.apiKeyId) this.perKey.set(hold.apiKeyId, this.keyMicros(hold.apiKeyId) + hold.amountMicros)
  }

  /** Removes and returns the hold; undefined if it is not open (settling twice finds nothing). */
  take(id: string): OpenHold | undefined {
    const hold = this.byId.get(id)
    if (!hold) return undefined
    this.byId.delete(id)
    if (hold.apiKeyId) {
      const left = this.keyMicros(hold.apiKeyId) - hold.amountMicros
      if (left > 0) this.perKey.set(hold.apiKeyId, left)
      else this.perKey.delete(hold.apiKeyId)
    }
    return hold
  }

  keyMicros = (apiKeyId: string) => this.perKey.get(apiKeyId) ?? 0

  idsOlderThan = (at: number) => [...this.byId].filter(([, h]) => h.createdAt < at).map(([id]) => id)
}

const openByDb = new WeakMap<Db, OpenHolds>()
function openHolds(db: Db): OpenHolds {
  let open = openByDb.get(db)
  if (!open) openByDb.set(db, (open = new OpenHolds()))
  return open
}

/** Gives a hold's reservation back to the balance (no charge). */
const unreserve = (db: Db, hold: OpenHold) => statements(db).unreserve.values({ userId: hold.userId, amount: hold.amountMicros })

/**
 * Runs a unit that takes a hold out of the open set; if its commit fails, the database still has
 * the reservation, so the hold goes back where the stale sweep can find it.
 */
async function closing<T>(db: Db, holdId: string, work: (hold: OpenHold) => T): Promise<T | null> {
  const open = openHolds(db)
  let taken: OpenHold | undefined
  try {
    return await groupCommit(db)(() => {
      taken = open.take(holdId)
      return taken ? work(taken) : null
    })
  } catch (e) {
    if (taken) open.add(holdId, taken)
    throw e
  }
}

/** Micro-rubles reserved right now by requests in flight with this key. */
export const keyOpenHoldsMicros = (db: Db, apiKeyId: string) => openHolds(db).keyMicros(apiKeyId)

/** Reserves the amount; rejects with HoldRefused when the balance (or the key's limit) cannot cover it. */
export async function placeHold(db: Db, req: HoldRequest): Promise<string> {
  if (!Number.isSafeInteger(req.amountMicros) || req.amountMicros < 0) throw new RangeError('hold must be a non-negative integer')
  const s = statements(db)
  const open = openHolds(db)
  const id = newId()
  try {
    return await groupCommit(db)(() => {
      if (req.keyLimit && req.apiKeyId) {
        const left = req.keyLimit.limitMicros - req.keyLimit.spentMicros - open.keyMicros(req.apiKeyId)
        if (req.amountMicros > left || left <= 0) throw new HoldRefused('key_limit')
      }
      if (s.reserve.values({ userId: req.userId, amount: req.amountMicros }).length === 0) throw new HoldRefused('balance')
      open.add(id, { userId: req.userId, apiKeyId: req.apiKeyId, amountMicros: req.amountMicros, createdAt: Date.now() })
      return id
    }, { single: true }) // one write: the reserving UPDATE
  } catch (e) {
    open.take(id) // the commit failed after the unit ran: the reservation never reached the database
    throw e
  }
}

// The lastUsedAt each key was last given, per database: concurrent settlements in the same
// millisecond would write the same value again.
const touchedByDb = new WeakMap<Db, Map<string, number>>()

/** Writes the usage row (and the daily rollup); returns the row's id. */
function logUsage(db: Db, hold: OpenHold, facts: UsageFacts, costMicros: number, now: Date): string {
  const s = statements(db)
  const at = now.getTime()
  const id = newId()
  s.insertUsage.run({ ...facts, id, userId: hold.userId, apiKeyId: hold.apiKeyId, costMicros, createdAt: at })
  s.rollup.run({ userId: hold.userId, day: moscowDay(at), apiKeyId: hold.apiKeyId ?? '', model: facts.model, tokens: facts.totalTokens, cost: costMicros, upstreamNano: usdToNano(facts.upstreamCostUsd) })
  if (hold.apiKeyId) {
    let touched = touchedByDb.get(db)
    if (!touched) touchedByDb.set(db, (touched = new Map()))
    if (touched.get(hold.apiKeyId) !== at) {
      if (touched.size >= 10_000) touched.clear()
      touched.set(hold.apiKeyId, at)
      s.touchKey.run({ keyId: hold.apiKeyId, now: at })
    }
  }
  return id
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
  return closing(db, holdId, (hold) => {
    const now = new Date()
    const charge = (amountMicros: number, releaseHeldMicros: number) =>
      postMovement(db, { userId: hold.userId, type: 'usage', amountMicros: -amountMicros, releaseHeldMicros, description: `Запрос к модели ${facts.model}`, reference: `usage:${holdId}`, now })
    let charged = chargeMicros
    let account: Posted | undefined
    if (charged > 0) {
      try {
        // The usual case: one UPDATE gives the reservation back and takes the charge.
        account = charge(charged, hold.amountMicros)
      } catch (e) {
        if (!(e instanceof InsufficientFundsError)) throw e
        // The reported cost exceeds the whole balance: charge what is there, never below zero.
        const [row] = unreserve(db, hold)
        const balance = (row?.[0] as number | undefined) ?? 0
        charged = Math.max(0, Math.min(chargeMicros, balance))
        if (charged > 0) account = charge(charged, 0)
      }
    } else unreserve(db, hold)
    if (chargeMicros > hold.amountMicros)
      console.warn(`[billing] request ${holdId} (${facts.model}): cost ${chargeMicros} µ₽ exceeds its hold ${hold.amountMicros} µ₽`)
    const usageId = logUsage(db, hold, facts, charged, now)
    if (charged < chargeMicros) {
      // Never a silent cap: what the balance could not pay is the platform's loss, recorded per request.
      const uncovered = chargeMicros - charged
      statements(db).insertUncovered.run({
        id: newId(),
        userId: hold.userId,
        usageId,
        model: facts.model,
        upstreamId: facts.upstreamId,
        held: hold.amountMicros,
        cost: chargeMicros,
        charged,
        uncovered,
        createdAt: now.getTime(),
      })
      console.error(
        `[billing] ALERT uncovered cost: request ${usageId} of user ${hold.userId} (${facts.model}, upstream ${facts.upstreamId ?? '—'}) cost ${chargeMicros} µ₽, held ${hold.amountMicros} µ₽, charged ${charged} µ₽; ${uncovered} µ₽ not covered`,
      )
    }
    // The alert's UPDATE only runs when this charge can have crossed the customer's level.
    const mayAlert = account && account.alertLevelMicros != null && !account.alerted && account.balanceAfterMicros < account.alertLevelMicros
    return { chargedMicros: charged, lowBalance: mayAlert ? checkLowBalance(db, hold.userId) : undefined }
  })
}

/** Releases a hold without charging (failed request) and logs the attempt. */
export async function releaseHold(db: Db, holdId: string, facts: UsageFacts): Promise<void> {
  await closing(db, holdId, (hold) => {
    unreserve(db, hold)
    logUsage(db, hold, facts, 0, new Date())
  })
}

/** Releases holds older than `olderThan` whose request never ended (the stale-hold sweep); returns how many. */
export async function releaseStaleHolds(db: Db, olderThan: Date): Promise<number> {
  const ids = openHolds(db).idsOlderThan(olderThan.getTime())
  const released = await Promise.all(ids.map((id) => closing(db, id, (hold) => unreserve(db, hold))))
  return released.filter((r) => r !== null).length
}

/**
 * At startup nothing is in flight, so every reservation still recorded was left by a crash: give
 * them all back. Returns how many accounts had one.
 */
export const releaseReservationsAtStartup = (db: Db): number => statements(db).releaseAll.values({}).length
