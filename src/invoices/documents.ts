// A team's documents: the invoice PDF, the monthly acts (numbered the first time a month with
// spending is seen; for a self-employed seller the receipt data instead) and the list of both.

import { tx } from '../db/tx'
import { newId } from '../lib/crypto'
import { badRequest, notFound } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { type InvoicesDeps, MAX_LISTED, teamAccess, type User } from './access'
import { type ReceivedPayment, renderActPdf } from './act-pdf'
import { kopecksFromMicros } from './amount'
import { mayBill } from './company'
import { type Month, monthBounds, monthOf } from './dates'
import { renderInvoicePdf } from './invoice-pdf'
import { INVOICE_MESSAGES } from './messages'
import type { InvoiceRow } from './schema'
import { invoicesStore } from './store'
import { documentData, invoiceViews } from './views'

export type PdfFile = { bytes: Uint8Array; filename: string; disposition: string }

/** `attachment; filename*=UTF-8''…` with an ASCII fallback, so «Счёт 2026-000123.pdf» survives downloads. */
const disposition = (filename: string, fallback: string) => `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`

/** The invoice's PDF as downloaded and as attached to its letter. */
export const invoiceFile = async (row: InvoiceRow): Promise<PdfFile> => ({
  bytes: await renderInvoicePdf(documentData(row)),
  filename: `Счёт ${row.number}.pdf`,
  disposition: disposition(`Счёт ${row.number}.pdf`, `invoice-${row.number}.pdf`),
})

const periodKey = (m: Month) => `${m.year}-${String(m.month).padStart(2, '0')}`

function parsePeriod(raw: string): Month | null {
  const m = /^(\d{4})-(\d{2})$/.exec(raw.trim())
  const month = m ? Number(m[2]) : 0
  return m && month >= 1 && month <= 12 ? { year: Number(m[1]), month } : null
}

export function documentsService({ db, config, teams }: InvoicesDeps) {
  const store = invoicesStore(db)
  const inTeam = teamAccess(teams)
  const { pdfUrl } = invoiceViews(config.publicUrl)
  const actUrl = (teamId: string, m: Month) => `${config.publicUrl}/api/teams/${teamId}/acts/${periodKey(m)}/pdf`

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
  }
}
