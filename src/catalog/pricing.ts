// Ruble prices = upstream USD × USD/RUB × markup, computed exactly (lib/decimal).
import { add, ceilUnits, type Dec, dec, isNegative, isZero, mul, sub, toDecimalString } from '../lib/decimal'
import type { ModelRow } from './schema'

/** The router's sentinel for "price varies" (e.g. openrouter/auto): never multiplied. */
export const VARIABLE_PRICE = '-1'

export const isVariable = (usd: string) => usd.trim() === VARIABLE_PRICE || isNegative(dec(usd))

/** A per-unit ruble price as a decimal string (rounded up at 10 decimals so nothing shows as free that is not). */
export function rubPrice(usd: string, rate: Dec, markup: Dec): string {
  if (isVariable(usd)) return VARIABLE_PRICE
  return toDecimalString(mul(dec(usd), rate, markup), 10)
}

// ─── voice (protocols.md 1.14) ──────────────────────────────────────────────
// The router lists a voice model's price in its usual fields, in the unit the model bills: a speech
// model's `prompt` is per character of input; a transcription model is priced either per second of
// audio (then `prompt` is per second) or per token like a chat model (audio tokens in at `audio`,
// text out at `completion` — a price on either is what marks it).

export const isSpeech = (m: Pick<ModelRow, 'outputModalities'>) => m.outputModalities.includes('speech')
export const isTranscription = (m: Pick<ModelRow, 'outputModalities'>) => m.outputModalities.includes('transcription')

const nonZero = (usd: string) => isVariable(usd) || !isZero(dec(usd))

/** A transcription model billed per token (audio in, text out) rather than per second of audio. */
export const tokenPricedTranscription = (m: ModelRow) => nonZero(m.audioUsd) || nonZero(m.completionUsd)

/**
 * Tokens a second of audio may bill on a token-priced transcription model, counted generously: audio
 * in (OpenAI counts 10 a second, Gemini 32) and text out (speech is 2–3 words a second).
 */
export const AUDIO_TOKENS_PER_SECOND = 50
export const TRANSCRIPT_TOKENS_PER_SECOND = 10

const maxDec = (a: Dec, b: Dec) => (sub(a, b).n >= 0n ? a : b)

/**
 * USD a second of audio costs on a transcription model: its per-second price, or for a token-priced
 * model a generous estimate (the charge itself is the router's reported cost). "-1": it varies.
 */
export function transcriptionSecondUsd(m: ModelRow): string {
  if ([m.promptUsd, m.audioUsd, m.completionUsd].some(isVariable)) return VARIABLE_PRICE
  if (!tokenPricedTranscription(m)) return m.promptUsd
  const audioIn = mul(maxDec(dec(m.audioUsd), dec(m.promptUsd)), dec(AUDIO_TOKENS_PER_SECOND))
  return toDecimalString(add(audioIn, mul(dec(m.completionUsd), dec(TRANSCRIPT_TOKENS_PER_SECOND))), 15)
}

export function rubPricing(m: ModelRow, rate: Dec, markup: Dec) {
  const transcription = isTranscription(m)
  return {
    prompt: rubPrice(m.promptUsd, rate, markup),
    completion: rubPrice(m.completionUsd, rate, markup),
    image: rubPrice(m.imageUsd, rate, markup),
    request: rubPrice(m.requestUsd, rate, markup),
    image_output: rubPrice(m.imageOutputUsd, rate, markup),
    web_search: rubPrice(m.webSearchUsd, rate, markup),
    internal_reasoning: rubPrice(m.reasoningUsd, rate, markup),
    audio: rubPrice(m.audioUsd, rate, markup),
    character: isSpeech(m) ? rubPrice(m.promptUsd, rate, markup) : '0',
    audio_second: transcription && !tokenPricedTranscription(m) ? rubPrice(m.promptUsd, rate, markup) : '0',
  }
}

/** USD amount (a reported cost) → micro-rubles charged, rounded up. */
export const usdToMicros = (usd: Dec, rate: Dec, markup: Dec) => ceilUnits(mul(usd, rate, markup), 6)
