// The status page's arithmetic: merging the instances' incident rows, the outage time, days by Moscow time.
import { expect, test } from 'bun:test'
import { formatDuration, formatUptime } from '../content/status'
import { DAY_MS, dailyUptime, mergeIncidents, moscowDay, outages } from './timeline'

const at = (iso: string) => new Date(iso)
const row = (upstream: 'primary' | 'fallback', start: string, end: string | null, reason = 'HTTP 503', checked = end ?? start) => ({
  upstream,
  startedAt: at(start),
  endedAt: end ? at(end) : null,
  checkedAt: at(checked),
  reason,
})
const NOW = +at('2026-11-24T12:00:00Z')

test('rows of several instances about the same outage become one incident, with every reason', () => {
  const merged = mergeIncidents(
    [
      row('primary', '2026-11-24T10:00:00Z', '2026-11-24T10:30:00Z'),
      row('primary', '2026-11-24T10:05:00Z', '2026-11-24T10:40:00Z', 'нет соединения'),
      row('primary', '2026-11-24T11:00:00Z', '2026-11-24T11:10:00Z'),
      row('fallback', '2026-11-24T10:10:00Z', '2026-11-24T10:20:00Z'),
    ],
    NOW,
    300_000,
  )
  expect(merged.map((m) => [m.upstream, new Date(m.start).toISOString(), new Date(m.end).toISOString(), m.reasons.join(', ')])).toEqual([
    ['primary', '2026-11-24T11:00:00.000Z', '2026-11-24T11:10:00.000Z', 'HTTP 503'],
    ['fallback', '2026-11-24T10:10:00.000Z', '2026-11-24T10:20:00.000Z', 'HTTP 503'],
    ['primary', '2026-11-24T10:00:00.000Z', '2026-11-24T10:40:00.000Z', 'HTTP 503, нет соединения'],
  ])
})

test('an open row is ongoing while its instance vouches for it, and ends where it last did once it stopped', () => {
  const live = mergeIncidents([row('primary', '2026-11-24T11:50:00Z', null, 'HTTP 500', '2026-11-24T11:59:00Z')], NOW, 300_000)
  expect(live[0]).toMatchObject({ ongoing: true, end: NOW })
  const dead = mergeIncidents([row('primary', '2026-11-24T09:00:00Z', null, 'HTTP 500', '2026-11-24T09:20:00Z')], NOW, 300_000)
  expect(dead[0]).toMatchObject({ ongoing: false, end: +at('2026-11-24T09:20:00Z') })
})

test('with a second router, only the time both were down is an outage', () => {
  const merged = mergeIncidents([row('primary', '2026-11-24T10:00:00Z', '2026-11-24T11:00:00Z'), row('fallback', '2026-11-24T10:30:00Z', '2026-11-24T11:30:00Z')], NOW, 300_000)
  expect(outages(merged, false)).toEqual([{ start: +at('2026-11-24T10:00:00Z'), end: +at('2026-11-24T11:00:00Z') }])
  expect(outages(merged, true)).toEqual([{ start: +at('2026-11-24T10:30:00Z'), end: +at('2026-11-24T11:00:00Z') }])
})

test('days are Moscow days; an outage across midnight is split; today counts its elapsed part', () => {
  expect(moscowDay(+at('2026-11-23T21:30:00Z')).date).toBe('2026-11-24') // 00:30 in Moscow
  const down = [{ start: +at('2026-11-23T20:00:00Z'), end: +at('2026-11-23T22:00:00Z') }] // 23:00–01:00 MSK
  const days = dailyUptime(down, NOW, 3)
  expect(days.map((d) => d.date)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24'])
  expect(days[0]!.uptime).toBe(1)
  expect(days[1]!.downSec).toBe(3600)
  expect(days[1]!.uptime).toBeCloseTo(1 - 3600_000 / DAY_MS, 10)
  expect(days[2]!.downSec).toBe(3600)
  expect(days[2]!.uptime).toBeCloseTo(1 - 1 / 15, 10) // 15 h of today so far (12:00 UTC = 15:00 MSK)
})

test('the page’s numbers: durations and uptime read as people write them', () => {
  expect([45, 12 * 60, 65 * 60, 2 * 3600, 51 * 3600].map(formatDuration)).toEqual(['45 с', '12 мин', '1 ч 5 мин', '2 ч', '2 д 3 ч'])
  expect([1, 0.99999, 0.9995, 0.5].map(formatUptime)).toEqual(['100 %', '99,99 %', '99,95 %', '50,00 %'])
})
