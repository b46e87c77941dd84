// Dates on documents: Moscow calendar days and months, written as Russian documents write them.
import { MSK_OFFSET_MS } from '../content/moscow'

const MSK = 'Europe/Moscow'
const longDate = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric', timeZone: MSK })
const shortDate = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: MSK })
const monthYear = new Intl.DateTimeFormat('ru-RU', { month: 'long', year: 'numeric', timeZone: 'UTC' })

/** «21 ноября 2026 г.», the Moscow calendar day of `at`. */
export const formatDocDate = (at: Date) => longDate.format(at)
/** «21.11.2026», the Moscow calendar day of `at`. */
export const formatShortDate = (at: Date) => shortDate.format(at)

/** A calendar month of the documents (Moscow time), month 1–12. */
export type Month = { year: number; month: number }
/** «ноябрь 2026 г.» */
export const formatMonth = (p: Month) => monthYear.format(new Date(Date.UTC(p.year, p.month - 1, 1)))

/** The calendar year of `at` in Moscow (UTC+3 all year, no DST since 2014). */
export const moscowYear = (at: Date) => monthOf(at).year

/** The Moscow calendar month that contains `at`. */
export function monthOf(at: Date): Month {
  const d = new Date(at.getTime() + MSK_OFFSET_MS)
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 }
}

/** The instants a Moscow calendar month spans: `from` inclusive, `to` exclusive (a ledger query's bounds). */
export const monthBounds = (p: Month) => ({
  from: new Date(Date.UTC(p.year, p.month - 1, 1) - MSK_OFFSET_MS),
  to: new Date(Date.UTC(p.year, p.month, 1) - MSK_OFFSET_MS),
})

/** Noon (Moscow) of the month's last day: the date an act for the month bears. */
export const lastDayOf = (p: Month) => new Date(Date.UTC(p.year, p.month, 0, 9))
