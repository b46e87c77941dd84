import { users } from '../auth/schema'
import { index, integer, table, text, uniqueIndex } from '../db/dialect'
import { teams } from '../teams/schema'
import type { Buyer } from './invoice-pdf'
import type { SellerDetails } from './requisites'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

/**
 * The invoice number sequences, one row per calendar year (numbering.ts): `last` is the last number
 * given that year. Incremented in the transaction that inserts the invoice, so numbers have no gaps.
 */
export const invoiceCounters = table('invoice_counters', {
  year: integer('year').primaryKey(),
  last: integer('last').notNull(),
})

/**
 * Whether a team may bill in the name of the INN it registered (issue 33): `not_needed` — the first
 * team to register that INN; `pending` — another team registered it first, so invoices wait for the
 * site admin; `confirmed` / `rejected` — the site admin's decision. Only `not_needed` and `confirmed`
 * may issue invoices or be credited by a statement payment from that INN.
 */
export const INN_CONFIRMATIONS = ['not_needed', 'pending', 'confirmed', 'rejected'] as const
export type InnConfirmation = (typeof INN_CONFIRMATIONS)[number]

/**
 * A team's company details (реквизиты), one row per team: the buyer on its invoices and acts, and
 * where documents are e-mailed. Checked with requisites.ts before they are stored.
 */
export const teamCompanies = table(
  'team_companies',
  {
    teamId: text('team_id')
      .primaryKey()
      .references(() => teams.id),
    inn: text('inn').notNull(),
    /** Organisations only (a 10-digit INN). */
    kpp: text('kpp'),
    name: text('name').notNull(),
    address: text('address').notNull(),
    /** The document address: invoices are sent here as PDF attachments. */
    email: text('email').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    updatedBy: text('updated_by').references(() => users.id),
    /** Set again whenever the INN changes (service.ts saveCompany); kept while it stays the same. */
    innConfirmation: text('inn_confirmation', { enum: INN_CONFIRMATIONS }).notNull().default('not_needed'),
    /** The site admin who confirmed or rejected this INN, and when. */
    innReviewedAt: timestamp('inn_reviewed_at'),
    innReviewedBy: text('inn_reviewed_by'),
  },
  (t) => [index('team_companies_inn_idx').on(t.inn)],
)

/**
 * The first team to register each INN: the one that needs no confirmation. A row is inserted once and
 * never moves (a team that changes its INN keeps its first registration), so a second team can never
 * become «first» by waiting; inserting on the primary key orders two teams registering at once, on
 * either store and across instances.
 */
export const innFirstRegistrations = table('inn_first_registrations', {
  inn: text('inn').primaryKey(),
  teamId: text('team_id')
    .notNull()
    .references(() => teams.id),
  registeredAt: timestamp('registered_at').notNull(),
})

export type TeamCompanyRow = typeof teamCompanies.$inferSelect

export const INVOICE_STATUSES = ['issued', 'paid', 'cancelled'] as const
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number]

/** What an invoice's PDF shows, frozen when it is issued: later changes of the seller's or the team's details never alter it. */
export type InvoiceDocument = { seller: SellerDetails; buyer: Buyer; account: string; offerUrl: string }

/**
 * Invoices (счета на оплату) of teams. issued → paid (exactly once: the UPDATE … WHERE status =
 * 'issued' and the ledger row's unique reference `invoice:<id>` in one unit) or issued → cancelled.
 * The PDF is rendered from `document` on demand, byte for byte the same each time (pdf.ts).
 */
export const invoices = table(
  'invoices',
  {
    id: text('id').primaryKey(),
    /** `2026-000123` (numbering.ts); unique as the second guard behind the gap-free counter. */
    number: text('number').notNull().unique(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id),
    /** The member who issued it: the team ledger row of its payment names them, as a card top-up names its payer. */
    issuedBy: text('issued_by')
      .notNull()
      .references(() => users.id),
    amountMicros: integer('amount_micros').notNull(),
    status: text('status', { enum: INVOICE_STATUSES }).notNull(),
    issuedAt: timestamp('issued_at').notNull(),
    document: text('document', { mode: 'json' }).$type<InvoiceDocument>().notNull(),
    /** The buyer's INN from `document`, for matching bank payments. */
    buyerInn: text('buyer_inn').notNull(),
    /** Where the PDF was sent. */
    sentTo: text('sent_to'),
    /** When it was credited; `receivedAt` is when the money reached the seller's account (the bank's date, or the manual mark). */
    paidAt: timestamp('paid_at'),
    receivedAt: timestamp('received_at'),
    /** What was credited: the amount received (an admin may assign a payment of another amount). */
    paidMicros: integer('paid_micros'),
    /** The bank payment that paid it; null for a manual «Отметить оплаченным». */
    bankPaymentId: text('bank_payment_id'),
    /** The admin who credited it (statement import, assignment or the manual mark). */
    paidBy: text('paid_by'),
    cancelledAt: timestamp('cancelled_at'),
    cancelledBy: text('cancelled_by'),
  },
  (t) => [index('invoices_team_issued_idx').on(t.teamId, t.issuedAt), index('invoices_status_issued_idx').on(t.status, t.issuedAt)],
)

export type InvoiceRow = typeof invoices.$inferSelect

export const BANK_PAYMENT_STATUSES = ['credited', 'unmatched', 'dismissed'] as const
export type BankPaymentStatus = (typeof BANK_PAYMENT_STATUSES)[number]

/**
 * Every incoming payment the admin has imported from a bank statement, once: `key` (statement.ts)
 * identifies it across imports, so importing a statement again finds its payments here and credits
 * nothing. An unmatched payment waits for the admin (assigned to an invoice by hand, or dismissed).
 */
export const bankPayments = table(
  'bank_payments',
  {
    id: text('id').primaryKey(),
    key: text('key').notNull().unique(),
    /** The payment order's number and date (`YYYY-MM-DD`); when the money arrived, if the bank said. */
    orderNumber: text('order_number').notNull(),
    orderDate: text('order_date').notNull(),
    receivedDate: text('received_date'),
    amountMicros: integer('amount_micros').notNull(),
    payerInn: text('payer_inn').notNull(),
    payerKpp: text('payer_kpp'),
    payerName: text('payer_name').notNull(),
    payerAccount: text('payer_account').notNull(),
    payerBik: text('payer_bik').notNull(),
    purpose: text('purpose').notNull(),
    status: text('status', { enum: BANK_PAYMENT_STATUSES }).notNull(),
    /** Why it did not match (match.ts UnmatchedReason); null once credited. */
    reason: text('reason'),
    /** The invoice number found in the purpose, when there was one. */
    invoiceNumber: text('invoice_number'),
    /** The invoice it paid. */
    invoiceId: text('invoice_id'),
    importedAt: timestamp('imported_at').notNull(),
    importedBy: text('imported_by'),
    resolvedAt: timestamp('resolved_at'),
    resolvedBy: text('resolved_by'),
  },
  (t) => [index('bank_payments_status_idx').on(t.status, t.importedAt)],
)

export type BankPaymentRow = typeof bankPayments.$inferSelect

/**
 * The closing document of a team's calendar month (Moscow): its number, given once, the first time
 * the month is listed with spending. The sum is not stored: it is the month's usage ledger rows,
 * which never change once written.
 */
export const teamActs = table(
  'team_acts',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id),
    year: integer('year').notNull(),
    month: integer('month').notNull(),
    /** `2026-11-0007`: the month, then the act's place among that month's acts; set in the unit that inserts the row. */
    number: text('number').unique(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [uniqueIndex('team_acts_team_month_idx').on(t.teamId, t.year, t.month)],
)

/** Act number sequences, one row per month (`2026-11`), gap-free like invoice numbers. */
export const actCounters = table('act_counters', {
  period: text('period').primaryKey(),
  last: integer('last').notNull(),
})
