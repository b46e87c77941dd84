// Calendar days for statistics are Moscow days: our customers read "today" in Moscow time.
// Moscow is UTC+3 all year (no DST since 2014), so plain arithmetic is exact.
import { MSK_OFFSET_MS } from '../content/moscow'

const DAY_MS = 24 * 3600 * 1000

// Every settlement asks for today's day: the last answer is kept with the bounds of its day.
let last = { from: 0, to: 0, day: '' }

/** 'YYYY-MM-DD' of the Moscow day that contains `at`. */
export function moscowDay(at: Date | number): string {
  const ms = +at
  if (ms >= last.from && ms < last.to) return last.day
  const day = new Date(ms + MSK_OFFSET_MS).toISOString().slice(0, 10)
  const from = Date.parse(`${day}T00:00:00Z`) - MSK_OFFSET_MS
  last = { from, to: from + DAY_MS, day }
  return day
}

/** The instant 00:00 Moscow time of the given day. */
export const moscowDayStart = (day: string): Date => new Date(Date.parse(`${day}T00:00:00Z`) - MSK_OFFSET_MS)

/** The next Moscow day after `day`. */
export const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)

/** Every day from `from` to `to` inclusive, oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = []
  for (let d = from; d <= to; d = nextDay(d)) out.push(d)
  return out
}
