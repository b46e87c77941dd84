// Reads what a request asks the router for, as far as it is billed, the same way for every
// protocol (chat, Responses, Messages, embeddings, images): which models may answer (`model`,
// `models` fallbacks, `route`, variants), how many choices and pictures, web search (the web plugin
// with its max_results, `web_search_options`, search tools), the other plugins and `provider`.
// Each protocol adds only its prompt and its completion cap. estimate.ts prices the result; what no
// price can bound is refused here, so nothing is forwarded that the hold does not cover.

import type { ModelRow } from '../catalog/schema'
import { canOutputImages, isEmbedding, isSpeech, isTranscription } from '../catalog/service'
import { OpenAIError } from '../lib/errors'
import { isObject } from '../lib/json'
import { modelNotFound } from './errors'
import { type Candidate, DEFAULT_WEB_RESULTS, estimatePrompt, type PromptEstimate, type RequestShape, resolveCandidate } from './estimate'

/** More fallbacks than this are refused: the router tries them in order and each may bill. */
export const MAX_FALLBACK_MODELS = 10
export const MAX_CHOICES = 16

/** Plugins whose cost the hold covers: web (per result), PDF parsing (free or as prompt tokens), JSON repair, compression (free). */
const PRICED_PLUGINS = new Set(['web', 'file-parser', 'response-healing', 'context-compression'])
/** PDF engines billed as prompt tokens or free; mistral-ocr is billed per page, which the prompt cannot tell. */
const PRICED_PDF_ENGINES = new Set(['native', 'cloudflare-ai', 'pdf-text'])
/** Tools the router (or the model) runs as a web search: `web_search`, `web_search_preview`, `web_search_20250305`, `openrouter:web_search`. */
const WEB_SEARCH_TOOL = /(^|:)web_search/

/** The router's routing fields, as any protocol's body may carry them. */
export type Routable = {
  model?: unknown
  models?: unknown
  route?: unknown
  plugins?: unknown
  web_search_options?: unknown
  provider?: unknown
  n?: unknown
  modalities?: unknown
  tools?: unknown
  [k: string]: unknown
}

export type ChatLike = Routable & {
  messages: Array<{ role: string; content?: unknown }>
  max_tokens?: number
  max_completion_tokens?: number
  functions?: unknown
  response_format?: unknown
}

export type ChatShape = {
  shape: RequestShape
  /** The model the request names (as given, variant included), for the usage row. */
  modelId: string
  /** Fields to send instead of the caller's (an explicit web max_results, so the router's default cannot move). */
  patch: Record<string, unknown>
}

const invalid = (message: string, param: string) => new OpenAIError(400, message, 'invalid_request_error', 'invalid_request', { param })

/** The ids the router may answer with: `model`, then `models` in order (fallbacks), without repeats. */
function candidateIds(body: Routable): string[] {
  const ids: string[] = []
  if (body.model !== undefined && (typeof body.model !== 'string' || !body.model)) throw invalid('model должен быть идентификатором модели из /v1/models', 'model')
  if (body.model) ids.push(body.model as string)
  if (body.models !== undefined && body.models !== null) {
    if (!Array.isArray(body.models) || body.models.some((m) => typeof m !== 'string' || !m)) throw invalid('models должен быть массивом идентификаторов моделей', 'models')
    for (const id of body.models as string[]) if (!ids.includes(id)) ids.push(id)
  }
  if (ids.length === 0) throw invalid('Укажите model — идентификатор модели из /v1/models', 'model')
  if (ids.length > MAX_FALLBACK_MODELS) throw invalid(`В models не больше ${MAX_FALLBACK_MODELS} моделей`, 'models')
  // `route: "fallback"` is the old spelling of `models`; any other routing mode would be ours to price.
  if (body.route !== undefined && body.route !== 'fallback') throw invalid('route может быть только "fallback" (запасные модели задаются в models)', 'route')
  return ids
}

/** Web results asked for by the web plugin, native search options or a search tool (0: none), and the plugins to forward. */
function webSearch(body: Routable): { results: number; plugins?: unknown[] } {
  let results = 0
  let plugins: unknown[] | undefined
  if (body.plugins !== undefined) {
    if (!Array.isArray(body.plugins) || body.plugins.some((p) => !isObject(p) || typeof p.id !== 'string'))
      throw invalid('plugins должен быть массивом объектов с полем id', 'plugins')
    plugins = body.plugins.map((p: Record<string, unknown>) => {
      if (p.enabled === false) return p
      if (!PRICED_PLUGINS.has(p.id as string))
        throw invalid(`Плагин ${p.id} не поддерживается: его стоимость нельзя оценить заранее. Доступны: ${[...PRICED_PLUGINS].join(', ')}`, 'plugins')
      const engine = isObject(p.pdf) ? p.pdf.engine : undefined
      if (p.id === 'file-parser' && engine !== undefined && !PRICED_PDF_ENGINES.has(engine as string))
        throw invalid(`Движок разбора PDF ${String(engine)} не поддерживается: он оплачивается постранично. Доступны: ${[...PRICED_PDF_ENGINES].join(', ')}`, 'plugins')
      if (p.id !== 'web') return p
      const max = p.max_results
      if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 100))
        throw invalid('max_results веб-поиска должен быть целым числом от 1 до 100', 'plugins')
      results = Math.max(results, (max as number | undefined) ?? DEFAULT_WEB_RESULTS)
      return max === undefined ? { ...p, max_results: DEFAULT_WEB_RESULTS } : p
    })
  }
  if (body.web_search_options !== undefined && !isObject(body.web_search_options)) throw invalid('web_search_options должен быть объектом', 'web_search_options')
  const searchTool = Array.isArray(body.tools) && body.tools.some((t) => isObject(t) && typeof t.type === 'string' && WEB_SEARCH_TOOL.test(t.type))
  if (body.web_search_options !== undefined || searchTool) results = Math.max(results, DEFAULT_WEB_RESULTS)
  return { results, plugins: results > 0 ? plugins : undefined }
}

/** A price as max_price takes it: a non-negative JSON number or decimal string. */
export const isPrice = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0) || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v))

/** `provider` is the router's routing preferences; its own `max_price` may only lower ours (chat.ts merges them). */
function checkProvider(body: Routable) {
  const provider = body.provider
  if (provider === undefined) return
  if (!isObject(provider)) throw invalid('provider должен быть объектом настроек маршрутизации', 'provider')
  const cap = provider.max_price
  if (cap === undefined) return
  if (!isObject(cap) || !Object.values(cap).every(isPrice))
    throw invalid('provider.max_price должен быть объектом неотрицательных цен в USD (например {"prompt": 1, "completion": 2})', 'provider')
}

function choicesOf(body: Routable): number {
  const n = body.n
  if (n === undefined) return 1
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_CHOICES) throw invalid(`n должен быть целым числом от 1 до ${MAX_CHOICES}`, 'n')
  return n
}

/** What a protocol's endpoint accepts: chat-like models write text (or draw), embedding models make vectors. */
export type Kind = 'chat' | 'embeddings' | 'images'

/** The catalogue entries behind the ids, each fit for the endpoint. */
export function candidatesFor(ids: string[], get: (id: string) => ModelRow | undefined, kind: Kind): Candidate[] {
  return ids.map((id) => {
    const c = resolveCandidate(get, id)
    if (!c) throw modelNotFound(`Модель ${id} не найдена в каталоге`)
    if (kind === 'chat' && isEmbedding(c.model))
      throw new OpenAIError(400, `Модель ${id} создаёт эмбеддинги: используйте /v1/embeddings`, 'invalid_request_error', 'model_is_embedding', { param: 'model' })
    if (isSpeech(c.model)) throw new OpenAIError(400, `Модель ${id} озвучивает текст: используйте /v1/audio/speech`, 'invalid_request_error', 'model_is_speech', { param: 'model' })
    if (isTranscription(c.model))
      throw new OpenAIError(400, `Модель ${id} распознаёт речь: используйте /v1/audio/transcriptions`, 'invalid_request_error', 'model_is_transcription', { param: 'model' })
    if (kind === 'embeddings' && !isEmbedding(c.model))
      throw new OpenAIError(400, `Модель ${id} не создаёт эмбеддинги: выберите модель с типом «Эмбеддинги» в /v1/models`, 'invalid_request_error', 'model_not_embedding', {
        param: 'model',
      })
    if (kind === 'images' && !canOutputImages(c.model))
      throw new OpenAIError(400, `Модель ${id} не генерирует изображения`, 'invalid_request_error', 'model_not_image_capable', { param: 'model' })
    return c
  })
}

/** What only the protocol knows: its prompt, the caller's completion cap, whether the router takes a price cap on it. */
export type ProtocolParts = {
  kind: Kind
  prompt: PromptEstimate | ((candidates: Candidate[]) => PromptEstimate)
  requestedTokens: number | undefined
  promptUncapped?: boolean
  /** `provider.max_price` applies (protocols.md 1.13: chat, Responses, Messages); false for embeddings. */
  canCapPrice?: boolean
  calls?: number
}

/** The one reader of the routing fields: every protocol's shape goes through here. */
export function requestShape(body: Routable, get: (id: string) => ModelRow | undefined, parts: ProtocolParts): ChatShape {
  const ids = candidateIds(body)
  const candidates = candidatesFor(ids, get, parts.kind)
  const web = webSearch(body)
  checkProvider(body)
  const patch: Record<string, unknown> = {}
  if (web.plugins) patch.plugins = web.plugins
  return {
    modelId: ids[0]!,
    patch,
    shape: {
      candidates,
      prompt: typeof parts.prompt === 'function' ? parts.prompt(candidates) : parts.prompt,
      promptUncapped: parts.promptUncapped,
      choices: choicesOf(body),
      wantsImages: Array.isArray(body.modalities) && body.modalities.includes('image'),
      webResults: web.results,
      requestedTokens: parts.requestedTokens,
      calls: parts.calls,
      canCapPrice: parts.canCapPrice ?? true,
    },
  }
}

export function chatShape(body: ChatLike, get: (id: string) => ModelRow | undefined): ChatShape {
  return requestShape(body, get, {
    kind: 'chat',
    prompt: estimatePrompt(body.messages, [body.tools, body.functions, body.response_format]),
    requestedTokens: body.max_completion_tokens ?? body.max_tokens,
  })
}
