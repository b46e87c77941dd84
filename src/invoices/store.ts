import { and, asc, count, desc, eq, inArray, max, min, type SQL, sql, sum } from 'drizzle-orm'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { ledgerEntries } from '../money'
import { teams } from '../teams/schema'
import { formatInvoiceNumber } from './numbering'
import {
  actCounters,
  type BankPaymentRow,
  type BankPaymentStatus,
  bankPayments,
  type InnConfirmation,
  type InvoiceRow,
  type InvoiceStatus,
  innFirstRegistrations,
  invoiceCounters,
  invoices,
  teamActs,
  teamCompanies,
} from './schema'

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

/** `2026-11-0007`: an act's number within its month, from the month's counter (the same gap-free way as invoices). */
async function allocateActNumber(q: Db, year: number, month: number): Promise<string> {
  const period = `${year}-${String(month).padStart(2, '0')}`
  const [row] = await q
    .insert(actCounters)
    .values({ period, last: 1 })
    .onConflictDoUpdate({ target: actCounters.period, set: { last: sql`${actCounters.last} + 1` } })
    .returning({ last: actCounters.last })
  return `${period}-${String(Number(row!.last)).padStart(4, '0')}`
}

export type InvoiceListRow = InvoiceRow & { teamName: string }

/**
 * The invoice queries. `db` is the database, or a unit's `q` (db/tx.ts) for statements that must
 * share its transaction; writes outside a unit go through `write`.
 */
export const invoicesStore = (db: Db) => ({
  company: async (teamId: string) => (await db.select().from(teamCompanies).where(eq(teamCompanies.teamId, teamId)).limit(1))[0],

  async saveCompany(q: Db, row: typeof teamCompanies.$inferInsert) {
    const { teamId, ...fields } = row
    await q.insert(teamCompanies).values(row).onConflictDoUpdate({ target: teamCompanies.teamId, set: fields })
  },

  /**
   * Records `teamId` as the first to register `inn` unless a team already is, and answers the first
   * team. On PostgreSQL a second unit inserting the same INN waits for the first to commit and then
   * reads its row, so of two teams registering at once exactly one is first.
   */
  async firstRegistrant(q: Db, inn: string, teamId: string, at: Date): Promise<string> {
    const [mine] = await q.insert(innFirstRegistrations).values({ inn, teamId, registeredAt: at }).onConflictDoNothing().returning({ teamId: innFirstRegistrations.teamId })
    if (mine) return mine.teamId
    const [first] = await q.select({ teamId: innFirstRegistrations.teamId }).from(innFirstRegistrations).where(eq(innFirstRegistrations.inn, inn)).limit(1)
    return first!.teamId
  },

  firstTeamOf: async (inn: string) =>
    (await db.select({ teamId: innFirstRegistrations.teamId }).from(innFirstRegistrations).where(eq(innFirstRegistrations.inn, inn)).limit(1))[0]?.teamId ?? null,

  /**
   * Every team's registration of an INN that more than one team registered, with the team's name and
   * whether it was the first; with `pendingOnly`, only INNs where one of them awaits the site admin.
   */
  innConflicts(pendingOnly: boolean, limit: number) {
    const shared = db.select({ inn: teamCompanies.inn }).from(teamCompanies).groupBy(teamCompanies.inn).having(sql`${count()} > 1`)
    const waiting = db.select({ inn: teamCompanies.inn }).from(teamCompanies).where(eq(teamCompanies.innConfirmation, 'pending'))
    return db
      .select({ company: teamCompanies, teamName: teams.name, firstTeamId: innFirstRegistrations.teamId })
      .from(teamCompanies)
      .innerJoin(teams, eq(teams.id, teamCompanies.teamId))
      .leftJoin(innFirstRegistrations, eq(innFirstRegistrations.inn, teamCompanies.inn))
      .where(and(inArray(teamCompanies.inn, shared), pendingOnly ? inArray(teamCompanies.inn, waiting) : undefined))
      .orderBy(asc(teamCompanies.inn), asc(teamCompanies.updatedAt))
      .limit(limit)
  },

  /** The site admin's decision on a team's INN, if it is still `inn` and in one of the `from` states; undefined otherwise. */
  async reviewInn(q: Db, teamId: string, inn: string, from: InnConfirmation[], to: InnConfirmation, at: Date, by: string) {
    const [row] = await q
      .update(teamCompanies)
      .set({ innConfirmation: to, innReviewedAt: at, innReviewedBy: by })
      .where(and(eq(teamCompanies.teamId, teamId), eq(teamCompanies.inn, inn), inArray(teamCompanies.innConfirmation, from)))
      .returning()
    return row
  },

  /**
   * The team's registration of one of `inns` when it awaits (`pending`) or failed (`rejected`) the
   * site admin's confirmation: money from that INN is not the team's to receive; null otherwise.
   */
  async innHold(q: Db, teamId: string, inns: string[]): Promise<{ inn: string; state: 'pending' | 'rejected' } | null> {
    const wanted = inns.filter(Boolean)
    if (!wanted.length) return null
    const [row] = await q
      .select({ inn: teamCompanies.inn, state: teamCompanies.innConfirmation })
      .from(teamCompanies)
      .where(and(eq(teamCompanies.teamId, teamId), inArray(teamCompanies.inn, wanted), inArray(teamCompanies.innConfirmation, ['pending', 'rejected'])))
      .limit(1)
    return row ? { inn: row.inn, state: row.state as 'pending' | 'rejected' } : null
  },

  insertInvoice: (q: Db, row: typeof invoices.$inferInsert) => q.insert(invoices).values(row),

  invoice: async (id: string) => (await db.select().from(invoices).where(eq(invoices.id, id)).limit(1))[0],

  teamInvoice: async (teamId: string, id: string) =>
    (
      await db
        .select()
        .from(invoices)
        .where(and(eq(invoices.teamId, teamId), eq(invoices.id, id)))
        .limit(1)
    )[0],

  teamInvoices: (teamId: string, limit: number) =>
    db.select().from(invoices).where(eq(invoices.teamId, teamId)).orderBy(desc(invoices.issuedAt), desc(invoices.number)).limit(limit),

  /** The invoices a statement's purposes name, for the matcher. */
  byNumbers: (numbers: string[]) => (numbers.length ? db.select().from(invoices).where(inArray(invoices.number, numbers)) : Promise.resolve([] as InvoiceRow[])),

  byNumber: async (number: string) => (await db.select().from(invoices).where(eq(invoices.number, number)).limit(1))[0],

  /** For the admin: invoices with their team's name, newest first; a status, or all. */
  adminInvoices: (status: InvoiceStatus | null, limit: number): Promise<InvoiceListRow[]> =>
    db
      .select({ invoice: invoices, teamName: teams.name })
      .from(invoices)
      .innerJoin(teams, eq(teams.id, invoices.teamId))
      .where(status ? eq(invoices.status, status) : undefined)
      .orderBy(desc(invoices.issuedAt), desc(invoices.number))
      .limit(limit)
      .then((rows) => rows.map((r) => ({ ...r.invoice, teamName: r.teamName }))),

  /**
   * issued → paid, once: of concurrent callers on any instance only one gets the row back (PostgreSQL
   * re-checks `status = 'issued'` after the winner commits). Call inside the crediting unit.
   */
  async markPaid(q: Db, id: string, f: { paidAt: Date; receivedAt: Date; paidMicros: number; bankPaymentId: string | null; paidBy: string }) {
    const [row] = await q
      .update(invoices)
      .set({ status: 'paid', ...f })
      .where(and(eq(invoices.id, id), eq(invoices.status, 'issued')))
      .returning()
    return row
  },

  /** issued → cancelled, once; undefined when it was no longer issued. */
  async cancel(teamId: string, id: string, by: string, at: Date) {
    const [row] = await write(db, (q) =>
      q
        .update(invoices)
        .set({ status: 'cancelled', cancelledAt: at, cancelledBy: by })
        .where(and(eq(invoices.teamId, teamId), eq(invoices.id, id), eq(invoices.status, 'issued')))
        .returning(),
    )
    return row
  },

  /**
   * Records a statement payment the first time its key is seen; undefined when it was imported
   * before. On PostgreSQL a second instance inserting the same key waits for the first unit and then
   * inserts nothing, so the payment is acted on once.
   */
  async insertBankPayment(q: Db, row: typeof bankPayments.$inferInsert) {
    const [inserted] = await q.insert(bankPayments).values(row).onConflictDoNothing({ target: bankPayments.key }).returning({ id: bankPayments.id })
    return inserted
  },

  bankPaymentByKey: async (key: string) => (await db.select().from(bankPayments).where(eq(bankPayments.key, key)).limit(1))[0],

  bankPayment: async (id: string) => (await db.select().from(bankPayments).where(eq(bankPayments.id, id)).limit(1))[0],

  bankPaymentsByStatus: (status: BankPaymentStatus, limit: number) =>
    db.select().from(bankPayments).where(eq(bankPayments.status, status)).orderBy(desc(bankPayments.importedAt), desc(bankPayments.orderDate)).limit(limit),

  /** Moves a payment on from `from` (unmatched, or just inserted); undefined when someone else already did. */
  async resolveBankPayment(q: Db, id: string, from: BankPaymentStatus, set: Partial<BankPaymentRow>): Promise<BankPaymentRow | undefined> {
    const [row] = await q
      .update(bankPayments)
      .set(set)
      .where(and(eq(bankPayments.id, id), eq(bankPayments.status, from)))
      .returning()
    return row
  },

  /** The team's paid invoices whose money arrived within [from, to): the receipts of a self-employed seller's month. */
  receivedIn: (teamId: string, from: Date, to: Date) =>
    db
      .select()
      .from(invoices)
      .where(and(eq(invoices.teamId, teamId), eq(invoices.status, 'paid'), sql`${invoices.receivedAt} >= ${from.getTime()}`, sql`${invoices.receivedAt} < ${to.getTime()}`))
      .orderBy(invoices.receivedAt, invoices.number),

  /** The first and last instants of the team's usage charges (null, null without any). */
  async usageSpan(teamId: string): Promise<{ first: Date | null; last: Date | null }> {
    const [row] = await db
      .select({ first: min(ledgerEntries.createdAt), last: max(ledgerEntries.createdAt) })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.teamId, teamId), eq(ledgerEntries.type, 'usage')))
    return { first: row?.first ?? null, last: row?.last ?? null }
  },

  /**
   * Σ of the team's usage ledger rows per bucket, in one pass: `bounds` are ascending exclusive upper
   * ends of consecutive periods (the first starting at `from`); a row lands in the first bucket whose
   * end is after it. Answers signed micro-rubles per bucket index.
   */
  async usageSums(teamId: string, from: Date, bounds: Date[]): Promise<Map<number, number>> {
    if (!bounds.length) return new Map()
    const bucket: SQL = sql`case ${sql.join(
      bounds.map((b, i) => sql`when ${ledgerEntries.createdAt} < ${b.getTime()} then ${sql.raw(String(i))}`),
      sql` `,
    )} end`
    // Grouped by position: the CASE carries parameters, and PostgreSQL compares a GROUP BY
    // expression with the selected one by its text, placeholders included.
    const rows = await db
      .select({ bucket: bucket.mapWith(Number), micros: sum(ledgerEntries.amountMicros).mapWith(Number) })
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.teamId, teamId),
          eq(ledgerEntries.type, 'usage'),
          sql`${ledgerEntries.createdAt} >= ${from.getTime()}`,
          sql`${ledgerEntries.createdAt} < ${bounds.at(-1)!.getTime()}`,
        ),
      )
      .groupBy(sql`1`)
    return new Map(rows.map((r) => [r.bucket, r.micros]))
  },

  teamActs: (teamId: string) => db.select().from(teamActs).where(eq(teamActs.teamId, teamId)),

  /**
   * The act of a team's month, numbered on first sight. The row is inserted first and numbered only
   * if this unit inserted it: a concurrent listing (another instance) waits on the unique index and
   * then inserts nothing, so no number is taken twice and none is skipped.
   */
  async ensureAct(q: Db, row: { id: string; teamId: string; year: number; month: number; createdAt: Date }) {
    const [inserted] = await q
      .insert(teamActs)
      .values(row)
      .onConflictDoNothing({ target: [teamActs.teamId, teamActs.year, teamActs.month] })
      .returning({ id: teamActs.id })
    if (!inserted) return
    const number = await allocateActNumber(q, row.year, row.month)
    await q.update(teamActs).set({ number }).where(eq(teamActs.id, inserted.id))
  },
})

export type InvoicesStore = ReturnType<typeof invoicesStore>
