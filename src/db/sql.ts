// The few SQL functions whose spelling differs between SQLite and PostgreSQL. Everything else the
// stores write is portable SQL through drizzle's builders.
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm'
import { onPostgres } from './dialect'
import type { Db } from './types'

/** The larger of two values (SQLite's two-argument max(), PostgreSQL's greatest()). */
export const greatest = (a: SQLWrapper | number, b: SQLWrapper | number): SQL<number> => (onPostgres ? sql<number>`greatest(${a}, ${b})` : sql<number>`max(${a}, ${b})`)

/** The smaller of two values. */
export const least = (a: SQLWrapper | number, b: SQLWrapper | number): SQL<number> => (onPostgres ? sql<number>`least(${a}, ${b})` : sql<number>`min(${a}, ${b})`)

/**
 * Rows of a hand-written query (for the few a builder cannot express), as objects keyed by the
 * column aliases. Quote mixed-case aliases ("balanceAfter"): PostgreSQL folds bare ones to lower
 * case. Numbers from aggregates come back as strings on PostgreSQL: convert them.
 */
export async function selectRows<T>(db: Db, query: SQL): Promise<T[]> {
  if (onPostgres) return [...((await (db as unknown as { execute(q: SQL): Promise<Iterable<T>> }).execute(query)) as Iterable<T>)]
  return db.all<T>(query)
}
