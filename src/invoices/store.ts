import { sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { formatInvoiceNumber } from './numbering'
import { invoiceCounters } from './schema'

/**
 * The next invoice number of `year`. Call it with the `q` of the unit (db/tx.ts `tx`) that inserts
 * the invoice: the counter row stays locked until that unit commits, and rolls back with it, so
 * numbers are never repeated and never skipped, on either store and across instances (numbering.ts).
 */
export async function allocateInvoiceNumber(q: Db, year: number): Promise<string> {
  const [row] = await q
    .insert(invoiceCounters)
    .values({ year, last: 1 })
    .onConflictDoUpdate({ target: invoiceCounters.year, set: { last: sql`${invoiceCounters.last} + 1` } })
    .returning({ last: invoiceCounters.last })
  return formatInvoiceNumber(year, Number(row!.last))
}
