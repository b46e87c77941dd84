// Ruble prices = upstream USD × USD/RUB × markup, computed exactly (lib/decimal).
import { ceilUnits, type Dec, dec, isNegative, mul, toDecimalString } from '../lib/decimal'
import type { ModelRow } from './schema'

/** The router's sentinel for "price varies" (e.g. openrouter/auto): never multiplied. */
export const VARIABLE_PRICE = '-1'

export const isVariable = (usd: string) => usd.trim() === VARIABLE_PRICE || isNegative(dec(usd))

/** A per-unit ruble price as a decimal string (rounded up at 10 decimals so nothing shows as free that is not). */
export function rubPrice(usd: string, rate: Dec, markup: Dec): string {
  if (isVariable(usd)) return VARIABLE_PRICE
  return toDecimalString(mul(dec(usd), rate, markup), 10)
}

export function rubPricing(m: ModelRow, rate: Dec, markup: Dec) {
  return {
    prompt: rubPrice(m.promptUsd, rate, markup),
    completion: rubPrice(m.completionUsd, rate, markup),
    image: rubPrice(m.imageUsd, rate, markup),
    request: rubPrice(m.requestUsd, rate, markup),
    image_output: rubPrice(m.imageOutputUsd, rate, markup),
    web_search: rubPrice(m.webSearchUsd, rate, markup),
    internal_reasoning: rubPrice(m.reasoningUsd, rate, markup),
  }
}

/** USD amount (a reported cost) → micro-rubles charged, rounded up. */
export const usdToMicros = (usd: Dec, rate: Dec, markup: Dec) => ceilUnits(mul(usd, rate, markup), 6)
