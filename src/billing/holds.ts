// Holds: reserve a request's worst case before the upstream call, settle to the real cost after.
// The reservation is durable and shared by every instance on the database: users.held_micros
// changes in the same committed unit that inserts or deletes the hold's row, and the reserving
// UPDATE is conditional, so two concurrent requests (on any instances) can never spend the same
// ruble. Each row names the instance serving the request and a lease that instance renews while it
// lives (startHoldLeases); holds whose lease lapsed belong to a dead instance and are given back by
// whichever instance sweeps first. Nobody releases another live instance's holds, not even at start.
// These run on every /v1 request: their statements are compiled once (db/prepared.ts) and on SQLite
// the units of concurrent requests share one commit (db/group-commit.ts); each resolves once committed.
import { and, eq, gte, lt, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/client'
import { HOLD_LEASE_MS, INSTANCE_ID } from '../db/instance'
import { compiled, prepared } from '../db/prepared'
import { tx, write } from '../db/tx'
import { apiKeys } from '../keys/schema'
import { newId } from '../lib/crypto'
import { ceilUnits, dec } from '../lib/decimal'
import { checkLowBalance, type LowBalance } from './alerts'
import { moscowDay } from './days'
import { InsufficientFundsError, type Posted, postMovement } from './ledger'
import { holds, type UsageLogRow, uncoveredCosts, usageDaily, usageLogs } from './schema'

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
export type UsageFacts = Omit<UsageLogRow, 'id' | 'userId' | 'apiKeyId' | 'costMicros' | 'createdAt' | 'audioSeconds' | 'characters'> &
  Partial<Pick<UsageLogRow, 'audioSeconds' | 'characters'>>

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
      db.insert(usageLogs).values({
        id: p('id'),
        userId: p('userId'),
        apiKeyId: p('apiKeyId'),
        endpoint: p('endpoint'),
        model: p('model'),
        promptTokens: p('promptTokens'),
        completionTokens: p('completionTokens'),
        totalTokens: p('totalTokens'),
        audioSeconds: p('audioSeconds'),
        characters: p('characters'),
        costMicros: p('costMicros'),
        upstreamCostUsd: p('upstreamCostUsd'),
        upstreamId: p('upstreamId'),
        responseId: p('responseId'),
        upstream: p('upstream'),
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
        .values({
          userId: p('userId'),
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
          target: [usageDaily.userId, usageDaily.day, usageDaily.apiKeyId, usageDaily.model],
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
        apiKeyId: p('apiKeyId'),
        amountMicros: p('amount'),
        instanceId: p('instance'),
        leaseUntil: p('leaseUntil'),
        createdAt: p('createdAt'),
      }),
    ),
    takeHold: compiled(
      db,
      db
        .delete(holds)
        .where(eq(holds.id, p('id')))
        .returning({ userId: holds.userId, apiKeyId: holds.apiKeyId, amountMicros: holds.amountMicros }),
    ),
    // What a key's requests in flight have reserved (for its monthly limit).
    keyReserved: compiled(
      db,
      db
        .select({ sum: sql`coalesce(sum(${holds.amountMicros}), 0)` })
        .from(holds)
        .where(eq(holds.apiKeyId, p('keyId'))),
    ),
    // Orders concurrent holds of one capped key (a row lock on PostgreSQL; SQLite has one writer anyway).
    lockKey: compiled(
      db,
      db
        .update(apiKeys)
        .set({ monthlyLimitMicros: sql`${apiKeys.monthlyLimitMicros}` })
        .where(eq(apiKeys.id, p('keyId'))),
    ),
    renewLeases: compiled(
      db,
      db
        .update(holds)
        .set({ leaseUntil: sql`${p('leaseUntil')}` })
        .where(eq(holds.instanceId, p('instance'))),
    ),
  }))

type OpenHold = { userId: string; apiKeyId: string | null; amountMicros: number }

/** Gives a hold's reservation back to the balance (no charge); answers the balance left. */
async function unreserve(q: Db, hold: OpenHold): Promise<number> {
  const [row] = await statements(q).unreserve.values(q, { userId: hold.userId, amount: hold.amountMicros })
  return Number(row?.[0] ?? 0)
}

/** Runs a unit that takes the hold's row; null when it is already closed (settling twice finds nothing). */
function closing<T>(db: Db, holdId: string, work: (q: Db, hold: OpenHold) => Promise<T>): Promise<T | null> {
  return tx(db, async (q) => {
    const [row] = await statements(q).takeHold.values(q, { id: holdId })
    if (!row) return null
    return work(q, { userId: String(row[0]), apiKeyId: row[1] == null ? null : String(row[1]), amountMicros: Number(row[2]) })
  })
}

/** Micro-rubles reserved right now by requests in flight with this key, on every instance. */
export async function keyOpenHoldsMicros(db: Db, apiKeyId: string): Promise<number> {
  const [row] = await statements(db).keyReserved.values(db, { keyId: apiKeyId })
  return Number(row?.[0] ?? 0)
}

/** Reserves the amount; rejects with HoldRefused when the balance (or the key's limit) cannot cover it. */
export async function placeHold(db: Db, req: HoldRequest): Promise<string> {
  if (!Number.isSafeInteger(req.amountMicros) || req.amountMicros < 0) throw new RangeError('hold must be a non-negative integer')
  const id = newId()
  return tx(db, async (q) => {
    const s = statements(q)
    if (req.keyLimit && req.apiKeyId) {
      await s.lockKey.run(q, { keyId: req.apiKeyId })
      const [row] = await s.keyReserved.values(q, { keyId: req.apiKeyId })
      const left = req.keyLimit.limitMicros - req.keyLimit.spentMicros - Number(row?.[0] ?? 0)
      if (req.amountMicros > left || left <= 0) throw new HoldRefused('key_limit')
    }
    if ((await s.reserve.values(q, { userId: req.userId, amount: req.amountMicros })).length === 0) throw new HoldRefused('balance')
    const now = Date.now()
    await s.insertHold.run(q, { id, userId: req.userId, apiKeyId: req.apiKeyId, amount: req.amountMicros, instance: INSTANCE_ID, leaseUntil: now + HOLD_LEASE_MS, createdAt: now })
    return id
  })
}

// The lastUsedAt each key was last given, per database: concurrent settlements in the same
// millisecond would write the same value again.
const touchedByDb = new WeakMap<object, Map<string, number>>()

/** Writes the usage row (and the daily rollup); returns the row's id. */
async function logUsage(q: Db, hold: OpenHold, facts: UsageFacts, costMicros: number, now: Date): Promise<string> {
  const s = statements(q)
  const at = now.getTime()
  const id = newId()
  await s.insertUsage.run(q, {
    ...facts,
    audioSeconds: facts.audioSeconds ?? null,
    characters: facts.characters ?? null,
    id,
    userId: hold.userId,
    apiKeyId: hold.apiKeyId,
    costMicros,
    createdAt: at,
  })
  await s.rollup.run(q, {
    userId: hold.userId,
    day: moscowDay(at),
    apiKeyId: hold.apiKeyId ?? '',
    model: facts.model,
    tokens: facts.totalTokens,
    audioSeconds: facts.audioSeconds ?? 0,
    characters: facts.characters ?? 0,
    cost: costMicros,
    upstreamNano: usdToNano(facts.upstreamCostUsd),
  })
  if (hold.apiKeyId) {
    let touched = touchedByDb.get(statements(q))
    if (!touched) touchedByDb.set(statements(q), (touched = new Map()))
    if (touched.get(hold.apiKeyId) !== at) {
      if (touched.size >= 10_000) touched.clear()
      touched.set(hold.apiKeyId, at)
      await s.touchKey.run(q, { keyId: hold.apiKeyId, now: at })
    }
  }
  return id
}

/**
 * Settles a hold to the real cost: releases the reservation, charges (never below a zero balance),
 * writes the ledger row and the usage row. Returns what was charged (and a low-balance alert when
 * this charge crossed the customer's level), or null if already closed. `withinHold`: a limit the
 * customer set applies, so the charge never exceeds the hold (reserved against that limit); the
 * rest is recorded as uncovered, like what a balance cannot pay.
 */
export function settleHold(
  db: Db,
  holdId: string,
  chargeMicros: number,
  facts: UsageFacts,
  opts: { withinHold?: boolean } = {},
): Promise<{ chargedMicros: number; lowBalance?: LowBalance } | null> {
  return closing(db, holdId, async (q, hold) => {
    const now = new Date()
    const charge = (amountMicros: number, releaseHeldMicros: number) =>
      postMovement(q, {
        userId: hold.userId,
        type: 'usage',
        amountMicros: -amountMicros,
        releaseHeldMicros,
        description: `Запрос к модели ${facts.model}`,
        reference: `usage:${holdId}`,
        now,
      })
    let charged = opts.withinHold ? Math.min(chargeMicros, hold.amountMicros) : chargeMicros
    let account: Posted | undefined
    if (charged > 0) {
      try {
        // The usual case: one UPDATE gives the reservation back and takes the charge.
        account = await charge(charged, hold.amountMicros)
      } catch (e) {
        if (!(e instanceof InsufficientFundsError)) throw e
        // The reported cost exceeds the whole balance: charge what is there, never below zero.
        const balance = await unreserve(q, hold)
        charged = Math.max(0, Math.min(charged, balance))
        if (charged > 0) account = await charge(charged, 0)
      }
    } else await unreserve(q, hold)
    if (chargeMicros > hold.amountMicros) console.warn(`[billing] request ${holdId} (${facts.model}): cost ${chargeMicros} µ₽ exceeds its hold ${hold.amountMicros} µ₽`)
    const usageId = await logUsage(q, hold, facts, charged, now)
    if (charged < chargeMicros) {
      // Never a silent cap: what the balance could not pay is the platform's loss, recorded per request.
      const uncovered = chargeMicros - charged
      await statements(q).insertUncovered.run(q, {
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
    return { chargedMicros: charged, lowBalance: mayAlert ? await checkLowBalance(q, hold.userId) : undefined }
  })
}

/** Releases a hold without charging (failed request) and logs the attempt. */
export async function releaseHold(db: Db, holdId: string, facts: UsageFacts): Promise<void> {
  await closing(db, holdId, async (q, hold) => {
    await unreserve(q, hold)
    await logUsage(q, hold, facts, 0, new Date())
  })
}

/** Deletes the holds matching `where` and gives their reservations back, in one unit; returns how many. */
function releaseWhere(db: Db, where: ReturnType<typeof and>): Promise<number> {
  return tx(db, async (q) => {
    const gone = await q.delete(holds).where(where).returning({ userId: holds.userId, amountMicros: holds.amountMicros })
    for (const hold of gone) await unreserve(q, { ...hold, apiKeyId: null })
    return gone.length
  })
}

/** Releases this instance's holds older than `olderThan` whose request never ended (the stale-hold sweep). */
export const releaseStaleHolds = (db: Db, olderThan: Date): Promise<number> => releaseWhere(db, and(eq(holds.instanceId, INSTANCE_ID), lt(holds.createdAt, olderThan.getTime())))

/** Releases the holds of instances that stopped renewing their lease (died); returns how many. */
export const releaseLapsedHolds = (db: Db, now = Date.now()): Promise<number> => releaseWhere(db, lt(holds.leaseUntil, now))

/**
 * While this instance runs: renews the lease of its open holds and gives back those of dead
 * instances, every third of the lease. Returns a stop function (a graceful stop keeps its holds'
 * leases until they lapse: requests still in flight settle them first).
 */
export function startHoldLeases(db: Db, onError: (e: unknown) => void = (e) => console.error(`[billing] hold lease: ${(e as Error).message}`)): () => void {
  const tick = async () => {
    const now = Date.now()
    await write(db, (q) => statements(q).renewLeases.run(q, { instance: INSTANCE_ID, leaseUntil: now + HOLD_LEASE_MS }))
    const released = await releaseLapsedHolds(db, now)
    if (released > 0) console.log(`[billing] released ${released} hold(s) of stopped instances`)
  }
  const timer = setInterval(() => void tick().catch(onError), Math.max(200, Math.floor(HOLD_LEASE_MS / 3)))
  ;(timer as unknown as { unref(): void }).unref()
  void tick().catch(onError)
  return () => clearInterval(timer)
}
