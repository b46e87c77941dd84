import { afterEach, describe, expect, test } from 'bun:test'
import { users } from '../auth/schema'
import { billingStore } from '../billing/store'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { formatMicros, formatSignedMicros, rubToMicros } from '../lib/money'
import { openTestDatabase } from '../test-support/database'
import { InsufficientFundsError, postMovement } from './ledger'

const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

async function freshDb() {
  const { db, close } = await openTestDatabase()
  opened.push(close)
  const now = new Date()
  await write(db, (q) => q.insert(users).values({ id: 'u1', email: 'a@b.ru', emailNormalized: 'a@b.ru', passwordHash: 'x', createdAt: now, updatedAt: now }))
  return db
}

const post = (db: Db, m: Parameters<typeof postMovement>[1]) => tx(db, (q) => postMovement(q, m))

const U1 = { userId: 'u1', teamId: null }

describe('ledger', () => {
  test('every movement is a row and the balance equals their sum', async () => {
    const db = await freshDb()
    const store = billingStore(db)
    await post(db, { userId: 'u1', type: 'bonus', amountMicros: 50_000_000, description: 'bonus' })
    await post(db, { userId: 'u1', type: 'usage', amountMicros: -1_234_567, description: 'usage' })
    const last = await post(db, { userId: 'u1', type: 'topup', amountMicros: 100_000_000, description: 'topup' })
    expect(last.balanceAfterMicros).toBe(148_765_433)
    expect((await store.balanceRow(U1))?.balanceMicros).toBe(148_765_433)
    expect(await store.ledgerSumMicros(U1)).toBe(148_765_433)
    expect((await store.transactions(U1, 10)).map((r) => r.type)).toEqual(['topup', 'usage', 'bonus'])
  })

  test('a debit beyond the balance is refused and leaves no row', async () => {
    const db = await freshDb()
    await post(db, { userId: 'u1', type: 'bonus', amountMicros: 1_000, description: 'bonus' })
    await expect(post(db, { userId: 'u1', type: 'usage', amountMicros: -1_001, description: 'too much' })).rejects.toBeInstanceOf(InsufficientFundsError)
    expect(await billingStore(db).transactions(U1, 10)).toHaveLength(1)
    expect((await billingStore(db).balanceRow(U1))?.balanceMicros).toBe(1_000)
  })

  test('a reference credits at most once', async () => {
    const db = await freshDb()
    const credit = () => post(db, { userId: 'u1', type: 'topup', amountMicros: 5_000_000, description: 'p', reference: 'payment:1' })
    await credit()
    await expect(credit()).rejects.toThrow()
    expect((await billingStore(db).balanceRow(U1))?.balanceMicros).toBe(5_000_000)
    expect(await billingStore(db).ledgerSumMicros(U1)).toBe(5_000_000)
  })

  test('rejects zero and fractional amounts', async () => {
    const db = await freshDb()
    await expect(post(db, { userId: 'u1', type: 'admin', amountMicros: 0, description: '' })).rejects.toBeInstanceOf(RangeError)
    await expect(post(db, { userId: 'u1', type: 'admin', amountMicros: 0.5, description: '' })).rejects.toBeInstanceOf(RangeError)
  })
})

describe('money formatting', () => {
  test.each([
    [50_000_000, '50.00', '+50.00'],
    [-1_234_567, '-1.234567', '-1.234567'],
    [1_500_000, '1.50', '+1.50'],
    [10, '0.00001', '+0.00001'],
    [0, '0.00', '0.00'],
  ])('%d micro-rubles', (micros, plain, signed) => {
    expect(formatMicros(micros)).toBe(plain)
    expect(formatSignedMicros(micros)).toBe(signed)
  })

  test('rubles to micro-rubles without float drift', () => {
    expect(rubToMicros(0.1 + 0.2)).toBe(300_000)
    expect(rubToMicros(12.345678)).toBe(12_345_678)
    expect(() => rubToMicros(1e12)).toThrow(RangeError)
  })
})
