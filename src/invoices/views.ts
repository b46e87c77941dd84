// An invoice as the API shows it (to the team and to the site admin), and the data its PDF, its
// letter and its payment purpose are drawn from.

import { microsToRub } from '../lib/money'
import { kopecksFromMicros } from './amount'
import { invoicePurpose } from './invoice-pdf'
import type { InvoiceRow } from './schema'

/** The invoice as invoice-pdf.ts draws it, from what was fixed at issue. */
export const documentData = (row: InvoiceRow) => ({
  number: row.number,
  issuedAt: row.issuedAt,
  seller: row.document.seller,
  buyer: row.document.buyer,
  account: row.document.account,
  amountKopecks: kopecksFromMicros(row.amountMicros),
  offerUrl: row.document.offerUrl,
})

export function invoiceViews(publicUrl: string) {
  const pdfUrl = (row: Pick<InvoiceRow, 'teamId' | 'id'>) => `${publicUrl}/api/teams/${row.teamId}/invoices/${row.id}/pdf`

  const invoice = (row: InvoiceRow) => ({
    id: row.id,
    number: row.number,
    amountRub: microsToRub(row.amountMicros),
    status: row.status,
    pdfUrl: pdfUrl(row),
    issuedAt: row.issuedAt.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
    paidRub: row.paidMicros === null ? null : microsToRub(row.paidMicros),
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
    buyer: { name: row.document.buyer.name, inn: row.document.buyer.inn },
    purpose: invoicePurpose(documentData(row)),
  })

  return {
    pdfUrl,
    invoice,
    /** The site admin's row: the invoice and the team it was issued to. */
    adminInvoice: (row: InvoiceRow, teamName: string) => ({ ...invoice(row), teamId: row.teamId, teamName }),
  }
}

export type InvoiceViews = ReturnType<typeof invoiceViews>
