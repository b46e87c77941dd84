// Reads a test server's database behind its back, on either store: SQLite through a read-only
// connection of its own, PostgreSQL through a small pool. Queries are written once with `?`
// placeholders; rows come back as SQLite would give them (integers and sums as numbers, booleans
// as 0/1), so the assertions are the same on both stores.
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { isPostgresUrl } from '../db/dialect'

export type Reader = <T>(sql: string, ...params: (string | number | null)[]) => Promise<T[]>

// PostgreSQL type ids: int2, int4, int8, numeric, float4, float8 → numbers; bool → 0/1.
const NUMERIC_TYPES = new Set([20, 21, 23, 700, 701, 1700])
const BOOLEAN_TYPE = 16

const pools = new Map<string, SQL>()

export function databaseReader(url: string): Reader {
  if (!isPostgresUrl(url))
    return async <T>(sql: string, ...params: (string | number | null)[]) => {
      const conn = new Database(url, { readonly: true })
      try {
        return conn.query(sql).all(...params) as T[]
      } finally {
        conn.close()
      }
    }
  return async <T>(sql: string, ...params: (string | number | null)[]) => {
    let pool = pools.get(url)
    if (!pool) pools.set(url, (pool = new SQL(url, { max: 2, idleTimeout: 5 })))
    let n = 0
    const result = (await pool.unsafe(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    )) as unknown as Record<string, unknown>[] & {
      columns?: { name: string; type: number }[]
    }
    const columns = result.columns ?? []
    return [...result].map((row) => {
      const out: Record<string, unknown> = { ...row }
      for (const c of columns) {
        const v = out[c.name]
        if (v == null) continue
        if (NUMERIC_TYPES.has(c.type)) out[c.name] = Number(v)
        else if (c.type === BOOLEAN_TYPE) out[c.name] = v ? 1 : 0
      }
      return out as T
    })
  }
}

/** Closes the PostgreSQL pool of a reader's database (before the database is dropped). */
export async function closeReader(url: string): Promise<void> {
  const pool = pools.get(url)
  pools.delete(url)
  await pool?.close({ timeout: 1 })
}
