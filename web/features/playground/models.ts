// The catalogue as the Playground needs it: GET /v1/models (the same SWR key as the catalogue
// screen, so the list is fetched once), the spec's defaults and fallback list, image capability
// and how its prices read (the estimate before sending comes from the server: estimate.ts).
import useSWR from 'swr'
import { formatInteger, pluralRu } from '../../../src/content/format'

/** Rubles with the markup, as strings; "-1" — a variable price. */
export interface ModelPricing {
  /** per prompt token */
  prompt: string
  /** per answer token */
  completion: string
  /** per picture sent to the model */
  image: string
  request: string
  /** per picture the model draws */
  image_output?: string
  /** per web search result */
  web_search?: string
  /** per reasoning token */
  internal_reasoning?: string
}

export interface PlaygroundModel {
  id: string
  name: string
  description: string
  context_length: number
  pricing: ModelPricing
  capabilities?: { image?: boolean; vision?: boolean }
}

export const DEFAULT_MODEL = 'openai/gpt-3.5-turbo'
/** What the select offers when the catalogue cannot be loaded (spec §9). */
export const FALLBACK_MODEL_IDS = ['openai/gpt-3.5-turbo', 'openai/gpt-4', 'anthropic/claude-3-haiku'] as const
export const MODELS_LOAD_ERROR = 'Не удалось загрузить список моделей. Попробуйте обновить страницу.'

const UNKNOWN_PRICING: ModelPricing = { prompt: '', completion: '', image: '', request: '' }

/** A model known only by its id (fallback list, or a chat whose model left the catalogue). */
export const bareModel = (id: string): PlaygroundModel => ({ id, name: id, description: '', context_length: 0, pricing: UNKNOWN_PRICING })

export function usePlaygroundModels() {
  const { data, error, isLoading } = useSWR<{ data?: PlaygroundModel[] }>('/v1/models')
  const list = Array.isArray(data?.data) ? data.data.filter((m) => m && typeof m.id === 'string') : null
  const failed = !list && !!error
  const models = list ?? (failed ? FALLBACK_MODEL_IDS.map(bareModel) : [])
  return { models, failed, loading: isLoading && !list }
}

// ─── image capability (spec §7: any of four tests) ────────────────────────────

/** Models known to draw pictures, whatever the catalogue says about them. */
export const KNOWN_IMAGE_MODELS = [
  'openai/dall-e-2',
  'openai/dall-e-3',
  'openai/gpt-image-1',
  'openai/gpt-5-image',
  'openai/gpt-5-image-mini',
  'google/gemini-2.5-flash-image',
  'google/gemini-2.5-flash-image-preview',
  'google/gemini-3-pro-image-preview',
  'black-forest-labs/flux.2-pro',
  'black-forest-labs/flux.2-flex',
  'black-forest-labs/flux-1.1-pro',
  'stability-ai/stable-diffusion-xl',
]

const positive = (value: string | undefined) => {
  const n = Number(value)
  return value !== undefined && value !== '' && Number.isFinite(n) && n > 0
}

/** In the known list, has capabilities.image, has an image price above 0, or 'image'/'vision' in its name. */
export function isImageCapable(model: PlaygroundModel): boolean {
  if (KNOWN_IMAGE_MODELS.includes(model.id)) return true
  if (model.capabilities?.image === true) return true
  if (positive(model.pricing?.image)) return true
  return /image|vision/i.test(`${model.name ?? ''} ${model.id}`)
}

/** Image generation is the default mode only for models that really output pictures. */
export const drawsByDefault = (model: PlaygroundModel) =>
  model.capabilities?.image === true || KNOWN_IMAGE_MODELS.includes(model.id) || positive(model.pricing?.image_output)

// ─── prices ──────────────────────────────────────────────────────────────────

/** A price string as a number of rubles, or null when unknown or variable ("-1"). */
export function rubles(value: string | undefined): number | null {
  if (value === undefined || value === '') return null
  const n = Number(value)
  return Number.isFinite(n) && n >= 0 ? n : null
}

export const isVariablePrice = (value: string | undefined) => value !== undefined && value !== '' && Number(value) < 0

/** '16 385 токенов' */
export const contextLabel = (tokens: number) => `${formatInteger(tokens)} ${pluralRu(tokens, ['токен', 'токена', 'токенов'])}`
