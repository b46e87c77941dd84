// The Moscow calendar of budgets: period starts and resets at 00:00 MSK (UTC+3) — days, weeks from
// Monday, months from the 1st — at the boundaries where arithmetic usually goes wrong.
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../config'
import { moscowDateTimeRu, nextReset, now, periodStart, periodStarts, setClockFile } from './periods'

/** An instant given as Moscow wall time. */
const msk = (local: string) => Date.parse(`${local}+03:00`)
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

describe('periods on the Moscow calendar', () => {
  test.each([
    // [now (MSK), period, start (MSK), next reset (MSK)]
    ['2028-02-29T23:59:59', 'day', '2028-02-29T00:00:00', '2028-03-01T00:00:00'],
    ['2028-03-01T00:00:00', 'day', '2028-03-01T00:00:00', '2028-03-02T00:00:00'],
    // 21:00 UTC is already the next Moscow day.
    ['2028-02-28T23:30:00', 'day', '2028-02-28T00:00:00', '2028-02-29T00:00:00'],
    ['2028-02-29T12:00:00', 'month', '2028-02-01T00:00:00', '2028-03-01T00:00:00'],
    ['2027-02-28T23:59:59', 'month', '2027-02-01T00:00:00', '2027-03-01T00:00:00'],
    ['2026-12-31T23:59:59', 'month', '2026-12-01T00:00:00', '2027-01-01T00:00:00'],
    ['2027-01-01T00:00:00', 'month', '2027-01-01T00:00:00', '2027-02-01T00:00:00'],
    ['2028-01-31T23:59:59', 'month', '2028-01-01T00:00:00', '2028-02-01T00:00:00'],
    // 2028-03-05 is a Sunday: still the week that began on Monday the 28th of February.
    ['2028-03-05T23:59:59', 'week', '2028-02-28T00:00:00', '2028-03-06T00:00:00'],
    ['2028-03-06T00:00:00', 'week', '2028-03-06T00:00:00', '2028-03-13T00:00:00'],
    // A week across the new year (2026-12-31 is a Thursday).
    ['2026-12-31T10:00:00', 'week', '2026-12-28T00:00:00', '2027-01-04T00:00:00'],
  ] as const)('%s MSK, %s: starts %s, resets %s', (at, period, start, reset) => {
    expect(iso(periodStart(period, msk(at)))).toBe(iso(msk(start)))
    expect(iso(nextReset(period, msk(at)))).toBe(iso(msk(reset)))
  })

  test('a total budget never resets', () => {
    expect(periodStart('total', msk('2028-02-29T12:00:00'))).toBe(0)
    expect(nextReset('total', msk('2028-02-29T12:00:00'))).toBeNull()
  })

  test('one second before and at midnight are different days, weeks and months', () => {
    const before = periodStarts(msk('2028-03-31T23:59:59'))
    const after = periodStarts(msk('2028-04-01T00:00:00'))
    expect(after.day - before.day).toBe(86_400_000)
    expect(after.month).toBe(msk('2028-04-01T00:00:00'))
    expect(before.month).toBe(msk('2028-03-01T00:00:00'))
    expect(moscowDateTimeRu(msk('2028-03-01T00:00:00'))).toBe('01.03.2028 00:00 МСК')
  })
})

describe('the test clock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clock-'))

  test('TEST_CLOCK_FILE is honoured outside production only', () => {
    const base = { DATA_DIR: dir, JWT_SECRET: 'x'.repeat(40), TEST_CLOCK_FILE: '/tmp/clock' }
    expect(loadConfig(base).testClockFile).toBe('/tmp/clock')
    expect(loadConfig({ ...base, NODE_ENV: 'production', PUBLIC_URL: 'https://gw.example.ru', ALLOW_TEST_PAYMENTS: 'true' }).testClockFile).toBeNull()
    expect(loadConfig({ DATA_DIR: dir, JWT_SECRET: 'x'.repeat(40) }).testClockFile).toBeNull()
  })

  const file = join(dir, 'now')
  afterEach(() => setClockFile(null))

  test('reads ISO or epoch ms from the file on every call; missing or empty means the real time', () => {
    setClockFile(file)
    expect(Math.abs(now() - Date.now())).toBeLessThan(1000) // no file yet
    writeFileSync(file, '2028-02-29T23:59:59+03:00')
    expect(now()).toBe(msk('2028-02-29T23:59:59'))
    writeFileSync(file, String(msk('2028-03-01T00:00:00')))
    expect(now()).toBe(msk('2028-03-01T00:00:00'))
    writeFileSync(file, '')
    expect(Math.abs(now() - Date.now())).toBeLessThan(1000)
    setClockFile(null)
    writeFileSync(file, '2028-02-29T23:59:59+03:00')
    expect(Math.abs(now() - Date.now())).toBeLessThan(1000)
    rmSync(dir, { recursive: true, force: true })
  })
})
