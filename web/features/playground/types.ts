// The shapes the Playground's rooms pass to each other: a message as the screen shows it, what the
// composer holds, the settings, and the /v1 bodies (request-body.ts builds them, stream.ts and the
// estimate send them). Types only, importing nothing of the Playground, so no room depends on
// another just to name what it is handed.
import type { Upload } from '../../../src/wire'

/** A file the server has accepted (POST /api/upload; the wire type, src/uploads/model.ts). */
export type UploadedFile = Upload

/** The free-form `metadata` of a message (the server keeps any object up to 4 KB) as the Playground writes it. */
export interface MessageMetadata {
  model?: string
  costRub?: string
  totalTokens?: number
  stopped?: boolean
  size?: string
  quality?: string
  quantity?: number
  /** voiced replies: the voice and the format */
  voice?: string
  format?: string
  /** how long the reply took from sending to its last token, and to its first one (ms) */
  elapsedMs?: number
  firstTokenMs?: number
}

/** A message on screen: saved, or on its way. */
export interface UiMessage {
  key: string
  role: 'user' | 'assistant'
  content: string
  images: string[]
  files: UploadedFile[]
  metadata: MessageMetadata
  /** streaming: tokens arriving; generating: a picture is being drawn; speaking: text being voiced; stopped/failed: cut short */
  status?: 'streaming' | 'generating' | 'speaking' | 'stopped' | 'failed'
  note?: string
  /** the reply (or the speech mode's answer) as sound, once voiced */
  audio?: SpeechAudio
  /** «Озвучить» is on its way */
  voicing?: boolean
}

/** A file in the composer: uploading, uploaded, or refused. */
export interface Attachment {
  key: string
  name: string
  size: number
  status: 'uploading' | 'ready' | 'failed'
  upload?: UploadedFile
  /** a local preview of a picture while it uploads and after */
  preview?: string
  error?: string
}

/** What a model reads among attachments (models.ts attachKinds): pictures, PDFs; text files go as text to any of them. */
export interface AttachKinds {
  images: boolean
  files: boolean
}

/** The request settings of the page (the «Настройки» panel). */
export interface Settings {
  /** an optional system prompt, sent as the first message (empty: none) */
  system: string
  temperature: number
  maxTokens: number
  size: string
  quality: string
  quantity: number
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: 'file'; file: { filename: string; file_data: string } }

export interface OutgoingMessage {
  role: 'system' | 'user' | 'assistant'
  content: string | ContentPart[]
}

/** The body of POST /v1/chat/completions: streamed, with usage (and cost_rub) in the last chunk. */
export interface ChatCompletionBody {
  model: string
  messages: OutgoingMessage[]
  temperature: number
  max_tokens: number
  stream: true
  stream_options: { include_usage: true }
}

/** The body of POST /v1/images. */
export interface ImagesBody {
  model: string
  prompt: string
  size: string
  quality: string
  n: number
  response_format: 'url'
}

/** The formats a browser plays (voice.ts SPEECH_FORMATS labels them; pcm is raw samples: for pipelines, not a page). */
export type SpeechFormat = 'mp3' | 'wav' | 'opus' | 'aac' | 'flac'

/** The body of POST /v1/audio/speech (the estimate gets the same). */
export interface SpeechBody {
  model: string
  input: string
  voice: string
  response_format: SpeechFormat
}

/** Audio the page made: an object URL to play and download. */
export interface SpeechAudio {
  url: string
  type: string
  name: string
  size: number
}
