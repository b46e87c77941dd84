// The few SQL functions whose spelling differs between SQLite and PostgreSQL. Everything else the
// stores write is portable SQL through drizzle's builders.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import { onPostgres } from './dialect'

/** The larger of two values (SQLite's two-argument max(), PostgreSQL's greatest()). */
export const greatest = (a: SQLWrapper | number, b: SQLWrapper | number): SQL<number> =>
  onPostgres ? sql<number>`greatest(${a}, ${b})` : sql<number>`max(${a}, ${b})`

/** The smaller of two values. */
export const least = (a: SQLWrapper | number, b: SQLWrapper | number): SQL<number> =>
  onPostgres ? sql<number>`least(${a}, ${b})` : sql<number>`min(${a}, ${b})`
