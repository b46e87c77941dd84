// When the autopost job publishes: every `intervalHours` from `startTime`, Moscow time (UTC+3 all
// year, so plain arithmetic is exact). Every allowed interval divides 24 hours, so the slots form
// one lattice that repeats identically each day: 10:00 every 6 h is 04:00, 10:00, 16:00, 22:00.
// Pure (no database imports): the admin page imports it to describe the schedule the job keeps.
import { MSK_OFFSET_MS } from './moscow'

/** The publication frequencies an admin can choose, in hours (each divides 24). */
export const AUTOPOST_INTERVALS = [1, 2, 3, 6, 12, 24] as const

const HOUR_MS = 3600_000

/**
 * A slot may still run this long after its time (a restart or a busy minute), but not later: a
 * server that was down for hours does not publish a backlog, it waits for the next slot.
 */
export const SLOT_GRACE_MS = 30 * 60_000

export type Schedule = { isEnabled: boolean; startTime: string; intervalHours: number; activeSince: Date | null }

export const START_TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/

export const isInterval = (n: unknown): n is (typeof AUTOPOST_INTERVALS)[number] => typeof n === 'number' && (AUTOPOST_INTERVALS as readonly number[]).includes(n)

/** Minutes after Moscow midnight of 'HH:MM'. */
function startMinutes(startTime: string): number {
  const m = START_TIME_RE.exec(startTime)
  if (!m) throw new RangeError(`bad start time ${startTime}`)
  return Number(m[1]) * 60 + Number(m[2])
}

/**
 * The Moscow wall-clock times of one day's slots, earliest first: ('10:00', 6) →
 * ['04:00', '10:00', '16:00', '22:00']; ('10:30', 1) → ['00:30', '01:30', …, '23:30'].
 */
export function dailySlots(startTime: string, intervalHours: number): string[] {
  const step = intervalHours * 60
  const first = startMinutes(startTime) % step
  const slots: string[] = []
  for (let m = first; m < 24 * 60; m += step) slots.push(`${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`)
  return slots
}

/** The latest slot at or before `now`. */
export function slotAtOrBefore(now: Date, startTime: string, intervalHours: number): Date {
  const period = intervalHours * HOUR_MS
  const mskNow = +now + MSK_OFFSET_MS
  const mskMidnight = mskNow - (((mskNow % 86_400_000) + 86_400_000) % 86_400_000)
  const anchor = mskMidnight + startMinutes(startTime) * 60_000
  const k = Math.floor((mskNow - anchor) / period)
  return new Date(anchor + k * period - MSK_OFFSET_MS)
}

/** The slot the job should run at `now`, or null: off, none inside the grace window, or before the schedule began. */
export function dueSlot(now: Date, s: Schedule): Date | null {
  if (!s.isEnabled) return null
  const slot = slotAtOrBefore(now, s.startTime, s.intervalHours)
  if (s.activeSince && +slot < +s.activeSince) return null
  if (+now - +slot > SLOT_GRACE_MS) return null
  return slot
}

/**
 * The next publication time: the current slot if it is due and has not run yet (the job picks it
 * up within a minute), otherwise the next slot that is not before the schedule began.
 */
export function nextRunTime(now: Date, s: Schedule, hasRun: (slot: Date) => boolean): Date | null {
  if (!s.isEnabled) return null
  const due = dueSlot(now, s)
  if (due && !hasRun(due)) return due
  const period = s.intervalHours * HOUR_MS
  let next = +slotAtOrBefore(now, s.startTime, s.intervalHours) + period
  if (s.activeSince) while (next < +s.activeSince) next += period
  return new Date(next)
}
