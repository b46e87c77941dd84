// Why YooKassa canceled a payment (`cancellation_details.reason`, providers-and-payments.md §4.3), in
// Russian for the customer, and what auto top-up does about it: a permanent reason (the card or the
// permission to charge it is gone, or the bank blocks it) turns auto top-up off; any other is retried
// later, at most AUTO_TOPUP_FAILURES_A_DAY times a Moscow day.

export const CANCEL_REASONS: Record<string, string> = {
  expired_on_confirmation: 'Время на оплату истекло',
  expired_on_capture: 'Время на подтверждение платежа истекло',
  insufficient_funds: 'Недостаточно средств на карте',
  card_expired: 'Истёк срок действия карты',
  '3d_secure_failed': 'Не пройдена проверка 3-D Secure',
  call_issuer: 'Банк отклонил платёж: обратитесь в банк, выпустивший карту',
  fraud_suspected: 'Платёж отклонён из-за подозрения в мошенничестве',
  general_decline: 'Банк отклонил платёж',
  payment_method_limit_exceeded: 'Превышен лимит платежей по карте',
  payment_method_restricted: 'Операции по этой карте запрещены',
  permission_revoked: 'Разрешение на списания с карты отозвано',
  country_forbidden: 'Платежи картами этой страны не принимаются',
  identification_required: 'Кошелёк ЮMoney требует идентификации',
  invalid_card_number: 'Неверный номер карты',
  invalid_csc: 'Неверный код CVC/CVV',
  issuer_unavailable: 'Банк карты временно недоступен',
  internal_timeout: 'Технический сбой платёжной системы',
  payment_expired: 'Срок платежа истёк',
  canceled_by_merchant: 'Платёж отменён магазином',
  test_canceled: 'Оплата отменена на тестовой странице',
}

/** The customer's sentence for a cancellation reason (unknown ones too). */
export const describeCancel = (reason: string | null | undefined) => CANCEL_REASONS[reason ?? ''] ?? 'Платёж отменён'

/**
 * Reasons after which charging the saved method again is pointless or wrong: the card expired, the
 * customer revoked the permission, the bank blocks it or wants the customer (3-D Secure, the issuer,
 * the wallet's identification) — auto top-up turns itself off. Any other reason (insufficient_funds,
 * issuer_unavailable, internal_timeout, general_decline, payment_method_limit_exceeded, and the
 * SDK-only payment_expired, whose meaning the docs do not give) is retried later.
 */
export const PERMANENT_REASONS = new Set([
  'card_expired',
  'permission_revoked',
  'fraud_suspected',
  'payment_method_restricted',
  'country_forbidden',
  'identification_required',
  'invalid_card_number',
  'invalid_csc',
  '3d_secure_failed',
  'call_issuer',
])

/** After these the saved method's id is dead (§4.3): it is forgotten, as if the customer deleted it. */
export const METHOD_DEAD_REASONS = new Set(['card_expired', 'permission_revoked'])

/** Failed auto top-up charges a Moscow day before it waits for the next day. */
export const AUTO_TOPUP_FAILURES_A_DAY = 3
