// A small, realistic model catalogue in OpenRouter's Model shape (protocols.md 1.1) and the
// `GET /models` filters, including the quirk that the default `output_modalities=text` hides
// every model that can output images, and that voice models show only when asked for by name.

export type Modality = 'text' | 'image' | 'file' | 'audio' | 'video' | 'embeddings' | 'speech' | 'transcription'

export type ModelPricing = {
  prompt: string
  completion: string
  request: string
  image: string
  web_search: string
  internal_reasoning: string
  input_cache_read?: string
  input_cache_write?: string
  image_output?: string
  /** Per audio input token (token-priced transcription models). */
  audio?: string
}

export type Model = {
  id: string
  canonical_slug: string
  hugging_face_id: string | null
  name: string
  created: number
  description: string
  context_length: number
  architecture: {
    modality: string
    input_modalities: Modality[]
    output_modalities: Modality[]
    tokenizer: string
    instruct_type: string | null
  }
  pricing: ModelPricing
  top_provider: { context_length: number; max_completion_tokens: number | null; is_moderated: boolean }
  per_request_limits: null
  supported_parameters: string[]
  default_parameters: Record<string, number | null> | null
  supported_voices: string[] | null
  expiration_date: string | null
  knowledge_cutoff: string | null
  links: { details: string }
}

const TEXT_PARAMS = [
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'frequency_penalty',
  'presence_penalty',
  'seed',
  'logit_bias',
  'response_format',
  'structured_outputs',
  'tools',
  'tool_choice',
]
const IMAGE_PARAMS = ['max_tokens', 'temperature', 'top_p', 'seed', 'response_format', 'structured_outputs']

type Spec = {
  id: string
  name: string
  created: number
  description: string
  context: number
  maxCompletion: number | null
  input: Modality[]
  output?: Modality[]
  tokenizer: string
  instructType?: string | null
  hfId?: string | null
  moderated?: boolean
  pricing: Partial<ModelPricing> & { prompt: string; completion: string }
  params?: string[]
  cutoff?: string | null
  voices?: string[]
}

const MODALITY_ORDER: Modality[] = ['text', 'image', 'audio', 'video', 'embeddings', 'speech', 'transcription']
/** "text+image": the summary string lists modalities in a fixed order and leaves out `file`, as OpenRouter does. */
const modalityList = (ms: Modality[]) => MODALITY_ORDER.filter((m) => ms.includes(m)).join('+')

/** Fills the keys every Model carries so the table below only says what differs. */
function model(s: Spec): Model {
  const output = s.output ?? ['text']
  return {
    id: s.id,
    canonical_slug: s.id,
    hugging_face_id: s.hfId ?? null,
    name: s.name,
    created: s.created,
    description: s.description,
    context_length: s.context,
    architecture: {
      modality: `${modalityList(s.input)}->${modalityList(output)}`,
      input_modalities: s.input,
      output_modalities: output,
      tokenizer: s.tokenizer,
      instruct_type: s.instructType ?? null,
    },
    pricing: { request: '0', image: '0', web_search: '0', internal_reasoning: '0', ...s.pricing },
    top_provider: { context_length: s.context, max_completion_tokens: s.maxCompletion, is_moderated: s.moderated ?? false },
    per_request_limits: null,
    supported_parameters: s.params ?? TEXT_PARAMS,
    default_parameters: null,
    supported_voices: s.voices ?? null,
    expiration_date: null,
    knowledge_cutoff: s.cutoff ?? null,
    links: { details: `/api/v1/models/${s.id}/endpoints` },
  }
}

export const CATALOGUE: readonly Model[] = [
  model({
    id: 'openai/gpt-3.5-turbo',
    name: 'OpenAI: GPT-3.5 Turbo',
    created: 1685232000,
    description: 'Демо-модель: быстрая и недорогая модель OpenAI для диалогов и простых задач.',
    context: 16385,
    maxCompletion: 4096,
    input: ['text'],
    tokenizer: 'GPT',
    moderated: true,
    pricing: { prompt: '0.0000005', completion: '0.0000015' },
    cutoff: '2021-09-30',
  }),
  model({
    id: 'openai/gpt-4',
    name: 'OpenAI: GPT-4',
    created: 1685232000,
    description: 'Демо-модель: флагманская модель OpenAI предыдущего поколения с высокой точностью рассуждений.',
    context: 8191,
    maxCompletion: 4096,
    input: ['text'],
    tokenizer: 'GPT',
    moderated: true,
    pricing: { prompt: '0.00003', completion: '0.00006' },
    cutoff: '2021-09-30',
  }),
  model({
    id: 'openai/gpt-4o',
    name: 'OpenAI: GPT-4o',
    created: 1715558400,
    description: 'Демо-модель: мультимодальная модель OpenAI, понимает текст, изображения и файлы.',
    context: 128000,
    maxCompletion: 16384,
    input: ['text', 'image', 'file'],
    tokenizer: 'GPT',
    moderated: true,
    pricing: { prompt: '0.0000025', completion: '0.00001', image: '0.003613', input_cache_read: '0.00000125' },
    cutoff: '2023-10-01',
  }),
  model({
    id: 'openai/gpt-4o-mini',
    name: 'OpenAI: GPT-4o-mini',
    created: 1721260800,
    description: 'Демо-модель: компактная и дешёвая мультимодальная модель OpenAI, понимает изображения.',
    context: 128000,
    maxCompletion: 16384,
    input: ['text', 'image', 'file'],
    tokenizer: 'GPT',
    moderated: true,
    pricing: { prompt: '0.00000015', completion: '0.0000006', image: '0.000217', input_cache_read: '0.000000075' },
    cutoff: '2023-10-01',
  }),
  model({
    id: 'anthropic/claude-3-haiku',
    name: 'Anthropic: Claude 3 Haiku',
    created: 1710288000,
    description: 'Демо-модель: самая быстрая модель семейства Claude 3, понимает изображения.',
    context: 200000,
    maxCompletion: 4096,
    input: ['text', 'image'],
    tokenizer: 'Claude',
    moderated: true,
    pricing: {
      prompt: '0.00000025',
      completion: '0.00000125',
      image: '0.0004',
      input_cache_read: '0.00000003',
      input_cache_write: '0.0000003',
    },
    params: ['max_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'tools', 'tool_choice'],
  }),
  model({
    id: 'google/gemini-2.5-flash-image',
    name: 'Google: Gemini 2.5 Flash Image (Nano Banana)',
    created: 1759870800,
    description: 'Демо-модель: генерирует и редактирует изображения по текстовому описанию, отвечает текстом.',
    context: 32768,
    maxCompletion: 8192,
    input: ['image', 'text'],
    output: ['image', 'text'],
    tokenizer: 'Gemini',
    pricing: {
      prompt: '0.0000003',
      completion: '0.0000025',
      image: '0.001238',
      image_output: '0.001238',
      input_cache_read: '0.00000003',
    },
    params: IMAGE_PARAMS,
    cutoff: '2025-01-31',
  }),
  model({
    id: 'black-forest-labs/flux.2-pro',
    name: 'Black Forest Labs: FLUX.2 [pro]',
    created: 1764028800,
    description: 'Демо-модель: генерирует только изображения (без текста) по описанию.',
    context: 46864,
    maxCompletion: 46864,
    input: ['text', 'image'],
    output: ['image'],
    tokenizer: 'Other',
    pricing: { prompt: '0', completion: '0', image: '0.03', image_output: '0.03' },
    params: ['seed'],
  }),
  model({
    id: 'meta-llama/llama-3.1-8b-instruct:free',
    name: 'Meta: Llama 3.1 8B Instruct (free)',
    created: 1721692800,
    description: 'Демо-модель: бесплатный вариант компактной открытой модели Meta Llama 3.1.',
    context: 131072,
    maxCompletion: 4096,
    input: ['text'],
    tokenizer: 'Llama3',
    instructType: 'llama3',
    hfId: 'meta-llama/Meta-Llama-3.1-8B-Instruct',
    pricing: { prompt: '0', completion: '0' },
    params: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed'],
  }),
  model({
    id: 'openrouter/auto',
    name: 'Auto Router',
    created: 1699401600,
    description: 'Демо-модель: автоматически выбирает подходящую модель; в демо-режиме отвечает GPT-4o-mini.',
    context: 2000000,
    maxCompletion: null,
    input: ['text', 'image', 'file'],
    tokenizer: 'Router',
    pricing: { prompt: '-1', completion: '-1', request: '-1', image: '-1' },
  }),
  model({
    id: 'mistralai/mistral-small',
    name: 'Mistral: Mistral Small',
    created: 1704844800,
    description: 'Демо-модель: экономичная модель Mistral AI для перевода, резюме и классификации.',
    context: 32768,
    maxCompletion: null,
    input: ['text'],
    tokenizer: 'Mistral',
    pricing: { prompt: '0.0000002', completion: '0.0000006' },
  }),
  model({
    id: 'deepseek/deepseek-chat',
    name: 'DeepSeek: DeepSeek V3',
    created: 1735241000,
    description: 'Демо-модель: открытая модель DeepSeek V3 для диалогов и программирования.',
    context: 163840,
    maxCompletion: 163840,
    input: ['text'],
    tokenizer: 'DeepSeek',
    hfId: 'deepseek-ai/DeepSeek-V3',
    pricing: { prompt: '0.0000003', completion: '0.00000085' },
  }),
]

/**
 * Embedding models (protocols.md 1.12): listed only by `GET /embeddings/models`, never by `/models`
 * (whatever its filters), and usable only by `POST /embeddings`. `GET /models/{id}` resolves them.
 */
export const EMBEDDING_MODELS: readonly Model[] = [
  model({
    id: 'openai/text-embedding-3-small',
    name: 'OpenAI: Text Embedding 3 Small',
    created: 1705953600,
    description: 'Демо-модель: компактная модель эмбеддингов OpenAI, векторы длиной 1536.',
    context: 8192,
    maxCompletion: null,
    input: ['text'],
    output: ['embeddings'],
    tokenizer: 'GPT',
    pricing: { prompt: '0.00000002', completion: '0' },
    params: ['dimensions', 'encoding_format'],
  }),
  model({
    id: 'openai/text-embedding-3-large',
    name: 'OpenAI: Text Embedding 3 Large',
    created: 1705953600,
    description: 'Демо-модель: точная модель эмбеддингов OpenAI, векторы длиной 3072.',
    context: 8192,
    maxCompletion: null,
    input: ['text'],
    output: ['embeddings'],
    tokenizer: 'GPT',
    pricing: { prompt: '0.00000013', completion: '0' },
    params: ['dimensions', 'encoding_format'],
  }),
]

/**
 * Voice models (protocols.md 1.14): listed by `GET /models` only under `output_modalities=speech` or
 * `transcription` (or `all`), used only by `POST /audio/speech` and `POST /audio/transcriptions`.
 * A speech model's `prompt` is its price per character; a transcription model is priced per second
 * (`prompt`) or, with `audio` and `completion` prices, per token.
 */
export const VOICE_MODELS: readonly Model[] = [
  model({
    id: 'openai/gpt-4o-mini-tts',
    name: 'OpenAI: GPT-4o mini TTS',
    created: 1742342400,
    description: 'Демо-модель озвучки: превращает текст в речь (в демо-режиме — короткий тон, длина которого зависит от текста).',
    context: 0,
    maxCompletion: null,
    input: ['text'],
    output: ['speech'],
    tokenizer: 'Other',
    pricing: { prompt: '0.000015', completion: '0' },
    params: ['voice', 'response_format', 'speed', 'instructions'],
    voices: ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'],
  }),
  model({
    id: 'openai/whisper-1',
    name: 'OpenAI: Whisper 1',
    created: 1745712000,
    description: 'Демо-модель распознавания речи с посекундной оплатой: в демо-режиме называет длительность записи.',
    context: 0,
    maxCompletion: null,
    input: ['audio'],
    output: ['transcription'],
    tokenizer: 'Other',
    pricing: { prompt: '0.0001', completion: '0' },
    params: ['language', 'temperature'],
  }),
  model({
    id: 'openai/gpt-4o-mini-transcribe',
    name: 'OpenAI: GPT-4o mini Transcribe',
    created: 1742342400,
    description: 'Демо-модель распознавания речи с оплатой за токены: в демо-режиме называет длительность записи.',
    context: 0,
    maxCompletion: null,
    input: ['audio'],
    output: ['transcription'],
    tokenizer: 'GPT',
    pricing: { prompt: '0.00000125', completion: '0.000005', audio: '0.000003' },
    params: ['language', 'temperature'],
  }),
]

export const findVoiceModel = (id: string, kind: 'speech' | 'transcription'): Model | undefined =>
  VOICE_MODELS.find((m) => (m.id === id || m.canonical_slug === id) && m.architecture.output_modalities.includes(kind))

/** Each embedding model's native vector length (the default and the most `dimensions` may ask for). */
export const EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'openai/text-embedding-3-small': 1536,
  'openai/text-embedding-3-large': 3072,
}

export const findEmbeddingModel = (id: string): Model | undefined => EMBEDDING_MODELS.find((m) => m.id === id || m.canonical_slug === id)

/** `GET /embeddings/models`: the same list shape as `/models`. */
export const listEmbeddingModels = (query: URLSearchParams): ModelList => paginate([...EMBEDDING_MODELS], query, '/api/v1/embeddings/models')

/** Router pseudo-models and where the demo routes them (the answer reports the concrete model). */
const ROUTES: Record<string, string> = { 'openrouter/auto': 'openai/gpt-4o-mini' }

const findChatModel = (id: string) => CATALOGUE.find((m) => m.id === id || m.canonical_slug === id)

/** Any model by id, embedding and voice models included (`GET /models/{id}`). */
export function findModel(id: string): Model | undefined {
  return findChatModel(id) ?? findEmbeddingModel(id) ?? VOICE_MODELS.find((m) => m.id === id)
}

/** The model that actually answers a chat request for `id` (follows router pseudo-models; never an embedding model). */
export function resolveChatModel(id: string): Model | undefined {
  const found = findChatModel(id)
  return found && ROUTES[found.id] ? findChatModel(ROUTES[found.id]!) : found
}

/** Routing variants (protocols.md 1.11): `base:VARIANT` is billed as the base model. `:free` ids are catalogue entries. */
export const ROUTING_VARIANTS = ['online', 'nitro', 'floor', 'thinking', 'exacto', 'extended'] as const
export type RoutingVariant = (typeof ROUTING_VARIANTS)[number]

/** A requested chat model id, resolved: the model that answers and bills, and the id the answer reports. */
export type ResolvedChatModel = { model: Model; reportedId: string; variant: RoutingVariant | null }

/**
 * Resolves a chat model id as the router does: a catalogue entry (`:free` ids included, router
 * pseudo-models followed), else `base:VARIANT` with a known variant and a catalogue base, which
 * answers as the base model and reports the id with its suffix.
 */
export function resolveRequestedModel(id: string): ResolvedChatModel | undefined {
  const direct = resolveChatModel(id)
  if (direct) return { model: direct, reportedId: direct.id, variant: null }
  const colon = id.lastIndexOf(':')
  if (colon <= 0) return undefined
  const variant = id.slice(colon + 1) as RoutingVariant
  if (!ROUTING_VARIANTS.includes(variant)) return undefined
  const base = resolveChatModel(id.slice(0, colon))
  return base ? { model: base, reportedId: `${base.id}:${variant}`, variant } : undefined
}

export const outputsImage = (m: Model) => m.architecture.output_modalities.includes('image')
export const outputsText = (m: Model) => m.architecture.output_modalities.includes('text')

const csv = (v: string | null) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : []

/**
 * `output_modalities` defaults to `text`, and a model that can output images only shows when the
 * filter names `image` (or is `all`), even if it outputs text too: OpenRouter's documented quirk.
 */
function matchesOutput(m: Model, wanted: string[]): boolean {
  if (wanted.includes('all')) return true
  const out: string[] = m.architecture.output_modalities
  if (out.includes('image') && !wanted.includes('image')) return false
  return out.some((o) => wanted.includes(o))
}

const LISTED: readonly Model[] = [...CATALOGUE, ...VOICE_MODELS]

const matchesAll = (have: readonly string[], wanted: string[]) => wanted.every((w) => have.includes(w))

export type ModelList = { data: Model[]; total_count: number; links: { next: string | null } }

export function listModels(query: URLSearchParams): ModelList {
  const output = csv(query.get('output_modalities'))
  const input = csv(query.get('input_modalities'))
  const params = csv(query.get('supported_parameters'))
  const filtered = LISTED.filter(
    (m) => matchesOutput(m, output.length ? output : ['text']) && matchesAll(m.architecture.input_modalities, input) && matchesAll(m.supported_parameters, params),
  )
  return paginate(filtered, query)
}

/** Pagination applies only when `offset`/`limit` are passed (limit ≤ 1000). */
function paginate(all: Model[], query: URLSearchParams, path = '/api/v1/models'): ModelList {
  const offset = Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0)
  const limitParam = query.get('limit')
  const limit = limitParam ? Math.min(1000, Math.max(1, Number.parseInt(limitParam, 10) || 500)) : all.length
  const data = all.slice(offset, offset + limit)
  let next: string | null = null
  if (offset + data.length < all.length) {
    const nextQuery = new URLSearchParams(query)
    nextQuery.set('offset', String(offset + data.length))
    nextQuery.set('limit', String(limit))
    next = `${path}?${nextQuery}`
  }
  return { data, total_count: all.length, links: { next } }
}

/** `GET /models/{author}/{slug}/endpoints`: the demo is the one provider of every model. */
export function modelEndpoints(m: Model) {
  return {
    id: m.id,
    name: m.name,
    created: m.created,
    description: m.description,
    architecture: m.architecture,
    endpoints: [
      {
        name: `Demo | ${m.id}`,
        model_name: m.name,
        context_length: m.context_length,
        pricing: m.pricing,
        provider_name: 'Demo',
        tag: 'demo',
        quantization: null,
        max_completion_tokens: m.top_provider.max_completion_tokens,
        max_prompt_tokens: null,
        supported_parameters: m.supported_parameters,
        status: 0,
        uptime_last_30m: null,
        supports_implicit_caching: false,
      },
    ],
  }
}
