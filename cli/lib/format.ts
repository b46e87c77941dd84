// Formatting for the Russian interface: money by the web's rules (src/content/format.ts, one
// module for the site, the app and the terminal), dates and plain tables. Every date and time here
// is Moscow's, whatever the machine's zone, as on the web (issue 33).
import { formatPrice, formatRubles, formatRublesExact, moscowFormat } from '../../src/content/format'

const LOCALE = 'ru-RU'
// Intl groups thousands with a narrow no-break space; a plain space copies and aligns better in terminals.
export const plainSpaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')
const plain = plainSpaces

/** Balances and totals, always two decimals: '50,00 ₽'. */
export const rubles = (value: number | string) => plain(formatRubles(value))

/** A unit price or one request's charge by the price rule: '0,000123 ₽', '0,1234 ₽', '1,50 ₽'. */
export const price = (value: number | string) => plain(formatPrice(value))

/** A ledger amount such as '+50.00' or '-0.001234', keeping its sign. */
export function signedPrice(value: string | number): string {
  const n = Number(value)
  if (!Number.isFinite(n)) return String(value)
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${price(Math.abs(n))}`
}

// Token prices per 1M tokens, pictures priced by direction: the web's words.
export { PER_INPUT_IMAGE, PER_MILLION, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE } from '../../src/content/format'

export const integer = (n: number) => plain(new Intl.NumberFormat(LOCALE).format(n))

const MOSCOW = 'Europe/Moscow'
/** A table column of Moscow times says so once, in its header: 'Время (МСК)'. */
export const mskColumn = (name: string) => `${name} (МСК)`
/** Date and time in Moscow for a table column headed by mskColumn: '25.11.2026, 15:13'. */
export const when = (iso: string | null | undefined) => (iso ? moscowFormat.format(new Date(iso)) : '—')
/** Date and time in Moscow on their own, labelled: '25.11.2026, 15:13 МСК'. */
export const moscowTime = (iso: string | null | undefined) => (iso ? `${when(iso)} МСК` : '—')

/**
 * A plain aligned table; columns listed in `right` are right-aligned (numbers). Widths count
 * code points, which is right for Cyrillic, digits and ₽.
 */
export function table(headers: string[], rows: string[][], right: number[] = []): string {
  const width = (s: string) => [...s].length
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const pad = ' '.repeat(widths[i]! - width(c))
        return right.includes(i) ? pad + c : c + pad
      })
      .join('  ')
      .trimEnd()
  return [line(headers), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)].join('\n')
}

/** To the micro-ruble, where rounding would mislead (a request's charge, hold and ledger row): '49,999877 ₽'. */
export const exactRubles = (value: number) => plain(formatRublesExact(value))

/** A calendar day in Moscow time, the zone usage periods are counted in: '12.05.2025'. */
const moscowDate = new Intl.DateTimeFormat(LOCALE, { timeZone: MOSCOW, day: '2-digit', month: '2-digit', year: 'numeric' })
export const moscowDay = (iso: string) => moscowDate.format(new Date(iso))

/** The line under a chat reply: 'Стоимость: 0,003249 ₽ · баланс: 49,86 ₽'. */
export const costSummary = (costRub: string | null, balance: number | null) =>
  `Стоимость: ${costRub === null ? '—' : price(costRub)}${balance === null ? '' : ` · баланс: ${rubles(balance)}`}`

/** A cell cut to `max` code points with '…': names and models in tables that fit 80 columns. */
export function cut(text: string, max: number): string {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}

const shortMoscow = new Intl.DateTimeFormat(LOCALE, { timeZone: MOSCOW, day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit' })
/** Day, month and Moscow time for narrow tables headed by mskColumn: '25.11 15:13'. */
export const shortWhen = (iso: string) => shortMoscow.format(new Date(iso)).replace(', ', ' ')
