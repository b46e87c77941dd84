import { expect, test } from 'bun:test'
import { count } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import { usageDaily, usageLogs } from '../money'
import { teamAudit, teams } from '../teams/schema'
import { openTestDatabase } from '../test-support/database'
import { purgeOldAudit, purgeOldUsageLogs } from './housekeeping'

test('request logs older than the stated retention (1 year) are purged; newer ones and the daily sums stay', async () => {
  const { db, close } = await openTestDatabase()
  const now = Date.UTC(2026, 10, 21)
  const day = 86_400_000
  await write(db, (q) => q.insert(users).values({ id: 'u', email: 'a@b.ru', emailNormalized: 'a@b.ru', passwordHash: 'x', createdAt: new Date(0), updatedAt: new Date(0) }))
  const log = (id: string, at: number) => ({ id, userId: 'u', endpoint: 'chat' as const, model: 'm', status: 'success' as const, durationMs: 1, createdAt: new Date(at) })
  await write(db, (q) =>
    q
      .insert(usageLogs)
      .values([...Array.from({ length: 12 }, (_, i) => log(`old-${i}`, now - 366 * day - i * 1000)), ...Array.from({ length: 3 }, (_, i) => log(`new-${i}`, now - 364 * day + i))]),
  )
  await write(db, (q) => q.insert(usageDaily).values({ userId: 'u', day: '2025-11-01', apiKeyId: '', model: 'm', requests: 12, tokens: 0, costMicros: 0 }))
  expect(await purgeOldUsageLogs(db, now, 5)).toBe(12)
  expect(await db.select({ id: usageLogs.id }).from(usageLogs).orderBy(usageLogs.id)).toEqual([{ id: 'new-0' }, { id: 'new-1' }, { id: 'new-2' }])
  expect(await db.select({ n: count() }).from(usageDaily)).toEqual([{ n: 1 }])
  await close()
})

test('team audit entries older than a year are purged (the retention the legal texts state); newer ones stay', async () => {
  const { db, close } = await openTestDatabase()
  const now = Date.UTC(2026, 10, 21)
  const day = 86_400_000
  await write(db, (q) => q.insert(teams).values({ id: 't', name: 'Команда', createdAt: new Date(0) }))
  const entry = (id: string, at: number) => ({ id, teamId: 't', at: new Date(at), actorId: null, action: 'team.created' })
  await write(db, (q) => q.insert(teamAudit).values([entry('old-1', now - 366 * day), entry('old-2', now - 400 * day), entry('new', now - 364 * day)]))
  expect(await purgeOldAudit(db, now, 1)).toBe(2)
  expect(await db.select({ id: teamAudit.id }).from(teamAudit)).toEqual([{ id: 'new' }])
  await close()
})
