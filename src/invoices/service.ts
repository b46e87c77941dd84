// Paying as a company (issue 24): a team's company details, invoices with gap-free numbers and their
// PDFs, the bank statement import that credits them, and the monthly closing documents. This file only
// composes the parts, each with one reason to change:
//
//   company.ts    the company details, and who may bill in a company's name (INN registration, review)
//   issuing.ts    issuing, listing and cancelling invoices
//   documents.ts  the invoice and act PDFs, and the team's list of documents
//   receiving.ts  money received: statement import, unmatched payments, assignment, «Отметить оплаченным»
//   credit.ts     the one crediting unit, through the money kernel's door
//
// with what they share: access.ts (deps, team roles), views.ts (the invoice as the API shows it),
// messages.ts (every refusal).

import type { InvoicesDeps } from './access'
import { companyService } from './company'
import { documentsService } from './documents'
import { issuingService } from './issuing'
import { receivingService } from './receiving'

export type { InvoicesDeps } from './access'
export type { PdfFile } from './documents'

export function invoicesService(deps: InvoicesDeps) {
  return {
    ...companyService(deps),
    ...issuingService(deps),
    ...documentsService(deps),
    ...receivingService(deps),
  }
}

export type InvoicesService = ReturnType<typeof invoicesService>
