import { describe, expect, test } from 'bun:test'
import { openDatabase, runMigrations } from '../db/client'
import { users } from '../auth/schema'
import { InsufficientFundsError, postMovement } from './ledger'
import { billingStore } from './store'
import { formatMicros, formatSignedMicros, rubToMicros } from '../lib/money'

function freshDb() {
  const { db } = openDatabase(':memory:')
  runMigrations(db)
  const now = new Date()
  db.insert(users).values({ id: 'u1', email: 'a@b.ru', emailNormalized: 'a@b.ru', passwordHash: 'x', createdAt: now, updatedAt: now }).run()
  return db
}

describe('ledger', () => {
  test('every movement is a row and the balance equals their sum', () => {
    const db = freshDb()
    const store = billingStore(db)
    postMovement(db, { userId: 'u1', type: 'bonus', amountMicros: 50_000_000, description: 'bonus' })
    postMovement(db, { userId: 'u1', type: 'usage', amountMicros: -1_234_567, description: 'usage' })
    const last = postMovement(db, { userId: 'u1', type: 'topup', amountMicros: 100_000_000, description: 'topup' })
    expect(last.balanceAfterMicros).toBe(148_765_433)
    expect(store.balanceRow('u1')?.balanceMicros).toBe(148_765_433)
    expect(store.ledgerSumMicros('u1')).toBe(148_765_433)
    expect(store.transactions('u1', 10).map((r) => r.type)).toEqual(['topup', 'usage', 'bonus'])
  })

  test('a debit beyond the balance is refused and leaves no row', () => {
    const db = freshDb()
    postMovement(db, { userId: 'u1', type: 'bonus', amountMicros: 1_000, description: 'bonus' })
    expect(() => postMovement(db, { userId: 'u1', type: 'usage', amountMicros: -1_001, description: 'too much' })).toThrow(InsufficientFundsError)
    expect(billingStore(db).transactions('u1', 10)).toHaveLength(1)
    expect(billingStore(db).balanceRow('u1')?.balanceMicros).toBe(1_000)
  })

  test('a reference credits at most once', () => {
    const db = freshDb()
    const credit = () =>
      db.transaction((tx) => postMovement(db, { userId: 'u1', type: 'topup', amountMicros: 5_000_000, description: 'p', reference: 'payment:1' }))
    credit()
    expect(credit).toThrow()
    expect(billingStore(db).balanceRow('u1')?.balanceMicros).toBe(5_000_000)
    expect(billingStore(db).ledgerSumMicros('u1')).toBe(5_000_000)
  })

  test('rejects zero and fractional amounts', () => {
    const db = freshDb()
    expect(() => postMovement(db, { userId: 'u1', type: 'admin', amountMicros: 0, description: '' })).toThrow(RangeError)
    expect(() => postMovement(db, { userId: 'u1', type: 'admin', amountMicros: 0.5, description: '' })).toThrow(RangeError)
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
