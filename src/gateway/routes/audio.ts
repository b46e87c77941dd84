// POST /v1/audio/speech and /v1/audio/transcriptions: voice on the pipeline (audio.ts).
import { Elysia, t } from 'elysia'
import { audioService } from '../audio'
import type { CallerAuth } from '../auth'
import { errorsOf, SpeechRequest, TranscriptionRequest } from '../model'
import type { Pipeline } from '../pipeline'
import type { GatewayDeps } from '../types'

export function audioRoutes(deps: GatewayDeps, pipe: Pipeline, auth: CallerAuth) {
  const audio = audioService(deps, pipe)
  return new Elysia({ name: 'gateway-audio' })
    .use(auth)
    .post('/audio/speech', async ({ caller, body, request }) => await audio.speech(caller, body, request.signal), {
      caller: true,
      body: SpeechRequest,
      response: {
        200: t.Any({ description: 'Звук потоком по мере синтеза (Content-Type провайдера: audio/mpeg, audio/wav, audio/pcm…); заголовок X-Generation-Id' }),
        ...errorsOf(400, 401, 402, 404, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Озвучка текста (формат OpenAI audio.speech.create)',
        description:
          'Резервируется цена модели за символ × длина input; списывается стоимость генерации у провайдера (/generation) × курс ЦБ × наценка, а если провайдер её не сообщил — цена каталога × число символов.',
      },
    })
    .post('/audio/transcriptions', async ({ caller, body, request }) => await audio.transcription(caller, body, request.signal), {
      caller: true,
      body: TranscriptionRequest,
      response: {
        200: t.Any({ description: 'json: {text, usage}; verbose_json: {task, language, duration, text, segments, usage}; text, srt, vtt — текстом' }),
        ...errorsOf(400, 401, 402, 404, 413, 429, 502, 503, 504),
      },
      detail: {
        summary: 'Распознавание речи (формат OpenAI audio.transcriptions.create)',
        description:
          'multipart/form-data с полем file (как отправляют SDK OpenAI) или JSON маршрутизатора с input_audio {data, format}; до 25 МБ. Резервируется цена за секунду × длительность записи, измеренная по самим данным (кадры MP3 и AAC, отсчёты WAV, кадры FLAC, пакеты Opus в OGG и WebM, кадры AAC в M4A), а не по заголовку файла; для кодеков, которые так не измерить (Vorbis, ALAC и др.), — размер файла при 6 кбит/с. Файл, длительность которого не измерить, — 400 invalid_audio; запись длиннее 10 часов — 400 audio_too_long. Списывается usage.cost провайдера × курс ЦБ × наценка.',
      },
    })
}
