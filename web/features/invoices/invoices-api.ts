// Paying by invoice (issue 24): a team's company details, its invoices and documents, and the site
// admin's statement import. The PDFs answer only with the bearer token, so they are fetched as blobs.
import useSWR, { mutate } from 'swr'
import type {
  AdminInvoice,
  BankPayment,
  Company,
  CompanyState,
  CreditedPayment,
  InnConfirmation,
  InnConflict,
  InnRegistration,
  Invoice,
  InvoiceAvailability,
  InvoiceStatus,
  StatementResult,
  TeamDocument,
} from '../../../src/wire'
import { api } from '../../lib/api'
import { downloadFile } from '../../lib/download'
import { revalidateMoney } from '../../lib/queries'

export type { AdminInvoice, BankPayment, Company, CreditedPayment, InnConfirmation, InnConflict, InnRegistration, Invoice, InvoiceStatus, StatementResult, TeamDocument }

export const INVOICE_STATUS_LABELS: Record<InvoiceStatus, string> = { issued: 'Ожидает оплаты', paid: 'Оплачен', cancelled: 'Отменён' }

export const AVAILABILITY_KEY = '/api/invoices/availability'
const team = (id: string) => `/api/teams/${encodeURIComponent(id)}`
export const companyKey = (id: string) => `${team(id)}/company`
export const invoicesKey = (id: string) => `${team(id)}/invoices`
export const documentsKey = (id: string) => `${team(id)}/documents`
export const BANK_PAYMENTS_KEY = '/api/admin/bank-payments'
export const ADMIN_INVOICES_KEY = '/api/admin/invoices?status=issued'
export const INN_CONFLICTS_KEY = '/api/admin/inn-conflicts'

export const useAvailability = (enabled = true) => useSWR<InvoiceAvailability>(enabled ? AVAILABILITY_KEY : null)
export const useCompany = (id: string | null) => useSWR<CompanyState>(id ? companyKey(id) : null)
export const useInvoices = (id: string | null) => useSWR<Invoice[]>(id ? invoicesKey(id) : null)
export const useDocuments = (id: string | null) => useSWR<TeamDocument[]>(id ? documentsKey(id) : null)
export const useBankPayments = () => useSWR<BankPayment[]>(BANK_PAYMENTS_KEY)
export const useIssuedInvoices = () => useSWR<AdminInvoice[]>(ADMIN_INVOICES_KEY)
export const useInnConflicts = () => useSWR<InnConflict[]>(INN_CONFLICTS_KEY)

/** How a team's registration of its INN stands, in the admin's words. */
export const INN_CONFIRMATION_LABELS: Record<InnConfirmation, string> = {
  not_needed: 'Указала первой',
  pending: 'Ждёт подтверждения',
  confirmed: 'Подтверждена',
  rejected: 'Отклонена',
}

export type CompanyInput = { inn: string; kpp: string | null; name: string; address: string; email: string }

/** The invoice's limits, checked before the server sees the amount (src/content/terms.ts INVOICE). */
export const MIN_INVOICE = 1000
export const MAX_INVOICE = 1_000_000
export const MIN_INVOICE_MESSAGE = 'Минимальная сумма счёта: 1 000 ₽'
export const MAX_INVOICE_MESSAGE = 'Максимальная сумма счёта: 1 000 000 ₽'

/** A PDF the server renders for the caller only: fetched with the token, saved under its file name. */
export async function downloadPdf(url: string, fallbackName: string): Promise<void> {
  const path = url.startsWith('http') ? new URL(url).pathname : url
  return downloadFile(path, { accept: 'application/pdf', failure: 'Не удалось скачать документ', fallbackName })
}

/** After an invoice changed: its team's lists (and the balance, when money moved). */
function revalidateTeam(id: string) {
  return Promise.all([mutate(invoicesKey(id)), mutate(documentsKey(id))])
}

export const invoicesApi = {
  async saveCompany(teamId: string, input: CompanyInput) {
    const saved = await api.put<Company>(companyKey(teamId), input, { fallback: 'Не удалось сохранить реквизиты' })
    await mutate(companyKey(teamId), { company: saved }, { revalidate: false })
    return saved
  },
  async issue(teamId: string, amountRub: number) {
    const invoice = await api.post<Invoice>(invoicesKey(teamId), { amountRub }, { fallback: 'Не удалось выставить счёт' })
    await revalidateTeam(teamId)
    return invoice
  },
  async cancel(teamId: string, invoiceId: string) {
    const invoice = await api.post<Invoice>(`${invoicesKey(teamId)}/${encodeURIComponent(invoiceId)}/cancel`, undefined, { fallback: 'Не удалось отменить счёт' })
    await revalidateTeam(teamId)
    return invoice
  },
  async importStatement(file: File) {
    const form = new FormData()
    form.append('file', file)
    const result = await api.post<StatementResult>('/api/admin/bank-statements', form, { fallback: 'Не удалось загрузить выписку' })
    await Promise.all([mutate(BANK_PAYMENTS_KEY), mutate(ADMIN_INVOICES_KEY), revalidateMoney()])
    return result
  },
  async assign(paymentId: string, invoice: string) {
    const done = await api.post<CreditedPayment>(`${BANK_PAYMENTS_KEY}/${encodeURIComponent(paymentId)}/assign`, { invoice }, { fallback: 'Не удалось зачислить платёж' })
    await Promise.all([mutate(BANK_PAYMENTS_KEY), mutate(ADMIN_INVOICES_KEY)])
    return done
  },
  async dismiss(paymentId: string) {
    await api.post<BankPayment>(`${BANK_PAYMENTS_KEY}/${encodeURIComponent(paymentId)}/dismiss`, undefined, { fallback: 'Не удалось скрыть платёж' })
    await mutate(BANK_PAYMENTS_KEY)
  },
  /** The site admin's decision on a team's INN; `inn` is the one shown, so a team that changed it meanwhile is not decided on. */
  async reviewInn(teamId: string, inn: string, decision: 'confirm' | 'reject') {
    const done = await api.post<InnRegistration>(
      `/api/admin/inn-registrations/${encodeURIComponent(teamId)}/${decision}`,
      { inn },
      { fallback: decision === 'confirm' ? 'Не удалось подтвердить ИНН' : 'Не удалось отклонить ИНН' },
    )
    await Promise.all([mutate(INN_CONFLICTS_KEY), mutate(BANK_PAYMENTS_KEY)])
    return done
  },
  async markPaid(invoiceId: string) {
    const invoice = await api.post<AdminInvoice>(`/api/admin/invoices/${encodeURIComponent(invoiceId)}/mark-paid`, undefined, { fallback: 'Не удалось отметить счёт оплаченным' })
    await mutate(ADMIN_INVOICES_KEY)
    return invoice
  },
}
