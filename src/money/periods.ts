// Budget periods on the Moscow calendar: a day starts at 00:00 MSK, a week on Monday, a month on
// the 1st; a "total" budget never resets. Moscow is UTC+3 all year (no DST since 2014), so plain
// arithmetic on epoch milliseconds is exact, leap days included.
//
// The clock is injectable: tests of calendar boundaries set "now" through a file named by
// TEST_CLOCK_FILE (config.ts honours it only outside production), read on every call, so a running
// test server can be moved to 23:59:59 and then to midnight. Everything that decides a budget
// period — the hold unit, settlement, /v1/key, alerts — asks this module, never Date.now().
import { readFileSync } from 'node:fs'
import { MSK_OFFSET_MS } from '../content/moscow'
import { PERIODS, type Period } from '../db/budget-columns'

export { PERIODS, type Period }

let clockFile: string | null = null

/** At startup (config.testClockFile): where the test clock is read from; null = the real clock. */
export function setClockFile(file: string | null): void {
  clockFile = file
}

/** Now, epoch milliseconds: the test clock's instant when one is set (ISO text or epoch ms), else the real time. */
export function now(): number {
  if (!clockFile) return Date.now()
  let raw = ''
  try {
    raw = readFileSync(clockFile, 'utf8').trim()
  } catch {
    return Date.now()
  }
  if (!raw) return Date.now()
  const at = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw)
  return Number.isFinite(at) ? at : Date.now()
}

/** The Moscow calendar date of an instant: year, month (0–11), day of month, weekday (0 = Monday). */
function moscowDate(at: number) {
  const d = new Date(at + MSK_OFFSET_MS)
  return { year: d.getUTCFullYear(), month: d.getUTCMonth(), date: d.getUTCDate(), weekday: (d.getUTCDay() + 6) % 7 }
}

/** 00:00 MSK of the Moscow date year-month-date (Date.UTC normalises overflowing months and days). */
const moscowMidnight = (year: number, month: number, date: number) => Date.UTC(year, month, date) - MSK_OFFSET_MS

/** Epoch ms at which the period containing `at` began (0 for total: since ever). */
export function periodStart(period: Period, at: number): number {
  if (period === 'total') return 0
  const { year, month, date, weekday } = moscowDate(at)
  if (period === 'day') return moscowMidnight(year, month, date)
  if (period === 'week') return moscowMidnight(year, month, date - weekday)
  return moscowMidnight(year, month, 1)
}

/** Epoch ms of the next reset after `at`; null for total, which never resets. */
export function nextReset(period: Period, at: number): number | null {
  if (period === 'total') return null
  const { year, month, date, weekday } = moscowDate(at)
  if (period === 'day') return moscowMidnight(year, month, date + 1)
  if (period === 'week') return moscowMidnight(year, month, date - weekday + 7)
  return moscowMidnight(year, month + 1, 1)
}

/** The current start of every periodic budget, as the budget statements take them (money/budgets.ts). */
export function periodStarts(at: number): { day: number; week: number; month: number } {
  return { day: periodStart('day', at), week: periodStart('week', at), month: periodStart('month', at) }
}

/** Russian names of the periods, for messages and letters ("в день", "в неделю"…). */
export const PERIOD_PHRASES: Record<Period, string> = { day: 'в день', week: 'в неделю', month: 'в месяц', total: 'всего' }

/** '01.03.2028 00:00 МСК': when a budget resets, as people in Moscow read it. */
export function moscowDateTimeRu(at: number): string {
  const d = new Date(at + MSK_OFFSET_MS)
  const two = (n: number) => String(n).padStart(2, '0')
  return `${two(d.getUTCDate())}.${two(d.getUTCMonth() + 1)}.${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} МСК`
}
