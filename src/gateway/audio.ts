// Voice on the gateway's pipeline (pipeline.ts: prepare → hold, send, settle/release): POST
// /v1/audio/speech (text to speech) and POST /v1/audio/transcriptions (speech to text), protocols.md 1.14.
//
// Speech is held from the input's characters at the model's price per character, forwarded in
// OpenAI's shape, and its audio relayed to the caller as it arrives with the router's Content-Type.
// The router reports no usage in an audio stream: the charge is the cost its /generation lookup of
// X-Generation-Id reports (retried briefly: the stats lag behind), else the catalogue price × the
// characters sent — and the usage row says so.
//
// A transcription comes as OpenAI's multipart (`file`, what the SDKs send) or as the router's JSON
// (`input_audio: {data, format}`), is forwarded as the router's JSON and answered in the format asked
// for (json, text, srt, verbose_json, vtt). It is held from the recording's duration, measured from
// the audio data itself — frames, samples, packets; never a header's claim, which the sender writes
// (lib/audio-duration.ts) — at the model's price per second — or, for a model priced per token, a
// generous estimate of a second's tokens — and settled from the reported usage.cost.
import { transcriptionSecondUsd } from '../catalog/pricing'
import type { ModelRow } from '../catalog/schema'
import { isSpeech, isTranscription } from '../catalog/service'
import { type AudioFormat, audioInfo, formatHint, MAX_AUDIO_SECONDS } from '../lib/audio-duration'
import { MB } from '../lib/body'
import { OpenAIError } from '../lib/errors'
import { formatMicros, microsToRub } from '../lib/money'
import type { Caller } from './callers'
import { fromFetchFailure, upstreamFailed } from './errors'
import type { Pipeline } from './pipeline'
import { generationRecord } from './reconcile'
import type { ChatShape } from './shape'
import type { GatewayDeps, Prepared } from './types'
import { endUserId } from './upstream-body'

/** OpenAI's limit for one uploaded recording (the router's too). */
export const MAX_AUDIO_BYTES = 25 * MB
/** OpenAI's limit for the text of one speech request. */
export const MAX_SPEECH_CHARACTERS = 4096
export const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const
export type TranscriptionFormat = (typeof TRANSCRIPTION_FORMATS)[number]
export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const

/** The router publishes a generation's stats a moment after its last byte: asked at once, then with backoff. */
const GENERATION_WAITS_MS = [0, 250, 750, 1500, 3000]

export type SpeechBody = {
  model: string
  input: string
  voice?: string | { id?: string }
  response_format?: (typeof SPEECH_FORMATS)[number]
  speed?: number
  instructions?: string
  stream_format?: string
  [k: string]: unknown
}

export type TranscriptionBody = {
  model: string
  /** Multipart: the recording. */
  file?: unknown
  /** The router's JSON: the recording in base64. */
  input_audio?: { data: string; format?: string }
  language?: string
  prompt?: string
  response_format?: TranscriptionFormat
  temperature?: number | string
  [k: string]: unknown
}

const invalid = (message: string, param: string | null = null, code = 'invalid_request') => new OpenAIError(400, message, 'invalid_request_error', code, { param })

/** The voice model a request names, of the kind its route serves. */
function voiceModel(get: (id: string) => ModelRow | undefined, id: string, kind: 'speech' | 'transcription'): ModelRow {
  const model = get(id)
  if (!model) throw new OpenAIError(404, `Модель ${id} не найдена в каталоге`, 'invalid_request_error', 'model_not_found', { param: 'model' })
  if (kind === 'speech' && !isSpeech(model))
    throw invalid(`Модель ${id} не озвучивает текст: выберите модель с типом «Озвучка» (type: speech) в /v1/models`, 'model', 'model_not_speech')
  if (kind === 'transcription' && !isTranscription(model))
    throw invalid(`Модель ${id} не распознаёт речь: выберите модель с типом «Распознавание речи» (type: transcription) в /v1/models`, 'model', 'model_not_transcription')
  return model
}

/**
 * The model as the hold prices a voice request: every unit (a character, a second) at one price, and
 * nothing per completion token — so the same planHold bounds it, and with no reported cost the
 * charge is that price × the units (charge.ts chargeFor).
 */
const perUnit = (m: ModelRow, unitUsd: string): ModelRow => ({
  ...m,
  promptUsd: unitUsd,
  completionUsd: '0',
  imageUsd: '0',
  imageOutputUsd: '0',
  webSearchUsd: '0',
  reasoningUsd: '0',
  audioUsd: '0',
  cacheWriteUsd: '0',
  contextLength: 0,
  maxCompletionTokens: 0,
})

function unitShape(model: ModelRow, unitUsd: string, units: number): ChatShape {
  return {
    modelId: model.id,
    patch: {},
    shape: {
      candidates: [{ model: perUnit(model, unitUsd), variant: null }],
      prompt: { tokens: units, images: 0, audioTokens: 0 },
      promptUncapped: true,
      choices: 1,
      wantsImages: false,
      webResults: 0,
      requestedTokens: undefined,
      // protocols.md 1.13 names chat, Responses and Messages for provider.max_price, not the audio routes.
      canCapPrice: false,
    },
  }
}

/** Characters as the router counts them for the price: code points, not UTF-16 units. */
export const characterCount = (text: string) => [...text].length

/** What a speech request holds: its characters at the model's price per character (plus its request price). */
export function speechShape(body: { model: string; input: string }, get: (id: string) => ModelRow | undefined): ChatShape & { characters: number } {
  const model = voiceModel(get, body.model, 'speech')
  const characters = characterCount(body.input)
  if (characters === 0 || !body.input.trim()) throw invalid('Укажите input — текст, который нужно озвучить', 'input')
  if (characters > MAX_SPEECH_CHARACTERS) throw invalid(`input длиннее ${MAX_SPEECH_CHARACTERS} символов: разбейте текст на части`, 'input')
  return { ...unitShape(model, model.promptUsd, characters), characters }
}

/** What a transcription holds: the recording's seconds (whole, rounded up) at the model's price per second. */
export function transcriptionShape(modelId: string, seconds: number, get: (id: string) => ModelRow | undefined): ChatShape {
  const model = voiceModel(get, modelId, 'transcription')
  return unitShape(model, transcriptionSecondUsd(model), Math.ceil(seconds))
}

// ─── transcription answers ───────────────────────────────────────────────────

type Segment = { start: number; end: number; text: string }

/** The router's segments when it sent any, else one segment of the whole recording. */
function segmentsOf(json: Record<string, unknown>, text: string, seconds: number): Segment[] {
  const raw = json.segments
  if (Array.isArray(raw)) {
    const segments = raw
      .filter((s): s is Segment => typeof s?.start === 'number' && typeof s?.end === 'number' && typeof s?.text === 'string')
      .map((s) => ({ start: s.start, end: s.end, text: s.text.trim() }))
    if (segments.length > 0) return segments
  }
  return [{ start: 0, end: seconds, text: text.trim() }]
}

/** 3723.5 → '01:02:03,500' (SRT) or '01:02:03.500' (WebVTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000))
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`
}

export const toSrt = (segments: Segment[]) => segments.map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${s.text}\n`).join('\n')

export const toVtt = (segments: Segment[]) => `WEBVTT\n\n${segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${s.text}\n`).join('\n')}`

/** The recording: the multipart `file`, or the JSON's base64 `input_audio`, within 25 MB. */
async function recording(body: TranscriptionBody): Promise<{ bytes: Uint8Array; hint?: AudioFormat }> {
  const tooLarge = () =>
    new OpenAIError(413, 'Файл записи больше 25 МБ: сожмите его (MP3, OGG/Opus) или разрежьте на части', 'invalid_request_error', 'request_too_large', {
      param: 'file',
    })
  if (body.file instanceof Blob) {
    if (body.file.size > MAX_AUDIO_BYTES) throw tooLarge()
    const name = body.file instanceof File ? body.file.name : undefined
    return { bytes: new Uint8Array(await body.file.arrayBuffer()), hint: formatHint(name, body.file.type) }
  }
  if (body.file !== undefined) throw invalid('file должен быть файлом записи (multipart/form-data)', 'file')
  const audio = body.input_audio
  if (audio && typeof audio.data === 'string' && audio.data) {
    // A data: URL is accepted too (the router itself wants bare base64).
    const comma = audio.data.startsWith('data:') ? audio.data.indexOf(',') + 1 : 0
    const base64 = comma ? audio.data.slice(comma) : audio.data
    if (Math.floor((base64.length * 3) / 4) > MAX_AUDIO_BYTES + 2) throw tooLarge()
    const hint = formatHint(`.${audio.format ?? ''}`, comma ? audio.data.slice(5, comma - 1) : undefined)
    return { bytes: Buffer.from(base64, 'base64'), hint }
  }
  throw invalid('Передайте запись: файл в поле file (multipart/form-data) или input_audio: {data: <base64>, format} (JSON)', 'file')
}

function temperatureOf(raw: TranscriptionBody['temperature']): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const n = typeof raw === 'number' ? raw : Number(raw)
  if (!Number.isFinite(n) || n < 0 || n > 1) throw invalid('temperature должен быть числом от 0 до 1', 'temperature')
  return n
}

type RouterTranscript = {
  text?: unknown
  error?: { message?: string }
  language?: unknown
  segments?: unknown
  usage?: { cost?: unknown; seconds?: unknown; input_tokens?: unknown; output_tokens?: unknown; total_tokens?: unknown }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined)

export function audioService(deps: GatewayDeps, pipe: Pipeline) {
  const get = deps.catalog.get

  /** The generation's reported cost in USD, asked until the router has published it; undefined if it never does. */
  async function reportedCost(p: Prepared, id: string | null): Promise<number | undefined> {
    const router = pipe.answeredBy(p)
    if (!id || !router) return undefined
    // The router that answered: the second one while the first is down.
    const stats = await generationRecord(router, id, GENERATION_WAITS_MS, (s) => Number.isFinite(s.totalCost) && s.totalCost >= 0)
    return stats?.totalCost
  }

  /** Settles a speech request from its generation's cost, else at the catalogue price × the characters (and says so). */
  async function settleSpeech(p: Prepared, id: string | null, characters: number, status: 'success' | 'cancelled') {
    const cost = await reportedCost(p, id)
    const extra = { characters, promptTokens: 0, completionTokens: 0, totalTokens: 0 }
    if (cost !== undefined) return pipe.settle(p, { cost }, id, status, 0, undefined, extra)
    console.warn(`[billing] speech ${id ?? '(no generation id)'}: no reported cost; charged at the catalogue price × ${characters} characters`)
    return pipe.settle(p, undefined, id, status, 0, undefined, {
      ...extra,
      error: `Стоимость у провайдера не получена: списано по цене каталога за ${characters} символов`,
    })
  }

  return {
    async speech(caller: Caller, body: SpeechBody, clientSignal: AbortSignal): Promise<Response> {
      if (body.stream_format !== undefined && body.stream_format !== 'audio')
        throw invalid('stream_format: поддерживается только audio — звук приходит потоком байтов по мере синтеза', 'stream_format')
      const voice = typeof body.voice === 'object' && body.voice !== null ? body.voice.id : body.voice
      const shape = speechShape(body, get)
      const p = await pipe.prepare(caller, shape, { endpoint: 'speech', stream: true })
      const { stream_format: _sf, ...rest } = body
      const out: Record<string, unknown> = { ...rest, ...(voice !== undefined ? { voice } : {}), user: endUserId(caller.userId) }
      const { res, ac, done } = await pipe.send(p, { path: '/audio/speech' }, out, clientSignal)
      done() // from here on the relay's idle watch applies
      const id = res.headers.get('x-generation-id')
      const type = res.headers.get('content-type') ?? 'application/octet-stream'
      if (!res.body || type.includes('json') || type.startsWith('text/')) {
        // Audio endpoints answer errors as JSON; a 200 that is not audio is one too.
        const text = await res.text().catch(() => '')
        let message = 'провайдер не прислал звук'
        try {
          message = JSON.parse(text)?.error?.message ?? message
        } catch {}
        await pipe.release(p, message, id, 'error', { characters: shape.characters })
        throw upstreamFailed(message)
      }

      const reader = res.body.getReader()
      let finished = false
      let idle: ReturnType<typeof setTimeout> | undefined
      const watch = () => {
        clearTimeout(idle)
        idle = setTimeout(() => ac.abort(), deps.config.upstreamTimeoutMs)
      }
      const end = (how: 'success' | 'cancelled' | { error: string }) => {
        if (finished) return
        finished = true
        clearTimeout(idle)
        if (typeof how === 'object') void pipe.release(p, how.error, id, 'error', { characters: shape.characters })
        else void settleSpeech(p, id, shape.characters, how).catch((e) => console.error(`[billing] speech ${id}: settlement failed: ${(e as Error).message}`))
      }
      watch()
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done: over, value } = await reader.read()
            if (over) {
              controller.close()
              return end('success')
            }
            watch()
            controller.enqueue(value)
          } catch (e) {
            if (clientSignal.aborted) return end('cancelled')
            end({ error: `Звук оборвался: ${(e as Error)?.message ?? 'read failed'}` })
            controller.error(new Error('Соединение с провайдером модели прервано.'))
          }
        },
        cancel() {
          // The caller went away: stop the router and pay what it reports for what it made.
          ac.abort()
          end('cancelled')
        },
      })
      const headers: Record<string, string> = { 'content-type': type, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }
      if (id) headers['x-generation-id'] = id
      return new Response(stream, { headers })
    },

    async transcription(caller: Caller, body: TranscriptionBody, clientSignal: AbortSignal): Promise<Response> {
      const format: TranscriptionFormat = body.response_format ?? 'json'
      const temperature = temperatureOf(body.temperature)
      voiceModel(get, body.model, 'transcription') // a wrong model is told before the file is read
      const audio = await recording(body)
      const info = await audioInfo(audio.bytes, audio.hint)
      if (!info)
        throw invalid(
          'Не удалось определить длительность записи: файл повреждён или это не аудио. Поддерживаются WAV, MP3, OGG/Opus, WebM, M4A, FLAC и AAC.',
          'file',
          'invalid_audio',
        )
      if (info.seconds > MAX_AUDIO_SECONDS)
        throw invalid(`Запись длиннее ${MAX_AUDIO_SECONDS / 3600} часов (по её данным — ${Math.ceil(info.seconds / 60)} мин): разрежьте её на части`, 'file', 'audio_too_long')
      const p = await pipe.prepare(caller, transcriptionShape(body.model, info.seconds, get), { endpoint: 'transcription', stream: false })
      const out: Record<string, unknown> = {
        model: body.model,
        input_audio: { data: Buffer.from(audio.bytes).toString('base64'), format: info.format },
        user: endUserId(caller.userId),
      }
      if (typeof body.language === 'string' && body.language) out.language = body.language
      if (temperature !== undefined) out.temperature = temperature
      if (body.provider !== undefined) out.provider = body.provider
      const { res, done, timedOut } = await pipe.send(p, { path: '/audio/transcriptions' }, out, clientSignal)
      const id = res.headers.get('x-generation-id')
      let json: RouterTranscript
      try {
        json = (await res.json()) as RouterTranscript
      } catch (e) {
        await pipe.release(p, (e as Error).message, id, clientSignal.aborted ? 'cancelled' : 'error')
        throw fromFetchFailure(e, timedOut())
      } finally {
        done()
      }
      if (typeof json?.text !== 'string' || json.error) {
        const message = json?.error?.message ?? 'ответ без text'
        await pipe.release(p, message, id)
        throw upstreamFailed(message)
      }

      const usage = json.usage ?? {}
      const cost = num(usage.cost)
      const seconds = num(usage.seconds) || info.seconds
      const billedSeconds = Math.ceil(seconds)
      const inputTokens = num(usage.input_tokens)
      const outputTokens = num(usage.output_tokens)
      const tokens = inputTokens !== undefined || outputTokens !== undefined
      const charged = await pipe.settle(p, cost !== undefined ? { cost } : { prompt_tokens: billedSeconds }, id, 'success', 0, undefined, {
        audioSeconds: billedSeconds,
        promptTokens: inputTokens ?? 0,
        completionTokens: outputTokens ?? 0,
        totalTokens: num(usage.total_tokens) ?? (inputTokens ?? 0) + (outputTokens ?? 0),
        error: cost === undefined ? `Стоимость у провайдера не получена: списано по цене каталога за ${billedSeconds} с записи` : null,
      })

      const text = json.text
      const headers: Record<string, string> = id ? { 'x-generation-id': id } : {}
      const plain = (body: string, type: string) => new Response(body, { headers: { ...headers, 'content-type': `${type}; charset=utf-8` } })
      const answer = (value: object) => plain(JSON.stringify(value), 'application/json')
      if (format === 'text') return plain(text, 'text/plain')
      const segments = segmentsOf(json as Record<string, unknown>, text, seconds)
      if (format === 'srt') return plain(toSrt(segments), 'text/plain')
      if (format === 'vtt') return plain(toVtt(segments), 'text/vtt')
      const billed = {
        ...(tokens
          ? { type: 'tokens', input_tokens: inputTokens ?? 0, output_tokens: outputTokens ?? 0, total_tokens: (inputTokens ?? 0) + (outputTokens ?? 0) }
          : { type: 'duration', seconds: billedSeconds }),
        cost: microsToRub(charged),
        cost_rub: formatMicros(charged),
      }
      if (format === 'json') return answer({ text, usage: billed })
      return answer({
        task: 'transcribe',
        language: typeof json.language === 'string' ? json.language : (body.language ?? null),
        duration: Math.round(seconds * 1000) / 1000,
        text,
        segments: segments.map((s, i) => ({ id: i, seek: 0, start: s.start, end: s.end, text: s.text, tokens: [], temperature: temperature ?? 0 })),
        usage: billed,
      })
    },
  }
}

export type AudioService = ReturnType<typeof audioService>
