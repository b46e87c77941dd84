import { t } from 'elysia'
import { SBP, TOP_UP } from '../content/terms'
import { PAYMENT_METHODS, PAYMENT_STATUSES, REFUND_STATUSES } from './schema'

export const CreatePaymentBody = t.Object({
  // Any JSON value is accepted here so a non-number gets the spec's message, not a schema dump.
  amount: t.Any({ description: `Сумма в рублях, от ${TOP_UP.minRub} до ${TOP_UP.maxRub} (СБП — до ${SBP.maxRub}), до копейки`, examples: [500] }),
  returnUrl: t.Optional(t.String({ maxLength: 2000, description: 'Куда вернуть покупателя: адрес этого сайта или путь' })),
  method: t.Optional(
    t.UnionEnum(['card', 'sbp'], {
      default: 'card',
      description: `card — банковская карта; sbp — Система быстрых платежей (QR-код или приложение банка, на оплату ${SBP.payWindowMinutes} минут)`,
      error: 'method — «card» (банковская карта) или «sbp» (СБП)',
    }),
  ),
  savePaymentMethod: t.Optional(
    t.Boolean({
      description: 'Сохранить карту в ЮKassa для следующих платежей и автопополнения (только для method card)',
      error: 'savePaymentMethod — true или false',
    }),
  ),
})

export const CreatedPayment = t.Object({
  id: t.String(),
  status: t.Literal('pending'),
  amount: t.Number(),
  method: t.UnionEnum(['card', 'sbp']),
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
    method: t.UnionEnum([...PAYMENT_METHODS], { description: 'card — карта, sbp — СБП, saved — списание с сохранённой карты (автопополнение)' }),
    auto: t.Boolean({ description: 'Платёж автопополнения' }),
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
  method: t.UnionEnum([...PAYMENT_METHODS]),
  savePaymentMethod: t.Boolean(),
  description: t.String(),
  status: t.UnionEnum(['pending', 'waiting_for_capture', 'succeeded', 'canceled']),
  returnUrl: t.String(),
})

export const TestPaymentResult = t.Object({ status: t.UnionEnum([...PAYMENT_STATUSES]), returnUrl: t.String() })

export const PaymentMethod = t.Object(
  {
    id: t.String(),
    type: t.String({ description: 'Тип в ЮKassa: bank_card, sbp, …' }),
    title: t.String({ description: 'Название от ЮKassa, например «Bank card *4444»' }),
    label: t.String({ description: 'Как способ показывается покупателю: «MasterCard •••• 4444»' }),
    last4: t.Union([t.String(), t.Null()], { description: 'Последние 4 цифры карты (номер карты не хранится)' }),
    expiryMonth: t.Union([t.String(), t.Null()]),
    expiryYear: t.Union([t.String(), t.Null()]),
    cardType: t.Union([t.String(), t.Null()], { description: 'Платёжная система: MasterCard, Visa, Mir, …' }),
    createdAt: t.String({ format: 'date-time' }),
  },
  { title: 'PaymentMethod' },
)

export const PaymentMethodParams = t.Object({ id: t.String({ maxLength: 64 }) })
export const DeletedPaymentMethod = t.Object({ id: t.String(), deleted: t.Literal(true) })

export const AutoTopup = t.Object(
  {
    enabled: t.Boolean(),
    thresholdRub: t.Number({ description: 'Пополнять, когда доступный баланс (баланс минус резерв выполняющихся запросов) ниже этой суммы' }),
    amountRub: t.Number({ description: 'Сумма одного автопополнения' }),
    paymentMethodId: t.Union([t.String(), t.Null()], { description: 'Сохранённая карта (GET /api/payments/methods)' }),
    dailyLimitRub: t.Number({ description: 'Не больше этой суммы автопополнений за сутки по Москве' }),
    disabledReason: t.Union([t.String(), t.Null()], { description: 'Почему автопополнение выключилось само (карта отклонена, удалена, …)' }),
    chargedTodayRub: t.Number({ description: 'Списано автопополнением сегодня (по Москве), включая платёж в процессе' }),
    failuresToday: t.Integer({ description: 'Отклонённых попыток сегодня (не больше трёх в день)' }),
    retryAfter: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'Следующая попытка после временного отказа банка' }),
    pendingPaymentId: t.Union([t.String(), t.Null()], { description: 'Платёж автопополнения, который сейчас проводится' }),
  },
  { title: 'AutoTopup' },
)

export const AutoTopupBody = t.Object({
  enabled: t.Boolean({ error: 'enabled — true или false' }),
  // Any JSON value is accepted so a wrong one gets a Russian message from the service, not a schema dump.
  thresholdRub: t.Optional(t.Any({ description: 'Порог, ₽ (1 … 1 000 000)', examples: [200] })),
  amountRub: t.Optional(t.Any({ description: 'Сумма автопополнения, ₽ (100 … 1 000 000)', examples: [1000] })),
  paymentMethodId: t.Optional(t.Any({ description: 'id сохранённой карты; обязателен, чтобы включить' })),
  dailyLimitRub: t.Optional(t.Any({ description: 'Дневной лимит, ₽: не меньше суммы автопополнения', examples: [3000] })),
})
