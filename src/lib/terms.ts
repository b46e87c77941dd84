// The business terms of the offer (spec §9) in one place: the code that enforces them, the web
// pages and the legal texts read them from here, so they cannot drift apart. No server imports:
// the web bundle imports this file too.

export const TOP_UP = {
  minRub: 100,
  maxRub: 1_000_000,
  quickAmountsRub: [500, 1000, 2500, 5000],
  minMessage: 'Минимальная сумма пополнения: 100 RUB',
  maxMessage: 'Максимальная сумма пополнения: 1,000,000 RUB',
} as const

export const REFUND = {
  /** The remainder must exceed this many rubles. */
  minRemainderRub: 100,
  /** …and the request must come within this many days of the last top-up. */
  windowDays: 14,
  reviewWorkingDays: 5,
  payoutWorkingDays: 10,
} as const

export const MARKUP_PERCENT = 30
