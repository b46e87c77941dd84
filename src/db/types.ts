// The database as the code sees it, on both stores. Its type is the bun:sqlite one (see dialect.ts):
// code awaits queries and never uses the sqlite-only .get/.all/.run. `$client` is the bun:sqlite
// connection on SQLite and the Bun.SQL pool on PostgreSQL; only src/db touches it. Typed without the
// schema (nothing uses drizzle's relational queries), so no module of src/db depends on the tables.
import type { Database } from 'bun:sqlite'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'

export type Db = BunSQLiteDatabase & { $client: Database }
