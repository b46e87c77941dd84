// `POST /audio/speech` and `POST /audio/transcriptions` (protocols.md 1.14), answered locally:
//
//   speech         a soft tone whose length follows the text (60 ms a character, 0.4–30 s, ÷ speed),
//                  as WAV (`audio/wav`; the demo makes no MP3) or, for `pcm`, raw 16-bit samples
//                  (`audio/pcm;rate=24000;channels=1`), streamed in chunks; `X-Generation-Id:
//                  gen-tts-…`; no usage in the body: cost = characters × pricing.prompt + request,
//                  published to GET /generation when the last byte is out.
//   transcription  the router's JSON (base64 `input_audio`), never multipart: billed on what a
//                  decoder plays — the duration measured from the audio's frames, samples or packets
//                  (lib/audio-duration.ts), never a header's claim — and the transcript names it; over
//                  10 hours is refused; usage {seconds, cost} for a per-second model (billed to the
//                  whole second), {input_tokens (10 a second), output_tokens, total_tokens, cost} for
//                  a token-priced one.
// Faults: `[[fault:NAME]]` in the speech input (or failNext for either): http*/credits402 answer the
// HTTP error; `nostats` never publishes the generation; `break` cuts the audio after its first chunk;
// `slow` paces the chunks 200 ms apart; `nocost` (transcription) drops usage.cost.
import { AUDIO_FORMATS, type AudioFormat, audioInfo, MAX_AUDIO_SECONDS } from '../../lib/audio-duration'
import { toneSamples, wavFile } from '../../lib/wav'
import { findVoiceModel, type Model } from './catalogue'
import { type RequestContext, requestFaults } from './chat'
import { type Fault, httpFaultResponse, SLOW_TOKEN_DELAY_MS } from './faults'
import { computeCost, femtoToUsd, toFemto } from './pricing'
import { type DemoState, generationStats } from './state'
import { generationId, json, openRouterError, sleep } from './wire'

const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const
const SAMPLE_RATE = 24_000
const CHUNK_BYTES = 16 * 1024
/** The longest input OpenAI's speech endpoint takes. */
export const MAX_SPEECH_INPUT = 4096

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const invalid = (message: string) => openRouterError(400, message, { error_type: 'invalid_request' })

/** Seconds of tone for a text: it grows with the text, within bounds. */
export const speechSeconds = (characters: number, speed = 1) => Math.min(30, Math.max(0.4, characters * 0.06)) / speed

function record(
  state: DemoState,
  f: {
    id: string
    model: Model
    startedAt: number
    costFemto: bigint
    prompt: number
    completion: number
    apiType: 'speech' | 'transcription'
    cancelled: boolean
    user: string | null
  },
) {
  state.recordGeneration(
    generationStats({
      id: f.id,
      model: f.model.id,
      startedAt: f.startedAt,
      firstTokenAt: f.startedAt,
      costFemto: f.costFemto,
      promptTokens: f.prompt,
      completionTokens: f.completion,
      finishReason: f.cancelled ? null : 'stop',
      streamed: f.apiType === 'speech',
      cancelled: f.cancelled,
      apiType: f.apiType,
      user: f.user,
    }),
    f.costFemto,
  )
}

const userOf = (body: Record<string, unknown>) => (typeof body.user === 'string' ? body.user : null)

export function handleSpeech(body: unknown, state: DemoState, ctx: RequestContext): Response {
  if (!isObject(body)) return invalid('Request body must be a JSON object')
  if (typeof body.model !== 'string' || !body.model) return invalid('model is required')
  const model = findVoiceModel(body.model, 'speech')
  if (!model) return invalid(`${body.model} is not a text-to-speech model`)
  if (typeof body.input !== 'string' || !body.input.trim()) return invalid('input must be a non-empty string')
  const characters = [...body.input].length
  if (characters > MAX_SPEECH_INPUT) return invalid(`input must be at most ${MAX_SPEECH_INPUT} characters`)
  const format = body.response_format ?? 'pcm'
  if (!SPEECH_FORMATS.includes(format as (typeof SPEECH_FORMATS)[number])) return invalid(`response_format must be one of ${SPEECH_FORMATS.join(', ')}`)
  const speed = body.speed ?? 1
  if (typeof speed !== 'number' || !(speed >= 0.25 && speed <= 4)) return invalid('speed must be a number from 0.25 to 4')
  const faults: Set<Fault> = requestFaults([body.input], body, state)
  const refused = httpFaultResponse(faults)
  if (refused) return refused

  const samples = toneSamples(speechSeconds(characters, speed), SAMPLE_RATE, 330 + (characters % 7) * 40, true)
  const audio = format === 'pcm' ? new Uint8Array(samples.buffer) : wavFile(samples, SAMPLE_RATE)
  const id = `gen-tts-${generationId().slice(4)}`
  const startedAt = Date.now()
  const costFemto = computeCost(model.pricing, { promptTokens: characters, completionTokens: 0, outputImages: 0 }).total
  const delay = faults.has('slow') ? SLOW_TOKEN_DELAY_MS : state.opts.tokenDelayMs
  let sent = 0
  let closed = false
  const finish = (cancelled: boolean) => {
    if (closed) return
    closed = true
    ctx.markFinished()
    if (!faults.has('nostats')) record(state, { id, model, startedAt, costFemto, prompt: characters, completion: 0, apiType: 'speech', cancelled, user: userOf(body) })
  }
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent > 0) await sleep(delay, ctx.signal)
      if (ctx.signal.aborted) {
        finish(true)
        return controller.error(new Error('client went away'))
      }
      if (faults.has('break') && sent > 0) {
        closed = true
        ctx.markFinished()
        return controller.error(new Error('connection reset'))
      }
      const chunk = audio.subarray(sent, sent + CHUNK_BYTES)
      sent += chunk.length
      controller.enqueue(chunk)
      if (sent >= audio.length) {
        finish(false)
        controller.close()
      }
    },
    cancel: () => finish(true),
  })
  return new Response(stream, {
    headers: {
      'Content-Type': format === 'pcm' ? `audio/pcm;rate=${SAMPLE_RATE};channels=1` : 'audio/wav',
      'X-Generation-Id': id,
    },
  })
}

/** "3,2" (ru) or "3.2" (other languages): one decimal, no trailing ",0". */
const seconds1 = (s: number, ru: boolean) => {
  const text = String(Math.round(s * 10) / 10)
  return ru ? text.replace('.', ',') : text
}

export async function handleTranscription(body: unknown, state: DemoState): Promise<Response> {
  if (!isObject(body)) return invalid('Request body must be a JSON object with input_audio (multipart is not accepted here)')
  if (typeof body.model !== 'string' || !body.model) return invalid('model is required')
  const model = findVoiceModel(body.model, 'transcription')
  if (!model) return invalid(`${body.model} is not a speech-to-text model`)
  const audio = body.input_audio
  if (!isObject(audio) || typeof audio.data !== 'string' || !audio.data) return invalid('input_audio.data (base64 audio) is required')
  if (audio.data.startsWith('data:')) return invalid('input_audio.data must be raw base64, not a data: URI')
  if (!AUDIO_FORMATS.includes(audio.format as AudioFormat)) return invalid(`input_audio.format must be one of ${AUDIO_FORMATS.join(', ')}`)
  const faults: Set<Fault> = requestFaults([], body, state)
  const refused = httpFaultResponse(faults)
  if (refused) return refused
  const info = await audioInfo(Buffer.from(audio.data, 'base64'), audio.format as AudioFormat)
  if (!info) return invalid('Could not decode the audio: unsupported or corrupt file')
  if (info.seconds > MAX_AUDIO_SECONDS) return invalid(`Audio longer than ${MAX_AUDIO_SECONDS / 3600} hours`)

  const ru = typeof body.language !== 'string' || body.language === '' || body.language.toLowerCase().startsWith('ru')
  const text = ru
    ? `Демо-расшифровка: запись длительностью ${seconds1(info.seconds, true)} с. Подключите ключ маршрутизатора, чтобы распознавать настоящую речь.`
    : `Demo transcript: a recording of ${seconds1(info.seconds, false)} s. Connect a router key to transcribe real speech.`
  const tokenPriced = toFemto(model.pricing.audio ?? '0') > 0n || toFemto(model.pricing.completion) > 0n
  const id = generationId()
  const startedAt = Date.now()
  let costFemto: bigint
  let usage: Record<string, number>
  let prompt: number
  let completion = 0
  if (tokenPriced) {
    prompt = Math.ceil(info.seconds * 10)
    completion = Math.ceil([...text].length / 4)
    costFemto = BigInt(prompt) * toFemto(model.pricing.audio ?? model.pricing.prompt) + BigInt(completion) * toFemto(model.pricing.completion) + toFemto(model.pricing.request)
    usage = { input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion }
  } else {
    prompt = Math.ceil(info.seconds)
    costFemto = computeCost(model.pricing, { promptTokens: prompt, completionTokens: 0, outputImages: 0 }).total
    usage = { seconds: Math.round(info.seconds * 100) / 100 }
  }
  if (!faults.has('nocost')) usage.cost = femtoToUsd(costFemto)
  if (!faults.has('nostats')) record(state, { id, model, startedAt, costFemto, prompt, completion, apiType: 'transcription', cancelled: false, user: userOf(body) })
  return json({ text, usage }, 200, { 'X-Generation-Id': id })
}
