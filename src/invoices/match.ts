// Matches incoming bank payments to invoices: a pure function over the statement's payments and the
// invoices they may pay. The invoice number is found in the payment's purpose however the payer's
// accountant typed it («№2026-000123», «N 2026-000123», «счет 2026–000123 от …»), then the amount and
// the payer's INN must be the invoice's. Whatever does not fit is left to the admin with its reason;
// crediting (exactly once, in one transaction with marking the invoice paid) is the caller's.
import { formatInvoiceNumber } from './numbering'

export type InvoiceStatus = 'issued' | 'paid' | 'cancelled'

export type InvoiceToMatch = { number: string; amountKopecks: number; buyerInn: string; status: InvoiceStatus }

/** What a payment needs for matching (statement.ts IncomingPayment has it). */
export type PaymentToMatch = { purpose: string; amountKopecks: number; payerInn: string }

export type UnmatchedReason =
  | 'unknown_number'
  | 'bad_number'
  | 'amount_differs'
  | 'inn_differs'
  | 'already_paid'
  | 'cancelled'
  | 'several_numbers'
  | 'inn_unconfirmed'
  | 'inn_rejected'

export type MatchResult<P extends PaymentToMatch, I extends InvoiceToMatch> =
  | { status: 'matched'; payment: P; invoice: I }
  /** `number`: the invoice number found in the purpose (null when none); `invoice` when it names a known one. */
  | { status: 'unmatched'; payment: P; reason: UnmatchedReason; number: string | null; invoice?: I }

/** For the admin's list of what did not match. */
export const UNMATCHED_REASONS_RU: Record<UnmatchedReason, string> = {
  unknown_number: 'Номер счёта не найден в назначении платежа',
  bad_number: 'Номер счёта в назначении платежа указан с ошибкой: счетов с номером 0 не бывает',
  amount_differs: 'Сумма не совпадает с суммой счёта',
  inn_differs: 'ИНН плательщика не совпадает с ИНН покупателя в счёте',
  already_paid: 'Счёт уже оплачен',
  cancelled: 'Счёт отменён',
  several_numbers: 'В назначении платежа несколько номеров счетов',
  // Set by the import (service.ts), not here: they depend on the team's INN registration, not on the file.
  inn_unconfirmed: 'ИНН плательщика ждёт подтверждения администратора у команды, выставившей счёт',
  inn_rejected: 'ИНН плательщика отклонён администратором у команды, выставившей счёт',
}

// Every dash a keyboard, a bank's software or an autocorrect may put between the year and the number.
const DASH = '[-‐‑‒–—―−]'
// A year 20xx, a dash (spaces around it allowed), up to 7 digits; not a piece of a longer number or of
// an ISO date such as 2026-11-21 (no further dash and digit after it).
const NUMBER = new RegExp(`(?<![\\d.])(20\\d\\d)\\s?${DASH}\\s?(\\d{1,7})(?!\\d|\\s?${DASH}\\s?\\d)`, 'g')
// What stands before an invoice number: №, N, No, Nº, «счет», «счёт», «счета», «сч.», with or without a space.
const MARK = /(?:№|\bN[°ºo]?\.?|(?<![а-яё])сч(?:[её]т[а-я]*|\.)?)\s*$/i

/**
 * The invoice numbers in a payment purpose, normalised to `2026-000123`, distinct: those after a mark
 * (№, N, счёт) first, then bare ones (a bare year-dash-number is likelier something else, a contract
 * number, but may still be the invoice's).
 */
export function invoiceNumbersIn(purpose: string): string[] {
  return scan(purpose).numbers
}

/** Year-dash-number shapes in a purpose that no invoice can have: «2026-0», «2026-000000» (numbering starts at 1). */
export const malformedNumbersIn = (purpose: string): string[] => scan(purpose).malformed

function scan(purpose: string): { numbers: string[]; malformed: string[] } {
  const marked: string[] = []
  const bare: string[] = []
  const malformed: string[] = []
  for (const m of purpose.matchAll(NUMBER)) {
    // A zero number is a typo, not an invoice: skipped here, so it can never reach formatInvoiceNumber's throw.
    if (Number(m[2]) < 1) {
      malformed.push(`${m[1]}-${m[2]}`)
      continue
    }
    const number = formatInvoiceNumber(Number(m[1]), Number(m[2]))
    const before = purpose.slice(Math.max(0, m.index - 12), m.index)
    ;(MARK.test(before) ? marked : bare).push(number)
  }
  return { numbers: [...new Set([...marked, ...bare])], malformed }
}

/**
 * One result per payment, in order. Payments of the same batch that name the same invoice: the first
 * that fits is matched, the later ones are `already_paid`.
 */
export function matchPayments<P extends PaymentToMatch, I extends InvoiceToMatch>(payments: readonly P[], invoices: readonly I[]): MatchResult<P, I>[] {
  const byNumber = new Map(invoices.map((i) => [i.number, i]))
  const paidNow = new Set<string>()
  return payments.map((payment): MatchResult<P, I> => {
    const found = invoiceNumbersIn(payment.purpose)
    const known = found.filter((n) => byNumber.has(n))
    if (known.length > 1) return { status: 'unmatched', payment, reason: 'several_numbers', number: known.join(', ') }
    if (!known.length) {
      if (!found.length && malformedNumbersIn(payment.purpose).length) return { status: 'unmatched', payment, reason: 'bad_number', number: null }
      return { status: 'unmatched', payment, reason: 'unknown_number', number: found[0] ?? null }
    }
    const invoice = byNumber.get(known[0]!)!
    const unmatched = (reason: UnmatchedReason) => ({ status: 'unmatched' as const, payment, reason, number: invoice.number, invoice })
    if (invoice.status === 'paid' || paidNow.has(invoice.number)) return unmatched('already_paid')
    if (invoice.status === 'cancelled') return unmatched('cancelled')
    if (payment.amountKopecks !== invoice.amountKopecks) return unmatched('amount_differs')
    if (payment.payerInn.trim() !== invoice.buyerInn.trim()) return unmatched('inn_differs')
    paidNow.add(invoice.number)
    return { status: 'matched', payment, invoice }
  })
}
