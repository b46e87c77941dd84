// The business terms of the offer (spec §9) and the provider facts (spec §1) in one place: the
// code that enforces them, the web pages and the legal texts read them from here, so they cannot
// drift apart. No server imports: the web bundle imports this file too.

export const TOP_UP = {
  minRub: 100,
  maxRub: 1_000_000,
  quickAmountsRub: [500, 1000, 2500, 5000],
  minMessage: 'Минимальная сумма пополнения: 100 RUB',
  maxMessage: 'Максимальная сумма пополнения: 1,000,000 RUB',
} as const

/**
 * SBP (Система быстрых платежей) through YooKassa (providers-and-payments.md §4.1): a QR code on a
 * computer or the bank's app on a phone, one hour to pay. The limit per payment: 700 000 ₽ on the
 * older YooKassa page, 1 000 000 ₽ on a newer one — the stricter is taken (raise it once the shop's
 * manager confirms the higher one).
 */
export const SBP = {
  maxRub: 700_000,
  payWindowMinutes: 60,
  maxMessage: 'Максимальная сумма оплаты через СБП: 700 000 ₽',
  saveMessage: 'Сохранить для следующих платежей можно только банковскую карту',
} as const

/** Paying by invoice (a team's company, by bank transfer): larger sums than a card, the same ceiling. */
export const INVOICE = {
  minRub: 1000,
  maxRub: 1_000_000,
  minMessage: 'Минимальная сумма счёта: 1 000 ₽',
  maxMessage: 'Максимальная сумма счёта: 1 000 000 ₽',
} as const

export const REFUND = {
  /** The remainder must exceed this many rubles. */
  minRemainderRub: 100,
  /** …and the request must come within this many days of the last top-up. */
  windowDays: 14,
  reviewWorkingDays: 5,
  payoutWorkingDays: 10,
  /** What the payment system usually keeps from a refund: a percentage range with a floor. */
  paymentFeePercentMin: 3,
  paymentFeePercentMax: 5,
  paymentFeeMinRub: 30,
} as const

/** The service's markup over the upstream cost, percent (config.markup defaults to 1 + this/100). */
export const MARKUP_PERCENT = 30

/** Credited once at registration (config.welcomeBonusRub defaults to this). */
export const WELCOME_BONUS_RUB = 50

/** How usage is priced: upstream cost in US dollars × the Central Bank rate × the markup. */
export const PRICING = {
  markupPercent: MARKUP_PERCENT,
  currency: 'USD',
  rateSource: 'Центрального банка Российской Федерации (ЦБ РФ)',
} as const

/** Claims (претензии) are answered within this many working days. */
export const CLAIMS = { reviewWorkingDays: 10 } as const

/**
 * Advance notice of changes. The spec states 7 days in the public offer (tariffs) and 14 days in
 * the terms of service (the terms themselves, tariffs included); both are kept as stated.
 */
export const NOTICE = {
  offerTariffChangeDays: 7,
  termsChangeDays: 14,
} as const

/** Target monthly availability of the API, percent. */
export const AVAILABILITY_PERCENT = 99

export const RETENTION = {
  /** request logs (usage records) */
  logsYears: 1,
  /** transaction history (the ledger) */
  transactionsYears: 5,
  /** database backups */
  backupsDays: 30,
  /** stored Responses API answers (previous_response_id), counted from the last response of their chain */
  storedResponsesDays: 30,
} as const

/** Liability is capped at what the customer paid over this many last days. */
export const LIABILITY_CAP_DAYS = 30

export const MIN_AGE = 18

export const SUPPORT = {
  days: 'по будним дням',
  from: '10:00',
  to: '19:00',
  timezone: 'по московскому времени',
  /** 'по будним дням с 10:00 до 19:00 по московскому времени' */
  hours: 'по будним дням с 10:00 до 19:00 по московскому времени',
} as const

/** Ways to pay through the payment gateway. */
export const PAYMENT_METHODS = ['банковские карты', 'электронные кошельки', 'Система быстрых платежей (СБП)'] as const

/** Who provides the service (spec §1). Replace the contacts with the real ones before launch. */
export const PROVIDER = {
  /** The legal status stated in the footer and the documents. */
  status: 'Самозанятый',
  statusLong: 'физическое лицо, применяющее специальный налоговый режим «Налог на профессиональный доход» (самозанятый)',
  email: 'support@ai-gateway.ru',
  messenger: { name: 'Telegram', handle: '@ai_gateway_support', url: 'https://t.me/ai_gateway_support' },
  taxId: 'ИНН предоставляется по запросу',
  /** The third-party model-routing service the product runs on. */
  upstreamName: 'OpenRouter',
  upstreamNote: 'Сервис работает на базе OpenRouter — стороннего сервиса маршрутизации запросов к AI-моделям.',
  copyrightYear: 2025,
} as const

export const BRAND = 'AI Gateway'

/** '1 000 000' — ru-RU digit grouping without Intl (the same everywhere, server and browser). */
export const groupRub = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0')
