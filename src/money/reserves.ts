// Reserves (PostgreSQL): an instance serving a well-funded account holds a slice of its balance at
// once — one holds row, reserved in the account's held sum like any hold — and takes the holds of
// that account's requests from it in memory, with no round trip before the upstream call. When a
// request ends, its charge is written as a pending charge (one small row, one statement: once that
// commits, the answer may go out and the charge survives a crash) and applied to the books right
// after, in batches: the ledger row with its balance change, the usage row, the rollup, the key's
// spend, the charge taken off the reserve — one settlement, in one transaction, deleting the
// pending row so it runs once whoever runs it (money/pg/statements.ts). With a single round trip on its
// path a request of such an account adds about as little as on SQLite (bench/README.md, issue 25).
//
// What does not change: every answer is covered before the upstream call (the reserve holds the
// ruble it takes; two requests never take the same one), every ledger row is in the transaction of
// its balance change, a balance never goes below zero. Only requests no budget limits take from a
// reserve, and only accounts whose balance a reserve is a small share of (RESERVE_FLOOR_MICROS,
// RESERVE_SHARE). A reserve is given back once idle; the holds lease renews it while the instance
// lives, and when the instance dies the others apply its pending charges, then give back the rest
// (money/holds releaseLapsedHolds). A request that names its generation or costs more than it
// took leaves the reserve for a hold row of its own (carve), and settles as any hold does.
//
// Reads that show money (GET /api/…, /v1/generation, /v1/key) wait for the charges this instance
// has applying (applied()), so a customer reading after an answer sees it; another instance's
// reads see it once applied, within milliseconds.

import { HOLD_LEASE_MS, INSTANCE_ID, LEASE_TOKEN, leaseHeld } from '../db/instance'
import { noteDatabaseFailure } from '../db/outage'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import type { BudgetCrossing, LowBalance } from './alerts'
import { now as clockNow, periodStarts } from './periods'
import { batched } from './pg/queue'
import { applyBatch, carve, type PgHeld, type PgHoldItem, type PgPendingItem, type PgSettled, type PgSettleOutcome, pendingBatch } from './pg/statements'

/** Reserves are taken only for accounts with at least this much available (1 000 ₽)… */
const RESERVE_FLOOR_MICROS = 1_000_000_000
/** …and are this share of it (1/64)… */
const RESERVE_SHARE = 64
/** …which must cover at least this many requests like the one that opens it. */
const RESERVE_REQUESTS = 64
/** A reserve no request used for this long is given back. */
const RESERVE_IDLE_MS = 1000
/** How often idle reserves are looked for. */
const SWEEP_EVERY_MS = 250
/**
 * How long a pending charge waits for others to be applied with: the settlement statement costs
 * about 0.1 ms of PostgreSQL's time per charge in a batch of 30, nearly twice that in one of 10
 * (bench/README.md). The reads of money wait for it.
 */
const APPLY_LINGER_MS = 50
/** How often a charge the general unit could not apply either is tried again (a fault to look into: logged each time). */
const STUCK_RETRY_MS = 30_000
/** Back-off between tries of an apply the database refused (the last one repeats). */
const APPLY_RETRY_MS = [250, 500, 1000, 2000, 5000]

type Account = { userId: string; teamId: string | null }

/**
 * One reserve of this instance: its holds row, what the row holds now, and what requests took of it
 * and have not yet been applied. `fenced`: opened under a lease this instance has lost since — never
 * taken from again, given back once its requests are applied.
 */
type Reserve = Account & { id: string; amount: number; used: number; requests: number; idleSince: number; closing: boolean; fenced: boolean }

/** A request served from a reserve, until its charge is applied. */
type Taken = { reserve: Reserve; amount: number; apiKeyId: string | null }

/** What the reserves need of the holds (injected by holds/settle.ts, which serves requests from them): no import circle. */
export type ReserveDeps = {
  /** Places holds rows through the batched hold statement (a reserve is one, with `reserve`). */
  hold(item: PgHoldItem): Promise<PgHeld>
  /** Gives a reserve's row back (its remaining amount to the account's held sum); how many rows it closed. */
  release(reserveId: string): Promise<number>
  /** Applies one pending charge through the general unit (what a batch did not cover); null when already applied (or its account is gone). */
  applyAlone(item: PgPendingItem): Promise<(Applied & { fromReserve: boolean }) | null>
  /** What a batch's settlement of `item` means for its alerts (the same as a hold's, money/holds). */
  settled(item: PgPendingItem, done: PgSettled): Promise<Applied>
}

/** A pending charge applied: the charge and the alerts it may trigger (money/holds Settled). */
export type Applied = { chargedMicros: number; lowBalance?: LowBalance; budgets: BudgetCrossing[] }

/** What a reserve-backed request needs to settle: its charge row, and who hears of the alerts once it is applied. */
export type PendingCharge = Omit<PgPendingItem, 'reserveId' | 'userId' | 'teamId' | 'apiKeyId' | 'amountMicros'>

export type Reserves = ReturnType<typeof reservesOf>

const byDb = new WeakMap<Db, Reserves>()

/** The reserves of a PostgreSQL database's process (created on first use). */
export function reserves(db: Db, deps: ReserveDeps): Reserves {
  let r = byDb.get(db)
  if (!r) byDb.set(db, (r = reservesOf(db, deps)))
  return r
}

/** The reserves already made for `db`, if any (the stop at shutdown, the reads' wait). */
export const existingReserves = (db: Db): Reserves | undefined => byDb.get(db)

const accountKey = (a: Account) => (a.teamId ? `t:${a.teamId}` : `u:${a.userId}`)

function reservesOf(db: Db, deps: ReserveDeps) {
  const byAccount = new Map<string, Reserve[]>()
  const opening = new Map<string, Promise<Reserve | undefined>>()
  const taken = new Map<string, Taken>()
  /** Applies queued or running: the reads that show money wait for them (applied()). */
  const applying = new Set<Promise<unknown>>()

  const write = batched<PgPendingItem, void>(async (items) => {
    await pendingBatch(db, items)
    return items.map(() => undefined)
  })
  // Nobody waits on an apply but the reads of money: it gathers what a few milliseconds bring.
  const apply = batched<PgPendingItem, PgSettleOutcome>((items) => applyBatch(db, items, periodStarts(clockNow())), { lingerMs: APPLY_LINGER_MS })

  /**
   * Takes the hold `id` for `amount` of `account`'s request from a reserve, opening one when none has
   * room and the account is well funded (`available`, the caller's snapshot); false when the request
   * is to be held on its own.
   */
  async function take(id: string, account: Account & { role: string | null }, apiKeyId: string | null, amount: number, available: number): Promise<boolean> {
    // The fence: a process that missed its lease renewals (paused, cut off) may find its reserves
    // given back by the others; until a renewal succeeds, every request is held on its own.
    if (!leaseHeld()) {
      fence()
      return false
    }
    const key = accountKey(account)
    for (let attempt = 0; attempt < 2; attempt++) {
      const room = byAccount.get(key)?.find((r) => !r.closing && !r.fenced && r.amount - r.used >= amount)
      if (room) {
        room.used += amount
        room.requests++
        taken.set(id, { reserve: room, amount, apiKeyId })
        return true
      }
      if (attempt === 1) return false
      const size = Math.floor(available / RESERVE_SHARE)
      if (available < RESERVE_FLOOR_MICROS || size < RESERVE_REQUESTS * amount) {
        // Not (or no longer) well funded: what this instance reserved idle goes back first.
        if (byAccount.has(key)) await releaseIdle(key, 0)
        return false
      }
      // One reserve opens at a time per account; the requests that arrive meanwhile wait for it.
      let open = opening.get(key)
      if (!open) {
        open = openReserve(account, size).finally(() => opening.delete(key))
        opening.set(key, open)
      }
      if (!(await open)) return false
    }
    return false
  }

  async function openReserve(account: Account & { role: string | null }, size: number): Promise<Reserve | undefined> {
    const id = newId()
    const placed = await deps.hold({
      id,
      userId: account.userId,
      teamId: account.teamId,
      apiKeyId: null,
      amount: size,
      keyHeld: 0,
      memberHeld: 0,
      role: account.role,
      reserve: true,
      createdAt: Date.now(),
    })
    if (placed !== 'placed') return undefined
    const reserve: Reserve = { id, userId: account.userId, teamId: account.teamId, amount: size, used: 0, requests: 0, idleSince: Date.now(), closing: false, fenced: false }
    const key = accountKey(account)
    byAccount.set(key, [...(byAccount.get(key) ?? []), reserve])
    return reserve
  }

  /** A request's reserve ends its part: what it took is no longer in use, `charged` is off the row. */
  function done(t: Taken, charged: number) {
    t.reserve.amount -= charged
    t.reserve.used -= t.amount
    if (--t.reserve.requests === 0) t.reserve.idleSince = Date.now()
  }

  /**
   * Writes a reserve-backed request's charge (the answer may go out once this returns) and applies it
   * in the background; `onApplied` hears the result (its alerts). 'hold' when it is not served from a
   * reserve here — or costs more than it took: then it was moved to a hold row of its own and settles
   * as one (the general unit charges what the balance has and records the rest as uncovered).
   */
  async function settle(id: string, charge: PendingCharge, onApplied?: (a: Applied) => void): Promise<'written' | 'hold'> {
    const t = taken.get(id)
    if (!t) return 'hold'
    if (charge.chargeMicros > t.amount && (await carveOut(id, null, null))) return 'hold'
    const item: PgPendingItem = { ...charge, reserveId: t.reserve.id, userId: t.reserve.userId, teamId: t.reserve.teamId, apiKeyId: t.apiKeyId, amountMicros: t.amount }
    await write(item)
    taken.delete(id)
    track(applyNow(item, t, onApplied, 0))
    return 'written'
  }

  function track(p: Promise<unknown>) {
    applying.add(p)
    void p.finally(() => applying.delete(p))
  }

  /**
   * Applies a written charge: its first try is what the reads of money wait for (applied()); when
   * that fails, the tries after it go on in the background, so that a database outage or a charge in
   * trouble never holds the reads up.
   */
  async function applyNow(item: PgPendingItem, t: Taken, onApplied: ((a: Applied) => void) | undefined, attempt: number, alone = false): Promise<void> {
    let result: Applied | null
    try {
      const out = alone ? 'general' : await apply(item)
      if (out === 'general') {
        const applied = await deps.applyAlone(item)
        // Its reserve no longer held the charge: a sweep gave it back (this instance's lease lapsed). No more from it.
        if (applied && !applied.fromReserve) t.reserve.closing = true
        result = applied
      } else result = out === 'closed' ? null : await deps.settled(item, out)
    } catch (e) {
      if (noteDatabaseFailure(e)) {
        // The pending row keeps the charge: tried again until the database takes it.
        const wait = APPLY_RETRY_MS[Math.min(attempt, APPLY_RETRY_MS.length - 1)]!
        setTimeout(() => void applyNow(item, t, onApplied, attempt + 1, alone), wait)
        return
      }
      // Not the database: the general unit, with every rule, then again every while (the row keeps the charge).
      console.error(`[billing] request ${item.holdId}: its charge could not be applied${alone ? ' by the general unit' : ''} (${(e as Error).message}); tried again`)
      setTimeout(() => void applyNow(item, t, onApplied, attempt, true), alone ? STUCK_RETRY_MS : 0)
      return
    }
    done(t, result?.chargedMicros ?? item.chargeMicros)
    if (result) onApplied?.(result)
  }

  /**
   * Moves a reserve-backed request into a hold row of its own (with its generation, when known), so
   * that it settles, or is settled after a crash, as any hold. True when it was carved (or was not
   * served from a reserve here at all).
   */
  async function carveOut(id: string, generationId: string | null, generation: unknown): Promise<boolean> {
    const t = taken.get(id)
    if (!t) return true
    taken.delete(id)
    const ok = await carve(db, {
      id,
      reserveId: t.reserve.id,
      userId: t.reserve.userId,
      teamId: t.reserve.teamId,
      apiKeyId: t.apiKeyId,
      amount: t.amount,
      generationId,
      generation,
      instance: INSTANCE_ID,
      leaseToken: LEASE_TOKEN,
      leaseUntil: Date.now() + HOLD_LEASE_MS,
    }).catch((e) => {
      taken.set(id, t)
      throw e
    })
    if (!ok) {
      taken.set(id, t)
      return false
    }
    // Off the reserve's row and out of its use: the request is a hold of its own now.
    done(t, t.amount)
    return true
  }

  /** Fences every reserve (the lease was lost): none is taken from again; answers how many. */
  function fence(): number {
    let n = 0
    for (const list of byAccount.values())
      for (const r of list)
        if (!r.fenced) {
          r.fenced = true
          n++
        }
    return n
  }

  /** Gives back the reserves of `key` (all accounts without) that no request uses and that idled `idleMs` (fenced ones at once). */
  async function releaseIdle(key: string | null, idleMs: number) {
    const now = Date.now()
    for (const [k, list] of byAccount) {
      if (key !== null && k !== key) continue
      for (const r of list) {
        if (r.closing || r.requests > 0 || (!r.fenced && now - r.idleSince < idleMs)) continue
        r.closing = true
        try {
          await deps.release(r.id)
        } catch (e) {
          r.closing = false
          if (!noteDatabaseFailure(e)) console.error(`[billing] reserve ${r.id}: not given back (${(e as Error).message}); its lease lapses if this process stops`)
          continue
        }
        const left = (byAccount.get(k) ?? []).filter((x) => x !== r)
        if (left.length) byAccount.set(k, left)
        else byAccount.delete(k)
      }
    }
  }

  let sweeping = false
  const timer = setInterval(() => {
    if (sweeping) return
    sweeping = true
    void releaseIdle(null, RESERVE_IDLE_MS).finally(() => {
      sweeping = false
    })
  }, SWEEP_EVERY_MS)
  ;(timer as unknown as { unref(): void }).unref()

  return {
    take,
    settle,
    carveOut,
    fence,
    /** Whether `id` is a request served from a reserve here (not yet settled or carved). */
    has: (id: string) => taken.has(id),
    /** Resolves once every charge this instance had applying when called is applied. */
    applied: (): Promise<unknown> => (applying.size ? Promise.allSettled([...applying]) : Promise.resolve()),
    /** At a graceful stop: applies what is pending and gives every reserve back (else their lease lapses). */
    async stop() {
      clearInterval(timer)
      while (applying.size) await Promise.allSettled([...applying])
      await releaseIdle(null, 0)
    },
  }
}
