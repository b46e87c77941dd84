// The VAT line of a document, by the seller's tax regime. The self-employed (НПД) and sellers on the
// simplified system are not VAT payers: «Без НДС». On the general regime the price includes VAT at
// the rate of the document's date: 20 % until the end of 2025, 22 % from 1 January 2026 (Federal
// Law of 28.11.2025 No. 425-FZ); the amount included is total × rate / (100 + rate), to the kopeck.

import { moscowMs } from '../content/moscow'
import { formatKopecks } from './amount'
import type { TaxRegime } from './requisites'

const RATE_22_FROM = moscowMs('2026-01-01')

/** The general VAT rate, percent, on the Moscow day of `at`. */
export const vatRatePercent = (at: Date) => (at.getTime() >= RATE_22_FROM ? 22 : 20)

export type Vat = {
  /** null: no VAT (npd, usn). */
  ratePercent: number | null
  /** VAT included in the total, kopecks; null without VAT. */
  kopecks: number | null
  /** The totals line: «Без НДС» or «В том числе НДС (22 %)». */
  label: string
  /** What the payment purpose says about VAT, as banks expect it. */
  purpose: string
}

export function vatFor(regime: TaxRegime, totalKopecks: number, at: Date): Vat {
  if (regime !== 'osn') return { ratePercent: null, kopecks: null, label: 'Без НДС', purpose: 'Без НДС' }
  const rate = vatRatePercent(at)
  // Integer half-up rounding of total·rate/(100+rate): no float on the way to a tax amount.
  const kopecks = Math.floor((2 * totalKopecks * rate + 100 + rate) / (2 * (100 + rate)))
  return { ratePercent: rate, kopecks, label: `В том числе НДС (${rate} %)`, purpose: `В том числе НДС ${rate} % — ${formatKopecks(kopecks)} руб.` }
}
