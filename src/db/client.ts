import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { fileURLToPath } from 'node:url'
import * as schema from './schema'

export type Db = BunSQLiteDatabase<typeof schema>

const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url))

export function openDatabase(url: string) {
  const sqlite = new Database(url, { create: true, strict: true })
  // WAL lets readers run beside the single writer; busy_timeout waits instead of failing on a lock.
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('PRAGMA synchronous = NORMAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
  sqlite.exec('PRAGMA busy_timeout = 5000')
  sqlite.exec('PRAGMA temp_store = MEMORY')
  const db = drizzle(sqlite, { schema })
  return { sqlite, db }
}

/**
 * Moves WAL checkpoints off the request path: automatic checkpoints are turned off on the main
 * connection and a worker thread checkpoints every second instead. Returns a stop function.
 */
export function startCheckpointer(sqlite: Database, url: string): () => void {
  if (url === ':memory:' || url.startsWith('file::memory:')) return () => {}
  sqlite.exec('PRAGMA wal_autocheckpoint = 0')
  const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url).href)
  worker.postMessage({ url })
  ;(worker as Worker & { unref(): void }).unref() // never keeps the process alive
  return () => {
    worker.terminate()
    sqlite.exec('PRAGMA wal_autocheckpoint = 1000')
  }
}

/** Applies the committed migrations in drizzle/ (idempotent; run at every start). */
export function runMigrations(db: Db) {
  migrate(db, { migrationsFolder: MIGRATIONS })
}
