// transcribe <file>: the recording as text (or subtitles); speak "<text>" -o file: the text as speech.
import { writeFileSync } from 'node:fs'
import { extname } from 'node:path'
import type { Command } from 'commander'
import { context, oneOf, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { integer } from '../lib/format'
import { SPEECH_FORMATS, type SpeechFormat, TRANSCRIPT_FORMATS, type TranscriptFormat } from '../lib/voice-client'

export const DEFAULT_TRANSCRIPTION_MODEL = 'openai/whisper-1'
export const DEFAULT_SPEECH_MODEL = 'openai/gpt-4o-mini-tts'
export const DEFAULT_VOICE = 'alloy'

/** The format a file name asks for by its extension, if it names one. */
const formatOfFile = (file: string): SpeechFormat | undefined => {
  const ext = extname(file).slice(1).toLowerCase()
  return (SPEECH_FORMATS as readonly string[]).includes(ext) ? (ext as SpeechFormat) : ext === 'ogg' ? 'opus' : undefined
}

const kilobytes = (bytes: number) => `${integer(Math.max(1, Math.round(bytes / 1024)))} КБ`

export function voiceCommands(program: Command) {
  program
    .command('transcribe')
    .description('распознать речь в записи (WAV, MP3, OGG/Opus, WebM, M4A, FLAC; до 25 МБ) и напечатать текст')
    .argument('<файл>', 'запись')
    .option('-m, --model <модель>', 'модель распознавания речи (gw models whisper)', DEFAULT_TRANSCRIPTION_MODEL)
    .option('-f, --format <формат>', `что напечатать: ${TRANSCRIPT_FORMATS.join(', ')}`, oneOf(TRANSCRIPT_FORMATS, 'формат — один из'), 'text')
    .option('-l, --language <код>', 'язык записи (ISO-639-1, например ru); без него определится сам')
    .addHelpText('after', '\nПримеры:\n  gw transcribe voice.ogg\n  gw transcribe meeting.mp3 --format srt > meeting.srt')
    .action(async (file: string, opts: { model: string; format: TranscriptFormat; language?: string }, cmd: Command) => {
      const { api } = context(cmd)
      api.token() // not signed in: say so before reading the file
      const { createVoiceClient } = await import('../lib/voice-client')
      const result = await createVoiceClient(api).transcribe(file, opts)
      if (typeof result === 'string') process.stdout.write(result.endsWith('\n') ? result : `${result}\n`)
      else printJson(result)
    })

  program
    .command('speak')
    .description('озвучить текст (аргументом или через stdin) и сохранить звук в файл')
    .argument('[текст...]', 'текст; без него читается stdin')
    .option('-o, --output <файл>', 'куда сохранить звук; без него — в stdout, если он не терминал')
    .option('-m, --model <модель>', 'модель озвучки', DEFAULT_SPEECH_MODEL)
    .option('-v, --voice <голос>', 'голос (alloy, nova, shimmer…)', DEFAULT_VOICE)
    .option('-f, --format <формат>', `формат звука: ${SPEECH_FORMATS.join(', ')} (по умолчанию: по расширению файла, иначе mp3)`, oneOf(SPEECH_FORMATS, 'формат — один из'))
    .option('--json', 'вместо строки о сохранении вывести JSON')
    .addHelpText('after', '\nПримеры:\n  gw speak "Привет!" -o privet.mp3\n  cat news.txt | gw speak --voice nova -o news.mp3')
    .action(async (words: string[], opts: { output?: string; model: string; voice: string; format?: SpeechFormat; json?: boolean }, cmd: Command) => {
      const { api } = context(cmd)
      api.token()
      if (!opts.output && process.stdout.isTTY) throw new CliError('Куда сохранить звук?', 'укажите файл: gw speak "текст" -o out.mp3', EXIT.usage)
      let text = words.join(' ')
      if (!text && !process.stdin.isTTY) text = (await Bun.stdin.text()).trim()
      if (!text) throw new CliError('Нет текста для озвучки', 'передайте его аргументом или через stdin: echo "Привет" | gw speak -o out.mp3', EXIT.usage)
      const format = opts.format ?? (opts.output ? formatOfFile(opts.output) : undefined) ?? 'mp3'
      const { createVoiceClient } = await import('../lib/voice-client')
      const audio = await createVoiceClient(api).speak(text, { model: opts.model, voice: opts.voice, format })
      if (!opts.output) return void process.stdout.write(audio.bytes)
      writeFileSync(opts.output, audio.bytes)
      const saved = { file: opts.output, bytes: audio.bytes.byteLength, contentType: audio.contentType, generationId: audio.generationId }
      if (opts.json) printJson(saved)
      else print(`Сохранено: ${opts.output} (${kilobytes(saved.bytes)}, ${saved.contentType})`)
    })
}
