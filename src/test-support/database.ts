// A fresh, migrated database for tests that work on the store directly: an in-memory SQLite one,
// or, in the PostgreSQL run (scripts/test-pg.ts sets TEST_PG_ADMIN_URL), a new PostgreSQL database.
import { openDatabase, runMigrations } from '../db/client'
import { onPostgres } from '../db/dialect'
import type { Db } from '../db/types'
import { createTestDatabase } from './postgres'

/** A new empty database's URL: `:memory:` on SQLite, a created database on PostgreSQL. */
export async function freshDatabaseUrl(): Promise<string> {
  if (!onPostgres) return ':memory:'
  const admin = process.env.TEST_PG_ADMIN_URL
  if (!admin) throw new Error('TEST_PG_ADMIN_URL is not set: run the PostgreSQL tests through scripts/test-pg.ts')
  return createTestDatabase(admin)
}

export async function openTestDatabase(): Promise<{ db: Db; url: string; close: () => Promise<void> }> {
  const url = await freshDatabaseUrl()
  const { db, close } = openDatabase(url)
  await runMigrations(db)
  return { db, url, close }
}
