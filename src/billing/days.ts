// Calendar days for statistics are Moscow days: our customers read "today" in Moscow time.
// Moscow is UTC+3 all year (no DST since 2014), so plain arithmetic is exact.
const MSK_OFFSET_MS = 3 * 3600 * 1000
const DAY_MS = 24 * 3600 * 1000

/** 'YYYY-MM-DD' of the Moscow day that contains `at`. */
export const moscowDay = (at: Date | number): string => new Date(+at + MSK_OFFSET_MS).toISOString().slice(0, 10)

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
