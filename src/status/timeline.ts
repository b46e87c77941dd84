// The status page's arithmetic, pure: incident rows of every instance merged into one timeline per
// upstream, the time no router could answer, and each Moscow day's share of time without it.

import { MSK_OFFSET_MS as MSK_MS } from '../content/moscow'
import type { UpstreamName } from '../upstream/names'

export const DAY_MS = 86_400_000

export type IncidentLike = { upstream: UpstreamName; startedAt: Date; endedAt: Date | null; checkedAt: Date; reason: string }
export type Interval = { start: number; end: number }
export type Merged = { upstream: UpstreamName; start: number; end: number; ongoing: boolean; reasons: string[] }

/** Where a row ends: its end; while open, now if its instance still vouches for it, else where it last did. */
function endOf(row: IncidentLike, now: number, staleMs: number): { end: number; ongoing: boolean } {
  if (row.endedAt) return { end: +row.endedAt, ongoing: false }
  const checked = +row.checkedAt
  return now - checked <= staleMs ? { end: now, ongoing: true } : { end: checked, ongoing: false }
}

/** Per upstream, overlapping rows (several instances saw the same outage) become one incident; newest first. */
export function mergeIncidents(rows: readonly IncidentLike[], now: number, staleMs: number): Merged[] {
  const out: Merged[] = []
  const byUpstream = new Map<UpstreamName, Merged[]>()
  const sorted = [...rows].sort((a, b) => +a.startedAt - +b.startedAt)
  for (const row of sorted) {
    const { end, ongoing } = endOf(row, now, staleMs)
    const list = byUpstream.get(row.upstream) ?? []
    byUpstream.set(row.upstream, list)
    const last = list.at(-1)
    if (last && +row.startedAt <= last.end) {
      last.end = Math.max(last.end, end)
      last.ongoing ||= ongoing
      if (!last.reasons.includes(row.reason)) last.reasons.push(row.reason)
    } else {
      const m = { upstream: row.upstream, start: +row.startedAt, end, ongoing, reasons: [row.reason] }
      list.push(m)
      out.push(m)
    }
  }
  return out.sort((a, b) => b.start - a.start)
}

/** The parts of time in both lists (each sorted, without overlaps). */
function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i]!.start, b[j]!.start)
    const end = Math.min(a[i]!.end, b[j]!.end)
    if (start < end) out.push({ start, end })
    if (a[i]!.end < b[j]!.end) i++
    else j++
  }
  return out
}

/**
 * When no router could answer: the primary's incidents, or with a second router only the time both
 * were down (requests went to the second one meanwhile).
 */
export function outages(merged: readonly Merged[], withFallback: boolean): Interval[] {
  const of = (name: UpstreamName) =>
    merged
      .filter((m) => m.upstream === name)
      .map((m) => ({ start: m.start, end: m.end }))
      .sort((a, b) => a.start - b.start)
  return withFallback ? intersect(of('primary'), of('fallback')) : of('primary')
}

/** The Moscow calendar day (YYYY-MM-DD) of a moment, and that day's first millisecond. */
export function moscowDay(t: number): { date: string; start: number } {
  const start = Math.floor((t + MSK_MS) / DAY_MS) * DAY_MS - MSK_MS
  return { date: new Date(start + MSK_MS).toISOString().slice(0, 10), start }
}

/** The last `days` Moscow days, oldest first: the share of each (of today: of its time so far) without an outage. */
export function dailyUptime(down: readonly Interval[], now: number, days: number) {
  const today = moscowDay(now).start
  return Array.from({ length: days }, (_, k) => {
    const start = today - (days - 1 - k) * DAY_MS
    const end = Math.min(start + DAY_MS, now)
    let downMs = 0
    for (const d of down) downMs += Math.max(0, Math.min(d.end, end) - Math.max(d.start, start))
    const length = Math.max(1, end - start)
    return { date: moscowDay(start).date, uptime: Math.max(0, 1 - downMs / length), downSec: Math.round(downMs / 1000) }
  })
}
