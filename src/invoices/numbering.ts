// Invoice numbers: `2026-000123`, a sequence per calendar year (Moscow time) without gaps or repeats.
//
// Design (the same on SQLite and PostgreSQL, with any number of instances):
// - `invoice_counters` holds one row per year: `year` (primary key) and `last`, the last number given.
// - Allocating is one statement, `INSERT … VALUES (year, 1) ON CONFLICT (year) DO UPDATE SET last =
//   last + 1 RETURNING last` (store.ts allocateInvoiceNumber), run inside the transaction that inserts
//   the invoice (db/tx.ts `tx`). The row stays locked until that transaction ends, so concurrent
//   allocations — in this process or on another instance — queue behind it and each gets the next
//   number; if the invoice insert fails, the transaction rolls back and the number was never taken:
//   no gap. On SQLite the group commit is the one writer and the savepoint of a failed unit undoes its
//   increment the same way. The first invoice of a year creates its row; two instances creating it
//   at once are ordered by the primary key (the second waits, then increments).
// - A sequence (PostgreSQL SEQUENCE, SQLite autoincrement) would not do: it skips numbers on
//   rollback, and a gap in invoice numbers is what an accountant or a tax inspector asks about.
// - The invoices table (phase 2: it belongs to teams) keeps `number` unique as a second guard.
import { moscowYear } from './dates'

/** `2026-000123`: the year, a dash, the number padded to six digits (more when a year needs it). */
export function formatInvoiceNumber(year: number, seq: number): string {
  if (!Number.isInteger(year) || year < 2000 || year > 9999 || !Number.isSafeInteger(seq) || seq < 1) throw new RangeError(`not an invoice number: ${year}-${seq}`)
  return `${year}-${String(seq).padStart(6, '0')}`
}

/** The calendar year (Moscow time) whose sequence an invoice issued at `at` takes its number from. */
export const invoiceYear = (at: Date) => moscowYear(at)
