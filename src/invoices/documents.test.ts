// The invoice and the act as PDFs: rendered, then read back with pdftotext, as the payer's accountant
// would read them. The pages were also rendered with `pdftoppm -png -r 80` and looked at.
import { describe, expect, test } from 'bun:test'
import { pdfFonts, pdfInfo, pdfText } from '../test-support/pdf'
import { renderActPdf } from './act-pdf'
import { formatDocDate, formatMonth, lastDayOf, monthBounds, monthOf } from './dates'
import { invoicePurpose, renderInvoicePdf } from './invoice-pdf'
import { COMPANY_BUYER, NPD_SELLER, OSN_SELLER, SOLE_TRADER_BUYER } from './test-fixtures'
import { vatFor, vatRatePercent } from './vat'

const OFFER = 'https://gw.example.ru/public-offer'

/** Every part is in the text, each failing on its own line. */
const expectAll = (text: string, parts: string[]) => {
  for (const part of parts) expect(text).toContain(part)
}
const NOV_21 = new Date('2026-11-21T09:00:00Z')

const invoice = (over: Partial<Parameters<typeof renderInvoicePdf>[0]> = {}) => ({
  number: '2026-000123',
  issuedAt: NOV_21,
  seller: NPD_SELLER,
  buyer: COMPANY_BUYER,
  account: 'Ромашка — отдел аналитики',
  amountKopecks: 120_000,
  offerUrl: OFFER,
  ...over,
})

describe('invoice PDF', () => {
  test('a self-employed seller: number, both INNs, bank details, the amount in figures and words, «Без НДС», the purpose', async () => {
    const pdf = await renderInvoicePdf(invoice({ validUntil: new Date('2026-11-28T09:00:00Z') }))
    expect(new TextDecoder().decode(pdf.subarray(0, 5))).toBe('%PDF-')
    const text = await pdfText(pdf)
    expectAll(text, [
      'Счёт на оплату № 2026-000123 от 21 ноября 2026 г.',
      'ИНН 500100732259', // seller
      'ИНН 7707083893', // buyer
      'КПП 773601001',
      COMPANY_BUYER.address,
      NPD_SELLER.bank,
      NPD_SELLER.bik,
      NPD_SELLER.corrAccount,
      NPD_SELLER.account,
      NPD_SELLER.name,
      'Пополнение баланса аккаунта «Ромашка — отдел аналитики» по договору-оферте',
      '1 200,00',
      'Всего наименований 1, на сумму 1 200,00 руб.',
      'Одна тысяча двести рублей 00 копеек',
      'Без НДС',
    ])
    expect(text).not.toContain('В том числе НДС')
    const purpose = invoicePurpose(invoice())
    expect(purpose).toBe('Оплата по счёту № 2026-000123 от 21.11.2026. Пополнение баланса по договору-оферте. Без НДС')
    expectAll(text, [purpose, 'Счёт действителен до 28.11.2026 включительно.', 'Налог на профессиональный доход', '/ Иванов И. И. /'])

    // One page, the font embedded (it prints the same everywhere), a title for the viewer's window.
    const info = await pdfInfo(pdf)
    expect(info.Pages).toBe('1')
    expect(info.Title).toBe('Счёт на оплату № 2026-000123 от 21 ноября 2026 г.')
    expect(info['Page size']).toContain('(A4)')
    const fonts = await pdfFonts(pdf)
    expect(fonts.length).toBeGreaterThan(0)
    expect(fonts.every((f) => f.embedded && f.name.includes('DejaVu'))).toBe(true)
  })

  test('an organisation with VAT: its KPP, the VAT included at the rate of the date, a sole trader as buyer without KPP', async () => {
    const pdf = await renderInvoicePdf(invoice({ number: '2026-000124', seller: OSN_SELLER, buyer: SOLE_TRADER_BUYER, amountKopecks: 100_000_000 }))
    const text = await pdfText(pdf)
    expectAll(text, [
      'ИНН 7712345671',
      'КПП 771201001',
      'ИП Петров Пётр Петрович, ИНН 772812345609, 125009', // no KPP for a sole trader
      '1 000 000,00',
      'Один миллион рублей 00 копеек',
      'В том числе НДС (22 %): 180 327,87',
      'Оплата по счёту № 2026-000124 от 21.11.2026. Пополнение баланса по договору-оферте. В том числе НДС 22 % — 180 327,87 руб.',
    ])
    expect(text).not.toContain('Без НДС')
    expect((await pdfInfo(pdf)).Pages).toBe('1')
  })
})

test('a seller on the simplified system: «Без НДС» and why', async () => {
  const text = await pdfText(await renderInvoicePdf(invoice({ seller: { ...OSN_SELLER, taxRegime: 'usn' } })))
  expectAll(text, [
    'Без НДС',
    'НДС не облагается: Исполнитель применяет упрощённую систему налогообложения.',
    'Оплата по счёту № 2026-000123 от 21.11.2026. Пополнение баланса по договору-оферте. Без НДС',
  ])
})

describe('Moscow calendar', () => {
  test('days, months and their bounds are Moscow ones', () => {
    expect(formatDocDate(new Date('2026-11-30T21:30:00Z'))).toBe('1 декабря 2026 г.') // 00:30 in Moscow
    expect(monthOf(new Date('2026-11-30T21:30:00Z'))).toEqual({ year: 2026, month: 12 })
    expect(monthOf(new Date('2026-12-31T20:59:59Z'))).toEqual({ year: 2026, month: 12 })
    expect(monthBounds({ year: 2026, month: 12 })).toEqual({ from: new Date('2026-11-30T21:00:00Z'), to: new Date('2026-12-31T21:00:00Z') })
    expect(formatDocDate(lastDayOf({ year: 2026, month: 2 }))).toBe('28 февраля 2026 г.')
    expect(formatDocDate(lastDayOf({ year: 2028, month: 2 }))).toBe('29 февраля 2028 г.')
    expect(formatMonth({ year: 2026, month: 1 })).toBe('январь 2026 г.')
  })
})

describe('VAT', () => {
  test('none for npd and usn; included at 20 % in 2025 and 22 % from 2026 on osn, to the kopeck', () => {
    expect(vatFor('npd', 120_000, NOV_21)).toMatchObject({ kopecks: null, label: 'Без НДС' })
    expect(vatFor('usn', 120_000, NOV_21)).toMatchObject({ kopecks: null, label: 'Без НДС' })
    expect(vatRatePercent(new Date('2025-12-31T20:59:59Z'))).toBe(20) // 23:59:59 in Moscow
    expect(vatRatePercent(new Date('2025-12-31T21:00:00Z'))).toBe(22)
    expect(vatFor('osn', 120_000, new Date('2025-06-01T00:00:00Z')).kopecks).toBe(20_000) // 1200 × 20/120
    expect(vatFor('osn', 120_000, NOV_21).kopecks).toBe(21_639) // 1200 × 22/122 = 216.393…
    expect(vatFor('osn', 61, NOV_21).kopecks).toBe(11) // 0.61 × 22/122 = 0.11 exactly
    expect(vatFor('osn', 50, NOV_21).kopecks).toBe(9) // 9.016… kopecks
    expect(vatFor('osn', 3, new Date('2025-06-01T00:00:00Z')).kopecks).toBe(1) // half a kopeck rounds up
  })
})

describe('act PDF', () => {
  const act = {
    number: '2026-11-0007',
    period: { year: 2026, month: 11 },
    buyer: COMPANY_BUYER,
    account: 'Ромашка',
    amountKopecks: 123_456,
    offerUrl: OFFER,
  }

  test('on usn/osn: the act for the month, its sum in figures and in words, both parties to sign', async () => {
    const text = await pdfText(await renderActPdf({ ...act, seller: OSN_SELLER }))
    expectAll(text, [
      'Акт № 2026-11-0007 от 30 ноября 2026 г.',
      'об оказании услуг за ноябрь 2026 г.',
      'ИНН 7712345671',
      'ИНН 7707083893',
      'за ноябрь 2026 г. (аккаунт «Ромашка»)',
      'Всего оказано услуг 1, на сумму 1 234,56 руб.',
      'Одна тысяча двести тридцать четыре рубля 56 копеек',
      'В том числе НДС (22 %): 222,63',
      'ИСПОЛНИТЕЛЬ',
      'ЗАКАЗЧИК',
    ])
  })

  test('for a self-employed seller: the receipt data, each payment of the month to register in «Мой налог»', async () => {
    const payments = [
      { receivedAt: new Date('2026-11-03T10:00:00Z'), amountKopecks: 120_000, basis: 'Счёт № 2026-000123' },
      { receivedAt: new Date('2026-11-30T20:30:00Z'), amountKopecks: 500_001, basis: 'Оплата картой' }, // 23:30 in Moscow: still the 30th
    ]
    const pdf = await renderActPdf({ ...act, seller: NPD_SELLER, payments })
    const text = await pdfText(pdf)
    expectAll(text, [
      'Данные для чеков «Мой налог» № 2026-11-0007 за ноябрь 2026 г.',
      'акт не составляется',
      'Оказано услуг за ноябрь 2026 г.: 1 234,56 руб. (Одна тысяча двести тридцать четыре рубля 56 копеек).',
      '03.11.2026 Счёт № 2026-000123 Пополнение баланса аккаунта «Ромашка» по договору-оферте 1 200,00',
      '30.11.2026 Оплата картой',
      '5 000,01',
    ])
    expect(text).toMatch(/Итого поступило: .*6 200,01/) // the figure is a block of its own at the right edge
    expect(text).toContain('Шесть тысяч двести рублей 01 копейка')
    expect(text).toContain('В чеке укажите покупателя: ООО «Ромашка», ИНН 7707083893 (чек юридическому лицу).')
    expect(text).not.toContain('НДС (')
    expect((await pdfInfo(pdf)).Pages).toBe('1')
  })

  test('a month without payments says so; a long month of payments runs over pages with its header repeated', async () => {
    expect(await pdfText(await renderActPdf({ ...act, seller: NPD_SELLER }))).toContain('Платежей за период не было.')
    const many = Array.from({ length: 45 }, (_, i) => ({
      receivedAt: new Date(Date.UTC(2026, 10, 1 + (i % 30), 9)),
      amountKopecks: 100_000,
      basis: `Счёт № 2026-${String(100 + i).padStart(6, '0')}`,
    }))
    const pdf = await renderActPdf({ ...act, seller: NPD_SELLER, payments: many })
    const text = await pdfText(pdf)
    expect(Number((await pdfInfo(pdf)).Pages)).toBeGreaterThan(1)
    expect(text.match(/Наименование для чека/g)!.length).toBe(Number((await pdfInfo(pdf)).Pages))
    expect(text).toContain('Счёт № 2026-000144')
    expect(text).toMatch(/Итого поступило: .*45 000,00/)
    expect(text).toContain('Сорок пять тысяч рублей 00 копеек')
  })
})
