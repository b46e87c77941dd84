import { inArray, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { write } from './tx'
import type { Db } from './types'

/** A table keyed by a text `id` (every table is typed as SQLite's; see dialect.ts). */
type Keyed = SQLiteTable & { id: SQLiteColumn }

/**
 * Deletes the rows `where` chooses, `batch` at a time, so no transaction (nor a PostgreSQL row lock,
 * nor SQLite's one writer) is held long by a retention job; returns how many went.
 */
export async function deleteInBatches(db: Db, t: Keyed, where: SQL, batch: number): Promise<number> {
  let total = 0
  for (;;) {
    const old = await db.select({ id: t.id }).from(t).where(where).limit(batch)
    if (old.length === 0) return total
    const ids = old.map((r) => r.id as string)
    await write(db, (q) => q.delete(t).where(inArray(t.id, ids)))
    total += old.length
  }
}
