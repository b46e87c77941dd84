// The bank statement import's pure half: the 1C exchange file read in the encodings banks write it
// in (built here, byte for byte), the incoming payments with exact amounts, every kind of broken
// file refused with a Russian message, and the matcher's verdicts.
import { describe, expect, test } from 'bun:test'
import { encodeSingleByte } from '../test-support/encodings'
import { type InvoiceToMatch, invoiceNumbersIn, malformedNumbersIn, matchPayments, UNMATCHED_REASONS_RU } from './match'
import { MAX_STATEMENT_BYTES, parseStatement, readIncomingPayments, StatementError } from './statement'
import { COMPANY_BUYER, type StatementDoc as Doc, NPD_SELLER, OTHER_ACCOUNT, PETROV, ROMASHKA, SOLE_TRADER_BUYER, statementText as statement } from './test-fixtures'

const SELLER = NPD_SELLER.account

// The three payments of the brief (one matching, one with a wrong amount, one with an unknown
// number) and one outgoing payment of the seller's that must not count.
const THREE: Doc[] = [
  { number: '512', amount: '1200.00', purpose: 'Оплата по счету № 2026-000123 от 21.11.2026. Пополнение баланса по договору-оферте. Без НДС' },
  { number: '88', amount: '1500.5', purpose: 'Оплата по счёту N 2026–000124 от 21.11.2026, без НДС', payer: PETROV },
  { number: '513', amount: '1201.00', purpose: 'Оплата по счету №2026-000999. Без НДС' },
  { number: '7', amount: '100.00', purpose: 'Оплата хостинга', from: SELLER, to: OTHER_ACCOUNT },
]

const INVOICES: InvoiceToMatch[] = [
  { number: '2026-000123', amountKopecks: 120_000, buyerInn: COMPANY_BUYER.inn, status: 'issued' },
  { number: '2026-000124', amountKopecks: 150_000, buyerInn: SOLE_TRADER_BUYER.inn, status: 'issued' },
  { number: '2026-000125', amountKopecks: 99_000, buyerInn: COMPANY_BUYER.inn, status: 'paid' },
]

describe('1C statement', () => {
  test('Windows-1251 with CRLF, three incoming payments: read exactly, one matches, one amount differs, one number unknown', () => {
    const bytes = encodeSingleByte(statement(THREE), 'windows-1251')
    expect(bytes.includes(0xcf)).toBe(true) // «П» in windows-1251: the file really is single-byte
    const parsed = parseStatement(bytes)
    expect(parsed.encoding).toBe('windows-1251')
    expect(parsed.header.ВерсияФормата).toBe('1.03')
    expect(parsed.accounts).toEqual([SELLER])
    expect(parsed.accountSections[0]!.fields.КонечныйОстаток).toBe('3801.50')
    expect(parsed.documents).toHaveLength(4)

    const payments = readIncomingPayments(bytes, SELLER)
    expect(payments).toHaveLength(3) // the outgoing one is not a payment to us
    expect(payments[0]).toEqual({
      key: `044525974:${ROMASHKA.account}:512:2026-11-21:120000`,
      number: '512',
      date: '2026-11-21',
      receivedDate: '2026-11-22',
      amountKopecks: 120_000,
      amountMicros: 1_200_000_000,
      payerInn: '7707083893',
      payerKpp: '773601001',
      payerName: 'ООО «Ромашка»',
      payerAccount: ROMASHKA.account,
      payerBik: '044525974',
      purpose: 'Оплата по счету № 2026-000123 от 21.11.2026. Пополнение баланса по договору-оферте. Без НДС',
    })
    expect(payments[1]).toMatchObject({ amountKopecks: 150_050, amountMicros: 1_500_500_000, payerInn: SOLE_TRADER_BUYER.inn, payerKpp: null, payerName: SOLE_TRADER_BUYER.name })

    const results = matchPayments(payments, INVOICES)
    expect(results.map((r) => (r.status === 'matched' ? ['matched', r.invoice.number] : ['unmatched', r.reason, r.number]))).toEqual([
      ['matched', '2026-000123'],
      ['unmatched', 'amount_differs', '2026-000124'],
      ['unmatched', 'unknown_number', '2026-000999'],
    ])
    expect(results.filter((r) => r.status === 'matched')).toHaveLength(1)
  })

  test('the same statement in CP866 (Кодировка=DOS), UTF-8 with and without BOM, LF endings: the same payments', () => {
    const reference = readIncomingPayments(encodeSingleByte(statement(THREE), 'windows-1251'), SELLER)
    // CP866 has no «» nor –: a DOS-era export writes plain quotes and hyphens.
    const plainQuotes = (text: string) => text.replace(/[«»]/g, '"').replaceAll('–', '-')
    const dos = encodeSingleByte(plainQuotes(statement(THREE, { encodingLine: 'DOS' })), 'ibm866')
    expect(parseStatement(dos).encoding).toBe('ibm866')
    expect(readIncomingPayments(dos, SELLER)).toEqual(readIncomingPayments(encodeSingleByte(plainQuotes(statement(THREE)), 'windows-1251'), SELLER))
    expect(readIncomingPayments(dos, SELLER)[0]).toMatchObject({ payerName: 'ООО "Ромашка"', purpose: reference[0]!.purpose, amountKopecks: 120_000 })
    const utf8 = new TextEncoder().encode(statement(THREE, { eol: '\n' }))
    expect(parseStatement(utf8).encoding).toBe('utf-8')
    expect(readIncomingPayments(utf8, SELLER)).toEqual(reference)
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(statement(THREE))])
    expect(readIncomingPayments(bom, SELLER)).toEqual(reference)
    const lf1251 = encodeSingleByte(statement(THREE, { eol: '\n' }), 'windows-1251')
    expect(readIncomingPayments(lf1251, SELLER)).toEqual(reference)
  })

  test('amounts are exact to the kopeck, whatever their digits', () => {
    const amounts = ['0.01', '1200', '1200.5', '1200,99', '99999999.99', '1000000.00', '0.10']
    const docs = amounts.map((amount, i) => ({ number: String(i + 1), amount, purpose: 'x' }))
    const got = readIncomingPayments(new TextEncoder().encode(statement(docs)), SELLER).map((p) => [p.amountKopecks, p.amountMicros])
    expect(got).toEqual([
      [1, 10_000],
      [120_000, 1_200_000_000],
      [120_050, 1_200_500_000],
      [120_099, 1_200_990_000],
      [9_999_999_999, 99_999_999_990_000],
      [100_000_000, 1_000_000_000_000],
      [10, 100_000],
    ])
  })

  test('a purpose split over НазначениеПлатежа1, 2… is joined', () => {
    const text = statement([{ number: '1', amount: '1200.00', purpose: '' }]).replace(
      'НазначениеПлатежа=\r\n',
      'НазначениеПлатежа1=Оплата по счету\r\nНазначениеПлатежа2=№ 2026-000123 от 21.11.2026\r\n',
    )
    expect(readIncomingPayments(new TextEncoder().encode(text), SELLER)[0]!.purpose).toBe('Оплата по счету № 2026-000123 от 21.11.2026')
  })

  const refused = (bytes: Uint8Array, account = SELLER) => {
    try {
      readIncomingPayments(bytes, account)
    } catch (e) {
      expect(e).toBeInstanceOf(StatementError)
      return (e as Error).message
    }
    throw new Error('the file was accepted')
  }
  const utf8 = (text: string) => new TextEncoder().encode(text)
  const good = statement(THREE)

  test('bad files: a clear Russian message for each', () => {
    expect(refused(new Uint8Array())).toBe('Файл выписки пуст')
    expect(refused(utf8('%PDF-1.7\n…'))).toContain('ожидается файл обмена с 1С (1CClientBankExchange)')
    expect(refused(new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x80]))).toContain('Не удалось прочитать выписку')
    expect(refused(utf8(good.replace('1CClientBankExchange', 'ClientBankExchange')))).toBe('Это не выписка в формате 1С: файл должен начинаться со строки 1CClientBankExchange')
    expect(refused(utf8(good.replace('КонецФайла', '')))).toBe('Выписка оборвана: нет строки КонецФайла в конце. Выгрузите выписку из банка заново')
    expect(refused(utf8(good.slice(0, good.indexOf('Сумма=1500.5'))))).toMatch(/^Выписка оборвана: документ со строки \d+ не закончен \(нет строки КонецДокумента\)/)
    expect(refused(utf8(good.replace('КонецДокумента\r\nСекцияДокумент', 'СекцияДокумент')))).toMatch(/^Строка \d+: Документ со строки \d+ не закончен/)
    expect(refused(utf8(good.replace('Сумма=1200.00', 'Сумма=1 2OO.00')))).toMatch(/^Документ № 512 \(строка \d+\): сумма «1 2OO.00» — не число$/)
    expect(refused(utf8(good.replace('Сумма=1200.00', 'Сумма=-1200.00')))).toContain('— не число')
    expect(refused(utf8(good.replace('Сумма=1200.00', 'Сумма=')))).toContain('нет суммы')
    expect(refused(utf8(good.replace('Сумма=1200.00', 'Сумма=9999999999999.00')))).toContain('сумма «9999999999999.00» слишком велика')
    // What Number() would read as 1 000 is no amount (issue 33).
    for (const amount of ['0x3E8', '1e3', '1E3', 'Infinity', '0b1111101000', '+1000'])
      expect(refused(utf8(good.replace('Сумма=1200.00', `Сумма=${amount}`)))).toMatch(
        new RegExp(`^Документ № 512 \\(строка \\d+\\): сумма «${amount.replace('+', '\\+')}» — не число$`),
      )
    expect(refused(utf8(good.replace('Сумма=1200.00', 'Сумма=1200.005')))).toContain('сумма «1200.005» точнее копейки')
    expect(refused(utf8(good.replace('Дата=21.11.2026\r\nСумма=1200.00', 'Дата=31.11.2026\r\nСумма=1200.00')))).toContain('дата «31.11.2026» — не дата ДД.ММ.ГГГГ')
    expect(refused(utf8(good.replace('Очередность=5', 'какой-то мусор')))).toMatch(/^Строка \d+: ожидалось «Ключ=Значение», а в файле «какой-то мусор»$/)
    expect(refused(utf8(good), OTHER_ACCOUNT)).toBe(`Это выписка по счёту ${SELLER}, а счета на оплату выставляются на счёт ${OTHER_ACCOUNT}`)
    expect(refused(new Uint8Array(MAX_STATEMENT_BYTES + 1))).toContain('больше 10 МБ')
  })

  test('cut anywhere, the file is either read or refused with a StatementError: never another exception', () => {
    const bytes = encodeSingleByte(good, 'windows-1251')
    for (let cut = 0; cut < bytes.length; cut += 7) {
      try {
        readIncomingPayments(bytes.subarray(0, cut), SELLER)
      } catch (e) {
        if (!(e instanceof StatementError)) throw new Error(`cut at ${cut}: ${e}`)
      }
    }
  })
})

describe('matching payments to invoices', () => {
  test.each([
    ['Оплата по счету № 2026-000123 от 21.11.2026', ['2026-000123']],
    ['Оплата по счету №2026-000123', ['2026-000123']],
    ['Оплата по сч. N 2026-000123', ['2026-000123']],
    ['Оплата счета 2026–000123 от 21.11.2026', ['2026-000123']], // en dash
    ['Оплата по счёту 2026—000123', ['2026-000123']], // em dash
    ['Оплата по счету 2026‑000123', ['2026-000123']], // non-breaking hyphen
    ['Оплата по счету № 2026 - 123 за услуги', ['2026-000123']], // spaces, no leading zeros
    ['Оплата по счету No. 2026-000123', ['2026-000123']],
    ['ОПЛАТА ПО СЧЕТУ №2026-000123 ОТ 21.11.2026 НДС НЕ ОБЛАГАЕТСЯ', ['2026-000123']],
    ['Пополнение баланса 2026-000123', ['2026-000123']], // no mark, still the only candidate
    ['Оплата по договору от 2026-11-21', []], // an ISO date is no invoice number
    ['ИНН 7707083893, оплата за услуги', []],
    ['Оплата по счетам № 2026-000123 и № 2026-000124', ['2026-000123', '2026-000124']],
    ['Договор 2025-17, оплата по счету № 2026-000123', ['2026-000123', '2025-000017']], // marked ones first
    ['Оплата по счету № 2026-0', []], // no invoice has number 0 (issue 33: it threw, a 500)
    ['Оплата по счету № 2026-000000 и № 2026-000123', ['2026-000123']],
  ])('%s', (purpose, numbers) => {
    expect(invoiceNumbersIn(purpose)).toEqual(numbers)
  })

  test('a zero number is malformed, not an invoice', () => {
    expect(malformedNumbersIn('Оплата по счету № 2026-0 и 2026 – 0000000')).toEqual(['2026-0', '2026-0000000'])
    expect(malformedNumbersIn('Оплата по счету № 2026-000123')).toEqual([])
  })

  const pay = (purpose: string, amountKopecks = 120_000, payerInn = COMPANY_BUYER.inn) => ({ purpose, amountKopecks, payerInn })
  const verdict = (payments: ReturnType<typeof pay>[]) => matchPayments(payments, INVOICES).map((r) => (r.status === 'matched' ? 'matched' : r.reason))

  test('each reason, with its Russian text', () => {
    expect(
      verdict([
        pay('Оплата по счету № 2026-000123'),
        pay('Оплата по счету № 2026-000124', 150_000, COMPANY_BUYER.inn),
        pay('Оплата по счету № 2026-000125', 99_000),
        pay('Оплата без номера'),
        pay('Оплата по счетам № 2026-000123 и 2026-000124'),
        pay('Оплата по счету № 2026-0'),
      ]),
    ).toEqual(['matched', 'inn_differs', 'already_paid', 'unknown_number', 'several_numbers', 'bad_number'])
    const cancelled = matchPayments([pay('№ 2026-000123')], [{ ...INVOICES[0]!, status: 'cancelled' }])
    expect(cancelled[0]).toMatchObject({ status: 'unmatched', reason: 'cancelled', number: '2026-000123' })
    expect(UNMATCHED_REASONS_RU.amount_differs).toBe('Сумма не совпадает с суммой счёта')
    // Six from the file, three more set by the import: a zero number, the payer's INN unconfirmed or rejected for the team.
    expect(Object.keys(UNMATCHED_REASONS_RU)).toHaveLength(9)
  })

  test('the same invoice paid twice in one statement: the first is matched, the second is already paid', () => {
    expect(verdict([pay('№ 2026-000123'), pay('Оплата по счету 2026-000123')])).toEqual(['matched', 'already_paid'])
  })
})
