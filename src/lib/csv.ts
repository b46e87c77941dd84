// CSV for spreadsheets: RFC 4180 fields (comma, CRLF, quotes doubled) and cells a spreadsheet
// will not run as formulas. The exports (usage, activity) add a UTF-8 BOM so Excel reads Cyrillic.
import { MSK_OFFSET_MS } from '../content/moscow'

/** One RFC 4180 field: quoted when it holds a comma, quote or line break. */
export function csvField(value: string | number): string {
  const s = String(value)
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

/**
 * A text cell a spreadsheet must not run: one that starts with =, +, -, @, a tab or a carriage
 * return is a formula to Excel and LibreOffice (OWASP "CSV injection"), so it gets a leading
 * single quote. For text from outside (model names, key names); our own numbers stay numbers.
 */
export function csvText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
}

export const csvLine = (fields: (string | number)[]) => `${fields.map(csvField).join(',')}\r\n`

/** The byte-order mark that opens an export: Excel takes the file for UTF-8 only with it. */
export const CSV_BOM = '\uFEFF'

/** '2026-11-21 14:03:05' in Moscow time: a spreadsheet recognises it as a date. */
export const csvMoscowTime = (d: Date) => new Date(+d + MSK_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ')

/** A CSV answered as a download named `filename` (never cached: it is the account's own data). */
export const csvDownload = (body: ConstructorParameters<typeof Response>[0], filename: string) =>
  new Response(body, {
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store' },
  })
