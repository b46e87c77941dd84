// Display formatting for the ru-RU interface. Amounts come from the API in rubles
// (numbers for balances, signed numeric strings for transaction amounts and prices).
//
// Money on screen, one rule for the SPA, the server-rendered pages and their texts (issue 29):
// - balances and totals (what a period or an account spent), top-ups, refunds, budgets — two
//   decimals: formatRubles ('1 234,50 ₽');
// - what one request or one unit costs (a reply's charge, a ledger movement, a price per picture,
//   per request or per 1M tokens) — the spec's price rule: under 0.01 six decimals, under 1 four,
//   otherwise two: formatPrice ('0,001600 ₽', '0,1234 ₽', '1,50 ₽'). A kopeck-rounded «0,00 ₽»
//   for a request that cost money would be wrong, hence the finer digits only there;
// - token prices always per 1M tokens (PER_MILLION: formatPerMillion), never per token or per 1K;
//   a picture's price says its direction: PER_INPUT_IMAGE or PER_OUTPUT_IMAGE;
// - the exact amount to the micro-ruble only where rounding would mislead (the admin's balance
//   dialog, the activity log's detail): formatRublesExact.

const LOCALE = 'ru-RU'

const numberFormats = new Map<string, Intl.NumberFormat>()
function decimals(digits: number): Intl.NumberFormat {
  const key = String(digits)
  let format = numberFormats.get(key)
  if (!format) {
    format = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: digits, maximumFractionDigits: digits })
    numberFormats.set(key, format)
  }
  return format
}

function toNumber(value: number | string | null | undefined): number {
  if (value === null || value === undefined || value === '') return Number.NaN
  return typeof value === 'number' ? value : Number(value)
}

/** '50,00 ₽', '12 345,67 ₽' — balances and totals, always two decimals. */
export function formatRubles(value: number | string | null | undefined): string {
  const n = toNumber(value)
  if (!Number.isFinite(n)) return '—'
  return `${decimals(2).format(n)} ₽`
}

const exactRubles = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 6 })
/**
 * '1 546,179617 ₽', '50,00 ₽' — an amount to the micro-ruble, for where a rounded figure would
 * mislead (the most an admin can deduct is the balance exactly, not its kopeck rounding).
 */
export function formatRublesExact(value: number | string | null | undefined): string {
  const n = toNumber(value)
  if (!Number.isFinite(n)) return '—'
  return `${exactRubles.format(n)} ₽`
}

/** Token prices are quoted for this many tokens everywhere (catalogue, picker, Playground, docs). */
export const PER_MILLION = 1_000_000
export const PER_MILLION_TOKENS = 'за 1M токенов'
/** A price per picture sent to the model (`pricing.image`) and per picture it draws (`pricing.image_output`). */
export const PER_INPUT_IMAGE = 'за входное изображение'
export const PER_OUTPUT_IMAGE = 'за сгенерированное изображение'

/** Digits for a unit price by the spec's rule: under 0.01 → 6, under 1 → 4, otherwise 2. */
export function priceDigits(value: number): number {
  const abs = Math.abs(value)
  if (abs < 0.01) return 6
  if (abs < 1) return 4
  return 2
}

/** A price in rubles by the spec's display rule: '0,001600 ₽', '0,1234 ₽', '1,50 ₽'; nothing is '0,00 ₽'. */
export function formatPrice(value: number | string | null | undefined): string {
  const n = toNumber(value)
  if (!Number.isFinite(n)) return '—'
  return `${decimals(n === 0 ? 2 : priceDigits(n)).format(n)} ₽`
}

/** Micro-rubles, the server's unit of money, by the same rule (the API's refusals quote them). */
export const formatMicros = (micros: number): string => formatPrice(micros / 1_000_000)

/** '0,43 ₽' for 1M tokens from a ruble price per token (add PER_MILLION_TOKENS where the unit is not said around it). */
export function formatPerMillion(perToken: number | string | null | undefined): string {
  const n = toNumber(perToken)
  return Number.isFinite(n) ? formatPrice(n * PER_MILLION) : '—'
}

/**
 * A signed ledger amount such as '+50.00' or '-0.001234' → '+50,00 ₽' / '−0,001234 ₽' (a true
 * minus sign, as wide as the plus). Small usage charges keep their precision (price rule),
 * whole movements show two decimals.
 */
export function formatSignedRubles(value: number | string | null | undefined): string {
  const n = toNumber(value)
  if (!Number.isFinite(n)) return '—'
  const sign = n > 0 ? '+' : n < 0 ? '\u2212' : ''
  const abs = Math.abs(n)
  return `${sign}${decimals(abs === 0 ? 2 : priceDigits(abs)).format(abs)} ₽`
}

const integerFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 })
/** '1 234 567' */
export function formatInteger(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  return integerFormat.format(value)
}

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}

// Every time a person reads is Moscow time, whatever the reader's or the server's zone (issue 33):
// the day boundaries of budgets, usage periods and documents are Moscow's too. A time says so
// («МСК», after a no-break space so it never wraps away from the time); a date alone needs no label.
const MOSCOW = 'Europe/Moscow'
const MSK = '\u00a0МСК'
const dateFormat = new Intl.DateTimeFormat(LOCALE, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: MOSCOW })
const longDateFormat = new Intl.DateTimeFormat(LOCALE, { day: 'numeric', month: 'long', year: 'numeric', timeZone: MOSCOW })
/** '01.03.2028, 00:00': a date and time in Moscow, whatever the reader's zone (no label: add МСК where it is read). */
export const moscowFormat = new Intl.DateTimeFormat(LOCALE, {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: MOSCOW,
})
const dayTimeFormat = new Intl.DateTimeFormat(LOCALE, { day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', timeZone: MOSCOW })
const shortTimeFormat = new Intl.DateTimeFormat(LOCALE, { day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: MOSCOW })

/** '21.11.2025' (the Moscow day) */
export function formatDate(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? dateFormat.format(date) : '—'
}

/** '21 ноября 2025 г.' (the Moscow day) */
export function formatLongDate(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? longDateFormat.format(date) : '—'
}

/** '21.11.2025, 14:05 МСК' */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? `${moscowFormat.format(date)}${MSK}` : '—'
}

/** '01.03.2028, 00:00 МСК' — the same as formatDateTime (budget resets, the audit log call it so). */
export const formatMoscowDateTime = formatDateTime

/** '25 ноября, 09:00 МСК': a moment of the coming days (the next autopost). */
export function formatDayTime(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? `${dayTimeFormat.format(date)}${MSK}` : '—'
}

/** '24.11, 14:05:09 МСК': to the second, for event logs that list several a minute. */
export function formatTimeSeconds(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? `${shortTimeFormat.format(date)}${MSK}` : '—'
}

/**
 * The Russian plural form for `n`: pluralRu(1, ['модель', 'модели', 'моделей']) → 'модель',
 * 3 → 'модели', 11 → 'моделей', 21 → 'модель'.
 */
export function pluralRu(n: number, forms: readonly [one: string, few: string, many: string]): string {
  const abs = Math.abs(Math.trunc(n))
  const mod10 = abs % 10
  const mod100 = abs % 100
  if (mod10 === 1 && mod100 !== 11) return forms[0]
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return forms[1]
  return forms[2]
}

/** '45 с', '1 мин 05 с', '2 ч 03 мин': how long a recording is (whole seconds). */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—'
  const s = Math.ceil(seconds)
  if (s < 60) return `${s} с`
  if (s < 3600) return `${Math.floor(s / 60)} мин ${String(s % 60).padStart(2, '0')} с`
  return `${Math.floor(s / 3600)} ч ${String(Math.floor(s / 60) % 60).padStart(2, '0')} мин`
}

/**
 * What a voice request is measured in, instead of tokens: '45 с аудио' (transcription), '1 234 символа'
 * (speech); null for any other request.
 */
export function voiceAmount(row: { audioSeconds?: number | null; characters?: number | null }): string | null {
  if (row.audioSeconds) return `${formatDuration(row.audioSeconds)} аудио`
  if (row.characters) return `${formatInteger(row.characters)} ${pluralRu(row.characters, ['символ', 'символа', 'символов'])}`
  return null
}
