// `POST /embeddings` (protocols.md 1.12): deterministic vectors from a hash of each input, billed
// like the router bills embeddings, with the same generation record as every other answer.
//
//   tokens  = Σ over inputs: ceil(code points / 4) for a string, the array's length for a token array
//   cost    = tokens × pricing.prompt (computeCost, exact BigInt femto-dollars; 10× under `overbill`)
//   vectors = per model and input: SHA-256(model id, input) seeds a PRNG that draws the native-size
//             vector; `dimensions` keeps its first N values; the result is scaled to unit length and
//             rounded to float32, so `float` and `base64` (little-endian float32) carry the same numbers
//             and the same text always gets the same vector.
// Faults (`[[fault:NAME]]` in any input string, or failNext): http*/credits402 answer the HTTP error,
// `timeout` never answers (recorded as cancelled once the client goes), `nocost` drops usage.cost,
// `overbill` reports 10× the cost.
import { EMBEDDING_DIMENSIONS, findEmbeddingModel, type Model } from './catalogue'
import { type RequestContext, requestFaults } from './chat'
import { type Fault, httpFaultResponse, OVERBILL_FACTOR } from './faults'
import { computeCost, femtoToUsd } from './pricing'
import { type DemoState, generationStats } from './state'
import { generationId, json, openRouterError, untilAborted } from './wire'

/** One input: a text, or an array of token ids. */
type EmbeddingInput = string | number[]

type EmbeddingsRequest = {
  model: Model
  inputs: EmbeddingInput[]
  base64: boolean
  dimensions: number
  user: string | null
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const invalid = (message: string) => openRouterError(400, message, { error_type: 'invalid_request' })
const isTokenArray = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === 'number' && Number.isInteger(t) && t >= 0)

/** string | string[] | number[] (one token array) | number[][]; nothing empty. */
function parseInputs(raw: unknown): EmbeddingInput[] | Response {
  const bad = invalid('input must be a non-empty string, an array of non-empty strings, or token arrays')
  if (typeof raw === 'string') return raw ? [raw] : bad
  if (!Array.isArray(raw) || raw.length === 0) return bad
  if (raw.every((s) => typeof s === 'string')) return raw.every((s) => s !== '') ? (raw as string[]) : bad
  if (isTokenArray(raw)) return [raw]
  return raw.every(isTokenArray) ? (raw as number[][]) : bad
}

function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest | Response {
  if (!isObject(body)) return invalid('Request body must be a JSON object')
  if (typeof body.model !== 'string' || !body.model) return invalid('model is required')
  const model = findEmbeddingModel(body.model)
  if (!model) return invalid(`${body.model} is not an embeddings model`)
  const inputs = parseInputs(body.input)
  if (inputs instanceof Response) return inputs
  const format = body.encoding_format ?? 'float'
  if (format !== 'float' && format !== 'base64') return invalid('encoding_format must be "float" or "base64"')
  const native = EMBEDDING_DIMENSIONS[model.id]!
  const dims = body.dimensions ?? native
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > native) {
    return invalid(`dimensions must be an integer from 1 to ${native} for ${model.id}`)
  }
  return { model, inputs, base64: format === 'base64', dimensions: dims, user: typeof body.user === 'string' ? body.user : null }
}

export const embeddingTokens = (input: EmbeddingInput) => (typeof input === 'string' ? Math.ceil([...input].length / 4) : input.length)

/** sfc32 seeded from SHA-256(model id NUL kind:input): uniform draws in [-1, 1). */
function generator(modelId: string, input: EmbeddingInput): () => number {
  const key = typeof input === 'string' ? `text:${input}` : `tokens:${input.join(',')}`
  const digest = new Bun.CryptoHasher('sha256').update(`${modelId}\0${key}`).digest()
  const seed = new DataView(digest.buffer, digest.byteOffset, digest.byteLength)
  let [a, b, c, d] = [0, 4, 8, 12].map((o) => seed.getUint32(o, true)) as [number, number, number, number]
  return () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return (t >>> 0) / 2 ** 31 - 1
  }
}

/** The unit-length float32 vector of `input` (see the header). */
export function embeddingVector(modelId: string, input: EmbeddingInput, dimensions: number): Float32Array {
  const next = generator(modelId, input)
  const raw = Array.from({ length: dimensions }, next)
  const norm = Math.hypot(...raw) || 1
  return Float32Array.from(raw, (v) => v / norm)
}

/** Little-endian float32 bytes, base64-encoded (what the OpenAI SDK decodes). */
export function float32Base64(vector: Float32Array): string {
  const bytes = new DataView(new ArrayBuffer(vector.length * 4))
  for (const [i, v] of vector.entries()) bytes.setFloat32(i * 4, v, true)
  return Buffer.from(bytes.buffer).toString('base64')
}

function record(state: DemoState, req: EmbeddingsRequest, id: string, startedAt: number, tokens: number, costFemto: bigint, cancelled: boolean) {
  const stats = generationStats({
    id,
    model: req.model.id,
    startedAt,
    firstTokenAt: null,
    costFemto,
    promptTokens: tokens,
    completionTokens: 0,
    finishReason: cancelled ? null : 'stop',
    streamed: false,
    cancelled,
    apiType: 'embeddings',
    user: req.user,
  })
  state.recordGeneration(stats, costFemto)
}

export async function handleEmbeddings(body: unknown, state: DemoState, ctx: RequestContext): Promise<Response> {
  const req = parseEmbeddingsRequest(body)
  if (req instanceof Response) return req
  const texts = req.inputs.filter((i): i is string => typeof i === 'string')
  const faults: Set<Fault> = requestFaults(texts, body as Record<string, unknown>, state)
  const refused = httpFaultResponse(faults)
  if (refused) return refused
  const id = generationId()
  const startedAt = Date.now()
  const tokens = req.inputs.reduce((n, i) => n + embeddingTokens(i), 0)
  const cost = computeCost(req.model.pricing, { promptTokens: tokens, completionTokens: 0, outputImages: 0 }).total
  const reported = faults.has('overbill') ? cost * OVERBILL_FACTOR : cost
  if (faults.has('timeout')) {
    // As with chat, the prompt was read: a request cancelled while waiting still bills its tokens.
    await untilAborted(ctx.signal)
    record(state, req, id, startedAt, tokens, reported, true)
    return new Response(null, { status: 499 })
  }
  const data = req.inputs.map((input, index) => {
    const vector = embeddingVector(req.model.id, input, req.dimensions)
    return { object: 'embedding', embedding: req.base64 ? float32Base64(vector) : Array.from(vector), index }
  })
  const usage = faults.has('nocost') ? { prompt_tokens: tokens, total_tokens: tokens } : { prompt_tokens: tokens, total_tokens: tokens, cost: femtoToUsd(reported) }
  record(state, req, id, startedAt, tokens, reported, false)
  return json({ id, object: 'list', data, model: req.model.id, usage }, 200, { 'X-Generation-Id': id })
}
