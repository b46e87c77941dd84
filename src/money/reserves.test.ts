// Reserves (money/reserves.ts, PostgreSQL): a well-funded account's requests are held from this
// instance's reserve in memory and their charges written as pending, then applied. The books must
// come out as if each had been held and settled on its own.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { openDatabase } from '../db/client'
import { onPostgres } from '../db/dialect'
import { leaseRenewed } from '../db/instance'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { addAccount, usageFacts as facts, moneyOf } from '../test-support/billing'
import { openTestDatabase } from '../test-support/database'
import { chargesApplied, noteGeneration, placeHold, releaseHold, releaseLapsedHolds, type Settled, settleHold, stopReserves } from './index'
import { holds, ledgerEntries, pendingCharges, uncoveredCosts, usageDaily, usageLogs } from './schema'

const opened: Array<() => Promise<void>> = []
// A serving instance renews its lease all along (startHoldLeases, src/index.ts); this process runs no
// such loop, so each test starts with the lease just renewed: reserves serve only while it is held.
beforeEach(() => leaseRenewed(Date.now()))
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

const RICH = 10_000_000_000 // 10 000 ₽: well above the reserves' floor

async function rich(balance = RICH) {
  const o = await openTestDatabase()
  opened.push(o.close)
  await addAccount(o.db, 'u1', balance)
  return o
}

const account = (db: Db) => moneyOf(db, 'u1')
const count = async (db: Db, t: typeof holds | typeof pendingCharges | typeof usageLogs | typeof ledgerEntries) =>
  (await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(t))[0]!.n
const reserveRows = (db: Db) => db.select({ amount: holds.amountMicros }).from(holds).where(eq(holds.reserve, true))
const hold = (db: Db, amountMicros: number, available = RICH) => placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros, available })

describe.if(onPostgres)('reserves', () => {
  test('requests of a well-funded account are held from one reserve; each charge is applied once, the books as if held one by one', async () => {
    const { db } = await rich()
    const ids = await Promise.all(Array.from({ length: 40 }, () => hold(db, 1_000_000)))
    // One reserve of 1/64 of the balance holds them all: one row, no row per request.
    expect(await reserveRows(db)).toEqual([{ amount: RICH / 64 }])
    expect(await account(db)).toEqual({ balance: RICH, held: RICH / 64 })
    const applied: Settled[] = []
    const settled = await Promise.all(ids.map((id, i) => settleHold(db, id, 1_000 * (i + 1), facts, { onApplied: (s) => applied.push(s) })))
    expect(settled.map((s) => s?.chargedMicros)).toEqual(ids.map((_, i) => 1_000 * (i + 1)))
    await chargesApplied(db)
    const total = (40 * 41 * 1_000) / 2
    expect(applied.map((s) => s.chargedMicros).sort((a, b) => a - b)).toEqual(ids.map((_, i) => 1_000 * (i + 1)))
    // The charges came off the balance and off the reserve; what they did not use stays reserved.
    expect(await account(db)).toEqual({ balance: RICH - total, held: RICH / 64 - total })
    expect(await reserveRows(db)).toEqual([{ amount: RICH / 64 - total }])
    expect(await count(db, pendingCharges)).toBe(0)
    expect(await count(db, usageLogs)).toBe(40)
    const [ledger] = await db.select({ sum: sql<number>`sum(${ledgerEntries.amountMicros})`.mapWith(Number) }).from(ledgerEntries)
    expect(ledger?.sum).toBe(RICH - total)
    const [rollup] = await db.select({ requests: sql<number>`sum(${usageDaily.requests})`.mapWith(Number) }).from(usageDaily)
    expect(rollup?.requests).toBe(40)
    // Settling again finds nothing; at the stop the reserve goes back and nothing is held.
    expect(await settleHold(db, ids[0]!, 1_000, facts)).toBeNull()
    await stopReserves(db)
    expect(await account(db)).toEqual({ balance: RICH - total, held: 0 })
    expect(await count(db, holds)).toBe(0)
  })

  test('an account below the floor is held request by request', async () => {
    const { db } = await rich(500_000_000) // 500 ₽
    await hold(db, 1_000_000, 500_000_000)
    expect(await reserveRows(db)).toEqual([])
    expect(await account(db)).toEqual({ balance: 500_000_000, held: 1_000_000 })
  })

  test('a failed request releases its part of the reserve and writes its usage row without a charge', async () => {
    const { db } = await rich()
    const id = await hold(db, 2_000_000)
    expect(await reserveRows(db)).toEqual([{ amount: RICH / 64 }])
    await releaseHold(db, id, { ...facts, status: 'error', error: 'upstream 500' })
    await chargesApplied(db)
    expect(await account(db)).toEqual({ balance: RICH, held: RICH / 64 })
    expect(await db.select({ cost: usageLogs.costMicros, status: usageLogs.status }).from(usageLogs)).toEqual([{ cost: 0, status: 'error' }])
    expect(await count(db, ledgerEntries)).toBe(1) // the bonus only
  })

  test('a cost above what the request took: moved to a hold row of its own, charged what the balance has, the rest uncovered', async () => {
    const { db } = await rich(1_280_000_000) // 1 280 ₽: a reserve of 20 ₽
    const id = await hold(db, 100_000, 1_280_000_000)
    expect(await reserveRows(db)).toEqual([{ amount: 20_000_000 }])
    const s = await settleHold(db, id, 2_000_000_000, facts) // 2 000 ₽
    expect(s?.chargedMicros).toBe(1_280_000_000)
    expect(await db.select({ uncovered: uncoveredCosts.uncoveredMicros }).from(uncoveredCosts)).toEqual([{ uncovered: 720_000_000 }])
    await stopReserves(db)
    expect(await account(db)).toEqual({ balance: 0, held: 0 })
  })

  test('a request naming its generation moves to a hold row that a crash would settle from the router', async () => {
    const { db } = await rich()
    const id = await hold(db, 2_000_000)
    expect(await reserveRows(db)).toEqual([{ amount: RICH / 64 }])
    noteGeneration(db, id, 'gen-42', { upstream: 'primary', endpoint: 'chat', model: 'openai/gpt-4o', stream: true, limited: false })
    await Bun.sleep(250) // an answer still running after a tenth of a second is noted
    const [own] = await db.select({ amount: holds.amountMicros, generation: holds.generationId, reserve: holds.reserve }).from(holds).where(eq(holds.id, id))
    expect(own).toEqual({ amount: 2_000_000, generation: 'gen-42', reserve: false })
    // The held sum did not move: the amount only changed rows.
    expect(await account(db)).toEqual({ balance: RICH, held: RICH / 64 })
    expect(await reserveRows(db)).toEqual([{ amount: RICH / 64 - 2_000_000 }])
    expect((await settleHold(db, id, 1_500_000, facts))?.chargedMicros).toBe(1_500_000)
    await stopReserves(db)
    expect(await account(db)).toEqual({ balance: RICH - 1_500_000, held: 0 })
  })

  test('an instance that dies: its pending charges are applied, then its reserve is given back, once', async () => {
    const { db, url } = await rich()
    // The dying instance: its own connection, reserves and a pending charge it never applied.
    const dying = openDatabase(url)
    const id = await hold(dying.db, 1_000_000)
    expect(await reserveRows(db)).toEqual([{ amount: RICH / 64 }])
    // Another start's, lapsed (a process never sweeps its own holds as lapsed).
    await write(dying.db, (q) => q.update(holds).set({ leaseUntil: 1, leaseToken: 'a dead start' }).where(eq(holds.reserve, true)))
    const facts2 = { ...facts, model: 'model/written-before-the-crash' }
    // Its pending row is written as settleHold writes it, and the apply never runs (the process is gone).
    const { pendingBatch } = await import('./pg/statements')
    const [reserve] = await db.select({ id: holds.id }).from(holds).where(eq(holds.reserve, true))
    await pendingBatch(dying.db, [
      {
        holdId: id,
        chargeMicros: 700_000,
        withinHold: false,
        now: Date.now(),
        ledgerId: 'l-crash',
        description: 'Запрос к модели model/written-before-the-crash',
        reference: `usage:${id}`,
        usageId: 'u-crash',
        usageDay: '2026-11-28',
        upstreamNano: 0,
        upstreamNanoRub: 0,
        usage: {
          ...facts2,
          upstreamCostRub: null,
          audioSeconds: null,
          characters: null,
          images: null,
          requestedModel: null,
          keyName: null,
          usdRubRate: null,
          markup: null,
          holdId: id,
          holdMicros: null,
          requestId: null,
          ttftMs: null,
        },
        reserveId: reserve!.id,
        userId: 'u1',
        teamId: null,
        apiKeyId: null,
        amountMicros: 1_000_000,
      },
    ])
    await dying.close()
    expect(await releaseLapsedHolds(db, Date.now())).toBe(1)
    expect(await account(db)).toEqual({ balance: RICH - 700_000, held: 0 })
    expect(await db.select({ model: usageLogs.model, cost: usageLogs.costMicros }).from(usageLogs)).toEqual([{ model: 'model/written-before-the-crash', cost: 700_000 }])
    expect(await count(db, pendingCharges)).toBe(0)
    expect(await releaseLapsedHolds(db, Date.now())).toBe(0)
  })
})
