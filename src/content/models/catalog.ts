// The model catalogue's pure helpers: providers, search, filters, sorting and ruble prices.
// Shared by the SPA and the server-rendered /models pages (src/spa/pages.ts); the fetching hook
// is the SPA's (web/features/models/use-models.ts).
import type { Model, ModelList } from '../../wire'
import { formatInteger, formatPrice, PER_INPUT_IMAGE, PER_MILLION, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE } from '../format'

// A catalogue entry is the wire type of GET /v1/models (src/gateway/model.ts ModelObject): ruble
// prices as decimal strings (per token, per image, per request, per character or second of audio for
// voice; "-1" — variable), capabilities (image: generates images; vision: reads them; embeddings:
// POST /v1/embeddings only; speech, transcription: POST /v1/audio/* only).
export type { Model, ModelList }
export type ModelPricing = Model['pricing']

// ─── providers ───────────────────────────────────────────────────────────────

const PROVIDER_LABELS: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  'meta-llama': 'Meta',
  mistralai: 'Mistral AI',
  deepseek: 'DeepSeek',
  openrouter: 'OpenRouter',
  'x-ai': 'xAI',
  qwen: 'Qwen',
  cohere: 'Cohere',
  perplexity: 'Perplexity',
  microsoft: 'Microsoft',
  amazon: 'Amazon',
  nvidia: 'NVIDIA',
  'black-forest-labs': 'Black Forest Labs',
  'z-ai': 'Z.AI',
  stabilityai: 'Stability AI',
  moonshotai: 'Moonshot AI',
  minimax: 'MiniMax',
  nousresearch: 'Nous Research',
  bytedance: 'ByteDance',
  'bytedance-seed': 'ByteDance Seed',
  ai21: 'AI21',
  'arcee-ai': 'Arcee AI',
  'ibm-granite': 'IBM Granite',
  allenai: 'Ai2',
  eleutherai: 'EleutherAI',
  thudm: 'THUDM',
  baidu: 'Baidu',
  tencent: 'Tencent',
  alibaba: 'Alibaba',
  inception: 'Inception',
  liquid: 'Liquid',
}

/** 'openai/gpt-4o' → 'openai'; an id without a slash is its own provider. */
export function providerOf(id: string): string {
  const slash = id.indexOf('/')
  return slash > 0 ? id.slice(0, slash) : id
}

/**
 * Readable provider name: known ones mapped, others as title-cased words of the slug
 * ('some-new-lab' → 'Some New Lab', 'acme-ai' → 'Acme AI'), never 'Black-forest-labs'.
 */
export function providerLabel(provider: string): string {
  const known = PROVIDER_LABELS[provider.toLowerCase()]
  if (known) return known
  return provider
    .split(/[-_]+/)
    .filter(Boolean)
    .map((word) => (word.toLowerCase() === 'ai' ? 'AI' : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(' ')
}

export interface ProviderCount {
  provider: string
  label: string
  count: number
}

/** Providers of `models`, most models first, then alphabetically by label. */
export function countProviders(models: readonly Model[]): ProviderCount[] {
  const counts = new Map<string, number>()
  for (const model of models) {
    const provider = providerOf(model.id)
    counts.set(provider, (counts.get(provider) ?? 0) + 1)
  }
  return [...counts].map(([provider, count]) => ({ provider, label: providerLabel(provider), count })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label, 'ru'))
}

// ─── types ───────────────────────────────────────────────────────────────────

/**
 * What a model is for, one type per model as its card's badge says: embedding models (vectors
 * through /v1/embeddings), speech and transcription models (/v1/audio/speech and
 * /v1/audio/transcriptions), image models (generate pictures, often text too), the rest text.
 */
export type ModelType = 'text' | 'image' | 'embeddings' | 'speech' | 'transcription'

export const MODEL_TYPES: ReadonlyArray<{ type: ModelType; label: string }> = [
  { type: 'text', label: 'Текст' },
  { type: 'image', label: 'Изображения' },
  { type: 'embeddings', label: 'Эмбеддинги' },
  { type: 'speech', label: 'Озвучка' },
  { type: 'transcription', label: 'Распознавание речи' },
]

export const isEmbeddingModel = (model: Pick<Model, 'capabilities'>) => model.capabilities?.embeddings === true
export const isSpeechModel = (model: Pick<Model, 'capabilities'>) => model.capabilities?.speech === true
export const isTranscriptionModel = (model: Pick<Model, 'capabilities'>) => model.capabilities?.transcription === true

export function modelType(model: Pick<Model, 'capabilities'>): ModelType {
  if (isEmbeddingModel(model)) return 'embeddings'
  if (isSpeechModel(model)) return 'speech'
  if (isTranscriptionModel(model)) return 'transcription'
  if (model.capabilities?.image) return 'image'
  return 'text'
}

/** A model's type as a phrase (the public pages' «Тип»). */
export const MODEL_TYPE_TEXT: Record<ModelType, string> = {
  text: 'Текст',
  image: 'Генерация изображений',
  embeddings: 'Эмбеддинги (векторы текста)',
  speech: 'Озвучка текста (синтез речи)',
  transcription: 'Распознавание речи',
}

/** A ?type= value as the page accepts it; anything else is no filter. */
export function parseModelType(value: string | null | undefined): ModelType | '' {
  return MODEL_TYPES.some((t) => t.type === value) ? (value as ModelType) : ''
}

// ─── search ──────────────────────────────────────────────────────────────────

/**
 * Case-insensitive search over id, name and description. Every word of the query must occur
 * somewhere, so 'gpt 4o' finds 'openai/gpt-4o' while 'claude' stays a plain substring match.
 */
export function matchesSearch(model: Model, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const haystack = `${model.id}\n${model.name}\n${model.description ?? ''}`.toLowerCase()
  return words.every((word) => haystack.includes(word))
}

// ─── prices ──────────────────────────────────────────────────────────────────

export const VARIABLE_PRICE_TEXT = 'Цена зависит от запроса'
export const FREE_TEXT = 'Бесплатно'

export type PriceValue = { kind: 'free' } | { kind: 'variable' } | { kind: 'amount'; rubles: number }

/** A pricing string as sent by the server: "0" is free, "-1" (any negative) means variable. */
export function parsePrice(value: string | null | undefined): PriceValue {
  const n = Number(value)
  if (value === null || value === undefined || value === '' || !Number.isFinite(n) || n === 0) return { kind: 'free' }
  if (n < 0) return { kind: 'variable' }
  return { kind: 'amount', rubles: n }
}

/** The display text of a price, optionally scaled (×1 000 000 for "per 1M tokens"). */
export function priceText(price: PriceValue, scale = 1): string {
  if (price.kind === 'free') return FREE_TEXT
  if (price.kind === 'variable') return VARIABLE_PRICE_TEXT
  return formatPrice(price.rubles * scale)
}

/** True when nothing about the model costs money. */
export function isFreeModel(pricing: ModelPricing): boolean {
  return (['prompt', 'completion', 'image', 'request', 'image_output'] as const).every((k) => parsePrice(pricing[k]).kind === 'free')
}

const millions = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 })

/** '128K' from 128000, '2M' from 2000000, '1,05M' from 1048576; under a thousand the exact number. */
export function contextSize(tokens: number): string {
  if (tokens < 1000) return formatInteger(tokens)
  const thousands = Math.round(tokens / 1000)
  // from a million on, in millions ('2 000K' reads badly), ru-RU decimals
  if (thousands >= 1000) return `${millions.format(tokens / 1_000_000)}M`
  return `${formatInteger(thousands)}K`
}

/** '128K контекст' from 128000, '2M контекст' from 2000000; under a thousand tokens the exact number. */
export function contextText(tokens: number): string | null {
  if (!Number.isFinite(tokens) || tokens <= 0) return null
  if (tokens < 1000) return `${formatInteger(tokens)} токенов контекст`
  return `${contextSize(tokens)} контекст`
}

// ─── price rows (one rule for the cards, the public pages and their server-rendered text) ───

export interface PriceLine {
  /** 'Ввод', 'Вывод', 'Цена', or for per-unit prices the unit itself ('за входное изображение'). */
  label: string
  price: PriceValue
  /** 'за 1M токенов' for token prices; absent for per-unit rows (the label says it). */
  unit?: string
  scale: number
  /** The label is the unit (per picture, per request). */
  perUnit?: boolean
}

/**
 * The prices a model shows, by the spec's rule (format.ts says how money reads): token prices per
 * 1M tokens everywhere; embedding models only their input, free models one 'Бесплатно', both token
 * prices variable one 'Цена зависит от запроса'; a picture's price says whether it is one sent to
 * the model or one it draws; extras (pictures, request) only when they are a number.
 */
export function priceLines(model: Pick<Model, 'pricing' | 'capabilities'>): PriceLine[] {
  const { pricing } = model
  const unit = PER_MILLION_TOKENS
  const tokens = PER_MILLION
  if (isFreeModel(pricing)) return [{ label: 'Цена', price: { kind: 'free' }, scale: 1 }]
  if (model.capabilities?.embeddings === true) return [{ label: 'Ввод', price: parsePrice(pricing.prompt), unit, scale: tokens }]
  // Voice in the unit the router prices it in: characters of text, minutes of audio (or audio tokens).
  if (isSpeechModel(model)) return [{ label: 'Текст', price: parsePrice(pricing.character ?? pricing.prompt), unit: 'за 1M символов', scale: 1_000_000 }]
  if (isTranscriptionModel(model)) {
    const perSecond = parsePrice(pricing.audio_second)
    if (perSecond.kind !== 'free') return [{ label: 'Аудио', price: perSecond, unit: 'за минуту', scale: 60 }]
    return [
      { label: 'Аудио', price: parsePrice(pricing.audio ?? pricing.prompt), unit, scale: tokens },
      { label: 'Текст', price: parsePrice(pricing.completion), unit, scale: tokens },
    ]
  }
  const prompt = parsePrice(pricing.prompt)
  const completion = parsePrice(pricing.completion)
  const image = parsePrice(pricing.image)
  const drawn = parsePrice(pricing.image_output)
  const request = parsePrice(pricing.request)
  // A model priced only by the picture it draws (FLUX) has no token prices worth a row.
  const tokensFree = prompt.kind === 'free' && completion.kind === 'free' && drawn.kind === 'amount'
  const lines: PriceLine[] = tokensFree
    ? []
    : prompt.kind === 'variable' && completion.kind === 'variable'
      ? [{ label: 'Цена', price: { kind: 'variable' }, scale: 1 }]
      : [
          { label: 'Ввод', price: prompt, unit, scale: tokens },
          { label: 'Вывод', price: completion, unit, scale: tokens },
        ]
  if (drawn.kind === 'amount') lines.push({ label: PER_OUTPUT_IMAGE, price: drawn, scale: 1, perUnit: true })
  if (image.kind === 'amount') lines.push({ label: PER_INPUT_IMAGE, price: image, scale: 1, perUnit: true })
  if (request.kind === 'amount') lines.push({ label: 'за запрос', price: request, scale: 1, perUnit: true })
  return lines
}

/**
 * The one price a model is compared by (the landing's teaser, the Playground's picker): a picture
 * for models priced by what they draw, 1M characters for speech, a minute for transcription, else
 * input / output per 1M tokens — '0,43 ₽ / 1,29 ₽ за 1M токенов'.
 */
export function headlinePrice(model: Pick<Model, 'pricing' | 'capabilities'>): string {
  const lines = priceLines(model)
  const first = lines[0]
  if (!first) return ''
  if (first.price.kind !== 'amount') return first.label === 'Цена' ? priceText(first.price) : `${first.label}: ${priceText(first.price).toLowerCase()}`
  if (first.perUnit) return `${priceText(first.price)} ${first.label}`
  const second = lines[1]
  if (first.label === 'Ввод' && second?.label === 'Вывод') return `${priceText(first.price, first.scale)} / ${priceText(second.price, second.scale).toLowerCase()} ${first.unit}`
  return `${priceText(first.price, first.scale)} ${first.unit ?? ''}`.trim()
}

/** 'Ввод: 0,4300 ₽ за 1M токенов' — a price line as plain text. */
export function priceLineText(line: PriceLine): string {
  const value = priceText(line.price, line.scale)
  if (line.perUnit) return `${line.label.charAt(0).toUpperCase()}${line.label.slice(1)}: ${value}`
  return `${line.label}: ${value}${line.price.kind === 'amount' && line.unit ? ` ${line.unit}` : ''}`
}

// ─── comparison (the catalogue's «Сравнить») ────────────────────────────────

/** What a comparison calls «a typical request», said on the page beside the figure. */
export const TYPICAL_REQUEST = { promptTokens: 1000, completionTokens: 500 } as const
export const TYPICAL_REQUEST_TEXT =
  'вопрос с контекстом на 1 000 токенов и ответ на 500 токенов (для моделей изображений — одна картинка, эмбеддингов — 1 000 токенов текста, озвучки — 1 000 символов, распознавания — минута записи)'

/**
 * What a typical request costs on this model, from its catalogue prices (TYPICAL_REQUEST): the
 * figure the comparison shows, with what it counts ('1 000 + 500 токенов', '1 картинка').
 */
export function typicalCost(model: Pick<Model, 'pricing' | 'capabilities'>): { price: PriceValue; what: string } {
  const { pricing } = model
  const sum = (...parts: PriceValue[]): PriceValue =>
    parts.some((p) => p.kind === 'variable')
      ? { kind: 'variable' }
      : parts.every((p) => p.kind === 'free')
        ? { kind: 'free' }
        : { kind: 'amount', rubles: parts.reduce((s, p) => s + (p.kind === 'amount' ? p.rubles : 0), 0) }
  const times = (p: PriceValue, n: number): PriceValue => (p.kind === 'amount' ? { kind: 'amount', rubles: p.rubles * n } : p)
  const request = parsePrice(pricing.request)
  if (isEmbeddingModel(model)) return { price: sum(times(parsePrice(pricing.prompt), TYPICAL_REQUEST.promptTokens), request), what: '1 000 токенов текста' }
  if (isSpeechModel(model)) return { price: sum(times(parsePrice(pricing.character ?? pricing.prompt), 1000), request), what: '1 000 символов' }
  if (isTranscriptionModel(model)) {
    const perSecond = parsePrice(pricing.audio_second)
    if (perSecond.kind !== 'free') return { price: sum(times(perSecond, 60), request), what: 'минута записи' }
  }
  const drawn = parsePrice(pricing.image_output)
  const prompt = parsePrice(pricing.prompt)
  const completion = parsePrice(pricing.completion)
  if (drawn.kind === 'amount' && prompt.kind === 'free' && completion.kind === 'free') return { price: sum(drawn, request), what: '1 картинка' }
  return {
    price: sum(times(prompt, TYPICAL_REQUEST.promptTokens), times(completion, TYPICAL_REQUEST.completionTokens), request),
    what: '1 000 + 500 токенов',
  }
}

/** What a model takes and gives, in words: 'текст, изображения' → 'текст'. */
export function modalities(model: Pick<Model, 'pricing' | 'capabilities'>): { input: string; output: string } {
  const c = model.capabilities ?? {}
  const input = [c.transcription ? 'аудио' : 'текст', c.vision && 'изображения', c.files && 'PDF'].filter(Boolean).join(', ')
  const drawsOnly = c.image === true && parsePrice(model.pricing.completion).kind === 'free'
  const output = c.embeddings ? 'векторы' : c.speech ? 'аудио' : [!drawsOnly && 'текст', c.image && 'изображения'].filter(Boolean).join(', ')
  return { input, output }
}

// ─── public catalogue: filters and sorting ───────────────────────────────────

export type PublicFilter = '' | 'text' | 'image' | 'vision' | 'embeddings' | 'speech' | 'transcription' | 'free'
export const PUBLIC_FILTERS: ReadonlyArray<{ filter: Exclude<PublicFilter, ''>; label: string }> = [
  { filter: 'text', label: 'Текст' },
  { filter: 'image', label: 'Генерация изображений' },
  { filter: 'vision', label: 'Понимают изображения' },
  { filter: 'embeddings', label: 'Эмбеддинги' },
  { filter: 'speech', label: 'Озвучка' },
  { filter: 'transcription', label: 'Распознавание речи' },
  { filter: 'free', label: 'Бесплатные' },
]
export const parsePublicFilter = (v: string | null | undefined): PublicFilter => (PUBLIC_FILTERS.some((f) => f.filter === v) ? (v as PublicFilter) : '')

export function matchesPublicFilter(model: Model, filter: PublicFilter): boolean {
  switch (filter) {
    case 'text':
      return modelType(model) === 'text'
    case 'image':
      return model.capabilities?.image === true
    case 'vision':
      return model.capabilities?.vision === true
    case 'embeddings':
      return isEmbeddingModel(model)
    case 'speech':
      return isSpeechModel(model)
    case 'transcription':
      return isTranscriptionModel(model)
    case 'free':
      return isFreeModel(model.pricing)
    default:
      return true
  }
}

export type ModelSort = 'newest' | 'price' | 'context'
export const MODEL_SORTS: ReadonlyArray<{ sort: ModelSort; label: string }> = [
  { sort: 'newest', label: 'Сначала новые' },
  { sort: 'price', label: 'Сначала дешёвые' },
  { sort: 'context', label: 'Больше контекст' },
]
export const parseModelSort = (v: string | null | undefined): ModelSort => (MODEL_SORTS.some((s) => s.sort === v) ? (v as ModelSort) : 'newest')

/** What 'cheapest first' compares: free 0, else the input price (an image model's picture price), variable last. */
export function priceKey(model: Pick<Model, 'pricing' | 'capabilities'>): number {
  if (isFreeModel(model.pricing)) return 0
  const prompt = parsePrice(model.pricing.prompt)
  if (prompt.kind === 'amount' && !(model.capabilities?.image && parsePrice(model.pricing.image).kind === 'amount')) return prompt.rubles * 1000
  const image = parsePrice(model.pricing.image)
  if (image.kind === 'amount') return image.rubles
  if (prompt.kind === 'amount') return prompt.rubles * 1000
  return Number.POSITIVE_INFINITY
}

export function sortModels<T extends Pick<Model, 'id' | 'created' | 'context_length' | 'pricing' | 'capabilities'>>(models: readonly T[], sort: ModelSort): T[] {
  const list = [...models]
  const byId = (a: T, b: T) => a.id.localeCompare(b.id)
  if (sort === 'price') return list.sort((a, b) => priceKey(a) - priceKey(b) || byId(a, b))
  if (sort === 'context') return list.sort((a, b) => (b.context_length || 0) - (a.context_length || 0) || byId(a, b))
  return list.sort((a, b) => (b.created || 0) - (a.created || 0) || byId(a, b))
}

export { publicModelHref } from './links'
