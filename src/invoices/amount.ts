// Amounts on documents: whole kopecks, in figures («1 200,00») and in words («Одна тысяча двести
// рублей 00 копеек»), as a Russian invoice or act writes them. Documents count in kopecks; the
// ledger counts in micro-rubles, so the conversion and its rounding live here, in one place.
import { pluralRu } from '../content/format'
import { MICROS_PER_RUB } from '../lib/money'

export const MICROS_PER_KOPECK = MICROS_PER_RUB / 100

/** Whole kopecks of a micro-ruble amount, half a kopeck and more rounded up (sums of usage charges). */
export function kopecksFromMicros(micros: number): number {
  if (!Number.isSafeInteger(micros) || micros < 0) throw new RangeError(`not a non-negative integer amount: ${micros}`)
  return Math.floor((micros + MICROS_PER_KOPECK / 2) / MICROS_PER_KOPECK)
}

/** Micro-rubles of a kopeck amount (exact). */
export const microsFromKopecks = (kopecks: number) => kopecks * MICROS_PER_KOPECK

export type RubleTextError = 'not_number' | 'sub_kopeck' | 'too_large'

/**
 * Rubles written in decimal — «1200», «1 200,50», «1200.5», «1200.500» — to whole kopecks, exactly
 * (no float on the way). Only digits, spaces and one «.» or «,»: «0x3E8», «1e3», «Infinity», «+1000»
 * are not amounts, though JavaScript's Number() reads the first two as 1 000. Every amount string the
 * invoices read (the API's `amountRub`, a statement's `Сумма`) goes through here.
 */
export function kopecksFromText(text: string): { kopecks: number } | { error: RubleTextError } {
  const m = /^(\d+)(?:[.,](\d+))?$/.exec(text.replace(/\s+/g, ''))
  if (!m) return { error: 'not_number' }
  const whole = m[1]!.replace(/^0+(?=\d)/, '')
  const fraction = m[2] ?? ''
  if (/[1-9]/.test(fraction.slice(2))) return { error: 'sub_kopeck' }
  if (whole.length > 13) return { error: 'too_large' }
  const kopecks = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'))
  // Micro-rubles must stay exact integers too (the ledger's unit): about 9 billion rubles at most.
  if (!Number.isSafeInteger(microsFromKopecks(kopecks))) return { error: 'too_large' }
  return { kopecks }
}

function checkKopecks(kopecks: number) {
  if (!Number.isSafeInteger(kopecks) || kopecks < 0) throw new RangeError(`not a non-negative integer amount of kopecks: ${kopecks}`)
}

const NBSP = '\u00a0'

/** «1 200,00» ← 120000: groups of three with a no-break space (never split across lines), comma, two decimals. */
export function formatKopecks(kopecks: number): string {
  checkKopecks(kopecks)
  const rub = String(Math.floor(kopecks / 100)).replace(/\B(?=(\d{3})+$)/g, NBSP)
  return `${rub},${String(kopecks % 100).padStart(2, '0')}`
}

type Gender = 'm' | 'f'

const HUNDREDS = ['', 'сто', 'двести', 'триста', 'четыреста', 'пятьсот', 'шестьсот', 'семьсот', 'восемьсот', 'девятьсот']
const TENS = ['', '', 'двадцать', 'тридцать', 'сорок', 'пятьдесят', 'шестьдесят', 'семьдесят', 'восемьдесят', 'девяносто']
const TEENS = ['десять', 'одиннадцать', 'двенадцать', 'тринадцать', 'четырнадцать', 'пятнадцать', 'шестнадцать', 'семнадцать', 'восемнадцать', 'девятнадцать']
const UNITS = ['', 'один', 'два', 'три', 'четыре', 'пять', 'шесть', 'семь', 'восемь', 'девять']
const UNITS_F = ['', 'одна', 'две', ...UNITS.slice(3)]

/** Words for 1…999 in the given gender (тысяча is feminine: «одна тысяча», «две тысячи»). */
function triad(n: number, gender: Gender): string[] {
  const words = [HUNDREDS[Math.floor(n / 100)]!]
  const rest = n % 100
  if (rest >= 10 && rest < 20) words.push(TEENS[rest - 10]!)
  else words.push(TENS[Math.floor(rest / 10)]!, (gender === 'f' ? UNITS_F : UNITS)[rest % 10]!)
  return words.filter(Boolean)
}

// Scales above the units, smallest first: each with its gender and plural forms.
const SCALES: Array<{ gender: Gender; forms: [string, string, string] }> = [
  { gender: 'f', forms: ['тысяча', 'тысячи', 'тысяч'] },
  { gender: 'm', forms: ['миллион', 'миллиона', 'миллионов'] },
  { gender: 'm', forms: ['миллиард', 'миллиарда', 'миллиардов'] },
  { gender: 'm', forms: ['триллион', 'триллиона', 'триллионов'] },
]

/** A whole number of rubles in words, lower case: «двадцать одна тысяча один». */
export function numberInWords(n: number, gender: Gender = 'm'): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a non-negative integer: ${n}`)
  if (n === 0) return 'ноль'
  const words: string[] = []
  const groups: number[] = []
  for (let rest = n; rest > 0; rest = Math.floor(rest / 1000)) groups.push(rest % 1000)
  if (groups.length > SCALES.length + 1) throw new RangeError(`too large to write in words: ${n}`)
  for (let i = groups.length - 1; i >= 0; i--) {
    const g = groups[i]!
    if (g === 0) continue
    const scale = i > 0 ? SCALES[i - 1]! : null
    words.push(...triad(g, scale ? scale.gender : gender))
    if (scale) words.push(pluralRu(g, scale.forms))
  }
  return words.join(' ')
}

/** «Одна тысяча двести рублей 00 копеек» ← 120000 kopecks: rubles in words, kopecks in figures. */
export function amountInWords(kopecks: number): string {
  checkKopecks(kopecks)
  const rub = Math.floor(kopecks / 100)
  const kop = kopecks % 100
  const text = `${numberInWords(rub)} ${pluralRu(rub, ['рубль', 'рубля', 'рублей'])} ${String(kop).padStart(2, '0')} ${pluralRu(kop, ['копейка', 'копейки', 'копеек'])}`
  return text[0]!.toUpperCase() + text.slice(1)
}
