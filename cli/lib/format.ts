// Formatting for the Russian interface: rubles, the spec's price rule, dates and plain tables.
const LOCALE = 'ru-RU'
const formats = new Map<number, Intl.NumberFormat>()
const digits = (n: number) => {
  let f = formats.get(n)
  if (!f) formats.set(n, (f = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: n, maximumFractionDigits: n })))
  return f
}
// Intl groups thousands with a narrow no-break space; a plain space copies and aligns better in terminals.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')

/** Spec section 9: under 0.01 → 6 decimals, under 1 → 4, otherwise 2. */
export function priceDigits(value: number): number {
  const abs = Math.abs(value)
  if (abs < 0.01) return 6
  if (abs < 1) return 4
  return 2
}

/** Balances and totals: '50,00 ₽'. */
export const rubles = (value: number | string) => `${plain(digits(2).format(Number(value)))} ₽`

/** A unit price or a small charge by the price rule: '0,000123 ₽', '0,1234 ₽', '1,50 ₽'. */
export function price(value: number | string): string {
  const n = Number(value)
  if (!Number.isFinite(n)) return '—'
  return `${plain(digits(n === 0 ? 2 : priceDigits(n)).format(n))} ₽`
}

/** A ledger amount such as '+50.00' or '-0.001234', keeping its sign. */
export function signedPrice(value: string | number): string {
  const n = Number(value)
  if (!Number.isFinite(n)) return String(value)
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${price(Math.abs(n))}`
}

export const integer = (n: number) => plain(new Intl.NumberFormat(LOCALE).format(n))

const dateTime = new Intl.DateTimeFormat(LOCALE, { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' })
export const when = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—')

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

/**
 * A balance to the micro-ruble the server keeps, trailing zeros after the kopecks dropped:
 * '50,00 ₽', '49,999877 ₽'. A sub-kopeck chat charge must visibly change the balance.
 */
export const exactRubles = (value: number) => `${plain(new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(value))} ₽`

/** A calendar day in Moscow time, the zone usage periods are counted in: '12.05.2025'. */
export const moscowDay = (iso: string) => new Intl.DateTimeFormat(LOCALE, { timeZone: 'Europe/Moscow', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date(iso))

/** The line under a chat reply: 'Стоимость: 0,003249 ₽ · баланс: 49,856443 ₽'. */
export const costSummary = (costRub: string | null, balance: number | null) =>
  `Стоимость: ${costRub === null ? '—' : price(costRub)}${balance === null ? '' : ` · баланс: ${exactRubles(balance)}`}`
