// The catalogue as the Playground needs it: GET /v1/models (the same SWR key as the catalogue
// screen, so the list is fetched once), the spec's defaults and fallback list, image capability
// and how its prices read (the estimate before sending comes from the server: estimate.ts).
import useSWR from 'swr'
import { formatInteger, pluralRu } from '../../../../src/content/format'
import type { AttachKinds } from '../types'

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
  /** per audio token (token-priced transcription models) */
  audio?: string
  /** speech models: per character of text */
  character?: string
  /** transcription models priced by duration: per second of audio */
  audio_second?: string
}

export interface PlaygroundModel {
  id: string
  name: string
  description: string
  context_length: number
  pricing: ModelPricing
  /** image: draws pictures (output); vision: reads pictures; files: reads PDFs (input modalities); speech, transcription: voice models */
  capabilities?: { image?: boolean; vision?: boolean; files?: boolean; embeddings?: boolean; speech?: boolean; transcription?: boolean }
  /** speech models: the voices they speak with */
  voices?: string[]
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

// ─── what a model takes and gives (the catalogue's modalities) ───────────────

/** Models known to draw pictures: used only when the catalogue could not say (its fallback list). */
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

/**
 * Image generation is offered only for models whose output includes pictures (issue 17 narrows the
 * spec's four tests: a model that merely reads pictures, like GPT-4o, answered «Модель не вернула
 * изображение.»). The catalogue says it in capabilities.image; a price per drawn picture says the same.
 */
export function isImageCapable(model: PlaygroundModel): boolean {
  if (model.capabilities) return model.capabilities.image === true || positive(model.pricing?.image_output)
  return KNOWN_IMAGE_MODELS.includes(model.id)
}

/** Image generation is the default mode for models that draw (all of them, as the mode is offered only then). */
export const drawsByDefault = isImageCapable

/** What may be attached for this model: pictures if it reads them, PDFs and text files if it reads files. */

export function attachKinds(model: PlaygroundModel): AttachKinds {
  // A model known only by its id (the catalogue failed): let the customer try, the server decides.
  if (!model.capabilities) return { images: true, files: true }
  return { images: model.capabilities.vision === true, files: model.capabilities.files === true }
}

/**
 * What the model picker offers: chat and image models, and speech models (the Playground voices the
 * text typed). Embedding models answer only /v1/embeddings, transcription models listen through the
 * composer's microphone: nothing to chat with either.
 */
export const isChatModel = (model: PlaygroundModel) => model.capabilities?.embeddings !== true && model.capabilities?.transcription !== true

export const isSpeechModel = (model: PlaygroundModel) => model.capabilities?.speech === true

/**
 * What a comparison can put side by side: models that answer a chat with text — not voice models,
 * and not those that only draw (a picture model with no price for written tokens, like FLUX).
 */
export const answersText = (model: PlaygroundModel) =>
  isChatModel(model) && !isSpeechModel(model) && !(model.capabilities?.image === true && (rubles(model.pricing?.completion) ?? 0) === 0)
export const isTranscriptionModel = (model: PlaygroundModel) => model.capabilities?.transcription === true

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
