// Named leases shared by every instance on one database: whoever holds `name` does the job (the
// catalogue and rate refresh, reconciliation) until `until`; the others skip it. One conditional
// upsert claims or renews a lease, so two instances can never both hold it.
import { sql } from 'drizzle-orm'
import type { Db } from './client'
import { integer, table, text } from './dialect'
import { write } from './tx'

export const leases = table('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  /** Epoch milliseconds. */
  until: integer('until').notNull(),
})

/** Claims (or renews) the lease for `ttlMs`; true when `holder` has it now. */
export async function claimLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const rows = await write(db, (q) =>
    q
      .insert(leases)
      .values({ name, holder, until: now + ttlMs })
      .onConflictDoUpdate({
        target: leases.name,
        set: { holder, until: now + ttlMs },
        where: sql`${leases.until} < ${now} or ${leases.holder} = ${holder}`,
      })
      .returning({ holder: leases.holder }),
  )
  return rows[0]?.holder === holder
}
