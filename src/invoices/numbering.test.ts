// Invoice numbers on the real store (SQLite here, PostgreSQL in `bun scripts/test-pg.ts`): concurrent
// allocations give 1..n with no gap and no repeat, also from two instances at once on PostgreSQL, and
// a unit that fails gives its number back.
import { afterEach, describe, expect, test } from 'bun:test'
import { openDatabase } from '../db/client'
import { onPostgres } from '../db/dialect'
import { tx } from '../db/tx'
import { openTestDatabase } from '../test-support/database'
import { formatInvoiceNumber, invoiceYear } from './numbering'
import { allocateInvoiceNumber } from './store'

const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

async function freshDb() {
  const t = await openTestDatabase()
  opened.push(t.close)
  return t
}

const expected = (year: number, n: number) => Array.from({ length: n }, (_, i) => formatInvoiceNumber(year, i + 1))

describe('invoice numbering', () => {
  test('50 concurrent allocations give 2026-000001…2026-000050, no gap, no repeat', async () => {
    const { db } = await freshDb()
    const numbers = await Promise.all(Array.from({ length: 50 }, () => tx(db, (q) => allocateInvoiceNumber(q, 2026))))
    expect(numbers.toSorted()).toEqual(expected(2026, 50))
    // Each year has its own sequence.
    expect(await tx(db, (q) => allocateInvoiceNumber(q, 2027))).toBe('2027-000001')
    expect(await tx(db, (q) => allocateInvoiceNumber(q, 2026))).toBe('2026-000051')
  })

  test('a unit that fails after taking a number gives it back: no gap', async () => {
    const { db } = await freshDb()
    expect(await tx(db, (q) => allocateInvoiceNumber(q, 2026))).toBe('2026-000001')
    const failing = tx(db, async (q) => {
      await allocateInvoiceNumber(q, 2026)
      throw new Error('the invoice insert failed')
    })
    await expect(failing).rejects.toThrow('the invoice insert failed')
    // Concurrent units around a failing one still number 2, 3, 4.
    const around = await Promise.all([
      tx(db, (q) => allocateInvoiceNumber(q, 2026)),
      tx(db, async (q) => {
        await allocateInvoiceNumber(q, 2026)
        throw new Error('no')
      }).catch(() => null),
      tx(db, (q) => allocateInvoiceNumber(q, 2026)),
      tx(db, (q) => allocateInvoiceNumber(q, 2026)),
    ])
    expect(around.filter(Boolean).toSorted()).toEqual(['2026-000002', '2026-000003', '2026-000004'])
  })

  test.skipIf(!onPostgres)('two instances (two connection pools) allocating at once on PostgreSQL: 1…50 exactly once', async () => {
    const { db, url } = await freshDb()
    const other = openDatabase(url)
    opened.push(other.close)
    const numbers = await Promise.all(Array.from({ length: 50 }, (_, i) => tx(i % 2 ? db : other.db, (q) => allocateInvoiceNumber(q, 2026))))
    expect(numbers.toSorted()).toEqual(expected(2026, 50))
  })

  test('the number format and the Moscow year', () => {
    expect(formatInvoiceNumber(2026, 123)).toBe('2026-000123')
    expect(formatInvoiceNumber(2026, 1_234_567)).toBe('2026-1234567')
    expect(() => formatInvoiceNumber(2026, 0)).toThrow(RangeError)
    expect(invoiceYear(new Date('2026-12-31T20:59:59Z'))).toBe(2026) // 23:59:59 in Moscow
    expect(invoiceYear(new Date('2026-12-31T21:00:00Z'))).toBe(2027) // midnight in Moscow
  })
})
