// Money is stored in integer micro-rubles (1 RUB = 1 000 000). Floats appear only at the API edge.
export const MICROS_PER_RUB = 1_000_000

export function rubToMicros(rub: number): number {
  const micros = Math.round(rub * MICROS_PER_RUB)
  if (!Number.isSafeInteger(micros)) throw new RangeError(`amount out of range: ${rub}`)
  return micros
}

/**
 * Rubles a person typed (a number within [min, max], to the kopeck) → micro-rubles; null when it is
 * not one (a fraction of a kopeck, out of range, not a number). The form amounts: top-ups, promo
 * codes, auto top-up.
 */
export function kopeckExactMicros(value: unknown, min: number, max: number): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) return null
  const kopecks = Math.round(value * 100)
  if (Math.abs(kopecks - value * 100) > 1e-6) return null
  return kopecks * (MICROS_PER_RUB / 100)
}

/** Balances go out as numbers of rubles (spec: `data.balance`). */
export const microsToRub = (micros: number) => micros / MICROS_PER_RUB

/** "1234.5" ← 1234500000: at least 2 and at most 6 decimals, exact (no float maths). */
export function formatMicros(micros: number): string {
  const negative = micros < 0
  const abs = Math.abs(micros)
  const whole = Math.floor(abs / MICROS_PER_RUB)
  const frac = String(abs % MICROS_PER_RUB)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0')
  return `${negative ? '-' : ''}${whole}.${frac}`
}

/** Transaction amounts are signed strings: "+50.00", "-0.001234". */
export const formatSignedMicros = (micros: number) => (micros > 0 ? '+' : '') + formatMicros(micros)

const ruRubles = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 })
/** "1 546,179617 ₽", "1 000,00 ₽" ← micros: an amount in text people read (messages, descriptions), ru-RU grouping. */
export const formatRubRu = (micros: number) => `${ruRubles.format(micros / MICROS_PER_RUB)} ₽`
