// The invoice (счёт на оплату) as a PDF, from plain data: the bank block a payer's accountant copies
// into the payment order, the numbered title, both parties, the one service line, the totals with the
// VAT line of the seller's regime, the total in words, and the payment purpose with the invoice number
// that the bank-statement import matches on (statement.ts, match.ts).
import { amountInWords, formatKopecks } from './amount'
import { formatDocDate, formatShortDate } from './dates'
import { ensureRoom, heightOf, LEFT, labelled, newPdf, type Pdf, rule, shortPersonName, table, textAt, totals, WIDTH } from './pdf'
import type { SellerDetails } from './requisites'
import { vatFor } from './vat'

/** The buyer as the team's company details give it; a sole trader has no KPP. */
export type Buyer = { name: string; inn: string; kpp?: string | null; address: string }

export type InvoiceData = {
  /** `2026-000123` (numbering.ts). */
  number: string
  issuedAt: Date
  seller: SellerDetails
  buyer: Buyer
  /** The account the money goes to, as the customer knows it (the team's name): «Пополнение баланса аккаунта «…»». */
  account: string
  amountKopecks: number
  /** The public offer the payment accepts, e.g. `${publicUrl}/public-offer`. */
  offerUrl: string
  /** Shown as «Счёт действителен до …» when given. */
  validUntil?: Date
}

/** «Иванов Иван Иванович, ИНН 500100732259, 141400, …»: a party on one line. */
export const partyLine = (p: { name: string; inn: string; kpp?: string | null; address: string }) =>
  [p.name, p.inn ? `ИНН ${p.inn}` : null, p.kpp ? `КПП ${p.kpp}` : null, p.address].filter(Boolean).join(', ')

/** The service line of invoices (and of receipts in «Мой налог»). */
export const topUpLine = (account: string) => `Пополнение баланса аккаунта «${account}» по договору-оферте`

/** A person signs with their name; an organisation's head is not known here, so the line is left blank. */
export const isPerson = (party: { inn: string }) => party.inn.length === 12

/**
 * The payment purpose to quote in the payment order: the invoice number first, so the statement
 * import finds it, and the VAT phrase banks require. Well under the 210 characters a purpose may have.
 */
export function invoicePurpose(data: Pick<InvoiceData, 'number' | 'issuedAt' | 'seller' | 'amountKopecks'>): string {
  const vat = vatFor(data.seller.taxRegime, data.amountKopecks, data.issuedAt)
  return `Оплата по счёту № ${data.number} от ${formatShortDate(data.issuedAt)}. Пополнение баланса по договору-оферте. ${vat.purpose}`
}

/** The note under a document that says why there is no VAT, or nothing on the general regime. */
export function regimeNote(seller: SellerDetails): string | null {
  if (seller.taxRegime === 'npd')
    return 'Исполнитель применяет специальный налоговый режим «Налог на профессиональный доход» и не является плательщиком НДС; чек формируется в приложении «Мой налог».'
  if (seller.taxRegime === 'usn') return 'НДС не облагается: Исполнитель применяет упрощённую систему налогообложения.'
  return null
}

const BANK_LEFT = 285
const BANK_MID = 55

/** The bank block at the top of a Russian invoice: the seller's bank, BIK, accounts, INN/KPP and name. */
function bankBlock(doc: Pdf, y: number, seller: SellerDetails): number {
  const pad = 4
  const right = WIDTH - BANK_LEFT - BANK_MID
  const xMid = LEFT + BANK_LEFT
  const xRight = xMid + BANK_MID
  const line = heightOf(doc, 'Сч. №', BANK_MID) + 2 * pad
  const caption = heightOf(doc, 'Банк получателя', BANK_LEFT, 'regular', 7)
  const bankHeight = Math.max(heightOf(doc, seller.bank, BANK_LEFT - 2 * pad) + caption + 3 * pad, 2 * line)
  const nameHeight = Math.max(heightOf(doc, seller.name, BANK_LEFT - 2 * pad) + caption + 3 * pad, line)
  const y1 = y + bankHeight
  const y2 = y1 + line + nameHeight
  doc.save().lineWidth(0.6)
  // Row 1: the bank on the left; BIK and the correspondent account on the right.
  doc.rect(LEFT, y, BANK_LEFT, bankHeight).stroke()
  doc.rect(xMid, y, BANK_MID, line).stroke()
  doc.rect(xMid, y + line, BANK_MID, bankHeight - line).stroke()
  doc.rect(xRight, y, right, line).stroke()
  doc.rect(xRight, y + line, right, bankHeight - line).stroke()
  // Row 2: INN/KPP over the recipient's name; the settlement account on the right.
  const innWidth = seller.kpp ? BANK_LEFT / 2 : BANK_LEFT
  doc.rect(LEFT, y1, innWidth, line).stroke()
  if (seller.kpp) doc.rect(LEFT + innWidth, y1, BANK_LEFT - innWidth, line).stroke()
  doc.rect(LEFT, y1 + line, BANK_LEFT, nameHeight).stroke()
  doc.rect(xMid, y1, BANK_MID, y2 - y1).stroke()
  doc.rect(xRight, y1, right, y2 - y1).stroke()
  doc.restore()

  textAt(doc, seller.bank, LEFT + pad, y + pad, BANK_LEFT - 2 * pad)
  textAt(doc, 'Банк получателя', LEFT + pad, y + bankHeight - caption - pad, BANK_LEFT - 2 * pad, { size: 7 })
  textAt(doc, 'БИК', xMid + pad, y + pad, BANK_MID - 2 * pad)
  textAt(doc, seller.bik, xRight + pad, y + pad, right - 2 * pad)
  textAt(doc, 'Сч. №', xMid + pad, y + line + pad, BANK_MID - 2 * pad)
  textAt(doc, seller.corrAccount, xRight + pad, y + line + pad, right - 2 * pad)
  textAt(doc, `ИНН ${seller.inn}`, LEFT + pad, y1 + pad, innWidth - 2 * pad)
  if (seller.kpp) textAt(doc, `КПП ${seller.kpp}`, LEFT + innWidth + pad, y1 + pad, BANK_LEFT - innWidth - 2 * pad)
  textAt(doc, seller.name, LEFT + pad, y1 + line + pad, BANK_LEFT - 2 * pad)
  textAt(doc, 'Получатель', LEFT + pad, y2 - caption - pad, BANK_LEFT - 2 * pad, { size: 7 })
  textAt(doc, 'Сч. №', xMid + pad, y1 + pad, BANK_MID - 2 * pad)
  textAt(doc, seller.account, xRight + pad, y1 + pad, right - 2 * pad)
  return y2
}

/** The columns of the service table, shared by the invoice and the act. */
export const serviceColumns = (what: string) => [
  { header: '№', width: 22, align: 'center' as const },
  { header: what, width: WIDTH - 22 - 42 - 34 - 72 - 72 },
  { header: 'Кол-во', width: 42, align: 'right' as const },
  { header: 'Ед.', width: 34, align: 'center' as const },
  { header: 'Цена', width: 72, align: 'right' as const },
  { header: 'Сумма', width: 72, align: 'right' as const },
]

/** The signature line: «Исполнитель ____ / Иванов И. И. /», or a blank one for an organisation's head. */
export function signature(doc: Pdf, y: number, role: string, seller: SellerDetails): number {
  const name = isPerson(seller) ? shortPersonName(seller.name) : '                              '
  textAt(doc, `${role ? `${role}  ` : ''}______________________  / ${name} /`, LEFT, y, WIDTH)
  return y + 16
}

export async function renderInvoicePdf(data: InvoiceData): Promise<Uint8Array> {
  const { seller, buyer } = data
  const title = `Счёт на оплату № ${data.number} от ${formatDocDate(data.issuedAt)}`
  const { doc, bytes } = newPdf({ title, author: seller.name, createdAt: data.issuedAt })
  const vat = vatFor(seller.taxRegime, data.amountKopecks, data.issuedAt)
  const sum = formatKopecks(data.amountKopecks)

  let y = textAt(doc, `Оплата этого счёта означает согласие с условиями договора-оферты (${data.offerUrl}).`, LEFT, doc.page.margins.top, WIDTH, { size: 7.5 })
  y = bankBlock(doc, y + 8, seller)
  y = textAt(doc, title, LEFT, y + 18, WIDTH, { font: 'bold', size: 14 })
  y = rule(doc, y + 4, 2) + 10
  y = labelled(doc, y, [
    ['Поставщик\n(Исполнитель):', partyLine(seller)],
    ['Покупатель\n(Заказчик):', partyLine(buyer)],
    ['Основание:', `Договор-оферта, ${data.offerUrl}`],
  ])
  y = table(doc, y + 4, serviceColumns('Товары (работы, услуги)'), [['1', topUpLine(data.account), '1', 'усл.', sum, sum]])
  y = totals(doc, y + 6, [
    ['Итого:', sum],
    [`${vat.label}:`, vat.kopecks === null ? '—' : formatKopecks(vat.kopecks)],
    ['Всего к оплате:', sum],
  ])
  y = ensureRoom(doc, y, 230) // the words, the purpose, the notes and the signature stay together
  y = textAt(doc, `Всего наименований 1, на сумму ${sum} руб.`, LEFT, y + 6, WIDTH)
  y = textAt(doc, amountInWords(data.amountKopecks), LEFT, y + 2, WIDTH, { font: 'bold' })

  // The purpose in a box of its own: what the payer copies into the payment order, word for word.
  y = textAt(doc, 'Назначение платежа (укажите в платёжном поручении без изменений):', LEFT, y + 14, WIDTH)
  const purpose = invoicePurpose(data)
  const boxHeight = heightOf(doc, purpose, WIDTH - 12, 'bold') + 12
  doc
    .save()
    .lineWidth(0.8)
    .rect(LEFT, y + 3, WIDTH, boxHeight)
    .stroke()
    .restore()
  textAt(doc, purpose, LEFT + 6, y + 9, WIDTH - 12, { font: 'bold' })
  y += boxHeight + 12

  const notes = [
    data.validUntil ? `Счёт действителен до ${formatShortDate(data.validUntil)} включительно.` : null,
    `Оплатите счёт с расчётного счёта Покупателя (ИНН ${buyer.inn}) и укажите номер счёта в назначении платежа: так платёж зачислится автоматически. Баланс аккаунта пополняется после поступления денег на счёт Исполнителя.`,
    regimeNote(seller),
  ].filter((n): n is string => !!n)
  for (const note of notes) y = textAt(doc, note, LEFT, y, WIDTH, { size: 8 }) + 3
  y = rule(doc, y + 8, 2) + 18
  y = signature(doc, y, isPerson(seller) ? 'Исполнитель' : 'Руководитель', seller)
  textAt(doc, 'Счёт сформирован в электронном виде и действителен без подписи и печати.', LEFT, y + 4, WIDTH, { size: 7.5 })
  doc.end()
  return bytes
}
