// Cost arithmetic on OpenRouter's decimal price strings without float drift: every amount is a
// BigInt count of 1e-15 USD ("femto-dollars"), converted to a Number only at the edge.

const SCALE_DIGITS = 15

/** Parses a decimal USD string ("0.00000025", "1", "-1") into femto-dollars. Extra digits are cut. */
export function toFemto(price: string): bigint {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(price.trim())
  if (!m || (m[2] === '' && !m[3])) throw new RangeError(`not a decimal price: ${price}`)
  const whole = BigInt(m[2] || '0')
  const frac = BigInt((m[3] ?? '').slice(0, SCALE_DIGITS).padEnd(SCALE_DIGITS, '0'))
  const abs = whole * 10n ** BigInt(SCALE_DIGITS) + frac
  return m[1] === '-' ? -abs : abs
}

/** Femto-dollars → USD number, via the exact decimal string so the double is the nearest one. */
export function femtoToUsd(femto: bigint): number {
  const negative = femto < 0n
  const digits = (negative ? -femto : femto).toString().padStart(SCALE_DIGITS + 1, '0')
  const cut = digits.length - SCALE_DIGITS
  return Number(`${negative ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`)
}

/** The subset of a Model's `pricing` the demo bills. */
export type BilledPricing = {
  prompt: string
  completion: string
  request?: string
  image?: string
  image_output?: string
}

export type BilledUsage = { promptTokens: number; completionTokens: number; outputImages: number }

export type CostBreakdown = { prompt: bigint; completion: bigint; total: bigint }

/** "-1" means "price varies" (router pseudo-models); it must never be multiplied, so it counts as 0. */
const unitPrice = (price: string | undefined): bigint => {
  const femto = toFemto(price ?? '0')
  return femto < 0n ? 0n : femto
}

/**
 * cost = prompt_tokens × prompt + completion_tokens × completion + request + output_images × image price,
 * where the image price is `pricing.image_output` when a model has it, else `pricing.image`.
 * The request and image parts are counted with the completion side (they are what the answer cost).
 */
export function computeCost(pricing: BilledPricing, usage: BilledUsage): CostBreakdown {
  const prompt = BigInt(usage.promptTokens) * unitPrice(pricing.prompt)
  const imagePrice = unitPrice(pricing.image_output ?? pricing.image)
  const completion =
    BigInt(usage.completionTokens) * unitPrice(pricing.completion) +
    unitPrice(pricing.request) +
    BigInt(usage.outputImages) * imagePrice
  return { prompt, completion, total: prompt + completion }
}
