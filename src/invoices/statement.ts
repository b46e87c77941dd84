// The bank statement in the 1C exchange format (`1CClientBankExchange`, protocols.md §6): what every
// Russian bank exports for accounting software. A text file of `Key=Value` lines, Windows-1251 as
// banks write it (`Кодировка=DOS` means CP866; UTF-8 is accepted too), CRLF or LF: a header, account
// sections (`СекцияРасчСчет … КонецРасчСчет`), documents (`СекцияДокумент=… … КонецДокумента`),
// and `КонецФайла`. Amounts are read as exact decimal strings into kopecks: no float on the way.
// A file that is not a statement, or is cut short, is a StatementError with a Russian message.

import { kopecksFromText, microsFromKopecks } from './amount'

/** A statement this big is not a statement (a year of a busy account is a few MB). */
export const MAX_STATEMENT_BYTES = 10 * 1024 * 1024

export class StatementError extends Error {}

export type StatementEncoding = 'windows-1251' | 'ibm866' | 'utf-8'

type Fields = Record<string, string>

export type StatementSection = { line: number; fields: Fields }
export type StatementDocument = StatementSection & { kind: string }

export type Statement = {
  encoding: StatementEncoding
  header: Fields
  /** Every account the statement covers (the header's `РасчСчет` lines and the account sections). */
  accounts: string[]
  accountSections: StatementSection[]
  documents: StatementDocument[]
}

/** A payment into the seller's account, as the matcher and the admin's list need it. */
export type IncomingPayment = {
  /** Identifies the payment across imports: the payer's bank and account, the order's number, date and amount. */
  key: string
  /** The payment order's number. */
  number: string
  /** The payment order's date, `YYYY-MM-DD`. */
  date: string
  /** When the money arrived (`ДатаПоступило`), `YYYY-MM-DD`, or null when the bank left it out. */
  receivedDate: string | null
  amountKopecks: number
  amountMicros: number
  /** '' when the bank gave none (a person paying, a foreign payer). */
  payerInn: string
  payerKpp: string | null
  payerName: string
  payerAccount: string
  payerBik: string
  purpose: string
}

const HEADER = '1CClientBankExchange'
const MARKERS = ['ВерсияФормата=', 'Кодировка=', 'СекцияДокумент=', 'КонецФайла']

/** The text of the file: the encoding in which its Russian keys read as Russian. */
function decode(bytes: Uint8Array): { text: string; encoding: StatementEncoding } {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  const body = bom ? bytes.subarray(3) : bytes
  const readable = (text: string) => MARKERS.some((m) => text.includes(m))
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body)
    if (bom || readable(text)) return { text, encoding: 'utf-8' }
  } catch {} // not UTF-8: one of the single-byte encodings
  for (const encoding of ['windows-1251', 'ibm866'] as const) {
    const text = new TextDecoder(encoding).decode(body)
    if (readable(text)) return { text, encoding }
  }
  throw new StatementError('Не удалось прочитать выписку: ожидается файл обмена с 1С (1CClientBankExchange) в кодировке Windows-1251, DOS (CP866) или UTF-8')
}

/** `Key=Value` of a line, or null when it has no `=`. Values keep inner spaces; both sides are trimmed. */
function keyValue(line: string): [string, string] | null {
  const eq = line.indexOf('=')
  if (eq <= 0) return null
  return [line.slice(0, eq).trim(), line.slice(eq + 1).trim()]
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 60)}…` : s)

/** Reads the whole file: header, account sections and documents, as they are. */
export function parseStatement(bytes: Uint8Array): Statement {
  if (bytes.length === 0) throw new StatementError('Файл выписки пуст')
  if (bytes.length > MAX_STATEMENT_BYTES) throw new StatementError(`Файл выписки больше ${MAX_STATEMENT_BYTES / 1024 / 1024} МБ: выгрузите выписку за более короткий период`)
  const { text, encoding } = decode(bytes)
  const lines = text.split(/\r\n|\n|\r/)
  let i = 0
  while (i < lines.length && !lines[i]!.trim()) i++
  if (lines[i]?.trim() !== HEADER) throw new StatementError(`Это не выписка в формате 1С: файл должен начинаться со строки ${HEADER}`)

  const header: Fields = {}
  const accounts = new Set<string>()
  const accountSections: StatementSection[] = []
  const documents: StatementDocument[] = []
  let open: { end: string; what: string; section: StatementSection; kind?: string } | null = null
  let ended = false

  for (i++; i < lines.length && !ended; i++) {
    const line = lines[i]!.trim()
    const at = `Строка ${i + 1}`
    if (!line) continue
    if (open) {
      if (line === open.end) {
        if (open.kind !== undefined) documents.push({ ...open.section, kind: open.kind })
        else accountSections.push(open.section)
        open = null
        continue
      }
      if (line === 'КонецФайла' || line === 'СекцияРасчСчет' || line.startsWith('СекцияДокумент='))
        throw new StatementError(`${at}: ${open.what} со строки ${open.section.line} не закончен (нет строки ${open.end}). Выгрузите выписку из банка заново`)
      const kv = keyValue(line)
      if (!kv) throw new StatementError(`${at}: ожидалось «Ключ=Значение», а в файле «${clip(line)}»`)
      // A repeated key (a long purpose split by some banks) keeps its first value; the numbered
      // continuation keys (НазначениеПлатежа1…) are read separately.
      if (!(kv[0] in open.section.fields)) open.section.fields[kv[0]] = kv[1]
      continue
    }
    if (line === 'КонецФайла') {
      ended = true
      continue
    }
    if (line === 'СекцияРасчСчет') {
      open = { end: 'КонецРасчСчет', what: 'Раздел счёта', section: { line: i + 1, fields: {} } }
      continue
    }
    const kv = keyValue(line)
    if (!kv) throw new StatementError(`${at}: ожидалось «Ключ=Значение», а в файле «${clip(line)}»`)
    if (kv[0] === 'СекцияДокумент') {
      open = { end: 'КонецДокумента', what: 'Документ', section: { line: i + 1, fields: {} }, kind: kv[1] }
      continue
    }
    if (kv[0] === 'РасчСчет' && kv[1]) accounts.add(kv[1].replace(/\s+/g, ''))
    header[kv[0]] ??= kv[1]
  }
  if (open)
    throw new StatementError(`Выписка оборвана: ${open.what.toLowerCase()} со строки ${open.section.line} не закончен (нет строки ${open.end}). Выгрузите выписку из банка заново`)
  if (!ended) throw new StatementError('Выписка оборвана: нет строки КонецФайла в конце. Выгрузите выписку из банка заново')
  for (const s of accountSections) if (s.fields.РасчСчет) accounts.add(s.fields.РасчСчет.replace(/\s+/g, ''))
  return { encoding, header, accounts: [...accounts], accountSections, documents }
}

/** `1200.00`, `1200`, `1200.5` (and a comma some banks write) → kopecks, exactly; `0x3E8`, `1e3` are refused. */
function kopecks(value: string, where: string): number {
  const read = kopecksFromText(value)
  if ('kopecks' in read) return read.kopecks
  if (read.error === 'too_large') throw new StatementError(`${where}: сумма «${clip(value)}» слишком велика`)
  if (read.error === 'sub_kopeck') throw new StatementError(`${where}: сумма «${clip(value)}» точнее копейки`)
  throw new StatementError(`${where}: сумма «${clip(value)}» — не число`)
}

/** `21.11.2026` → `2026-11-21`, a real calendar day. */
function isoDate(value: string, where: string, what: string): string {
  const m = value.match(/^(\d{2})\.(\d{2})\.(\d{4})$/)
  const iso = m ? `${m[3]}-${m[2]}-${m[1]}` : ''
  if (!m || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso) throw new StatementError(`${where}: ${what} «${clip(value)}» — не дата ДД.ММ.ГГГГ`)
  return iso
}

const digits = (s: string | undefined) => (s ?? '').replace(/\s+/g, '')

/** The purpose: `НазначениеПлатежа`, or its numbered parts joined when a bank splits it. */
function purposeOf(f: Fields): string {
  if (f.НазначениеПлатежа) return f.НазначениеПлатежа
  const parts: string[] = []
  for (let n = 1; f[`НазначениеПлатежа${n}`] !== undefined; n++) parts.push(f[`НазначениеПлатежа${n}`]!)
  return parts.join(' ').trim()
}

/**
 * The payments into `sellerAccount` (documents whose `ПолучательСчет` is it). A statement of
 * another account is refused: an import that matched nothing because the file was the wrong one
 * would look like a day without payments.
 */
export function incomingPayments(statement: Statement, sellerAccount: string): IncomingPayment[] {
  const own = digits(sellerAccount)
  if (statement.accounts.length && !statement.accounts.includes(own))
    throw new StatementError(`Это выписка по счёту ${statement.accounts.join(', ')}, а счета на оплату выставляются на счёт ${own}`)
  const out: IncomingPayment[] = []
  for (const doc of statement.documents) {
    const f = doc.fields
    if (digits(f.ПолучательСчет || f.ПолучательРасчСчет) !== own) continue
    const where = `Документ${f.Номер ? ` № ${f.Номер}` : ''} (строка ${doc.line})`
    if (!f.Номер) throw new StatementError(`${where}: нет номера платёжного поручения`)
    if (!f.Дата) throw new StatementError(`${where}: нет даты`)
    if (!f.Сумма) throw new StatementError(`${where}: нет суммы`)
    const amountKopecks = kopecks(f.Сумма, where)
    const date = isoDate(f.Дата, where, 'дата')
    const receivedDate = f.ДатаПоступило ? isoDate(f.ДатаПоступило, where, 'дата поступления') : null
    const payerAccount = digits(f.ПлательщикСчет || f.ПлательщикРасчСчет)
    const payerBik = digits(f.ПлательщикБИК)
    const payerKpp = digits(f.ПлательщикКПП)
    out.push({
      key: `${payerBik}:${payerAccount}:${f.Номер}:${date}:${amountKopecks}`,
      number: f.Номер,
      date,
      receivedDate,
      amountKopecks,
      amountMicros: microsFromKopecks(amountKopecks),
      payerInn: digits(f.ПлательщикИНН).replace(/^0$/, ''),
      payerKpp: payerKpp && payerKpp !== '0' ? payerKpp : null,
      // `Плательщик` often reads «ИНН 7707083893 ООО "Ромашка"»; `Плательщик1` is the name alone.
      payerName: f.Плательщик1 || (f.Плательщик ?? '').replace(/^ИНН\s*\d+\s*/, ''),
      payerAccount,
      payerBik,
      purpose: purposeOf(f),
    })
  }
  return out
}

/** parseStatement + incomingPayments: the file as uploaded, the payments to match. */
export const readIncomingPayments = (bytes: Uint8Array, sellerAccount: string) => incomingPayments(parseStatement(bytes), sellerAccount)
