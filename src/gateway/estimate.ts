// What a request may cost at worst, and how many completion tokens a balance affords.
// Estimates err high (a hold is returned in full when the request ends); charges use real usage.
import { add, ceilUnits, dec, floorDiv, isZero, mul, sub, type Dec } from '../lib/decimal'
import { isVariable } from '../catalog/pricing'
import type { ModelRow } from '../catalog/schema'

/** Below this many affordable completion tokens a request is refused rather than cut to nothing. */
export const MIN_AFFORDABLE_TOKENS = 16
/** Hold for models whose price varies (the router's "-1"): the charge comes from the reported cost. */
export const VARIABLE_PRICE_HOLD_MICROS = 20_000_000
export const VARIABLE_PRICE_MIN_BALANCE_MICROS = 1_000_000
const FILE_PART_TOKENS = 2_000
const PER_MESSAGE_TOKENS = 4

type Part = { type?: string; text?: unknown }

/** Tokens the prompt may take: UTF-8 bytes / 3 (real tokenizers average ~4 bytes/token), plus framing. */
export function estimatePrompt(messages: Array<{ content?: unknown }>): { tokens: number; images: number } {
  let bytes = 0
  let tokens = 0
  let images = 0
  for (const m of messages) {
    tokens += PER_MESSAGE_TOKENS
    if (typeof m.content === 'string') bytes += Buffer.byteLength(m.content)
    else if (Array.isArray(m.content))
      for (const part of m.content as Part[]) {
        if (part?.type === 'text' && typeof part.text === 'string') bytes += Buffer.byteLength(part.text)
        else if (part?.type === 'image_url') images++
        else if (part?.type === 'file' || part?.type === 'input_audio' || part?.type === 'video_url') tokens += FILE_PART_TOKENS
      }
  }
  return { tokens: tokens + Math.ceil(bytes / 3), images }
}

export type Plan =
  | { kind: 'hold'; holdMicros: number; maxTokens: number | null /* to send upstream; null = leave as given/absent */ }
  | { kind: 'refuse'; message: string }

const rub = (micros: number): string => (micros / 1_000_000).toFixed(2)

/**
 * Plans the hold for a chat request. `requested` is the caller's max_tokens (or undefined).
 * Without one, the completion is capped to what the balance affords instead of refusing.
 */
export function planChatHold(args: {
  model: ModelRow
  promptTokens: number
  promptImages: number
  requested: number | undefined
  availableMicros: number
  rate: Dec
  markup: Dec
  /** Extra fixed USD per request (e.g. image outputs), added to the base. */
  extraUsd?: Dec
}): Plan {
  const { model: m, rate, markup, availableMicros } = args
  if ([m.promptUsd, m.completionUsd, m.imageUsd, m.requestUsd].some(isVariable)) {
    if (availableMicros < VARIABLE_PRICE_MIN_BALANCE_MICROS)
      return { kind: 'refuse', message: `Недостаточно средств: для моделей с переменной ценой нужно не менее ${rub(VARIABLE_PRICE_MIN_BALANCE_MICROS)} ₽ на балансе.` }
    return { kind: 'hold', holdMicros: Math.min(availableMicros, VARIABLE_PRICE_HOLD_MICROS), maxTokens: null }
  }
  const toRub = (usd: Dec) => mul(usd, rate, markup)
  const baseUsd = add(
    add(mul(dec(m.promptUsd), dec(args.promptTokens)), mul(dec(m.imageUsd), dec(args.promptImages))),
    add(dec(m.requestUsd), args.extraUsd ?? dec(0)),
  )
  const completionUsd = dec(m.completionUsd)
  const holdFor = (tokens: number) => ceilUnits(toRub(add(baseUsd, mul(completionUsd, dec(tokens)))), 6)
  // The most the model could write: its declared cap, else what the context leaves.
  const modelMax = m.maxCompletionTokens ?? Math.max(m.contextLength - args.promptTokens, MIN_AFFORDABLE_TOKENS)

  if (args.requested !== undefined) {
    const tokens = Math.min(args.requested, modelMax > 0 ? modelMax : args.requested)
    const hold = holdFor(tokens)
    // Above the model's cap, the upstream is told the cap, so it can never write more than was held.
    if (hold <= availableMicros) return { kind: 'hold', holdMicros: hold, maxTokens: tokens < args.requested ? tokens : null }
    const affordable = affordableTokens(baseUsd, completionUsd, availableMicros, rate, markup)
    return {
      kind: 'refuse',
      message:
        affordable >= 1
          ? `Недостаточно средств: баланса хватает примерно на ${affordable} токенов ответа, а запрошено max_tokens=${args.requested}. Уменьшите max_tokens или пополните баланс.`
          : 'Недостаточно средств на балансе для этого запроса. Пополните баланс.',
    }
  }

  if (isZero(completionUsd)) {
    const hold = holdFor(0)
    return hold <= availableMicros ? { kind: 'hold', holdMicros: hold, maxTokens: null } : { kind: 'refuse', message: 'Недостаточно средств на балансе для этого запроса. Пополните баланс.' }
  }
  const affordable = affordableTokens(baseUsd, completionUsd, availableMicros, rate, markup)
  if (affordable < MIN_AFFORDABLE_TOKENS) return { kind: 'refuse', message: 'Недостаточно средств на балансе для этого запроса. Пополните баланс.' }
  if (affordable >= modelMax) return { kind: 'hold', holdMicros: holdFor(modelMax), maxTokens: m.maxCompletionTokens ? null : modelMax }
  return { kind: 'hold', holdMicros: holdFor(affordable), maxTokens: affordable }
}

/** How many completion tokens fit into the available balance after the fixed part. */
function affordableTokens(baseUsd: Dec, completionUsd: Dec, availableMicros: number, rate: Dec, markup: Dec): number {
  if (isZero(completionUsd)) return Number.MAX_SAFE_INTEGER
  const leftRub = sub({ n: BigInt(availableMicros), scale: 6 }, mul(baseUsd, rate, markup))
  if (leftRub.n <= 0n) return 0
  // Exact: how many whole tokens at the per-token ruble price fit into what is left.
  return floorDiv(leftRub, mul(completionUsd, rate, markup))
}
