// Voice in the Playground: the calls (POST /v1/audio/transcriptions with the recording, POST
// /v1/audio/speech for a text), the voice settings the customer picks (which model listens to the
// microphone, which model, voice and format speak) and the estimates before sending.
import { useCallback, useEffect, useState } from 'react'
import { formatPrice } from '../../../../src/content/format'
import { ApiError, api, authorizedFetch, parseResponse } from '../../../lib/api'
import { isSpeechModel, isTranscriptionModel, isVariablePrice, type PlaygroundModel, rubles } from '../models/models'
import type { SpeechAudio, SpeechBody, SpeechFormat } from '../types'

/** OpenAI's limit for one speech request, counted in characters (code points). */
export const MAX_SPEECH_CHARACTERS = 4096
/** OpenAI's voices: what a speech model offers when the catalogue lists none of its own. */
export const DEFAULT_VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer']
/** Formats a browser plays (pcm is raw samples: for pipelines, not a page). */
export const SPEECH_FORMATS: ReadonlyArray<{ value: SpeechFormat; label: string }> = [
  { value: 'mp3', label: 'MP3' },
  { value: 'wav', label: 'WAV' },
  { value: 'opus', label: 'Opus' },
  { value: 'aac', label: 'AAC' },
  { value: 'flac', label: 'FLAC' },
]

export const TRANSCRIBE_ERROR = 'Не удалось распознать запись'
export const SPEECH_ERROR = 'Не удалось озвучить текст'

export interface VoiceSettings {
  /** the model the microphone's recordings go to */
  transcriptionModel: string
  /** the model «Озвучить» speaks with */
  speechModel: string
  voice: string
  format: SpeechFormat
}

const STORAGE_KEY = 'playground-voice'
const EMPTY: VoiceSettings = { transcriptionModel: '', speechModel: '', voice: 'alloy', format: 'mp3' }

function stored(): VoiceSettings {
  try {
    const raw = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<VoiceSettings> | null
    return { ...EMPTY, ...(raw && typeof raw === 'object' ? raw : {}) }
  } catch {
    return EMPTY
  }
}

/** The voices of a speech model: its own list, else OpenAI's. */
export const voicesOf = (model: PlaygroundModel | undefined) => (model?.voices?.length ? model.voices : DEFAULT_VOICES)

/**
 * The customer's voice choices, kept in this browser; a model the catalogue no longer has (or none
 * chosen yet) falls back to the first one it lists, a voice the model lacks to its first voice.
 * `speaking`: the model that speaks whatever was chosen (the Playground's own, in the speech mode).
 */
export function useVoiceSettings(models: PlaygroundModel[], speaking?: PlaygroundModel) {
  const [chosen, setChosen] = useState<VoiceSettings>(stored)
  const listeners = models.filter(isTranscriptionModel)
  const speakers = models.filter(isSpeechModel)
  const transcription = listeners.find((m) => m.id === chosen.transcriptionModel) ?? listeners[0]
  const speech = speaking ?? speakers.find((m) => m.id === chosen.speechModel) ?? speakers[0]
  const voices = voicesOf(speech)
  const settings: VoiceSettings = {
    transcriptionModel: transcription?.id ?? '',
    speechModel: speech?.id ?? '',
    voice: voices.includes(chosen.voice) ? chosen.voice : voices[0]!,
    format: SPEECH_FORMATS.some((f) => f.value === chosen.format) ? chosen.format : 'mp3',
  }
  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(chosen))
    } catch {}
  }, [chosen])
  const update = useCallback((patch: Partial<VoiceSettings>) => setChosen((s) => ({ ...s, ...patch })), [])
  return { settings, update, listeners, speakers, transcription, speech }
}

/** Text to voice: a reply without its markdown marks, within the speech limit. */
export function speechText(markdown: string): string {
  const plain = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/gm, '')
    .replace(/(\*\*|__|\*|_|~~)(\S[\s\S]*?\S|\S)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim()
  const chars = [...plain]
  return chars.length > MAX_SPEECH_CHARACTERS ? chars.slice(0, MAX_SPEECH_CHARACTERS).join('') : plain
}

/** «до 0,0018 ₽» for voicing `text` with `model`, from its catalogue price per character. */
export function speechCostHint(model: PlaygroundModel | undefined, text: string): string {
  if (!model) return ''
  const price = model.pricing.character ?? model.pricing.prompt
  if (isVariablePrice(price)) return 'цена зависит от запроса'
  const perChar = rubles(price)
  if (perChar === null) return ''
  if (perChar === 0) return 'бесплатно'
  return `до ${formatPrice(perChar * [...text].length + (rubles(model.pricing.request) ?? 0))}`
}

const EXTENSIONS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/aac': 'aac',
  'audio/flac': 'flac',
  'audio/webm': 'webm',
  'audio/mp4': 'm4a',
  'audio/pcm': 'pcm',
}

/** The file extension of an audio MIME type (parameters ignored). */
export const audioExtension = (type: string) => EXTENSIONS[type.split(';')[0]!.trim().toLowerCase()] ?? 'bin'

/** POST /v1/audio/speech: the audio as an object URL (the caller revokes it when done). */
export async function speak(body: SpeechBody, signal?: AbortSignal): Promise<SpeechAudio> {
  const res = await authorizedFetch('/v1/audio/speech', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal })
  if (!res.ok) await parseResponse(res, SPEECH_ERROR)
  const blob = await res.blob()
  if (blob.size === 0) throw new ApiError(502, SPEECH_ERROR)
  const type = res.headers.get('content-type') ?? blob.type
  return { url: URL.createObjectURL(blob), type, name: `speech.${audioExtension(type)}`, size: blob.size }
}

export interface Transcript {
  text: string
  /** what it cost, rubles as the server wrote it */
  costRub?: string
}

/** POST /v1/audio/transcriptions with the recording, as OpenAI's SDKs send it (multipart). */
export async function transcribe(recording: Blob, filename: string, model: string, signal?: AbortSignal): Promise<Transcript> {
  const form = new FormData()
  form.append('file', recording, filename)
  form.append('model', model)
  const result = await api.post<{ text?: string; usage?: { cost_rub?: string } }>('/v1/audio/transcriptions', form, { signal, fallback: TRANSCRIBE_ERROR })
  return { text: typeof result?.text === 'string' ? result.text.trim() : '', costRub: result?.usage?.cost_rub }
}
