// The money units of many concurrent requests at once, on the store itself: SQLite's group commit
// and PostgreSQL's batched statements (money/pg/queue.ts, money/pg/statements.ts) must give the same books as
// one request after another — nothing held or charged twice, no balance below zero, a ledger row
// per charge whose balance-after is a step of its account's own sequence, a usage row per request.
import { afterEach, expect, test } from 'bun:test'
import { inArray, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { openDatabase } from '../db/client'
import { onPostgres } from '../db/dialect'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { moneyOf as account, addAccount, usageFacts as facts } from '../test-support/billing'
import { openTestDatabase } from '../test-support/database'
import { HoldRefused, placeHold, settleHold } from './index'
import { holds, ledgerEntries, uncoveredCosts, usageDaily, usageLogs } from './schema'

const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

/** A database with `accounts` users (u0, u1, …), each with `balance` µ₽. */
async function withAccounts(accounts: number, balance: number) {
  const opened_ = await openTestDatabase()
  opened.push(opened_.close)
  const { db } = opened_
  for (let i = 0; i < accounts; i++) await addAccount(db, `u${i}`, balance)
  return opened_
}

const hold = (db: Db, userId: string, amountMicros: number, apiKeyId: string | null = null, keyBudget = false) =>
  placeHold(db, { userId, teamId: null, apiKeyId, amountMicros, keyBudget })

/** Every settled outcome, or the refusal's level. */
const outcomes = (all: Array<Promise<unknown>>) =>
  Promise.all(
    all.map((p) =>
      p.then(
        () => 'placed',
        (e) => (e instanceof HoldRefused ? e.level : String(e)),
      ),
    ),
  )

test('concurrent holds of one account take exactly what its balance allows, never more', async () => {
  const { db } = await withAccounts(1, 1_050_000)
  const results = await outcomes(Array.from({ length: 40 }, () => hold(db, 'u0', 100_000)))
  expect(results.filter((r) => r === 'placed')).toHaveLength(10)
  expect(results.filter((r) => r === 'personal')).toHaveLength(30)
  expect(await account(db, 'u0')).toEqual({ balance: 1_050_000, held: 1_000_000 })
  expect(await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(holds)).toEqual([{ n: 10 }])
})

test('an account that cannot take its hold does not stop the others sent with it', async () => {
  const { db } = await withAccounts(5, 1_000_000)
  const results = await outcomes([hold(db, 'u0', 5_000_000), ...['u1', 'u2', 'u3', 'u4'].map((u) => hold(db, u, 300_000))])
  expect(results).toEqual(['personal', 'placed', 'placed', 'placed', 'placed'])
  expect(await account(db, 'u0')).toEqual({ balance: 1_000_000, held: 0 })
  for (const u of ['u1', 'u2', 'u3', 'u4']) expect(await account(db, u)).toEqual({ balance: 1_000_000, held: 300_000 })
})

test('concurrent holds on one key budget stop at its limit and name the key', async () => {
  const { db } = await withAccounts(1, 100_000_000)
  await write(db, (q) =>
    q.insert(apiKeys).values({ id: 'k1', userId: 'u0', name: 'k', keyPrefix: 'sk-gw-', keyHash: 'h1', budgetLimitMicros: 1_000_000, budgetPeriod: 'total', createdAt: new Date() }),
  )
  const results = await outcomes(Array.from({ length: 30 }, () => hold(db, 'u0', 100_000, 'k1', true)))
  expect(results.filter((r) => r === 'placed')).toHaveLength(10)
  expect(results.filter((r) => r === 'key')).toHaveLength(20)
  expect(await db.select({ held: apiKeys.budgetHeldMicros }).from(apiKeys)).toEqual([{ held: 1_000_000 }])
})

test('concurrent settlements of many accounts: each ledger row is a step of its own account, one usage row per request', async () => {
  const start = 10_000_000
  const { db } = await withAccounts(5, start)
  const placed = await Promise.all(Array.from({ length: 50 }, (_, i) => hold(db, `u${i % 5}`, 150_000).then((id) => ({ id, user: `u${i % 5}`, charge: 1_000 * (i + 1) }))))
  // All but the last five together (on PostgreSQL: the first alone, the rest as one batch)…
  const first = await Promise.all(placed.slice(0, 45).map((p) => settleHold(db, p.id, p.charge, { ...facts, model: p.user === 'u3' ? 'model\0with NUL' : facts.model })))
  expect(first.map((s) => s?.chargedMicros)).toEqual(placed.slice(0, 45).map((p) => p.charge))
  // …then the last five with an account whose settlement is dearer than its hold and its whole
  // balance: it is charged what is there (the rest recorded as uncovered), the others as reported.
  const poor = await addAccount(db, 'poor', 200_000)
  const poorHold = await hold(db, poor, 100_000)
  const last = await Promise.all([
    settleHold(db, poorHold, 900_000, facts),
    ...placed.slice(45).map((p) => settleHold(db, p.id, p.charge, { ...facts, model: p.user === 'u3' ? 'model\0with NUL' : facts.model })),
  ])
  expect(last.map((s) => s?.chargedMicros)).toEqual([200_000, ...placed.slice(45).map((p) => p.charge)])
  for (let u = 0; u < 5; u++) {
    const mine = placed.filter((p) => p.user === `u${u}`)
    const total = mine.reduce((s, p) => s + p.charge, 0)
    expect(await account(db, `u${u}`)).toEqual({ balance: start - total, held: 0 })
    // Ordered by balance after, the ledger rows step down by exactly their own amounts from the start.
    const rows = await db
      .select({ amount: ledgerEntries.amountMicros, after: ledgerEntries.balanceAfterMicros })
      .from(ledgerEntries)
      .where(sql`${ledgerEntries.userId} = ${`u${u}`} and ${ledgerEntries.type} = 'usage'`)
    rows.sort((a, b) => b.after - a.after)
    let balance = start
    for (const r of rows) {
      balance += r.amount
      expect(r.after).toBe(balance)
    }
    expect(balance).toBe(start - total)
    expect(rows.map((r) => -r.amount).sort((a, b) => a - b)).toEqual(mine.map((p) => p.charge).sort((a, b) => a - b))
  }
  expect(await account(db, poor)).toEqual({ balance: 0, held: 0 })
  expect(await db.select({ charged: uncoveredCosts.chargedMicros, uncovered: uncoveredCosts.uncoveredMicros }).from(uncoveredCosts)).toEqual([
    { charged: 200_000, uncovered: 700_000 },
  ])
  const usage = await db.select({ model: usageLogs.model, cost: usageLogs.costMicros }).from(usageLogs)
  expect(usage).toHaveLength(51)
  expect(usage.filter((u) => u.model.includes('NUL'))).toHaveLength(10)
  const [rollup] = await db
    .select({ requests: sql<number>`sum(${usageDaily.requests})`.mapWith(Number), cost: sql<number>`sum(${usageDaily.costMicros})`.mapWith(Number) })
    .from(usageDaily)
  expect(rollup).toEqual({ requests: 51, cost: placed.reduce((s, p) => s + p.charge, 0) + 200_000 })
  // Settling again finds nothing: never charged twice.
  expect(await Promise.all(placed.slice(0, 5).map((p) => settleHold(db, p.id, p.charge, facts)))).toEqual([null, null, null, null, null])
  expect(await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(holds)).toEqual([{ n: 0 }])
})

test.if(onPostgres)('two processes’ batches on the same rows keep the books exact', async () => {
  const start = 50_000_000
  const { db, url } = await withAccounts(4, start)
  const other = openDatabase(url)
  opened.push(other.close)
  const dbs = [db, other.db]
  let charged = 0
  // Each side holds and settles as fast as it can, on the same four accounts.
  await Promise.all(
    dbs.flatMap((d, side) =>
      Array.from({ length: 16 }, async (_, worker) => {
        for (let i = 0; i < 10; i++) {
          const user = `u${(worker + i + side) % 4}`
          const id = await hold(d, user, 200_000)
          const charge = 1_000 + worker
          charged += charge
          expect((await settleHold(d, id, charge, facts))?.chargedMicros).toBe(charge)
        }
      }),
    ),
  )
  const rows = await db
    .select({ balance: users.balanceMicros, held: users.heldMicros })
    .from(users)
    .where(inArray(users.id, ['u0', 'u1', 'u2', 'u3']))
  expect(rows.every((r) => r.held === 0)).toBe(true)
  expect(rows.reduce((s, r) => s + r.balance, 0)).toBe(4 * start - charged)
  const [ledger] = await db.select({ sum: sql<number>`sum(${ledgerEntries.amountMicros})`.mapWith(Number) }).from(ledgerEntries)
  expect(ledger?.sum).toBe(4 * start - charged)
  expect(await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(usageLogs)).toEqual([{ n: 320 }])
})
