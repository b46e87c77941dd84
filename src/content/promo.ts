// The terms of promo codes and of the referral programme (issue 37) in one place: the server
// enforces them (src/promo), the pages and the legal texts say them. Browser-safe, no imports.

export const PROMO_RULES = {
  /** A code: 3–32 Latin letters, digits, «-» or «_»; stored upper-case, typed in any case. */
  codePattern: /^[A-Za-z0-9_-]{3,32}$/,
  codeRule: 'от 3 до 32 символов: латинские буквы, цифры, «-» и «_»',
  minAmountRub: 1,
  maxAmountRub: 100_000,
  maxUses: 1_000_000,
  /** Attempts to redeem a code per account an hour (guessing codes is not a way to get money). */
  attemptsPerHour: 20,
} as const

export const REFERRAL_RULES = {
  /** The referred account's first real payment of at least this many rubles brings the bonus. */
  minPaymentRub: 500,
  /** At most this many referral bonuses a calendar month (Moscow) for one referrer. */
  monthlyLimit: 10,
  /** How long the invitation is remembered in the browser after /r/{code} (the cookie). */
  cookieDays: 30,
  /** A referral code: 8 characters without look-alikes (0/O, 1/I/L). */
  codeAlphabet: 'ABCDEFGHJKMNPQRSTUVWXYZ23456789',
  codeLength: 8,
} as const

/** What a promo code or a referral bonus is, for the offer, the refund policy and the docs. */
export const BONUS_NOT_REFUNDABLE = 'Средства, зачисленные по промокоду или как реферальный бонус, не являются оплатой: они расходуются в первую очередь и не возвращаются.'
