// Payments, refunds and balance alerts: /api/payments/* and PATCH /api/billing/alerts ({success,data} envelope).
import useSWR from 'swr'
import { SBP } from '../../../src/content/terms'
import type { Alerts, CreatedPayment, Payment, PaymentStatus, RefundEligibility, RefundRequest, RefundRequestStatus } from '../../../src/wire'
import { api } from '../../lib/api'
import { parseRubles } from '../../lib/parse-rubles'
import { REFUND_KEY } from '../../lib/queries'

// The wire types, declared by the route schemas (src/payments/model.ts).
export type { CreatedPayment, Payment, PaymentStatus, RefundEligibility, RefundRequest }
export type RefundStatus = RefundRequestStatus

export const paymentKey = (id: string) => `/api/payments/${encodeURIComponent(id)}`

export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  pending: 'Ожидает оплаты',
  succeeded: 'Оплачен',
  canceled: 'Отменён',
  review: 'На проверке',
}

export const REFUND_STATUS_LABELS: Record<RefundStatus, string> = {
  pending: 'На рассмотрении',
  approved: 'Одобрена',
  rejected: 'Отклонена',
}

// The spec's top-up limits and messages (section 5), checked before the server sees the amount.
export const MIN_TOP_UP = 100
export const MAX_TOP_UP = 1_000_000
export const QUICK_AMOUNTS = [500, 1000, 2500, 5000] as const
export const MIN_TOP_UP_MESSAGE = 'Минимальная сумма пополнения: 100 RUB'
export const MAX_TOP_UP_MESSAGE = 'Максимальная сумма пополнения: 1,000,000 RUB'
export const KOPECKS_MESSAGE = 'Сумма указывается в рублях с точностью до копейки'
export const CREATE_PAYMENT_FALLBACK = 'Ошибка создания платежа'

export const ALERT_MAX = 1_000_000
export const ALERT_INVALID_MESSAGE = 'Порог должен быть числом от 1 до 1 000 000 ₽'

/** How a top-up is paid: a card typed on YooKassa's page, or SBP (a QR code or the bank's app). */
export type TopUpMethod = 'card' | 'sbp'

/** The validation message for a top-up amount, or null when it may be sent. */
export function topUpError(raw: string, method: TopUpMethod = 'card'): string | null {
  const text = raw.replace(/[\s\u00a0]/g, '').replace(',', '.')
  const amount = parseRubles(raw)
  if (!Number.isFinite(amount) || amount < MIN_TOP_UP) return MIN_TOP_UP_MESSAGE
  if (amount > MAX_TOP_UP) return MAX_TOP_UP_MESSAGE
  if (method === 'sbp' && amount > SBP.maxRub) return SBP.maxMessage
  if (/\.\d{3,}$/.test(text)) return KOPECKS_MESSAGE
  return null
}

export function useRefund() {
  return useSWR<RefundEligibility>(REFUND_KEY)
}

export const billingApi = {
  createPayment: (amount: number, returnUrl: string, method: TopUpMethod = 'card', savePaymentMethod = false) =>
    api.post<CreatedPayment>('/api/payments/create', { amount, returnUrl, method, ...(savePaymentMethod ? { savePaymentMethod } : {}) }, { fallback: CREATE_PAYMENT_FALLBACK }),
  requestRefund: (reason: string | undefined) => api.post<RefundRequest>(REFUND_KEY, reason ? { reason } : {}, { fallback: 'Не удалось отправить заявку' }),
  setAlert: (threshold: number | null) => api.patch<Alerts>('/api/billing/alerts', { threshold }, { fallback: 'Не удалось сохранить настройку' }),
}
