// Reads what a chat request asks the router for, as far as it is billed: which models may answer,
// how many choices, pictures and web results, and the prompt. estimate.ts prices the result.

import type { ModelRow } from '../catalog/schema'
import { isEmbedding, isSpeech, isTranscription } from '../catalog/service'
import { OpenAIError } from '../lib/errors'
import { isObject } from '../lib/json'
import { type Candidate, DEFAULT_WEB_RESULTS, estimatePrompt, type RequestShape, resolveCandidate } from './estimate'

/** More fallbacks than this are refused: the router tries them in order and each may bill. */
export const MAX_FALLBACK_MODELS = 10

export type ChatLike = {
  model?: string
  models?: unknown
  messages: Array<{ role: string; content?: unknown }>
  n?: number
  max_tokens?: number
  max_completion_tokens?: number
  modalities?: unknown
  plugins?: unknown
  web_search_options?: unknown
  tools?: unknown
  functions?: unknown
  response_format?: unknown
  [k: string]: unknown
}

export type ChatShape = {
  shape: RequestShape
  /** The model the request names (as given, variant included), for the usage row. */
  modelId: string
  /** Fields to send instead of the caller's (an explicit web max_results, so the router's default cannot move). */
  patch: Record<string, unknown>
}

const notFound = (id: string) => new OpenAIError(404, `Модель ${id} не найдена в каталоге`, 'invalid_request_error', 'model_not_found', { param: 'model' })

/** The ids the router may answer with: `model`, then `models` in order (fallbacks), without repeats. */
function candidateIds(body: ChatLike): string[] {
  const ids: string[] = []
  if (typeof body.model === 'string' && body.model) ids.push(body.model)
  if (body.models !== undefined && body.models !== null) {
    if (!Array.isArray(body.models) || body.models.some((m) => typeof m !== 'string' || !m))
      throw new OpenAIError(400, 'models должен быть массивом идентификаторов моделей', 'invalid_request_error', 'invalid_request', { param: 'models' })
    for (const id of body.models as string[]) if (!ids.includes(id)) ids.push(id)
  }
  if (ids.length === 0) throw new OpenAIError(400, 'Укажите model — идентификатор модели из /v1/models', 'invalid_request_error', 'invalid_request', { param: 'model' })
  if (ids.length > MAX_FALLBACK_MODELS)
    throw new OpenAIError(400, `В models не больше ${MAX_FALLBACK_MODELS} моделей`, 'invalid_request_error', 'invalid_request', { param: 'models' })
  return ids
}

/** Web results asked for by the web plugin or native search options (0: none), and the plugins to forward. */
function webSearch(body: ChatLike): { results: number; plugins?: unknown[] } {
  let results = 0
  let plugins: unknown[] | undefined
  if (Array.isArray(body.plugins)) {
    plugins = body.plugins.map((p) => {
      if (!isObject(p) || p.id !== 'web') return p
      const max = p.max_results
      if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 100))
        throw new OpenAIError(400, 'max_results веб-поиска должен быть целым числом от 1 до 100', 'invalid_request_error', 'invalid_request', { param: 'plugins' })
      results = Math.max(results, (max as number | undefined) ?? DEFAULT_WEB_RESULTS)
      return max === undefined ? { ...p, max_results: DEFAULT_WEB_RESULTS } : p
    })
  }
  if (isObject(body.web_search_options)) results = Math.max(results, DEFAULT_WEB_RESULTS)
  return { results, plugins: results > 0 ? plugins : undefined }
}

export function chatShape(body: ChatLike, get: (id: string) => ModelRow | undefined): ChatShape {
  const ids = candidateIds(body)
  const candidates: Candidate[] = ids.map((id) => {
    const c = resolveCandidate(get, id)
    if (!c) throw notFound(id)
    if (isEmbedding(c.model))
      throw new OpenAIError(400, `Модель ${id} создаёт эмбеддинги: используйте /v1/embeddings`, 'invalid_request_error', 'model_is_embedding', { param: 'model' })
    if (isSpeech(c.model)) throw new OpenAIError(400, `Модель ${id} озвучивает текст: используйте /v1/audio/speech`, 'invalid_request_error', 'model_is_speech', { param: 'model' })
    if (isTranscription(c.model))
      throw new OpenAIError(400, `Модель ${id} распознаёт речь: используйте /v1/audio/transcriptions`, 'invalid_request_error', 'model_is_transcription', { param: 'model' })
    return c
  })
  const web = webSearch(body)
  const patch: Record<string, unknown> = {}
  if (web.plugins) patch.plugins = web.plugins
  return {
    modelId: ids[0]!,
    patch,
    shape: {
      candidates,
      prompt: estimatePrompt(body.messages, [body.tools, body.functions, body.response_format]),
      choices: body.n ?? 1,
      wantsImages: Array.isArray(body.modalities) && body.modalities.includes('image'),
      webResults: web.results,
      requestedTokens: body.max_completion_tokens ?? body.max_tokens,
    },
  }
}
