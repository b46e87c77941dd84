import { describe, expect, test } from 'bun:test'
import { dailySlots, dueSlot, nextRunTime, type Schedule, SLOT_GRACE_MS, slotAtOrBefore } from './schedule'

/** An instant given in Moscow time (UTC+3). */
const msk = (local: string) => new Date(`${local}+03:00`)
const on = (startTime: string, intervalHours: number, activeSince: Date | null = null): Schedule => ({ isEnabled: true, startTime, intervalHours, activeSince })

describe('due slots (Moscow time)', () => {
  test.each([
    ['10:00', 1, '2030-05-10T10:00:00', '2030-05-10T10:00:00'],
    ['10:00', 1, '2030-05-10T10:59:59', '2030-05-10T10:00:00'],
    ['10:00', 1, '2030-05-10T09:30:00', '2030-05-10T09:00:00'],
    ['10:00', 6, '2030-05-10T03:59:00', '2030-05-09T22:00:00'],
    ['10:00', 6, '2030-05-10T04:00:00', '2030-05-10T04:00:00'],
    ['10:00', 6, '2030-05-10T23:00:00', '2030-05-10T22:00:00'],
    ['10:00', 24, '2030-05-10T09:59:00', '2030-05-09T10:00:00'],
    ['23:30', 12, '2030-05-10T00:10:00', '2030-05-09T23:30:00'],
    ['00:00', 3, '2030-05-10T02:59:59', '2030-05-10T00:00:00'],
    ['07:15', 2, '2030-05-10T07:14:00', '2030-05-10T05:15:00'],
  ])('start %s every %i h at %s → slot %s', (start, hours, now, slot) => {
    expect(slotAtOrBefore(msk(now), start, hours).toISOString()).toBe(msk(slot).toISOString())
  })

  test('a slot is due at its minute and inside the grace window, not after it', () => {
    const s = on('10:00', 6)
    expect(dueSlot(msk('2030-05-10T10:00:00'), s)).toEqual(msk('2030-05-10T10:00:00'))
    expect(dueSlot(new Date(+msk('2030-05-10T10:00:00') + SLOT_GRACE_MS), s)).toEqual(msk('2030-05-10T10:00:00'))
    expect(dueSlot(new Date(+msk('2030-05-10T10:00:00') + SLOT_GRACE_MS + 1), s)).toBeNull()
    expect(dueSlot(msk('2030-05-10T15:59:00'), s)).toBeNull()
  })

  test('nothing is due while stopped, or for a slot before the schedule was switched on or changed', () => {
    expect(dueSlot(msk('2030-05-10T10:00:00'), { ...on('10:00', 1), isEnabled: false })).toBeNull()
    const since = msk('2030-05-10T10:20:00')
    expect(dueSlot(msk('2030-05-10T10:25:00'), on('10:00', 1, since))).toBeNull()
    expect(dueSlot(msk('2030-05-10T11:00:00'), on('10:00', 1, since))).toEqual(msk('2030-05-10T11:00:00'))
  })

  test('the next run: the due slot until it has run, then the following one; none while stopped', () => {
    const s = on('10:00', 6, msk('2030-05-10T09:00:00'))
    expect(nextRunTime(msk('2030-05-10T09:30:00'), s, () => false)).toEqual(msk('2030-05-10T10:00:00'))
    expect(nextRunTime(msk('2030-05-10T10:00:30'), s, () => false)).toEqual(msk('2030-05-10T10:00:00'))
    expect(nextRunTime(msk('2030-05-10T10:00:30'), s, () => true)).toEqual(msk('2030-05-10T16:00:00'))
    expect(nextRunTime(msk('2030-05-10T22:30:00'), s, () => true)).toEqual(msk('2030-05-11T04:00:00'))
    expect(nextRunTime(msk('2030-05-10T10:00:00'), { ...s, isEnabled: false }, () => false)).toBeNull()
  })
})

describe('dailySlots', () => {
  test('the lattice through the start time, earliest first', () => {
    expect(dailySlots('10:00', 6)).toEqual(['04:00', '10:00', '16:00', '22:00'])
    expect(dailySlots('10:00', 24)).toEqual(['10:00'])
    expect(dailySlots('08:30', 12)).toEqual(['08:30', '20:30'])
    const hourly = dailySlots('10:00', 1)
    expect(hourly).toHaveLength(24)
    expect([hourly[0], hourly[1], hourly[23]]).toEqual(['00:00', '01:00', '23:00'])
  })

  test('agrees with the slots the job runs at', () => {
    // Every slot the job computes over two days falls on one of the listed wall-clock times.
    for (const [start, hours] of [
      ['10:00', 1],
      ['08:30', 6],
      ['23:45', 3],
    ] as const) {
      const times = new Set(dailySlots(start, hours))
      for (let t = Date.UTC(2025, 10, 24); t < Date.UTC(2025, 10, 26); t += 17 * 60_000) {
        const slot = slotAtOrBefore(new Date(t), start, hours)
        const msk = new Date(+slot + 3 * 3600_000)
        expect(times.has(`${String(msk.getUTCHours()).padStart(2, '0')}:${String(msk.getUTCMinutes()).padStart(2, '0')}`)).toBe(true)
      }
    }
  })
})
