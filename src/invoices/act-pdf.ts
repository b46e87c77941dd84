// The closing document of a calendar month (Moscow time), as a PDF from plain data. For a seller on
// usn or osn it is the act of services rendered (акт): the month's usage charges in figures and in
// words, signed by both sides. A self-employed seller (НПД) draws up no act: each receipt of money is
// registered in the «Мой налог» app with the buyer's INN, and that receipt (чек) is the document the
// buyer's accountant books; so for npd this renders the receipt data instead: every payment of the
// month with its date, amount and the service name to enter, next to the month's services.
import { amountInWords, formatKopecks } from './amount'
import { formatDocDate, formatMonth, formatShortDate, lastDayOf, type Month } from './dates'
import { type Buyer, isPerson, partyLine, regimeNote, serviceColumns, signature, topUpLine } from './invoice-pdf'
import { ensureRoom, LEFT, labelled, newPdf, type Pdf, rule, table, textAt, totals, WIDTH } from './pdf'
import type { SellerDetails } from './requisites'
import { vatFor } from './vat'

/** A payment from the buyer received in the month: one receipt in «Мой налог». */
export type ReceivedPayment = {
  receivedAt: Date
  amountKopecks: number
  /** What it paid: «Счёт № 2026-000123» or «Оплата картой». */
  basis: string
}

export type ActData = {
  /** The act's number, as the caller numbers acts. */
  number: string
  period: Month
  seller: SellerDetails
  buyer: Buyer
  /** The account (team) the services went to. */
  account: string
  /** The month's usage charges, kopecks: kopecksFromMicros of the sum of the month's usage ledger rows. */
  amountKopecks: number
  offerUrl: string
  /** npd: the month's payments from the buyer, each to be registered in «Мой налог». */
  payments?: ReceivedPayment[]
  /** The act's date; the month's last day when omitted. */
  issuedAt?: Date
}

/** The act's service line. */
export const usageLine = (account: string, period: Month) =>
  `Доступ к моделям искусственного интеллекта через API по тарифам Сервиса за ${formatMonth(period)} (аккаунт «${account}»)`

export const actTitle = (data: Pick<ActData, 'number' | 'period' | 'seller' | 'issuedAt'>) =>
  data.seller.taxRegime === 'npd'
    ? `Данные для чеков «Мой налог» № ${data.number} за ${formatMonth(data.period)}`
    : `Акт № ${data.number} от ${formatDocDate(data.issuedAt ?? lastDayOf(data.period))}`

export async function renderActPdf(data: ActData): Promise<Uint8Array> {
  const title = actTitle(data)
  const { doc, bytes } = newPdf({ title, author: data.seller.name, createdAt: data.issuedAt ?? lastDayOf(data.period) })
  let y = textAt(doc, title, LEFT, doc.page.margins.top, WIDTH, { font: 'bold', size: 14 })
  if (data.seller.taxRegime !== 'npd') y = textAt(doc, `об оказании услуг за ${formatMonth(data.period)}`, LEFT, y + 2, WIDTH, { size: 10 })
  y = rule(doc, y + 4, 2) + 10
  y = labelled(doc, y, [
    ['Исполнитель:', partyLine(data.seller)],
    ['Заказчик:', partyLine(data.buyer)],
    ['Основание:', `Договор-оферта, ${data.offerUrl}`],
  ])
  y = data.seller.taxRegime === 'npd' ? receipts(doc, y + 4, data) : act(doc, y + 4, data)
  doc.end()
  return bytes
}

function act(doc: Pdf, y: number, data: ActData): number {
  const sum = formatKopecks(data.amountKopecks)
  const at = data.issuedAt ?? lastDayOf(data.period)
  const vat = vatFor(data.seller.taxRegime, data.amountKopecks, at)
  y = table(doc, y, serviceColumns('Наименование работ, услуг'), [['1', usageLine(data.account, data.period), '1', 'усл.', sum, sum]])
  y = totals(doc, y + 6, [
    ['Итого:', sum],
    [`${vat.label}:`, vat.kopecks === null ? '—' : formatKopecks(vat.kopecks)],
  ])
  // The closing lines and both signatures stay together on one page.
  y = ensureRoom(doc, y, 170)
  y = textAt(doc, `Всего оказано услуг 1, на сумму ${sum} руб.`, LEFT, y + 6, WIDTH)
  y = textAt(doc, amountInWords(data.amountKopecks), LEFT, y + 2, WIDTH, { font: 'bold' })
  y = textAt(doc, 'Вышеперечисленные услуги оказаны полностью и в срок. Заказчик претензий по объёму, качеству и срокам оказания услуг не имеет.', LEFT, y + 10, WIDTH)
  const note = regimeNote(data.seller)
  if (note) y = textAt(doc, note, LEFT, y + 4, WIDTH, { size: 8 })
  y = rule(doc, y + 10, 2) + 14
  // Two columns of signatures: the seller's on the left, the customer's on the right.
  const half = WIDTH / 2
  textAt(doc, 'ИСПОЛНИТЕЛЬ', LEFT, y, half - 10, { font: 'bold' })
  textAt(doc, 'ЗАКАЗЧИК', LEFT + half + 10, y, half - 10, { font: 'bold' })
  textAt(doc, data.seller.name, LEFT, y + 14, half - 10, { size: 8 })
  textAt(doc, data.buyer.name, LEFT + half + 10, y + 14, half - 10, { size: 8 })
  const signY = Math.max(doc.y, y + 26) + 22
  signature(doc, signY, '', data.seller)
  textAt(doc, '______________________  /                              /', LEFT + half + 10, signY, half - 10)
  return signY + 20
}

function receipts(doc: Pdf, y: number, data: ActData): number {
  const payments = data.payments ?? []
  const paid = payments.reduce((s, p) => s + p.amountKopecks, 0)
  y = textAt(
    doc,
    'Исполнитель применяет налог на профессиональный доход: акт не составляется, расчёт подтверждается чеком из приложения «Мой налог» на каждое поступление денег (ст. 14 Федерального закона № 422-ФЗ).',
    LEFT,
    y,
    WIDTH,
    { size: 8 },
  )
  y = textAt(doc, `Оказано услуг за ${formatMonth(data.period)}: ${formatKopecks(data.amountKopecks)} руб. (${amountInWords(data.amountKopecks)}).`, LEFT, y + 8, WIDTH)
  y = textAt(doc, usageLine(data.account, data.period), LEFT, y + 2, WIDTH, { size: 8 })
  y = textAt(doc, `Платежи Заказчика за ${formatMonth(data.period)} — по чеку на каждый`, LEFT, y + 14, WIDTH, { font: 'bold', size: 10 })
  y += 6
  if (!payments.length) {
    y = textAt(doc, 'Платежей за период не было.', LEFT, y, WIDTH)
  } else {
    const columns = [
      { header: '№', width: 22, align: 'center' as const },
      { header: 'Дата поступления', width: 70, align: 'center' as const },
      { header: 'Основание', width: 100 },
      { header: 'Наименование для чека', width: WIDTH - 22 - 70 - 100 - 80 },
      { header: 'Сумма, руб.', width: 80, align: 'right' as const },
    ]
    const rows = payments.map((p, i) => [String(i + 1), formatShortDate(p.receivedAt), p.basis, topUpLine(data.account), formatKopecks(p.amountKopecks)])
    y = table(doc, y, columns, rows)
    y = totals(doc, y + 6, [['Итого поступило:', formatKopecks(paid)]], 80)
    y = textAt(doc, amountInWords(paid), LEFT, y + 2, WIDTH, { font: 'bold' })
  }
  y = ensureRoom(doc, y, 90)
  const buyerKind = isPerson(data.buyer) ? 'индивидуальному предпринимателю' : 'юридическому лицу'
  // Without the team's company details there is no INN to put on a receipt: the line says what is missing.
  const buyerLine = data.buyer.inn
    ? `В чеке укажите покупателя: ${data.buyer.name}, ИНН ${data.buyer.inn} (чек ${buyerKind}).`
    : `Реквизиты покупателя «${data.buyer.name}» не указаны: чек юридическому лицу или ИП требует ИНН покупателя.`
  y = textAt(doc, buyerLine, LEFT, y + 12, WIDTH)
  y = rule(doc, y + 10, 2) + 14
  return signature(doc, y, 'Исполнитель', data.seller)
}
