import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Config } from '../config'
import { forbidden, notFound } from '../lib/errors'
import { clientIp, envelope, errors, ok } from '../lib/http'
import type { AutoTopupService } from './auto-topup'
import type { PaymentMethodsService } from './methods'
import {
  AdminRefundRequest,
  AutoTopup,
  AutoTopupBody,
  CreatedPayment,
  CreatedRefundRequest,
  CreatePaymentBody,
  DeletedPaymentMethod,
  ListQuery,
  Notification,
  Payment,
  PaymentMethod,
  PaymentMethodParams,
  PaymentParams,
  RefundRequestBody,
  RefundStatus,
  TestPayment,
  TestPaymentResult,
} from './model'
import type { RefundsService } from './refunds'
import type { PaymentsService } from './service'

export function paymentsRoutes(config: Config, payments: PaymentsService, refunds: RefundsService, guard: AuthGuard) {
  const testPage = () => {
    if (!payments.test) throw notFound('Тестовая оплата отключена: подключена ЮKassa')
    return payments.test
  }

  return new Elysia({ name: 'payments', prefix: '/api/payments', detail: { tags: ['Платежи'] } })
    .use(guard)
    .post(
      '/create',
      async ({ user, acting, body }) =>
        ok(
          await payments.create({ ...user, teamId: acting.teamId, teamName: acting.teamName }, body.amount, body.returnUrl, {
            method: body.method,
            savePaymentMethod: body.savePaymentMethod,
          }),
        ),
      {
        account: 'topup',
        body: CreatePaymentBody,
        response: { 200: envelope(CreatedPayment), ...errors(400, 401, 502) },
        detail: { summary: 'Пополнение картой или через СБП: создаёт платёж и возвращает адрес страницы оплаты', security: [{ bearerAuth: [] }] },
      },
    )
    .get('/list', async ({ acting, query }) => ok(await payments.list(acting, query.limit)), {
      account: 'topup',
      query: ListQuery,
      response: { 200: envelope(t.Array(Payment)), ...errors(400, 401) },
      detail: { summary: 'Платежи пользователя, новые сверху', security: [{ bearerAuth: [] }] },
    })
    .get('/refund-request', async ({ acting }) => ok(await refunds.status(acting)), {
      account: 'topup',
      response: { 200: envelope(RefundStatus), ...errors(401) },
      detail: { summary: 'Можно ли вернуть остаток сейчас, и последняя заявка', security: [{ bearerAuth: [] }] },
    })
    .post('/refund-request', async ({ acting, body, status }) => status(201, ok(await refunds.request(acting, body.reason))), {
      account: 'topup',
      body: RefundRequestBody,
      response: { 201: envelope(CreatedRefundRequest), ...errors(400, 401, 409) },
      detail: { summary: 'Заявка на возврат остатка (рассматривает администратор)', security: [{ bearerAuth: [] }] },
    })
    .post(
      '/webhook',
      async ({ body, request, server }) => {
        const verdict = await payments.notification(body, clientIp(request, server, config.trustProxy))
        if (verdict === 'forbidden') throw forbidden('Уведомление не от платёжной системы')
        return ok({ ok: true })
      },
      {
        body: Notification,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(400, 403) },
        detail: { summary: 'HTTP-уведомления ЮKassa: тело не доверяется, платёж перепроверяется запросом к ЮKassa' },
      },
    )
    .get('/test/:id', async ({ params }) => ok(await testPage().view(params.id)), {
      params: PaymentParams,
      response: { 200: envelope(TestPayment), ...errors(404) },
      detail: { summary: 'Тестовый режим: данные платежа для встроенной страницы оплаты' },
    })
    .post('/test/:id/pay', async ({ params }) => ok(await testPage().complete(params.id, 'pay')), {
      params: PaymentParams,
      response: { 200: envelope(TestPaymentResult), ...errors(404, 409) },
      detail: { summary: 'Тестовый режим: «оплатить» (проходит тот же путь зачисления, что и уведомление ЮKassa)' },
    })
    .post('/test/:id/cancel', async ({ params }) => ok(await testPage().complete(params.id, 'cancel')), {
      params: PaymentParams,
      response: { 200: envelope(TestPaymentResult), ...errors(404, 409) },
      detail: { summary: 'Тестовый режим: отменить оплату' },
    })
    .get('/:id', async ({ acting, params }) => ok(await payments.get(acting, params.id)), {
      account: 'topup',
      params: PaymentParams,
      response: { 200: envelope(Payment), ...errors(401, 404) },
      detail: { summary: 'Статус платежа (пока он ожидает оплаты — уточняется у платёжной системы)', security: [{ bearerAuth: [] }] },
    })
}

/** The admin's view of refund requests (the admin area lists them). */
export function refundAdminRoutes(refunds: RefundsService, guard: AuthGuard) {
  return new Elysia({ name: 'refunds-admin', prefix: '/api/admin', detail: { tags: ['Администрирование'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/refund-requests', async () => ok(await refunds.adminList()), {
      admin: true,
      response: { 200: envelope(t.Array(AdminRefundRequest)), ...errors(401, 403) },
      detail: { summary: 'Заявки на возврат остатка, ожидающие сверху' },
    })
}

/**
 * Saved cards and auto top-up (issue 37): the account's saved methods (and forgetting one) and its
 * auto top-up settings. Owners, admins and billing members manage a team's (permission topup).
 */
export function savedPaymentRoutes(methods: PaymentMethodsService, autoTopup: AutoTopupService, guard: AuthGuard) {
  return new Elysia({ name: 'saved-payments', detail: { security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/api/payments/methods', async ({ acting }) => ok(await methods.list(acting)), {
      account: 'topup',
      response: { 200: envelope(t.Array(PaymentMethod)), ...errors(401, 403) },
      detail: { tags: ['Платежи'], summary: 'Сохранённые способы оплаты счёта (карты), новые сверху' },
    })
    .delete('/api/payments/methods/:id', async ({ acting, params }) => ok(await methods.remove(acting, params.id)), {
      account: 'topup',
      params: PaymentMethodParams,
      response: { 200: envelope(DeletedPaymentMethod), ...errors(401, 403, 404) },
      detail: { tags: ['Платежи'], summary: 'Удалить сохранённую карту; автопополнение с неё выключается' },
    })
    .get('/api/billing/auto-topup', async ({ acting }) => ok(await autoTopup.get(acting)), {
      account: 'topup',
      response: { 200: envelope(AutoTopup), ...errors(401, 403) },
      detail: { tags: ['Баланс'], summary: 'Автопополнение: настройки и состояние' },
    })
    .put('/api/billing/auto-topup', async ({ acting, body }) => ok(await autoTopup.put(acting, body)), {
      account: 'topup',
      body: AutoTopupBody,
      response: { 200: envelope(AutoTopup), ...errors(400, 401, 403) },
      detail: {
        tags: ['Баланс'],
        summary: 'Автопополнение: когда доступный баланс ниже порога — списание суммы с сохранённой карты, не больше дневного лимита',
      },
    })
}
