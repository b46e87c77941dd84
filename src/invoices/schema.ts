import { integer, table } from '../db/dialect'

/**
 * The invoice number sequences, one row per calendar year (numbering.ts): `last` is the last number
 * given that year. Incremented in the transaction that inserts the invoice, so numbers have no gaps.
 */
export const invoiceCounters = table('invoice_counters', {
  year: integer('year').primaryKey(),
  last: integer('last').notNull(),
})
