// Checks of Russian company details (реквизиты): INN, KPP, BIK and bank accounts. Pure functions;
// each answers null when the value is right, or a Russian message a customer can act on. The seller's
// details in src/config.ts and the buyer's company details of a team go through the same checks.

/** Weighted sum mod 11 mod 10: the check digit of an INN (protocols.md §6). */
function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i]!
  return (sum % 11) % 10
}

const W10 = [2, 4, 10, 3, 5, 9, 4, 6, 8] as const
const W11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8] as const
const W12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8] as const

/** What an INN must be: 10 digits for an organisation, 12 for a person (sole trader, self-employed), or either. */
export type InnKind = 'company' | 'person' | 'any'

const LENGTH_MESSAGE: Record<InnKind, string> = {
  company: 'ИНН организации состоит из 10 цифр',
  person: 'ИНН индивидуального предпринимателя или физического лица состоит из 12 цифр',
  any: 'ИНН состоит из 10 цифр (организация) или 12 цифр (индивидуальный предприниматель)',
}

/** null when `inn` is a valid INN of that kind; otherwise what is wrong with it, in Russian. */
export function innError(inn: string, kind: InnKind = 'any'): string | null {
  const v = inn.trim()
  if (!v) return 'Укажите ИНН'
  if (!/^\d+$/.test(v)) return 'ИНН состоит только из цифр'
  const lengthOk = kind === 'company' ? v.length === 10 : kind === 'person' ? v.length === 12 : v.length === 10 || v.length === 12
  if (!lengthOk) return LENGTH_MESSAGE[kind]
  // The first two digits are a region code; there is no region 00 (and an all-zero INN would pass the sums).
  if (v.startsWith('00')) return 'Неверный ИНН: первые две цифры — код региона, он не может быть 00'
  const ok = v.length === 10 ? checkDigit(v, W10) === Number(v[9]) : checkDigit(v, W11) === Number(v[10]) && checkDigit(v, W12) === Number(v[11])
  return ok ? null : 'Неверный ИНН: не сходится контрольное число. Проверьте цифры'
}

export const isValidInn = (inn: string, kind: InnKind = 'any') => innError(inn, kind) === null

/** KPP as people type it: without spaces, Latin letters in upper case. */
export const normalizeKpp = (kpp: string) => kpp.replace(/\s+/g, '').toUpperCase()

/** null when `kpp` (normalised) is a valid KPP: 4 digits, 2 digits or capital Latin letters, 3 digits. */
export function kppError(kpp: string): string | null {
  const v = normalizeKpp(kpp)
  if (!v) return 'Укажите КПП'
  if (v.length !== 9) return 'КПП состоит из 9 символов'
  if (!/^\d{4}[\dA-Z]{2}\d{3}$/.test(v)) return 'Неверный КПП: 4 цифры, затем 2 цифры или заглавные латинские буквы, затем 3 цифры'
  return null
}

/**
 * The INN and KPP of a buyer or seller together: an organisation (10 digits) has a KPP, a sole
 * trader or a self-employed person (12 digits) has none.
 */
export function innKppError(inn: string, kpp: string | null | undefined): string | null {
  const bad = innError(inn)
  if (bad) return bad
  const company = inn.trim().length === 10
  const given = kpp != null && normalizeKpp(kpp) !== ''
  if (company && !given) return 'Укажите КПП: у организации (ИНН из 10 цифр) он есть'
  if (!company && given) return 'КПП есть только у организаций: у ИП и физических лиц (ИНН из 12 цифр) его нет'
  return given ? kppError(kpp!) : null
}

/** null when `bik` is 9 digits, starting with 04 (Russia) or 01 (the Treasury's). */
export function bikError(bik: string): string | null {
  const v = bik.trim()
  if (!/^\d{9}$/.test(v)) return 'БИК состоит из 9 цифр'
  if (!/^0[14]/.test(v)) return 'Неверный БИК: российский БИК начинается с 04 или 01'
  return null
}

/** The Central Bank's control key over 23 digits: weights 7,1,3 repeated, lowest digits summed, ≡ 0 mod 10. */
function controlKeyOk(digits23: string): boolean {
  const w = [7, 1, 3]
  let sum = 0
  for (let i = 0; i < 23; i++) sum += (Number(digits23[i]) * w[i % 3]!) % 10
  return sum % 10 === 0
}

/**
 * null when `account` is a 20-digit account at the bank with this BIK and its control digit (the
 * ninth) agrees with the BIK: a mistyped digit in the account or the BIK is caught here, as
 * accounting software does. A correspondent account is keyed with "0" + the BIK's 5th–6th digits,
 * a settlement account with the BIK's last three (or like a correspondent one at a Bank of Russia
 * branch, whose BIK ends in 000–002).
 */
export function accountError(account: string, bik: string, kind: 'settlement' | 'correspondent'): string | null {
  const v = account.trim()
  const what = kind === 'settlement' ? 'Расчётный счёт' : 'Корреспондентский счёт'
  if (!/^\d{20}$/.test(v)) return `${what} состоит из 20 цифр`
  if (kind === 'correspondent' && !v.startsWith('30101')) return 'Корреспондентский счёт банка начинается с 30101'
  const b = bik.trim()
  if (bikError(b)) return null // the BIK's own message says it; the key cannot be checked without it
  const prefix = kind === 'correspondent' || /^00[0-2]$/.test(b.slice(6)) ? `0${b.slice(4, 6)}` : b.slice(6)
  if (!controlKeyOk(prefix + v)) return `${what} не сходится с БИК банка (контрольный ключ). Проверьте цифры счёта и БИК`
  return null
}

/** The seller's tax regime: professional income tax (self-employed), simplified system, or the general one (with VAT). */
export const TAX_REGIMES = ['npd', 'usn', 'osn'] as const
export type TaxRegime = (typeof TAX_REGIMES)[number]

/** Who issues invoices and acts (config.seller): the name, tax regime and bank details as they go on a document. */
export type SellerDetails = {
  name: string
  inn: string
  /** Organisations only (10-digit INN); null for a sole trader or a self-employed person. */
  kpp: string | null
  taxRegime: TaxRegime
  /** Settlement account (расчётный счёт), 20 digits. */
  account: string
  bank: string
  bik: string
  corrAccount: string
  address: string
}
