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
  web_search?: string
}

export type BilledUsage = {
  promptTokens: number
  completionTokens: number
  /** Pictures drawn (one per choice of an image answer). */
  outputImages: number
  /** `image_url` parts in the request's messages (default 0). */
  inputImages?: number
  /** Web-search results billed (default 0). */
  webResults?: number
}

export type CostBreakdown = {
  /** prompt tokens + input images */
  prompt: bigint
  /** completion tokens + request + output images + web results */
  completion: bigint
  /** The web-search part of `completion`. */
  webSearch: bigint
  total: bigint
}

/** The router's own price per web-search result when a model has none: $4 per 1 000 results. */
export const ROUTER_WEB_RESULT_PRICE = '0.004'

/** "-1" means "price varies" (router pseudo-models); it must never be multiplied, so it counts as 0. */
const unitPrice = (price: string | undefined): bigint => {
  const femto = toFemto(price ?? '0')
  return femto < 0n ? 0n : femto
}

/** Femto-dollars per web-search result: the model's `pricing.web_search` when > 0, else the router's $0.004. */
export function webResultPriceFemto(pricing: Pick<BilledPricing, 'web_search'>): bigint {
  const own = unitPrice(pricing.web_search)
  return own > 0n ? own : toFemto(ROUTER_WEB_RESULT_PRICE)
}

/**
 * cost = prompt_tokens × prompt + input_images × image
 *      + completion_tokens × completion + request + output_images × image price
 *      + web_results × per-result price,
 * where the output image price is `pricing.image_output` when a model has it, else `pricing.image`,
 * and the per-result price is `pricing.web_search` when > 0, else "0.004" (webResultPriceFemto).
 * Input images are counted with the prompt side; the request, output images and web results with
 * the completion side (they are what the answer cost). All in exact BigInt femto-dollars.
 */
export function computeCost(pricing: BilledPricing, usage: BilledUsage): CostBreakdown {
  const prompt = BigInt(usage.promptTokens) * unitPrice(pricing.prompt) + BigInt(usage.inputImages ?? 0) * unitPrice(pricing.image)
  const imagePrice = unitPrice(pricing.image_output ?? pricing.image)
  const webResults = usage.webResults ?? 0
  const webSearch = webResults > 0 ? BigInt(webResults) * webResultPriceFemto(pricing) : 0n
  const completion = BigInt(usage.completionTokens) * unitPrice(pricing.completion) + unitPrice(pricing.request) + BigInt(usage.outputImages) * imagePrice + webSearch
  return { prompt, completion, webSearch, total: prompt + completion }
}
