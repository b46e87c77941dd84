import { expect, test } from 'bun:test'
import { openDatabase, runMigrations } from '../db/client'
import { purgeOldUsageLogs } from './housekeeping'

test('request logs older than the stated retention (1 year) are purged; newer ones and the daily sums stay', () => {
  const { sqlite, db } = openDatabase(':memory:')
  runMigrations(db)
  const now = Date.UTC(2026, 10, 21)
  sqlite.run("insert into users (id, email, email_normalized, password_hash, created_at, updated_at) values ('u', 'a@b.ru', 'a@b.ru', 'x', 0, 0)")
  const insert = sqlite.prepare(
    "insert into usage_logs (id, user_id, endpoint, model, status, duration_ms, created_at) values (?, 'u', 'chat', 'm', 'success', 1, ?)",
  )
  const day = 86_400_000
  for (let i = 0; i < 12; i++) insert.run(`old-${i}`, now - 366 * day - i * 1000)
  for (let i = 0; i < 3; i++) insert.run(`new-${i}`, now - 364 * day + i)
  sqlite.run("insert into usage_daily (user_id, day, api_key_id, model, requests, tokens, cost_micros) values ('u', '2025-11-01', '', 'm', 12, 0, 0)")
  expect(purgeOldUsageLogs(db, now, 5)).toBe(12)
  expect(sqlite.query('select id from usage_logs order by id').all()).toEqual([{ id: 'new-0' }, { id: 'new-1' }, { id: 'new-2' }])
  expect(sqlite.query('select count(*) as n from usage_daily').get()).toEqual({ n: 1 })
  sqlite.close()
})
