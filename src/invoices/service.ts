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
import { type ReceivedPayment, renderActPdf } from './act-pdf'
import { formatKopecks, kopecksFromMicros, kopecksFromText, microsFromKopecks } from './amount'
import { companyService, mayBill } from './company'
import { type Month, monthBounds, monthOf } from './dates'
import { invoicePurpose, renderInvoicePdf } from './invoice-pdf'
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

const periodKey = (m: Month) => `${m.year}-${String(m.month).padStart(2, '0')}`

function parsePeriod(raw: string): Month | null {
  const m = /^(\d{4})-(\d{2})$/.exec(raw.trim())
  const month = m ? Number(m[2]) : 0
  return m && month >= 1 && month <= 12 ? { year: Number(m[1]), month } : null
}

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

/** `attachment; filename*=UTF-8''…` with an ASCII fallback, so «Счёт 2026-000123.pdf» survives downloads. */
const disposition = (filename: string, fallback: string) => `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`

export type PdfFile = { bytes: Uint8Array; filename: string; disposition: string }

export function invoicesService({ db, config, mailer, teams }: InvoicesDeps) {
  const store = invoicesStore(db)

  const inTeam = teamAccess(teams)
  const views = invoiceViews(config.publicUrl)

  const { pdfUrl } = views
  const actUrl = (teamId: string, m: Month) => `${config.publicUrl}/api/teams/${teamId}/acts/${periodKey(m)}/pdf`

  const invoiceToApi = views.invoice

  const invoiceFile = async (row: InvoiceRow): Promise<PdfFile> => ({
    bytes: await renderInvoicePdf(documentData(row)),
    filename: `Счёт ${row.number}.pdf`,
    disposition: disposition(`Счёт ${row.number}.pdf`, `invoice-${row.number}.pdf`),
  })

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

  /** The months (Moscow) in which the team spent, with the sum of their usage ledger rows, oldest first. */
  async function monthlyCharges(teamId: string): Promise<Array<{ period: Month; micros: number }>> {
    const { first, last } = await store.usageSpan(teamId)
    if (!first || !last) return []
    const months: Month[] = []
    const end = monthOf(last)
    for (
      let m = monthOf(first);
      m.year < end.year || (m.year === end.year && m.month <= end.month);
      m = m.month === 12 ? { year: m.year + 1, month: 1 } : { year: m.year, month: m.month + 1 }
    )
      months.push(m)
    const sums = await store.usageSums(
      teamId,
      monthBounds(months[0]!).from,
      months.map((m) => monthBounds(m).to),
    )
    // Usage rows are charges (negative): the act states what was spent. A month whose spending
    // rounds to no kopeck has nothing to put on an act.
    return months.map((period, i) => ({ period, micros: -(sums.get(i) ?? 0) })).filter((m) => m.micros > 0 && kopecksFromMicros(m.micros) > 0)
  }

  /** The team's acts: every month with spending, numbered the first time it is seen. */
  async function acts(teamId: string) {
    const months = await monthlyCharges(teamId)
    if (!months.length) return []
    let rows = await store.teamActs(teamId)
    const known = new Set(rows.filter((r) => r.number).map((r) => `${r.year}-${r.month}`))
    const missing = months.filter((m) => !known.has(`${m.period.year}-${m.period.month}`))
    if (missing.length) {
      await tx(db, async (q) => {
        for (const m of missing) await invoicesStore(q).ensureAct(q, { id: newId(), teamId, year: m.period.year, month: m.period.month, createdAt: new Date() })
      })
      rows = await store.teamActs(teamId)
    }
    const current = monthOf(new Date())
    return months.flatMap((m) => {
      const row = rows.find((r) => r.year === m.period.year && r.month === m.period.month)
      if (!row?.number) return []
      const preliminary = m.period.year > current.year || (m.period.year === current.year && m.period.month >= current.month)
      return [{ id: row.id, number: row.number, period: m.period, amountKopecks: kopecksFromMicros(m.micros), preliminary }]
    })
  }

  return {
    ...companyService({ db, config, mailer, teams }),

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

    /** The invoice's PDF: only to the team's owner, admins and billing members (404 for outsiders, 403 for a member). */
    async invoicePdf(user: User, teamId: string, invoiceId: string, ip: string): Promise<PdfFile> {
      await inTeam(user, teamId, 'topup', ip)
      const row = await store.teamInvoice(teamId, invoiceId)
      if (!row) throw notFound(INVOICE_MESSAGES.notFound)
      return invoiceFile(row)
    },

    /** Invoices and acts, newest first. */
    async documents(user: User, teamId: string, ip: string) {
      await inTeam(user, teamId, 'topup', ip)
      const [rows, monthly] = await Promise.all([store.teamInvoices(teamId, MAX_LISTED), config.seller ? acts(teamId) : []])
      const docs = [
        ...rows.map((r) => ({
          kind: 'invoice' as const,
          id: r.id,
          number: r.number,
          date: r.issuedAt.toISOString(),
          amountRub: microsToRub(r.amountMicros),
          pdfUrl: pdfUrl(r),
          status: r.status,
        })),
        ...monthly.map((m) => ({
          kind: 'act' as const,
          id: m.id,
          number: m.number,
          period: periodKey(m.period),
          // The month's end: when an act is dated (its last day, Moscow).
          date: monthBounds(m.period).to.toISOString(),
          amountRub: m.amountKopecks / 100,
          pdfUrl: actUrl(teamId, m.period),
          preliminary: m.preliminary,
        })),
      ]
      return docs.sort((x, y) => (x.date < y.date ? 1 : x.date > y.date ? -1 : x.number < y.number ? 1 : -1))
    },

    /**
     * The act of a month as a PDF. For a self-employed seller it is the receipt data instead: the
     * month's invoice payments, each to register in «Мой налог» with the buyer's INN. Card payments are
     * not listed: they go through YooKassa with a receipt (payments/service.ts sends one with every
     * payment), and for a self-employed shop YooKassa registers that receipt in «Мой налог» itself —
     * listing them here would have the seller register the same income twice.
     */
    async actPdf(user: User, teamId: string, rawPeriod: string, ip: string): Promise<PdfFile> {
      const a = await inTeam(user, teamId, 'topup', ip)
      const seller = config.seller
      if (!seller) throw badRequest(INVOICE_MESSAGES.disabled)
      const period = parsePeriod(rawPeriod)
      if (!period) throw badRequest(INVOICE_MESSAGES.badPeriod)
      const act = (await acts(teamId)).find((m) => m.period.year === period.year && m.period.month === period.month)
      if (!act) throw notFound(INVOICE_MESSAGES.actNotFound)
      const company = await store.company(teamId)
      // A company the team is not confirmed for is not named on its documents either: the act goes to the team.
      const buyer =
        company && mayBill(company.innConfirmation)
          ? { name: company.name, inn: company.inn, kpp: company.kpp, address: company.address }
          : { name: a.teamName, inn: '', kpp: null, address: '' }
      let payments: ReceivedPayment[] | undefined
      if (seller.taxRegime === 'npd') {
        const { from, to } = monthBounds(period)
        payments = (await store.receivedIn(teamId, from, to)).map((r) => ({
          receivedAt: r.receivedAt!,
          amountKopecks: kopecksFromMicros(r.paidMicros ?? r.amountMicros),
          basis: `Счёт № ${r.number}`,
        }))
      }
      const bytes = await renderActPdf({
        number: act.number,
        period,
        seller,
        buyer,
        account: a.teamName,
        amountKopecks: act.amountKopecks,
        offerUrl: `${config.publicUrl}/public-offer`,
        payments,
      })
      const what = seller.taxRegime === 'npd' ? 'Данные для чеков' : 'Акт'
      return { bytes, filename: `${what} ${act.number}.pdf`, disposition: disposition(`${what} ${act.number}.pdf`, `act-${act.number}.pdf`) }
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
