// Exact decimal arithmetic on BigInt for prices and charges: USD price strings × exchange rate ×
// markup must give the same micro-ruble on every machine, so no step goes through a float.

/** value = n / 10^scale */
export type Dec = { readonly n: bigint; readonly scale: number }

const POW10 = Array.from({ length: 64 }, (_, k) => 10n ** BigInt(k))
const pow10 = (k: number) => POW10[k] ?? 10n ** BigInt(k)

// The same few strings (catalogue prices, token counts) are parsed on every request: parsed values
// are immutable, so they are kept. Bounded: cleared when full, and re-parsing is always correct.
const parsed = new Map<string, Dec>()

/** Parses "0.0000025", "85,9541" (Central Bank comma), "1.234e-7" or a JS number (its shortest repr). */
export function dec(value: string | number): Dec {
  const key = typeof value === 'number' ? String(value) : value
  let d = parsed.get(key)
  if (d === undefined) {
    d = parse(key)
    if (parsed.size >= 4096) parsed.clear()
    parsed.set(key, d)
  }
  return d
}

function parse(value: string): Dec {
  const s = value.trim().replace(',', '.')
  const m = s.match(/^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i)
  if (!m || (!m[2] && !m[3])) throw new RangeError(`not a decimal: "${value}"`)
  const [, sign, whole = '', frac = '', exp = '0'] = m
  let n = BigInt(`${whole}${frac}` || '0')
  let scale = frac.length - Number(exp)
  if (scale < 0) {
    n *= pow10(-scale)
    scale = 0
  }
  return { n: sign === '-' ? -n : n, scale }
}

export const mul = (...xs: Dec[]): Dec => xs.reduce((a, b) => ({ n: a.n * b.n, scale: a.scale + b.scale }), { n: 1n, scale: 0 })

export const add = (a: Dec, b: Dec): Dec => {
  const scale = Math.max(a.scale, b.scale)
  return { n: a.n * pow10(scale - a.scale) + b.n * pow10(scale - b.scale), scale }
}

export const sub = (a: Dec, b: Dec): Dec => add(a, { n: -b.n, scale: b.scale })

export const isNegative = (d: Dec) => d.n < 0n
export const isZero = (d: Dec) => d.n === 0n

/** ceil(d × 10^digits) as a safe integer: e.g. digits=6 turns rubles into micro-rubles, rounding up. */
export function ceilUnits(d: Dec, digits: number): number {
  const shift = d.scale - digits
  let units: bigint
  if (shift <= 0) units = d.n * pow10(-shift)
  else {
    const div = pow10(shift)
    units = d.n / div
    if (d.n % div !== 0n && d.n > 0n) units += 1n
  }
  const out = Number(units)
  if (!Number.isSafeInteger(out)) throw new RangeError('amount out of range')
  return out
}

/** floor(a / b) for positive decimals, as an integer (how many units of b fit into a). */
export function floorDiv(a: Dec, b: Dec): number {
  if (b.n <= 0n) throw new RangeError('division by a non-positive decimal')
  const scale = Math.max(a.scale, b.scale)
  const an = a.n * pow10(scale - a.scale)
  const bn = b.n * pow10(scale - b.scale)
  return Number(an / bn)
}

/** A plain decimal string, rounded up at `maxDecimals`, trailing zeros trimmed ("0.00029250" → "0.0002925"). */
export function toDecimalString(d: Dec, maxDecimals = 10): string {
  const units = ceilUnits(d, maxDecimals)
  const neg = units < 0
  const digits = String(Math.abs(units)).padStart(maxDecimals + 1, '0')
  const whole = digits.slice(0, -maxDecimals)
  const frac = digits.slice(-maxDecimals).replace(/0+$/, '')
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`
}
