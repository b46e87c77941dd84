import { t } from 'elysia'
import { TOP_UP } from '../content/terms'
import { PAYMENT_STATUSES, REFUND_STATUSES } from './schema'

export const CreatePaymentBody = t.Object({
  // Any JSON value is accepted here so a non-number gets the spec's message, not a schema dump.
  amount: t.Any({ description: `Сумма в рублях, от ${TOP_UP.minRub} до ${TOP_UP.maxRub}, до копейки`, examples: [500] }),
  returnUrl: t.Optional(t.String({ maxLength: 2000, description: 'Куда вернуть покупателя: адрес этого сайта или путь' })),
})

export const CreatedPayment = t.Object({
  id: t.String(),
  status: t.Literal('pending'),
  amount: t.Number(),
  confirmationUrl: t.String({ description: 'Страница оплаты: перенаправьте туда покупателя' }),
})

export const Payment = t.Object(
  {
    id: t.String(),
    amount: t.Number({ description: 'Рубли' }),
    status: t.UnionEnum([...PAYMENT_STATUSES], { description: 'review — ответ платёжной системы не совпал с заказом, нужна проверка' }),
    description: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    paidAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    cancelReason: t.Union([t.String(), t.Null()]),
    test: t.Boolean({ description: 'Тестовый платёж (встроенная тестовая страница оплаты)' }),
  },
  { title: 'Payment' },
)

export const PaymentParams = t.Object({ id: t.String({ maxLength: 64 }) })

export const ListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, error: 'limit должен быть целым числом от 1 до 100' })),
})

/** A YooKassa notification; only `object.id` is used, to look the payment up at YooKassa. */
export const Notification = t.Object(
  {
    type: t.Optional(t.String()),
    event: t.Optional(t.String()),
    object: t.Optional(t.Object({ id: t.Optional(t.String()) }, { additionalProperties: true })),
  },
  { additionalProperties: true },
)

const RefundRequest = t.Object({
  id: t.String(),
  amount: t.Number(),
  status: t.UnionEnum([...REFUND_STATUSES]),
  reason: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
})

export const RefundStatus = t.Object({
  eligible: t.Boolean(),
  remainder: t.Number({ description: 'Сколько можно вернуть сейчас, рубли' }),
  reasons: t.Array(t.String(), { description: 'Почему возврат сейчас невозможен' }),
  lastTopUpAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  request: t.Union([RefundRequest, t.Null()]),
  testTopUps: t.Integer({ description: 'Пополнений на тестовой странице оплаты: деньги не списывались, к возврату они не учитываются' }),
})

export const RefundRequestBody = t.Object({ reason: t.Optional(t.String({ maxLength: 1000, error: 'Причина — не длиннее 1000 символов' })) })
export const CreatedRefundRequest = RefundRequest

export const AdminRefundRequest = t.Object({
  ...RefundRequest.properties,
  userId: t.String(),
  teamId: t.Union([t.String(), t.Null()], { description: 'Возврат остатка команды; null — личного баланса' }),
  teamName: t.Union([t.String(), t.Null()]),
  email: t.String({ description: 'Кто подал заявку' }),
  balance: t.Number({ description: 'Баланс счёта (команды или личный), рубли' }),
  resolvedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
})

export const TestPayment = t.Object({
  id: t.String(),
  amount: t.Number(),
  description: t.String(),
  status: t.UnionEnum(['pending', 'waiting_for_capture', 'succeeded', 'canceled']),
  returnUrl: t.String(),
})

export const TestPaymentResult = t.Object({ status: t.UnionEnum([...PAYMENT_STATUSES]), returnUrl: t.String() })
