// Prepared statements, built once per database and reused: drizzle otherwise re-prepares the SQL
// on every call, which measured as most of the gateway's per-request cost (bench/README.md).
// Statements prepared on the root database also run inside its transactions (one connection).
import type { Db } from './client'

const cache = new WeakMap<Db, Map<string, unknown>>()

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let byName = cache.get(db)
  if (!byName) cache.set(db, (byName = new Map()))
  let stmt = byName.get(name) as T | undefined
  if (stmt === undefined) byName.set(name, (stmt = build(db)))
  return stmt
}
