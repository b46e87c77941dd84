// What a request may cost at worst, and how much of it a balance affords: the one place that
// prices a request before it is forwarded. The hold, the 402 and the Playground's «Оценка: до X ₽»
// all come from planHold(), so the customer is never charged more than was held or shown.
//
// The bound covers everything the router can bill for the request as forwarded (protocols.md 1.11):
// every candidate model (`models` fallbacks, routing variants), `n` choices, reasoning tokens inside
// the completion cap, output pictures, web-search results, and every prompt part (text, tool and
// schema definitions, images, files, audio) at the catalogue's prices. Estimates err high (a hold
// is returned in full when the request ends); charges use the reported cost.

import { isVariable } from '../catalog/pricing'
import type { Route } from '../catalog/routes'
import type { ModelRow } from '../catalog/schema'
import { formatMicros } from '../content/format'
import { add, ceilUnits, type Dec, dec, floorDiv, isZero, mul, sub, toDecimalString } from '../lib/decimal'

/** Below this many affordable completion tokens a request is refused rather than cut to nothing. */
export const MIN_AFFORDABLE_TOKENS = 16
/** Hold for models whose price varies (the router's "-1"): the charge comes from the reported cost. */
export const VARIABLE_PRICE_HOLD_MICROS = 20_000_000
export const VARIABLE_PRICE_MIN_BALANCE_MICROS = 1_000_000
/** Routing variants: suffixes the router prices as the base model plus what they add (`:free` ids are catalogue entries). */
export const VARIANTS = ['online', 'nitro', 'floor', 'thinking', 'exacto', 'extended'] as const
export type Variant = (typeof VARIANTS)[number]
/** The router's default number of web results, and its own per-result price when the model has none ($4 per 1 000). */
export const DEFAULT_WEB_RESULTS = 5
const ROUTER_WEB_RESULT_USD = dec('0.004')
/** Tokens an output picture may take when the model bills pictures as completion tokens (~1290 at the router). */
const IMAGE_OUTPUT_TOKENS = 1_500
/** Prompt tokens an input image, a file or a video may add besides the catalogue's per-image price. */
const IMAGE_PART_TOKENS = 1_500
const FILE_PART_TOKENS = 2_000
/** Audio tokens per byte of audio data: generous (Gemini counts 32 tokens a second; 128 kbit/s MP3 is 16 000 bytes a second). */
const AUDIO_BYTES_PER_TOKEN = 100
const PER_MESSAGE_TOKENS = 4

/**
 * A model the request may be answered with: a catalogue entry, possibly with a routing variant. A
 * route of an upstream that is not a router (catalog/routes.ts) is a candidate of its own, priced in
 * its currency (`model` is then the route's row): `rate` is rubles per unit of it where that is not
 * the request's USD rate (1 for RUB).
 */
export type Candidate = { model: ModelRow; variant: Variant | null; route?: Route; rate?: Dec }

/** Resolves an id as the router would: a catalogue entry (`:free` included), else `base:variant`. */
export function resolveCandidate(get: (id: string) => ModelRow | undefined, id: string): Candidate | undefined {
  const model = get(id)
  if (model) return { model, variant: null }
  const colon = id.lastIndexOf(':')
  if (colon <= 0) return undefined
  const variant = id.slice(colon + 1) as Variant
  if (!VARIANTS.includes(variant)) return undefined
  const base = get(id.slice(0, colon))
  return base ? { model: base, variant } : undefined
}

/** What the prompt carries, counted generously. */
export type PromptEstimate = { tokens: number; images: number; audioTokens: number }

const bytes = (s: string) => Buffer.byteLength(s)
/** Bytes a data: URL (or bare base64) decodes to. */
const decodedBytes = (data: unknown) => {
  if (typeof data !== 'string') return 0
  const comma = data.startsWith('data:') ? data.indexOf(',') + 1 : 0
  return Math.floor(((data.length - comma) * 3) / 4)
}

type Part = { type?: string; text?: unknown; input_audio?: { data?: unknown } }
type Message = { content?: unknown; tool_calls?: unknown; [k: string]: unknown }

/**
 * Tokens the prompt may take: UTF-8 bytes / 3 (real tokenizers average ~4 bytes a token), plus
 * framing, for message text, assistant tool calls and the body's tool and schema definitions.
 */
export function estimatePrompt(messages: Message[], extras: unknown[] = []): PromptEstimate {
  let textBytes = 0
  let tokens = 0
  let images = 0
  let audioTokens = 0
  for (const m of messages) {
    tokens += PER_MESSAGE_TOKENS
    if (typeof m.content === 'string') textBytes += bytes(m.content)
    else if (Array.isArray(m.content))
      for (const part of m.content as Part[]) {
        const type = part?.type
        if (type === 'text') textBytes += typeof part.text === 'string' ? bytes(part.text) : 0
        else if (type === 'image_url' || type === 'input_image') {
          images++
          tokens += IMAGE_PART_TOKENS
        } else if (type === 'input_audio') audioTokens += Math.ceil(decodedBytes(part.input_audio?.data) / AUDIO_BYTES_PER_TOKEN)
        else tokens += FILE_PART_TOKENS // file, video_url and anything newer
      }
    if (m.tool_calls !== undefined && m.tool_calls !== null) textBytes += bytes(JSON.stringify(m.tool_calls))
  }
  for (const extra of extras) if (extra !== undefined && extra !== null) textBytes += bytes(JSON.stringify(extra))
  return { tokens: tokens + Math.ceil(textBytes / 3), images, audioTokens }
}

/** Everything about a request, as forwarded, that the router may bill. */
export type RequestShape = {
  /** Every model the router may answer with; the bound is the worst of them. */
  candidates: Candidate[]
  prompt: PromptEstimate
  /** `n`: choices per call. */
  choices: number
  /** The request asks for pictures (modalities include "image"); image-only models draw one regardless. */
  wantsImages: boolean
  /** Web results the request asks for (plugins web / web_search_options); `:online` candidates add the default. */
  webResults: number
  /** The caller's completion cap per choice (max_tokens / max_completion_tokens), if any. */
  requestedTokens: number | undefined
  /** How many times the whole call is made (/v1/images makes one call per picture). */
  calls?: number
  /** The prompt is several inputs, each limited by the context on its own (embeddings): no cap on the sum. */
  promptUncapped?: boolean
  /** The router takes `provider.max_price` on this protocol (chat, Responses, Messages; not embeddings). */
  canCapPrice: boolean
}

const outputsImages = (m: ModelRow) => m.outputModalities.includes('image')
const outputsText = (m: ModelRow) => m.outputModalities.includes('text')

/** Pictures one choice of this candidate may return. */
export const picturesPerChoice = (c: Candidate, wantsImages: boolean) => (outputsImages(c.model) && (wantsImages || !outputsText(c.model)) ? 1 : 0)

/** Web results this candidate may be billed for. */
const webResultsOf = (c: Candidate, requested: number) => (requested > 0 ? requested : c.variant === 'online' ? DEFAULT_WEB_RESULTS : 0)

const maxDec = (a: Dec, b: Dec) => (sub(a, b).n >= 0n ? a : b)

/** USD per output picture: the catalogue's output-image price, else what its image tokens may cost. */
function picturePriceUsd(m: ModelRow): Dec {
  const out = dec(m.imageOutputUsd)
  if (!isZero(out)) return out
  return maxDec(dec(m.imageUsd), mul(dec(IMAGE_OUTPUT_TOKENS), dec(m.completionUsd)))
}

const webResultPriceUsd = (m: ModelRow) => {
  const own = dec(m.webSearchUsd)
  return isZero(own) ? ROUTER_WEB_RESULT_USD : own
}

/** Counts a request produced (or may produce), priced by one candidate. */
export type Counts = {
  promptTokens: number
  images: number
  audioTokens: number
  completionTokens: number
  pictures: number
  webResults: number
  /** Calls billed the request price (default 1). */
  requests?: number
}

/**
 * USD a candidate bills for the counts: the prompt (at the cache-write price where that is higher),
 * input images and audio, the request price, completion tokens (reasoning tokens inside them, at
 * the higher of the two prices), output pictures and web results. Also the fallback charge when
 * the router reports no cost.
 */
export function costUsd(m: ModelRow, c: Counts): Dec {
  const promptPrice = maxDec(dec(m.promptUsd), dec(m.cacheWriteUsd))
  let usd = add(mul(promptPrice, dec(c.promptTokens)), mul(dec(m.requestUsd), dec(c.requests ?? 1)))
  if (c.images) usd = add(usd, mul(dec(m.imageUsd), dec(c.images)))
  if (c.audioTokens) usd = add(usd, mul(maxDec(dec(m.audioUsd), dec(m.promptUsd)), dec(c.audioTokens)))
  if (c.completionTokens) usd = add(usd, mul(completionPriceUsd(m), dec(c.completionTokens)))
  if (c.pictures) usd = add(usd, mul(picturePriceUsd(m), dec(c.pictures)))
  if (c.webResults) usd = add(usd, mul(webResultPriceUsd(m), dec(c.webResults)))
  return usd
}

const completionPriceUsd = (m: ModelRow) => maxDec(dec(m.completionUsd), dec(m.reasoningUsd))

export const hasVariablePrice = (m: ModelRow) => [m.promptUsd, m.completionUsd, m.imageUsd, m.requestUsd, m.imageOutputUsd].some(isVariable)

/**
 * The router's price cap as sent in `provider.max_price` (protocols.md 1.13): USD decimal strings,
 * per million tokens for prompt and completion, per unit for the rest.
 */
export type PriceCap = { prompt: string; completion: string; request: string; image?: string; audio?: string }

export type Plan =
  | {
      kind: 'hold'
      holdMicros: number
      /** To send upstream; null = leave as given/absent. */
      maxTokens: number | null
      /** A variable-price request under a customer's limit: what the router may charge per unit, so the answer fits the hold. */
      priceCap?: PriceCap
    }
  /**
   * `uncappable`: a limit binds and nothing the router takes can keep this request within it;
   * `affordableTokens`: the request names max_tokens and at most this many fit — the same request
   * with that max_tokens would be held (the Playground's «Уменьшить ответ до N токенов»).
   */
  | { kind: 'refuse'; message: string; uncappable?: boolean; affordableTokens?: number }

// Numbers in messages read the Russian way: '1 234,50 ₽' (the price rule: nothing is '0,00 ₽'), '1 234 токенов'.
const intFormat = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 })
const NOT_ENOUGH = 'Недостаточно средств на балансе для этого запроса. Пополните баланс.'

/**
 * One candidate's bound: a fixed part, a price per completion token (all choices) and its completion
 * cap, in the candidate's currency (`…Usd`: USD unless its route is priced in rubles), and `rate`.
 */
type Bound = { fixedUsd: Dec; perTokenUsd: Dec; maxTokens: number; rate: Dec }

function boundOf(c: Candidate, s: RequestShape, usdRate: Dec): Bound {
  const m = c.model
  // A prompt longer than the context is refused by the router, so the context caps the estimate.
  const promptTokens = m.contextLength > 0 && !s.promptUncapped ? Math.min(s.prompt.tokens, m.contextLength) : s.prompt.tokens
  const fixedUsd = costUsd(m, {
    promptTokens,
    images: s.prompt.images,
    audioTokens: s.prompt.audioTokens,
    completionTokens: 0,
    pictures: s.choices * picturesPerChoice(c, s.wantsImages),
    webResults: webResultsOf(c, s.webResults),
  })
  return {
    fixedUsd,
    perTokenUsd: mul(completionPriceUsd(m), dec(s.choices)),
    rate: c.rate ?? usdRate,
    // The most one choice could write: the declared cap, else what the context leaves.
    maxTokens: m.maxCompletionTokens ?? Math.max(m.contextLength - promptTokens, MIN_AFFORDABLE_TOKENS),
  }
}

/**
 * Plans the hold for a request. Without a completion cap from the caller, the answer is capped to
 * what the balance affords instead of refusing; fixed parts the balance cannot cover (the prompt,
 * `n` pictures, web results) are refused with 402 saying what to lower. `limited`: a limit the
 * customer set applies (today the key's monthly limit); `availableMicros` is already the smaller of
 * what it and the balance leave.
 */
export function planHold(shape: RequestShape, availableMicros: number, rate: Dec, markup: Dec, limited = false): Plan {
  const calls = shape.calls ?? 1
  if (shape.candidates.some((c) => hasVariablePrice(c.model))) {
    if (availableMicros < VARIABLE_PRICE_MIN_BALANCE_MICROS)
      return { kind: 'refuse', message: `Недостаточно средств: для моделей с переменной ценой нужно не менее ${formatMicros(VARIABLE_PRICE_MIN_BALANCE_MICROS)} на балансе.` }
    const holdMicros = Math.min(availableMicros, VARIABLE_PRICE_HOLD_MICROS)
    // The balance is charged the reported cost (never silently capped); a limit is never exceeded.
    return limited ? cappedVariable(shape, holdMicros, rate, markup) : { kind: 'hold', holdMicros, maxTokens: null }
  }
  const bounds = shape.candidates.map((c) => boundOf(c, shape, rate))
  const at = (b: Bound, tokens: number) => add(b.fixedUsd, mul(b.perTokenUsd, dec(Math.min(tokens, b.maxTokens))))
  const holdFor = (tokens: number) => Math.max(...bounds.map((b) => ceilUnits(mul(at(b, tokens), b.rate, markup, dec(calls)), 6)))
  const longest = Math.max(...bounds.map((b) => b.maxTokens))

  const fixedMicros = holdFor(0)
  if (fixedMicros > availableMicros) return { kind: 'refuse', message: fixedRefusal(shape, fixedMicros, availableMicros) }

  const requested = shape.requestedTokens
  if (requested !== undefined) {
    // Above every candidate's cap the upstream is told the cap, so it can never write more than was held.
    const tokens = Math.min(requested, longest > 0 ? longest : requested)
    const hold = holdFor(tokens)
    if (hold <= availableMicros) return { kind: 'hold', holdMicros: hold, maxTokens: tokens < requested ? tokens : null }
    const affordable = affordableTokens(bounds, availableMicros, markup, calls)
    const per = shape.choices > 1 ? ` на каждый из ${shape.choices} вариантов (n)` : ''
    return {
      kind: 'refuse',
      message:
        affordable >= 1
          ? `Недостаточно средств: баланса хватает примерно на ${intFormat.format(affordable)} ${tokensWord(affordable)} ответа${per}, а запрошено max_tokens=${requested}. Уменьшите max_tokens${shape.choices > 1 ? ' или n' : ''} или пополните баланс.`
          : NOT_ENOUGH,
      ...(affordable >= MIN_AFFORDABLE_TOKENS ? { affordableTokens: affordable } : {}),
    }
  }

  if (bounds.every((b) => isZero(b.perTokenUsd))) return { kind: 'hold', holdMicros: fixedMicros, maxTokens: null }
  const affordable = affordableTokens(bounds, availableMicros, markup, calls)
  if (affordable >= longest) {
    const declared = shape.candidates.every((c) => c.model.maxCompletionTokens !== null)
    return { kind: 'hold', holdMicros: holdFor(longest), maxTokens: declared ? null : longest }
  }
  if (affordable < MIN_AFFORDABLE_TOKENS) return { kind: 'refuse', message: NOT_ENOUGH }
  return { kind: 'hold', holdMicros: holdFor(affordable), maxTokens: affordable }
}

/** 'токен', 'токена', 'токенов' for n. */
function tokensWord(n: number): string {
  const mod10 = n % 10
  const mod100 = n % 100
  if (mod10 === 1 && mod100 !== 11) return 'токен'
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return 'токена'
  return 'токенов'
}

/**
 * The largest completion cap every candidate can afford: for each candidate whose whole answer the
 * balance cannot cover, how many whole tokens fit after its fixed part; the smallest of those.
 */
function affordableTokens(bounds: Bound[], availableMicros: number, markup: Dec, calls: number): number {
  let best = Number.MAX_SAFE_INTEGER
  for (const b of bounds) {
    if (isZero(b.perTokenUsd)) continue
    const perCall = { n: BigInt(availableMicros), scale: 6 }
    const leftRub = sub(perCall, mul(b.fixedUsd, b.rate, markup, dec(calls)))
    if (leftRub.n <= 0n) return 0
    // Exact: how many whole tokens at the per-token ruble price fit into what is left.
    const fits = floorDiv(leftRub, mul(b.perTokenUsd, b.rate, markup, dec(calls)))
    if (fits < b.maxTokens) best = Math.min(best, fits)
  }
  return best
}

/** Names what makes the request dear before the model writes a word. */
function fixedRefusal(s: RequestShape, fixedMicros: number, availableMicros: number): string {
  const lower: string[] = []
  if ((s.calls ?? 1) > 1 || (s.choices > 1 && s.candidates.some((c) => picturesPerChoice(c, s.wantsImages) > 0))) lower.push('число изображений (n)')
  else if (s.choices > 1) lower.push('n')
  if (s.webResults > 0 || s.candidates.some((c) => c.variant === 'online')) lower.push('max_results веб-поиска')
  if (s.candidates.length > 1) lower.push('список запасных моделей (models)')
  lower.push('длину запроса')
  return `Недостаточно средств: запрос может стоить до ${formatMicros(fixedMicros)} ещё до ответа модели, а доступно ${formatMicros(availableMicros)}. Уменьшите ${lower.join(', ')} или пополните баланс.`
}

/** Under a limit, the completion cap sent with a variable-price request that names none. */
export const VARIABLE_PRICE_MAX_TOKENS = 4096
/** The prompt cap is this fraction of the completion cap (market prices: GPT-4o 2.5/10, Claude 3/15, GPT-4o-mini 0.15/0.6). */
const PROMPT_SHARE = 4n
/** Cache writes may bill a prompt token at up to twice the prompt price (Anthropic's 1-hour cache). */
const PROMPT_WRITE_FACTOR = 2n
/** Below $0.01 per million completion tokens only free models qualify: the request is refused, not sent to fail. */
const MIN_COMPLETION_CAP_FEMTO = 10_000_000n
const FEMTO_PER_MICRO_RUB = dec('1000000000') // µ₽ → femto-rubles, before dividing by the rate

/** USD per unit (femto-dollars, 1e-15) as the decimal string max_price takes, `perMillion` for token prices. */
const capString = (femto: bigint, perMillion: boolean) => toDecimalString({ n: femto, scale: perMillion ? 9 : 15 }, perMillion ? 9 : 15)

/**
 * The price cap for a variable-price request under a limit (protocols.md 1.13): with `max_tokens`
 * and per-unit caps the router can only pick models and providers whose answer costs at most the
 * hold. The hold is spread over everything the router bills per unit, in completion-token
 * equivalents: each completion token (all choices) 1, each prompt or audio token 1/4 of it (×2 for
 * cache writes), each input image what 1 500 prompt tokens may cost; no per-request fee. What
 * max_price does not bound — output pictures, web results, protocols without it — is refused.
 */
function cappedVariable(s: RequestShape, holdMicros: number, rate: Dec, markup: Dec): Plan {
  const refuse = (message: string): Plan => ({ kind: 'refuse', message, uncappable: true })
  if (!s.canCapPrice)
    return refuse('Модель с переменной ценой нельзя использовать с лимитом расходов на этом методе API: её цену нельзя ограничить заранее. Выберите модель с фиксированной ценой.')
  if (s.wantsImages || s.candidates.some((c) => picturesPerChoice(c, s.wantsImages) > 0) || (s.calls ?? 1) > 1)
    return refuse('Цену изображений у модели с переменной ценой нельзя ограничить заранее, а у запроса есть лимит расходов. Выберите модель с фиксированной ценой.')
  if (s.webResults > 0 || s.candidates.some((c) => c.variant === 'online'))
    return refuse(
      'Цену веб-поиска у модели с переменной ценой нельзя ограничить заранее, а у запроса есть лимит расходов. Уберите веб-поиск или выберите модель с фиксированной ценой.',
    )
  const tokens = s.requestedTokens ?? VARIABLE_PRICE_MAX_TOKENS
  const budgetFemto = BigInt(floorDiv(mul(dec(holdMicros), FEMTO_PER_MICRO_RUB), mul(rate, markup)))
  const promptUnits = BigInt(s.prompt.tokens + s.prompt.audioTokens) * PROMPT_WRITE_FACTOR
  const units = BigInt(s.choices * tokens) + (promptUnits + PROMPT_SHARE - 1n) / PROMPT_SHARE + (BigInt(s.prompt.images * IMAGE_PART_TOKENS) + PROMPT_SHARE - 1n) / PROMPT_SHARE
  const completion = budgetFemto / units
  if (completion < MIN_COMPLETION_CAP_FEMTO)
    return refuse(
      `Лимита расходов (${formatMicros(holdMicros)}) не хватает на ответ модели с переменной ценой длиной до ${tokens} токенов. Уменьшите ${s.requestedTokens === undefined ? 'длину запроса' : 'max_tokens или длину запроса'} или увеличьте лимит.`,
    )
  const prompt = completion / PROMPT_SHARE
  const priceCap: PriceCap = { prompt: capString(prompt, true), completion: capString(completion, true), request: '0' }
  if (s.prompt.images > 0) priceCap.image = capString(prompt * BigInt(IMAGE_PART_TOKENS), false)
  if (s.prompt.audioTokens > 0) priceCap.audio = capString(prompt, false)
  return { kind: 'hold', holdMicros, maxTokens: tokens, priceCap }
}
