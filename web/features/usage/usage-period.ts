// The usage screen's period switch and the startDate it sends (GET /api/billing/usage).

import { MSK_OFFSET_MS } from '../../../src/content/moscow'

export type Period = '7d' | '30d' | '90d' | 'all'

export const PERIODS: ReadonlyArray<{ id: Period; label: string; days: number | null }> = [
  { id: '7d', label: '7 дней', days: 7 },
  { id: '30d', label: '30 дней', days: 30 },
  { id: '90d', label: '90 дней', days: 90 },
  { id: 'all', label: 'Всё время', days: null },
]

export const DEFAULT_PERIOD: Period = '30d'

/**
 * 00:00 Moscow time of the first day of the period: today counts as a day, so '7d' starts six
 * days ago. Undefined for 'all' (the server then counts from the beginning). Stable within a
 * Moscow day, so the SWR key does not change between renders.
 */
export function periodStart(period: Period, now: number = Date.now()): string | undefined {
  const days = PERIODS.find((p) => p.id === period)?.days
  if (!days) return undefined
  const moscow = new Date(now + MSK_OFFSET_MS)
  const midnight = Date.UTC(moscow.getUTCFullYear(), moscow.getUTCMonth(), moscow.getUTCDate() - (days - 1))
  return new Date(midnight - MSK_OFFSET_MS).toISOString()
}

/** 'YYYY-MM-DD' (a calendar day, no time zone) → a Date at UTC midnight, to format with timeZone 'UTC'. */
export function dayDate(day: string): Date {
  const [y, m, d] = day.split('-').map(Number)
  return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1))
}
