// PostgreSQL's queues for holds and settlements (pg/queue.ts, pg/statements.ts), and this process's
// reserves (reserves.ts): which requests are served from one, and the stop that gives them back.

import { moneyDb } from '../../db/client'
import { onPostgres } from '../../db/dialect'
import { HOLD_LEASE_MS, INSTANCE_ID, LEASE_TOKEN } from '../../db/instance'
import type { Db } from '../../db/types'
import { now as clockNow, periodStarts } from '../periods'
import { batched } from '../pg/queue'
import { holdBatch, type PgHeld, type PgHoldItem, type PgSettleItem, type PgSettleOutcome, settleBatch } from '../pg/statements'
import { existingReserves } from '../reserves'

/** The batch queues of a PostgreSQL database (money/pg/queue.ts): holds, and settlements. */
export function pgBatches(db: Db) {
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
export const reservesIfAny = (db: Db) => (onPostgres ? existingReserves(moneyDb(db)) : undefined)

/** This process's reserves when request `holdId` is served from one (once a move of it to a hold row of its own, if under way, is done). */
export async function servedFromReserve(db: Db, holdId: string) {
  await carving.get(holdId)
  const r = reservesIfAny(db)
  return r?.has(holdId) ? r : undefined
}

/** Reserve-backed requests being moved to hold rows of their own (noteGeneration): their closing waits for it. */
export const carving = new Map<string, Promise<unknown>>()

/** At a graceful stop: the pending charges applied, the reserves given back. */
export async function stopReserves(db: Db): Promise<void> {
  await reservesIfAny(db)?.stop()
}
