// Paying as a company (issue 24): a team's company details, invoices with gap-free numbers and their
// PDFs, the bank statement import that credits them, and the monthly closing documents.
//
// The money rule is the card top-up's (payments/service.ts): an invoice is credited only on its single
// transition issued → paid, in the unit that posts the ledger row (reference `invoice:<id>`, unique:
// a second lock), so a statement imported twice, by two instances at once, or a payment assigned by
// hand while the import runs, credits the team once. Statement payments are recorded by their key
// first, in the same unit, so a payment is acted on once however often its file comes back.

import { INVOICE } from '../content/terms'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { badRequest, conflict, notFound } from '../lib/errors'
import { formatMicros, microsToRub } from '../lib/money'
import { consume } from '../lib/rate-limit'
import { invoiceLetter } from '../mail/templates'
import { LEDGER, postMovement, rearmLowBalance } from '../money'
import { auditIn } from '../teams/service'
import { type InvoicesDeps, MAX_LISTED, teamAccess, type User } from './access'
import { formatKopecks, kopecksFromMicros, kopecksFromText, microsFromKopecks } from './amount'
import { companyService, mayBill } from './company'
import { documentsService, invoiceFile } from './documents'
import { invoicePurpose } from './invoice-pdf'
import { invoiceNumbersIn, malformedNumbersIn, matchPayments, UNMATCHED_REASONS_RU, type UnmatchedReason } from './match'
import { INVOICE_MESSAGES } from './messages'
import { invoiceYear } from './numbering'
import type { BankPaymentRow, InvoiceRow, InvoiceStatus } from './schema'
import { type IncomingPayment, readIncomingPayments, StatementError } from './statement'
import { allocateInvoiceNumber, invoicesStore } from './store'
import { documentData, invoiceViews } from './views'

/** Invoices a team may issue per hour: each takes a number for good (numbers never return). */
const ISSUE_RULE = { limit: 30, windowSec: 3600 }

/** `2026-11-21` (a bank's date) → noon of that Moscow day: the instant a month or a receipt is counted at. */
const moscowNoon = (isoDay: string) => new Date(`${isoDay}T12:00:00+03:00`)

/**
 * Rubles as the API takes them (a number, or a string people type: «1 200,50») → micro-rubles of
 * whole kopecks. A string is read as a decimal only (never by Number(), which takes «0x3E8» and «1e3»
 * for 1 000); a number through its decimal text, by the same exact reader.
 */
function parseAmount(raw: unknown): number {
  let text: string
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) throw badRequest(INVOICE_MESSAGES.amountNotNumber)
    // Bounds first: outside them String() may write an exponent, which is no reason to call it «not a number».
    if (raw < INVOICE.minRub) throw badRequest(INVOICE.minMessage)
    if (raw > INVOICE.maxRub) throw badRequest(INVOICE.maxMessage)
    text = String(raw)
  } else if (typeof raw === 'string') text = raw
  else throw badRequest(INVOICE_MESSAGES.amountNotNumber)
  const read = kopecksFromText(text)
  if ('error' in read) {
    if (read.error === 'sub_kopeck') throw badRequest(INVOICE_MESSAGES.kopecks)
    throw badRequest(read.error === 'too_large' ? INVOICE.maxMessage : INVOICE_MESSAGES.amountNotNumber)
  }
  if (read.kopecks < INVOICE.minRub * 100) throw badRequest(INVOICE.minMessage)
  if (read.kopecks > INVOICE.maxRub * 100) throw badRequest(INVOICE.maxMessage)
  return microsFromKopecks(read.kopecks)
}

export type { PdfFile } from './documents'

export function invoicesService({ db, config, mailer, teams }: InvoicesDeps) {
  const store = invoicesStore(db)

  const inTeam = teamAccess(teams)
  const views = invoiceViews(config.publicUrl)

  const invoiceToApi = views.invoice

  /** Refuses to credit an invoice of a team whose registration of `inns` awaits or failed the site admin's confirmation. */
  async function refuseHeldInn(q: Db, teamId: string, inns: string[]) {
    const held = await invoicesStore(q).innHold(q, teamId, inns)
    if (held) throw conflict(INVOICE_MESSAGES.innHeld(held.inn, held.state))
  }

  /**
   * Credits a paid invoice inside the unit `q`: issued → paid, the team's ledger row «Оплата по счёту
   * № …» (type topup, like a card top-up: refunds count it the same way) and the team's audit entry.
   * Undefined when the invoice was no longer issued (paid by someone else first, or cancelled).
   */
  async function credit(
    q: Db,
    invoiceId: string,
    f: { amountMicros: number; receivedAt: Date; bankPaymentId: string | null; adminId: string; how: 'statement' | 'assigned' | 'manual' },
  ) {
    const now = new Date()
    const row = await invoicesStore(q).markPaid(q, invoiceId, {
      paidAt: now,
      receivedAt: f.receivedAt,
      paidMicros: f.amountMicros,
      bankPaymentId: f.bankPaymentId,
      paidBy: f.adminId,
    })
    if (!row) return undefined
    // The team's row names the member who issued the invoice, as a card top-up's names its payer.
    const account = { userId: row.issuedBy, teamId: row.teamId }
    await postMovement(q, {
      ...account,
      type: 'topup',
      amountMicros: f.amountMicros,
      description: LEDGER.invoice.description(row.number),
      reference: LEDGER.invoice.reference(row.id),
      actorId: f.adminId,
      now,
    })
    await rearmLowBalance(q, account)
    await auditIn(q, {
      teamId: row.teamId,
      actorId: f.adminId,
      action: 'invoice.paid',
      target: `№ ${row.number}`,
      details: { amountRub: microsToRub(f.amountMicros), how: f.how, bankPaymentId: f.bankPaymentId, byPlatformAdmin: true },
      at: now,
    })
    return row
  }

  const paymentToApi = (p: BankPaymentRow) => ({
    id: p.id,
    ...(p.invoiceNumber ? { number: p.invoiceNumber } : {}),
    amountRub: microsToRub(p.amountMicros),
    reason: p.reason as UnmatchedReason | null,
    reasonText: p.reason ? (UNMATCHED_REASONS_RU[p.reason as UnmatchedReason] ?? p.reason) : null,
    status: p.status,
    paymentNumber: p.orderNumber,
    date: p.receivedDate ?? p.orderDate,
    payerName: p.payerName,
    payerInn: p.payerInn,
    purpose: p.purpose,
    importedAt: p.importedAt.toISOString(),
  })

  const credited = (row: InvoiceRow, amountMicros: number, paymentId: string | null, teamName: string) => ({
    invoice: row.number,
    amountRub: microsToRub(amountMicros),
    invoiceId: row.id,
    teamId: row.teamId,
    teamName,
    paymentId,
  })

  return {
    ...companyService({ db, config, mailer, teams }),
    ...documentsService({ db, config, mailer, teams }),

    /** Whether invoices are offered here (the SPA hides them, and tells a site admin why, when not). */
    availability: () => ({ enabled: config.seller !== null, minRub: INVOICE.minRub, maxRub: INVOICE.maxRub, taxRegime: config.seller?.taxRegime ?? null }),

    async issue(user: User, teamId: string, rawAmount: unknown, ip: string) {
      const a = await inTeam(user, teamId, 'topup', ip)
      const seller = config.seller
      if (!seller) throw badRequest(INVOICE_MESSAGES.disabled)
      const amountMicros = parseAmount(rawAmount)
      const company = await store.company(teamId)
      if (!company) throw badRequest(INVOICE_MESSAGES.noCompany)
      // Another team's INN: no invoice in that company's name until the site admin confirms it.
      if (!mayBill(company.innConfirmation))
        throw conflict(company.innConfirmation === 'pending' ? INVOICE_MESSAGES.innPending(company.inn) : INVOICE_MESSAGES.innRejected(company.inn))
      await consume(db, `invoice-issue:${teamId}`, ISSUE_RULE)
      const now = new Date()
      const document = {
        seller,
        buyer: { name: company.name, inn: company.inn, kpp: company.kpp, address: company.address },
        account: a.teamName,
        offerUrl: `${config.publicUrl}/public-offer`,
      }
      const row = await tx(db, async (q) => {
        // The number is taken in the unit that inserts the invoice: no gap if anything here fails.
        const number = await allocateInvoiceNumber(q, invoiceYear(now))
        const row: InvoiceRow = {
          id: newId(),
          number,
          teamId,
          issuedBy: a.userId,
          amountMicros,
          status: 'issued',
          issuedAt: now,
          document,
          buyerInn: company.inn,
          sentTo: company.email,
          paidAt: null,
          receivedAt: null,
          paidMicros: null,
          bankPaymentId: null,
          paidBy: null,
          cancelledAt: null,
          cancelledBy: null,
        }
        await invoicesStore(q).insertInvoice(q, row)
        await auditIn(q, { teamId, actorId: a.userId, action: 'invoice.issued', target: `№ ${number}`, ip, details: { amountRub: microsToRub(amountMicros) }, at: now })
        return row
      })
      console.log(`[invoices] ${row.number} for ${formatMicros(amountMicros)} ₽ issued to team ${teamId} by user ${a.userId}`)
      // The letter leaves after the answer: a slow mail server never holds up the invoice.
      void invoiceFile(row)
        .then((file) =>
          mailer.send(
            invoiceLetter(company.email, {
              number: row.number,
              amount: formatKopecks(kopecksFromMicros(amountMicros)),
              teamName: a.teamName,
              purpose: invoicePurpose(documentData(row)),
              pdf: file.bytes,
              filename: file.filename,
              billingLink: `${config.publicUrl}/app/team/documents`,
            }),
          ),
        )
        .catch((e) => console.error(`[mail] invoice ${row.number} to team ${teamId} failed:`, (e as Error).message))
      return invoiceToApi(row)
    },

    async list(user: User, teamId: string, ip: string) {
      await inTeam(user, teamId, 'topup', ip)
      return (await store.teamInvoices(teamId, MAX_LISTED)).map(invoiceToApi)
    },

    async get(user: User, teamId: string, invoiceId: string, ip: string) {
      await inTeam(user, teamId, 'topup', ip)
      const row = await store.teamInvoice(teamId, invoiceId)
      if (!row) throw notFound(INVOICE_MESSAGES.notFound)
      return invoiceToApi(row)
    },

    async cancel(user: User, teamId: string, invoiceId: string, ip: string) {
      const a = await inTeam(user, teamId, 'topup', ip)
      const existing = await store.teamInvoice(teamId, invoiceId)
      if (!existing) throw notFound(INVOICE_MESSAGES.notFound)
      const now = new Date()
      const row = await tx(db, async (q) => {
        const row = await invoicesStore(q).cancel(teamId, invoiceId, a.userId, now)
        if (row) await auditIn(q, { teamId, actorId: a.userId, action: 'invoice.cancelled', target: `№ ${row.number}`, ip, at: now })
        return row
      })
      if (!row) throw conflict(INVOICE_MESSAGES.cancelledOnlyIssued)
      return invoiceToApi(row)
    },

    // ─── the site admin ────────────────────────────────────────────────────────

    /**
     * Reads a bank statement and acts on each incoming payment once: matched ones credit their
     * invoice, the rest wait for the admin with the reason. Payments seen in an earlier import are
     * not acted on again (those still unmatched are listed again, so the admin sees what waits).
     */
    async importStatement(admin: User, file: Blob) {
      const seller = config.seller
      if (!seller) throw badRequest(INVOICE_MESSAGES.disabled)
      let payments: IncomingPayment[]
      try {
        payments = readIncomingPayments(new Uint8Array(await file.arrayBuffer()), seller.account)
      } catch (e) {
        if (e instanceof StatementError) throw badRequest(e.message)
        throw e
      }
      const named = [...new Set(payments.flatMap((p) => invoiceNumbersIn(p.purpose)))]
      const invoices = (await store.byNumbers(named)).map((r) => ({ ...r, amountKopecks: kopecksFromMicros(r.amountMicros) }))
      const teamNames = new Map<string, string>()
      const teamName = async (id: string) => {
        if (!teamNames.has(id)) teamNames.set(id, (await teams.teamName(id)) ?? '')
        return teamNames.get(id)!
      }
      const result = { credited: [] as ReturnType<typeof credited>[], unmatched: [] as ReturnType<typeof paymentToApi>[], payments: payments.length, alreadyImported: 0 }
      for (const m of matchPayments(payments, invoices)) {
        const p = m.payment
        const id = newId()
        const now = new Date()
        const receivedAt = moscowNoon(p.receivedDate ?? p.date)
        const outcome = await tx(db, async (q) => {
          const s = invoicesStore(q)
          const unmatched = m.status === 'unmatched' ? m : null
          const inserted = await s.insertBankPayment(q, {
            id,
            key: p.key,
            orderNumber: p.number,
            orderDate: p.date,
            receivedDate: p.receivedDate,
            amountMicros: p.amountMicros,
            payerInn: p.payerInn,
            payerKpp: p.payerKpp,
            payerName: p.payerName,
            payerAccount: p.payerAccount,
            payerBik: p.payerBik,
            purpose: p.purpose,
            status: 'unmatched',
            reason: unmatched?.reason ?? null,
            invoiceNumber: m.status === 'matched' ? m.invoice.number : m.number,
            invoiceId: null,
            importedAt: now,
            importedBy: admin.id,
          })
          if (!inserted) return { kind: 'known' as const }
          if (m.status === 'unmatched') return { kind: 'unmatched' as const }
          // The payer's INN registered by this team without the admin's confirmation: the money may be
          // another company's, so it waits for the admin like any unmatched payment.
          const held = await s.innHold(q, m.invoice.teamId, [p.payerInn])
          if (held) {
            await s.resolveBankPayment(q, id, 'unmatched', { reason: held.state === 'pending' ? 'inn_unconfirmed' : 'inn_rejected' })
            return { kind: 'unmatched' as const }
          }
          const row = await credit(q, m.invoice.id, { amountMicros: p.amountMicros, receivedAt, bankPaymentId: id, adminId: admin.id, how: 'statement' })
          // Paid in the meantime (another import, an assignment, the manual mark): this payment waits for the admin.
          if (!row) {
            await s.resolveBankPayment(q, id, 'unmatched', { reason: 'already_paid' })
            return { kind: 'unmatched' as const }
          }
          await s.resolveBankPayment(q, id, 'unmatched', { status: 'credited', reason: null, invoiceId: row.id, resolvedAt: now, resolvedBy: admin.id })
          return { kind: 'credited' as const, row }
        })
        if (outcome.kind === 'credited') {
          result.credited.push(credited(outcome.row, p.amountMicros, id, await teamName(outcome.row.teamId)))
          continue
        }
        const stored = outcome.kind === 'known' ? await store.bankPaymentByKey(p.key) : await store.bankPayment(id)
        if (outcome.kind === 'known') result.alreadyImported++
        if (stored?.status === 'unmatched') result.unmatched.push(paymentToApi(stored))
      }
      console.log(
        `[invoices] statement imported by ${admin.email}: ${payments.length} payment(s), ${result.credited.length} credited, ${result.unmatched.length} unmatched, ${result.alreadyImported} seen before`,
      )
      return result
    },

    bankPayments: async (status: BankPaymentRow['status'], limit: number) => (await store.bankPaymentsByStatus(status, limit)).map(paymentToApi),

    /** An unmatched payment credited to the invoice the admin names, with the amount that came in. */
    async assign(admin: User, paymentId: string, rawInvoice: string) {
      const typed = `№ ${rawInvoice.trim()}`
      const number = invoiceNumbersIn(typed)[0]
      if (!number) throw badRequest(malformedNumbersIn(typed).length ? INVOICE_MESSAGES.zeroNumber(rawInvoice.trim()) : INVOICE_MESSAGES.assignNumber)
      const invoice = await store.byNumber(number)
      if (!invoice) throw notFound(`Счёт № ${number} не найден`)
      if (!(await store.bankPayment(paymentId))) throw notFound(INVOICE_MESSAGES.paymentNotFound)
      const now = new Date()
      const done = await tx(db, async (q) => {
        const p = await invoicesStore(q).resolveBankPayment(q, paymentId, 'unmatched', { status: 'credited', invoiceId: invoice.id, resolvedAt: now, resolvedBy: admin.id })
        if (!p) throw conflict(INVOICE_MESSAGES.paymentResolved)
        await refuseHeldInn(q, invoice.teamId, [p.payerInn, invoice.buyerInn])
        const row = await credit(q, invoice.id, {
          amountMicros: p.amountMicros,
          receivedAt: moscowNoon(p.receivedDate ?? p.orderDate),
          bankPaymentId: p.id,
          adminId: admin.id,
          how: 'assigned',
        })
        // Throwing undoes the payment's resolution too: it stays unmatched.
        if (!row) throw conflict(`Счёт № ${number} уже оплачен или отменён`)
        return { row, amountMicros: p.amountMicros }
      })
      console.log(`[invoices] bank payment ${paymentId} assigned to ${number} by ${admin.email}`)
      return credited(done.row, done.amountMicros, paymentId, (await teams.teamName(done.row.teamId)) ?? '')
    },

    /** A payment that is not for an invoice (a provider's payout, a refund to us): off the admin's list, nothing credited. */
    async dismiss(admin: User, paymentId: string) {
      if (!(await store.bankPayment(paymentId))) throw notFound(INVOICE_MESSAGES.paymentNotFound)
      const p = await tx(db, (q) => invoicesStore(q).resolveBankPayment(q, paymentId, 'unmatched', { status: 'dismissed', resolvedAt: new Date(), resolvedBy: admin.id }))
      if (!p) throw conflict(INVOICE_MESSAGES.paymentResolved)
      return paymentToApi(p)
    },

    adminInvoices: async (status: InvoiceStatus | null, limit: number) => (await store.adminInvoices(status, limit)).map((r) => views.adminInvoice(r, r.teamName)),

    /** «Отметить оплаченным»: the invoice's amount credited once, as if its payment had been imported. */
    async markPaid(admin: User, invoiceId: string) {
      const existing = await store.invoice(invoiceId)
      if (!existing) throw notFound(INVOICE_MESSAGES.notFound)
      const now = new Date()
      const row = await tx(db, async (q) => {
        await refuseHeldInn(q, existing.teamId, [existing.buyerInn])
        return credit(q, invoiceId, { amountMicros: existing.amountMicros, receivedAt: now, bankPaymentId: null, adminId: admin.id, how: 'manual' })
      })
      if (!row) throw conflict(INVOICE_MESSAGES.notIssued)
      console.log(`[invoices] ${row.number} marked paid by ${admin.email}`)
      return views.adminInvoice(row, (await teams.teamName(row.teamId)) ?? '')
    },
  }
}

export type InvoicesService = ReturnType<typeof invoicesService>
