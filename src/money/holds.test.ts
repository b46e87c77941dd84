import { afterEach, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { users } from '../auth/schema'
import { onPostgres } from '../db/dialect'
import { INSTANCE_ID } from '../db/instance'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { writer } from '../db/writer'
import { apiKeys } from '../keys/schema'
import { addAccount, usageFacts as facts, moneyOf } from '../test-support/billing'
import { openTestDatabase } from '../test-support/database'
import { chargesApplied, closeForAnswer, HoldRefused, placeHold, releaseHold, releaseLapsedHolds, releaseStaleHolds, type Settled, settleHold } from './index'
import { holds, uncoveredCosts } from './schema'

const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

async function freshDb(balanceMicros: number) {
  const { db, close } = await openTestDatabase()
  opened.push(close)
  await addAccount(db, 'u1', balanceMicros)
  return { db, account: () => moneyOf(db, 'u1') }
}

test('holds reserve against the balance; the stale-hold sweep gives back only old ones, once', async () => {
  const { db, account } = await freshDb(1_000_000)
  const old = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 600_000 })
  await expect(placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 500_000 })).rejects.toBeInstanceOf(HoldRefused)
  expect(await account()).toEqual({ balance: 1_000_000, held: 600_000 })
  const cutoff = new Date(Date.now() + 5)
  await Bun.sleep(10)
  const young = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 300_000 })
  expect(await releaseStaleHolds(db, cutoff)).toBe(1)
  expect(await account()).toEqual({ balance: 1_000_000, held: 300_000 })
  // The swept hold is closed: settling it later charges nothing; the young one settles normally.
  expect(await settleHold(db, old, 100_000, facts)).toBeNull()
  expect(await settleHold(db, young, 100_000, facts)).toEqual({ chargedMicros: 100_000, lowBalance: undefined, budgets: [] })
  expect(await account()).toEqual({ balance: 900_000, held: 0 })
  expect(await releaseStaleHolds(db, new Date(Date.now() + 1000))).toBe(0)
})

/** A reservation some other instance made: its hold row and the held sum, as placeHold would leave them. */
async function foreignHold(db: Db, id: string, amount: number, leaseUntil: number) {
  await write(db, (q) => q.insert(holds).values({ id, userId: 'u1', apiKeyId: null, amountMicros: amount, instanceId: 'other', leaseUntil, createdAt: Date.now() }))
  const [{ held }] = await db.select({ held: users.heldMicros }).from(users).where(eq(users.id, 'u1'))
  await write(db, (q) =>
    q
      .update(users)
      .set({ heldMicros: held + amount })
      .where(eq(users.id, 'u1')),
  )
}

test('a key’s open holds count against its budget until they close', async () => {
  const { db, account } = await freshDb(10_000_000)
  const now = new Date()
  await write(db, (q) =>
    q.insert(apiKeys).values({ id: 'k1', userId: 'u1', name: 'k', keyPrefix: 'sk-gw-', keyHash: 'h', budgetLimitMicros: 1_000_000, budgetPeriod: 'total', createdAt: now }),
  )
  const keyRow = async () => (await db.select({ spent: apiKeys.budgetSpentMicros, held: apiKeys.budgetHeldMicros }).from(apiKeys).where(eq(apiKeys.id, 'k1')))[0]!
  const hold = (amountMicros: number) => placeHold(db, { userId: 'u1', teamId: null, apiKeyId: 'k1', amountMicros, keyBudget: true })
  const b = await hold(700_000)
  expect(await keyRow()).toEqual({ spent: 0, held: 700_000 })
  await expect(hold(400_000)).rejects.toMatchObject({ level: 'key' })
  // The refused unit reserved nothing anywhere.
  expect(await account()).toEqual({ balance: 10_000_000, held: 700_000 })
  expect(await settleHold(db, b, 250_000, facts)).toMatchObject({ chargedMicros: 250_000, budgets: [] })
  expect(await keyRow()).toEqual({ spent: 250_000, held: 0 })
  expect(await account()).toEqual({ balance: 9_750_000, held: 0 })
  // 750 000 µ₽ are left: a hold of exactly that fits, one micro-ruble more does not.
  await expect(placeHold(db, { userId: 'u1', teamId: null, apiKeyId: 'k1', amountMicros: 750_001, keyBudget: true })).rejects.toBeInstanceOf(HoldRefused)
  const last = await hold(750_000)
  // A cost above what the budget has left is charged up to the limit, never beyond; the rest is uncovered.
  expect(await settleHold(db, last, 900_000, facts)).toMatchObject({
    chargedMicros: 750_000,
    budgets: [
      { level: 'key', threshold: 50 },
      { level: 'key', threshold: 80 },
      { level: 'key', threshold: 100 },
    ],
  })
  expect(await keyRow()).toEqual({ spent: 1_000_000, held: 0 })
  expect(await account()).toEqual({ balance: 9_000_000, held: 0 })
})

test('under a limit (withinHold) a cost above the hold is charged up to the hold only; without one, up to the balance', async () => {
  const { db, account } = await freshDb(10_000_000)
  const limited = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 500_000 })
  expect(await settleHold(db, limited, 3_000_000, facts, { withinHold: true })).toEqual({ chargedMicros: 500_000, lowBalance: undefined, budgets: [] })
  const plain = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 500_000 })
  expect(await settleHold(db, plain, 3_000_000, facts)).toEqual({ chargedMicros: 3_000_000, lowBalance: undefined, budgets: [] })
  expect(await account()).toEqual({ balance: 6_500_000, held: 0 })
  const rows = await db.select({ cost: uncoveredCosts.costMicros, charged: uncoveredCosts.chargedMicros, uncovered: uncoveredCosts.uncoveredMicros }).from(uncoveredCosts)
  expect(rows).toEqual([{ cost: 3_000_000, charged: 500_000, uncovered: 2_500_000 }])
  // Within the hold nothing changes: the cost is charged as reported.
  const small = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 500_000 })
  expect(await settleHold(db, small, 200_000, facts, { withinHold: true })).toEqual({ chargedMicros: 200_000, lowBalance: undefined, budgets: [] })
})

test('holds of an instance whose lease lapsed are released; a live instance’s and our own are kept', async () => {
  const { db, account } = await freshDb(10_000_000)
  const now = Date.now()
  await foreignHold(db, 'dead', 700_000, now - 1)
  await foreignHold(db, 'alive', 200_000, now + 60_000)
  const mine = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 100_000 })
  expect(await account()).toEqual({ balance: 10_000_000, held: 1_000_000 })
  expect(await releaseLapsedHolds(db, now)).toBe(1)
  expect(await account()).toEqual({ balance: 10_000_000, held: 300_000 })
  expect((await db.select({ id: holds.id, instance: holds.instanceId }).from(holds)).map((h) => h.id).sort()).toEqual(['alive', mine].sort())
  expect((await db.select({ instance: holds.instanceId }).from(holds).where(eq(holds.id, mine)))[0]?.instance).toBe(INSTANCE_ID)
  expect(await releaseLapsedHolds(db, now)).toBe(0)
})

test('a dead process’s hold that knows its generation is settled from the router once; unanswered, it is released after a bounded number of sweeps', async () => {
  const { db, account } = await freshDb(10_000_000)
  const now = Date.now()
  await foreignHold(db, 'answered', 700_000, now - 1)
  await foreignHold(db, 'silent', 200_000, now - 1)
  const generation = { upstream: 'primary', endpoint: 'chat', model: 'openai/gpt-4o', stream: true, limited: false }
  for (const [id, gen] of [
    ['answered', 'gen-1'],
    ['silent', 'gen-2'],
  ])
    await write(db, (q) => q.update(holds).set({ generationId: gen, generation }).where(eq(holds.id, id!)))
  const lookups: string[] = []
  const settler = {
    lookup: async (generationId: string) => {
      lookups.push(generationId)
      return generationId === 'gen-1' ? { chargeMicros: 123_456, facts: { ...facts, upstreamId: generationId }, withinHold: false } : null
    },
  }
  expect(await releaseLapsedHolds(db, now, settler)).toBe(1)
  expect(await account()).toEqual({ balance: 10_000_000 - 123_456, held: 200_000 })
  // The router keeps silent about gen-2: kept for four more sweeps, then given back without a charge.
  for (let sweep = 2; sweep <= 4; sweep++) expect(await releaseLapsedHolds(db, now, settler)).toBe(0)
  expect(await releaseLapsedHolds(db, now, settler)).toBe(1)
  expect(await account()).toEqual({ balance: 10_000_000 - 123_456, held: 0 })
  expect(lookups).toEqual(['gen-1', 'gen-2', 'gen-2', 'gen-2', 'gen-2', 'gen-2'])
})

test('an answer whose hold another instance gave back (its lease lapsed) is still charged — once, never below zero, the rest uncovered', async () => {
  const { db, account } = await freshDb(1_000_000)
  const owner = { account: { userId: 'u1', teamId: null, apiKeyId: null } }
  /** Places a hold, then lets it lapse and another instance sweep it, as after an outage longer than the lease. */
  async function sweptHold(amountMicros: number) {
    const id = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros })
    await write(db, (q) =>
      q
        .update(holds)
        .set({ leaseToken: 'a lapsed start', leaseUntil: Date.now() - 1 })
        .where(eq(holds.id, id)),
    )
    expect(await releaseLapsedHolds(db)).toBe(1)
    return id
  }
  const first = await sweptHold(300_000)
  expect(await account()).toEqual({ balance: 1_000_000, held: 0 })
  const logged: string[] = []
  const warn = console.warn
  console.warn = (m: string) => void logged.push(m)
  try {
    expect(await settleHold(db, first, 250_000, { ...facts, holdId: first, holdMicros: 300_000 }, owner)).toMatchObject({ chargedMicros: 250_000 })
  } finally {
    console.warn = warn
  }
  expect(logged).toEqual([expect.stringContaining('its hold was given back by another instance')])
  expect(await account()).toEqual({ balance: 750_000, held: 0 })
  // A retry of the same settlement (its commit's answer lost) finds it closed: never charged twice.
  expect(await settleHold(db, first, 250_000, { ...facts, holdId: first, holdMicros: 300_000 }, owner)).toBeNull()
  expect(await account()).toEqual({ balance: 750_000, held: 0 })

  // More than the balance has: charged down to zero, the rest recorded as uncovered; under a limit, never above the hold it had.
  const second = await sweptHold(100_000)
  expect(await settleHold(db, second, 900_000, { ...facts, holdId: second, holdMicros: 100_000 }, { ...owner, withinHold: true })).toMatchObject({ chargedMicros: 100_000 })
  const third = await sweptHold(100_000)
  expect(await settleHold(db, third, 900_000, { ...facts, holdId: third, holdMicros: 100_000 }, owner)).toMatchObject({ chargedMicros: 650_000 })
  expect(await account()).toEqual({ balance: 0, held: 0 })
  const uncovered = await db.select({ charged: uncoveredCosts.chargedMicros, uncovered: uncoveredCosts.uncoveredMicros }).from(uncoveredCosts)
  expect(uncovered).toEqual([
    { charged: 100_000, uncovered: 800_000 },
    { charged: 650_000, uncovered: 250_000 },
  ])
  // A sweep settling a hold someone else closed knows no owner: nothing is charged.
  expect(await settleHold(db, await sweptHold(0), 1, { ...facts, holdId: 'x' })).toBeNull()
})

test('on SQLite a charge within its hold is answered before its unit commits; the reads of money wait for it', async () => {
  const { db, account } = await freshDb(1_000_000)
  const id = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 300_000 })
  const resume = writer(db).pause() // the group commit held back: the settlement cannot run yet
  const results: Array<Settled | null> = []
  const settle = () => settleHold(db, id, 120_000, facts)
  const told = await closeForAnswer(
    id,
    { micros: 120_000, heldMicros: 300_000 },
    settle,
    (r) => results.push(r),
    () => {},
  )
  let applied = false
  const reads = chargesApplied(db).then(() => (applied = true))
  await Bun.sleep(20)
  expect(told).toBe(120_000)
  if (onPostgres) {
    // PostgreSQL answers after the commit (there is no group commit to hold back): the books already show it.
    expect(await account()).toEqual({ balance: 880_000, held: 0 })
  } else {
    expect(results).toEqual([])
    expect(applied).toBe(false)
  }
  resume()
  await reads
  expect(results).toEqual([{ chargedMicros: 120_000, lowBalance: undefined, budgets: [] }])
  expect(await account()).toEqual({ balance: 880_000, held: 0 })
  // A charge beyond its hold may be capped: its answer waits for the unit and tells what it took.
  const small = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 1_000 })
  expect(
    await closeForAnswer(
      small,
      { micros: 2_000_000, heldMicros: 1_000 },
      () => settleHold(db, small, 2_000_000, facts),
      () => {},
      () => {},
    ),
  ).toBe(880_000)
  expect(await account()).toEqual({ balance: 0, held: 0 })
})

test('on SQLite a settlement after the answer that fails (not the database) hands its error to the caller, who gives the hold back', async () => {
  const { db, account } = await freshDb(1_000_000)
  const id = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: null, amountMicros: 300_000 })
  const failed: string[] = []
  let released: Promise<unknown> = Promise.resolve()
  const broken = async (): Promise<Settled | null> => {
    throw new Error('a fault in the unit')
  }
  const release = (e: Error) => {
    failed.push(e.message)
    released = releaseHold(db, id, facts)
  }
  if (onPostgres) {
    // PostgreSQL answers after the unit: its error reaches the answer's caller directly.
    await expect(closeForAnswer(id, { micros: 120_000, heldMicros: 300_000 }, broken, () => {}, release)).rejects.toThrow('a fault in the unit')
    return
  }
  expect(await closeForAnswer(id, { micros: 120_000, heldMicros: 300_000 }, broken, () => {}, release)).toBe(120_000)
  await chargesApplied(db)
  expect(failed).toEqual(['a fault in the unit'])
  await released
  expect(await account()).toEqual({ balance: 1_000_000, held: 0 })
})
