// Voice through the official `openai` package against our /v1, signed in with the session's access
// token: audio.transcriptions.create with the file (multipart, as the SDK sends it) and
// audio.speech.create, whose audio is written as it arrives.
import { createReadStream, statSync } from 'node:fs'
import OpenAI from 'openai'
import type { Api } from './api'
import { toCliError } from './chat-client'
import { CliError, EXIT } from './errors'

/** The gateway's (and OpenAI's) limit for one recording. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024
export const TRANSCRIPT_FORMATS = ['text', 'json', 'verbose_json', 'srt', 'vtt'] as const
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number]
export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const
export type SpeechFormat = (typeof SPEECH_FORMATS)[number]

export type SpeechResult = { bytes: Uint8Array; contentType: string; generationId: string | null }

export function createVoiceClient(api: Api) {
  // No SDK retries: a paid request is never repeated behind the user's back. The chosen team pays
  // (the session acts in it through X-Team-Id), else the personal account.
  const client = (token: string) => {
    const team = api.team()
    return new OpenAI({ apiKey: token, baseURL: `${api.server}/v1`, maxRetries: 0, defaultHeaders: team ? { 'x-team-id': team.id } : undefined })
  }

  /** Runs `call` with the session's token, once more with a renewed one after a 401. */
  async function signed<T>(call: (c: OpenAI) => Promise<T>): Promise<T> {
    try {
      const token = api.token()
      try {
        return await call(client(token))
      } catch (e) {
        if (!(e instanceof OpenAI.APIError && e.status === 401)) throw e
        return await call(client(await api.renew(token)))
      }
    } catch (e) {
      throw toCliError(e, api.server)
    }
  }

  return {
    /** The transcript in `format`: text, srt and vtt as text, json and verbose_json parsed. */
    async transcribe(path: string, opts: { model: string; format: TranscriptFormat; language?: string }): Promise<string | Record<string, unknown>> {
      let size: number
      try {
        size = statSync(path).size
      } catch {
        throw new CliError(`Файл не найден: ${path}`, undefined, EXIT.usage)
      }
      if (size > MAX_AUDIO_BYTES) throw new CliError(`Файл больше 25 МБ: ${path}`, 'сожмите запись (MP3, OGG/Opus) или разрежьте на части', EXIT.usage)
      return signed(
        async (c) =>
          (await c.audio.transcriptions.create({
            file: createReadStream(path),
            model: opts.model,
            response_format: opts.format === 'text' ? 'text' : opts.format,
            ...(opts.language ? { language: opts.language } : {}),
          })) as unknown as string | Record<string, unknown>,
      )
    },

    async speak(input: string, opts: { model: string; voice: string; format: SpeechFormat }): Promise<SpeechResult> {
      return signed(async (c) => {
        const res = await c.audio.speech.create({ model: opts.model, input, voice: opts.voice, response_format: opts.format })
        return {
          bytes: new Uint8Array(await res.arrayBuffer()),
          contentType: res.headers.get('content-type') ?? 'application/octet-stream',
          generationId: res.headers.get('x-generation-id'),
        }
      })
    },
  }
}
