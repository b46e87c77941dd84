import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Config } from '../config'
import { clientIp, envelope, errors, ok } from '../lib/http'
import {
  ActParams,
  AdminInvoice,
  AdminInvoiceParams,
  AdminInvoicesQuery,
  AssignBody,
  BankPayment,
  BankPaymentParams,
  BankPaymentsQuery,
  Company,
  CompanyBody,
  CompanyState,
  CreateInvoiceBody,
  CreditedPayment,
  InnConflict,
  InnConflictsQuery,
  InnRegistration,
  InnReviewBody,
  InnReviewParams,
  Invoice,
  InvoiceAvailability,
  InvoiceParams,
  StatementBody,
  StatementResult,
  TeamDocument,
  TeamParams,
} from './model'
import type { InvoicesService, PdfFile } from './service'

const security = [{ bearerAuth: [] }]

/** A rendered document as a download: private, never cached by anyone between us and the member. */
const pdfResponse = (file: PdfFile) =>
  new Response(file.bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': file.disposition,
      'cache-control': 'private, no-store',
    },
  })

const pdfDoc = { 200: t.Any({ description: 'PDF (application/pdf)' }) }

/**
 * A team's company details, invoices and documents (issue 24). Every route checks the caller's role in
 * the team on the server: owner, admins and billing members; 404 for outsiders, 403 for a member.
 * The PDFs answer only with the bearer token: the SPA fetches them as blobs.
 */
export function invoicesRoutes(config: Config, invoices: InvoicesService, guard: AuthGuard) {
  return new Elysia({ name: 'invoices', detail: { tags: ['Счета и документы'] } })
    .use(guard)
    .derive(({ request, server }) => ({ ip: clientIp(request, server, config.trustProxy) }))
    .get('/api/invoices/availability', () => ok(invoices.availability()), {
      auth: true,
      response: { 200: envelope(InvoiceAvailability), ...errors(401) },
      detail: { summary: 'Доступна ли оплата по счёту (заданы ли реквизиты продавца), пределы суммы', security },
    })
    .get('/api/teams/:id/company', async ({ user, params, ip }) => ok(await invoices.company(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(CompanyState), ...errors(401, 403, 404) },
      detail: { summary: 'Реквизиты компании команды (null — ещё не указаны)', security },
    })
    .put('/api/teams/:id/company', async ({ user, params, body, ip }) => ok(await invoices.saveCompany(user, params.id, body, ip)), {
      auth: true,
      params: TeamParams,
      body: CompanyBody,
      response: { 200: envelope(Company), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Указать реквизиты компании: ИНН (контрольные цифры проверяются), КПП, наименование, адрес, e-mail для документов', security },
    })
    .post('/api/teams/:id/invoices', async ({ user, params, body, ip, status }) => status(201, ok(await invoices.issue(user, params.id, body.amountRub, ip))), {
      auth: true,
      params: TeamParams,
      body: CreateInvoiceBody,
      response: { 201: envelope(Invoice), ...errors(400, 401, 403, 404, 409, 429) },
      detail: {
        summary: 'Выставить счёт на пополнение баланса команды; PDF уходит на e-mail для документов',
        description: 'ИНН, уже указанный другой командой, ждёт подтверждения администратора сервиса: до него счета не выставляются (409).',
        security,
      },
    })
    .get('/api/teams/:id/invoices', async ({ user, params, ip }) => ok(await invoices.list(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(t.Array(Invoice)), ...errors(401, 403, 404) },
      detail: { summary: 'Счета команды, новые сверху', security },
    })
    .get('/api/teams/:id/invoices/:invoiceId', async ({ user, params, ip }) => ok(await invoices.get(user, params.id, params.invoiceId, ip)), {
      auth: true,
      params: InvoiceParams,
      response: { 200: envelope(Invoice), ...errors(401, 403, 404) },
      detail: { summary: 'Счёт команды', security },
    })
    .post('/api/teams/:id/invoices/:invoiceId/cancel', async ({ user, params, ip }) => ok(await invoices.cancel(user, params.id, params.invoiceId, ip)), {
      auth: true,
      params: InvoiceParams,
      response: { 200: envelope(Invoice), ...errors(401, 403, 404, 409) },
      detail: { summary: 'Отменить неоплаченный счёт', security },
    })
    .get('/api/teams/:id/invoices/:invoiceId/pdf', async ({ user, params, ip }) => pdfResponse(await invoices.invoicePdf(user, params.id, params.invoiceId, ip)), {
      auth: true,
      params: InvoiceParams,
      response: { ...pdfDoc, ...errors(401, 403, 404) },
      detail: { summary: 'PDF счёта (владельцу, администраторам и бухгалтерам команды)', security },
    })
    .get('/api/teams/:id/documents', async ({ user, params, ip }) => ok(await invoices.documents(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(t.Array(TeamDocument)), ...errors(401, 403, 404) },
      detail: { summary: 'Документы команды: счета и акты за месяцы с расходами (по московскому времени)', security },
    })
    .get('/api/teams/:id/acts/:period/pdf', async ({ user, params, ip }) => pdfResponse(await invoices.actPdf(user, params.id, params.period, ip)), {
      auth: true,
      params: ActParams,
      response: { ...pdfDoc, ...errors(400, 401, 403, 404) },
      detail: { summary: 'PDF акта за месяц (у самозанятого продавца — данные для чеков)', security },
    })
}

/** The site admin's side: statements, unmatched payments, invoices and «Отметить оплаченным». */
export function invoicesAdminRoutes(invoices: InvoicesService, guard: AuthGuard) {
  return new Elysia({ name: 'invoices-admin', prefix: '/api/admin', detail: { tags: ['Администрирование'], security } })
    .use(guard)
    .post('/bank-statements', async ({ user, body }) => ok(await invoices.importStatement(user, body.file)), {
      admin: true,
      body: StatementBody,
      response: { 200: envelope(StatementResult), ...errors(400, 401, 403, 413) },
      detail: {
        summary: 'Загрузить банковскую выписку (1CClientBankExchange, Windows-1251 или UTF-8; multipart, поле file)',
        description: 'Поступления сопоставляются со счетами по номеру в назначении, сумме и ИНН плательщика; каждое зачисляется один раз.',
      },
    })
    .get('/bank-payments', async ({ query }) => ok(await invoices.bankPayments(query.status ?? 'unmatched', query.limit ?? 200)), {
      admin: true,
      query: BankPaymentsQuery,
      response: { 200: envelope(t.Array(BankPayment)), ...errors(400, 401, 403) },
      detail: { summary: 'Поступления из выписок: по умолчанию несопоставленные, новые сверху' },
    })
    .post('/bank-payments/:id/assign', async ({ user, params, body }) => ok(await invoices.assign(user, params.id, body.invoice)), {
      admin: true,
      params: BankPaymentParams,
      body: AssignBody,
      response: { 200: envelope(CreditedPayment), ...errors(400, 401, 403, 404, 409) },
      detail: { summary: 'Зачислить несопоставленное поступление по счёту вручную (один раз)' },
    })
    .post('/bank-payments/:id/dismiss', async ({ user, params }) => ok(await invoices.dismiss(user, params.id)), {
      admin: true,
      params: BankPaymentParams,
      response: { 200: envelope(BankPayment), ...errors(401, 403, 404, 409) },
      detail: { summary: 'Скрыть поступление, не относящееся к счетам (ничего не зачисляется)' },
    })
    .get('/invoices', async ({ query }) => ok(await invoices.adminInvoices(query.status ?? null, query.limit ?? 200)), {
      admin: true,
      query: AdminInvoicesQuery,
      response: { 200: envelope(t.Array(AdminInvoice)), ...errors(400, 401, 403) },
      detail: { summary: 'Счета всех команд, новые сверху' },
    })
    .post('/invoices/:id/mark-paid', async ({ user, params }) => ok(await invoices.markPaid(user, params.id)), {
      admin: true,
      params: AdminInvoiceParams,
      response: { 200: envelope(AdminInvoice), ...errors(401, 403, 404, 409) },
      detail: { summary: '«Отметить оплаченным»: зачислить сумму счёта на баланс команды (один раз)' },
    })
    .get('/inn-conflicts', async ({ query }) => ok(await invoices.innConflicts(query.status !== 'all')), {
      admin: true,
      query: InnConflictsQuery,
      response: { 200: envelope(t.Array(InnConflict)), ...errors(400, 401, 403) },
      detail: { summary: 'Один ИНН у нескольких команд: по умолчанию только те, где регистрация ждёт подтверждения' },
    })
    .post('/inn-registrations/:teamId/confirm', async ({ user, params, body }) => ok(await invoices.reviewInn(user, params.teamId, body.inn, 'confirmed')), {
      admin: true,
      params: InnReviewParams,
      body: InnReviewBody,
      response: { 200: envelope(InnRegistration), ...errors(400, 401, 403, 404, 409) },
      detail: { summary: 'Подтвердить ИНН команды: она сможет выставлять счета на эту компанию и получать её платежи из выписок' },
    })
    .post('/inn-registrations/:teamId/reject', async ({ user, params, body }) => ok(await invoices.reviewInn(user, params.teamId, body.inn, 'rejected')), {
      admin: true,
      params: InnReviewParams,
      body: InnReviewBody,
      response: { 200: envelope(InnRegistration), ...errors(400, 401, 403, 404, 409) },
      detail: { summary: 'Отклонить ИНН команды: счета на эту компанию не выставляются, её платежи команде не зачисляются' },
    })
}
