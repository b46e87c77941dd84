// Issuing invoices: the amount as people type it, a gap-free number taken in the unit that inserts the
// invoice (numbering.ts, store.ts), the PDF mailed to the company's document address, and cancelling
// one that is not paid. Only in the name of a company the team may bill for (company.ts).

import { INVOICE } from '../content/terms'
import { tx } from '../db/tx'
import { newId } from '../lib/crypto'
import { badRequest, conflict, notFound } from '../lib/errors'
import { formatMicros, microsToRub } from '../lib/money'
import { consume } from '../lib/rate-limit'
import { invoiceLetter } from '../mail/templates'
import { auditIn } from '../teams/service'
import { type InvoicesDeps, MAX_LISTED, teamAccess, type User } from './access'
import { formatKopecks, kopecksFromMicros, kopecksFromText, microsFromKopecks } from './amount'
import { mayBill } from './company'
import { invoiceFile } from './documents'
import { invoicePurpose } from './invoice-pdf'
import { INVOICE_MESSAGES } from './messages'
import { invoiceYear } from './numbering'
import type { InvoiceRow, InvoiceStatus } from './schema'
import { allocateInvoiceNumber, invoicesStore } from './store'
import { documentData, invoiceViews } from './views'

/** Invoices a team may issue per hour: each takes a number for good (numbers never return). */
const ISSUE_RULE = { limit: 30, windowSec: 3600 }

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

export function issuingService({ db, config, mailer, teams }: InvoicesDeps) {
  const store = invoicesStore(db)
  const inTeam = teamAccess(teams)
  const views = invoiceViews(config.publicUrl)
  const invoiceToApi = views.invoice

  return {
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

    adminInvoices: async (status: InvoiceStatus | null, limit: number) => (await store.adminInvoices(status, limit)).map((r) => views.adminInvoice(r, r.teamName)),
  }
}
