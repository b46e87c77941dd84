// The holds nobody will close: this process's stale ones, and those of instances whose lease lapsed
// (dead, or cut off) — released, or settled from the router's record of their generation. And the
// lease itself: renewed while this process lives, fenced when it was lost.

import { and, eq, isNotNull, isNull, lt, ne, notInArray, sql } from 'drizzle-orm'
import { onPostgres } from '../../db/dialect'
import { HOLD_LEASE_MS, INSTANCE_ID, LEASE_RENEW_MS, LEASE_TOKEN, lastRenewal, leaseHeld, leaseRenewed } from '../../db/instance'
import { noteDatabaseFailure } from '../../db/outage'
import { write } from '../../db/tx'
import type { Db } from '../../db/types'
import type { PgPendingItem } from '../pg/statements'
import { holds, pendingCharges } from '../schema'
import { waiting } from './durable'
import { reservesIfAny } from './pg'
import { applyPendingAlone, releaseWhere, settleHold } from './settle'
import { statements } from './statements'
import type { GenerationCharge, GenerationSettler } from './types'

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
  // Reserves outlive requests: they are given back when idle (money/reserves.ts).
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
  /** Whether the lease was found lost (the reserves fenced, the log told once) and not yet renewed. */
  let lost = false
  const renew = async () => {
    const now = Date.now()
    if (!lost && !leaseHeld(now)) {
      lost = true
      const fenced = reservesIfAny(db)?.fence() ?? 0
      console.warn(
        `[billing] ${INSTANCE_ID}: no lease renewal for ${now - lastRenewal()} ms (lease ${HOLD_LEASE_MS} ms): other instances may give its holds back; ${fenced} reserve(s) fenced`,
      )
    }
    await write(db, (q) => statements(q).renewLeases.run(q, { token: LEASE_TOKEN, leaseUntil: now + HOLD_LEASE_MS }))
    const since = now - lastRenewal()
    leaseRenewed(now)
    if (lost) {
      // The others were likely cut off too: their holds are not swept before they had two renewals.
      sweepFrom = Date.now() + 2 * LEASE_RENEW_MS
      console.log(`[billing] ${INSTANCE_ID}: lease renewed after ${since} ms; requests are held from reserves again`)
      lost = false
    }
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
