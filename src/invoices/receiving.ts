// Money received for invoices, the site admin's side: the bank statement import (each incoming payment
// recorded by its key first, in the unit that credits it, so a payment is acted on once however often
// its file comes back), the payments left unmatched, assigned to an invoice or dismissed by hand, and
// «Отметить оплаченным». Every credit goes through credit.ts.

import { moscowMs } from '../content/moscow'
import { tx } from '../db/tx'
import { newId } from '../lib/crypto'
import { badRequest, conflict, notFound } from '../lib/errors'
import { microsToRub } from '../lib/money'
import type { InvoicesDeps, User } from './access'
import { kopecksFromMicros } from './amount'
import { creditInvoice, refuseHeldInn } from './credit'
import { invoiceNumbersIn, malformedNumbersIn, matchPayments, UNMATCHED_REASONS_RU, type UnmatchedReason } from './match'
import { INVOICE_MESSAGES } from './messages'
import type { BankPaymentRow, InvoiceRow } from './schema'
import { type IncomingPayment, readIncomingPayments, StatementError } from './statement'
import { invoicesStore } from './store'
import { invoiceViews } from './views'

/** `2026-11-21` (a bank's date) → noon of that Moscow day: the instant a month or a receipt is counted at. */
const moscowNoon = (isoDay: string) => new Date(moscowMs(isoDay, '12:00:00'))

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

export function receivingService({ db, config, teams }: InvoicesDeps) {
  const store = invoicesStore(db)
  const views = invoiceViews(config.publicUrl)

  return {
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
          const row = await creditInvoice(q, m.invoice.id, { amountMicros: p.amountMicros, receivedAt, bankPaymentId: id, adminId: admin.id, how: 'statement' })
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
        const row = await creditInvoice(q, invoice.id, {
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

    /** «Отметить оплаченным»: the invoice's amount credited once, as if its payment had been imported. */
    async markPaid(admin: User, invoiceId: string) {
      const existing = await store.invoice(invoiceId)
      if (!existing) throw notFound(INVOICE_MESSAGES.notFound)
      const now = new Date()
      const row = await tx(db, async (q) => {
        await refuseHeldInn(q, existing.teamId, [existing.buyerInn])
        return creditInvoice(q, invoiceId, { amountMicros: existing.amountMicros, receivedAt: now, bankPaymentId: null, adminId: admin.id, how: 'manual' })
      })
      if (!row) throw conflict(INVOICE_MESSAGES.notIssued)
      console.log(`[invoices] ${row.number} marked paid by ${admin.email}`)
      return views.adminInvoice(row, (await teams.teamName(row.teamId)) ?? '')
    },
  }
}
