// The Playground's voice choices (the column on a desktop, the drawer on a phone): which model
// listens to the microphone, which model, voice and format speak «Озвучить» and the speech mode,
// and the audio the page made (a player and a download).
import { type ReactNode, useId } from 'react'
import { formatPrice } from '../../../../src/content/format'
import { Card } from '../../../components/card'
import { Select } from '../../../components/select'
import { DownloadIcon, MicIcon } from '../icons'
import { type PlaygroundModel, rubles } from '../models/models'
import type { SpeechAudio, SpeechFormat } from '../types'
import { SPEECH_FORMATS, type VoiceSettings, voicesOf } from './voice'

const label = (m: PlaygroundModel) => m.name || m.id

/** '0,0120 ₽/мин' or '1,95 ₽ за 1M символов': a voice model's price in the unit it is billed in. */
export function voicePrice(model: PlaygroundModel | undefined): string {
  if (!model) return ''
  const perSecond = rubles(model.pricing.audio_second)
  if (perSecond) return `${formatPrice(perSecond * 60)} за минуту`
  const perChar = rubles(model.pricing.character)
  if (perChar) return `${formatPrice(perChar * 1_000_000)} за 1M символов`
  const audio = rubles(model.pricing.audio)
  if (audio) return `${formatPrice(audio * 1_000_000)} за 1M аудиотокенов`
  return ''
}

function Field({ label: text, hint, children, id }: { label: string; hint?: string; children: ReactNode; id: string }) {
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-700">
        {text}
      </label>
      {children}
      {hint && <p className="text-xs text-slate-600">{hint}</p>}
    </div>
  )
}

export function VoicePanel({
  settings,
  listeners,
  speakers,
  speechModel,
  speechMode,
  disabled,
  onChange,
}: {
  settings: VoiceSettings
  /** the catalogue's transcription models */
  listeners: PlaygroundModel[]
  /** the catalogue's speech models */
  speakers: PlaygroundModel[]
  /** the model that speaks (in the speech mode: the one chosen as the Playground's model) */
  speechModel: PlaygroundModel | undefined
  /** the Playground's model is a speech model: it is chosen above, not here */
  speechMode: boolean
  disabled: boolean
  onChange: (patch: Partial<VoiceSettings>) => void
}) {
  const ids = { stt: useId(), tts: useId(), voice: useId(), format: useId() }
  if (listeners.length === 0 && speakers.length === 0) return null
  const transcription = listeners.find((m) => m.id === settings.transcriptionModel)
  return (
    <Card className="space-y-4 p-4" data-testid="voice-panel">
      <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
        <MicIcon size={16} className="text-slate-400" />
        Голос
      </h2>
      {listeners.length > 0 && (
        <Field id={ids.stt} label="Распознавание речи" hint={`Микрофон в поле ввода. ${voicePrice(transcription)}`.trim()}>
          <Select id={ids.stt} value={settings.transcriptionModel} disabled={disabled} onChange={(e) => onChange({ transcriptionModel: e.target.value })} className="text-sm">
            {listeners.map((m) => (
              <option key={m.id} value={m.id}>
                {label(m)}
              </option>
            ))}
          </Select>
        </Field>
      )}
      {speakers.length > 0 && (
        <>
          {!speechMode && (
            <Field id={ids.tts} label="Озвучка ответов" hint={`Кнопка «Озвучить» под ответом. ${voicePrice(speechModel)}`.trim()}>
              <Select id={ids.tts} value={settings.speechModel} disabled={disabled} onChange={(e) => onChange({ speechModel: e.target.value })} className="text-sm">
                {speakers.map((m) => (
                  <option key={m.id} value={m.id}>
                    {label(m)}
                  </option>
                ))}
              </Select>
            </Field>
          )}
          <div className="grid grid-cols-2 gap-3">
            <Field id={ids.voice} label="Голос">
              <Select id={ids.voice} value={settings.voice} disabled={disabled} onChange={(e) => onChange({ voice: e.target.value })} className="text-sm">
                {voicesOf(speechModel).map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id={ids.format} label="Формат">
              <Select id={ids.format} value={settings.format} disabled={disabled} onChange={(e) => onChange({ format: e.target.value as SpeechFormat })} className="text-sm">
                {SPEECH_FORMATS.map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </Select>
            </Field>
          </div>
        </>
      )}
    </Card>
  )
}

/** Voiced text in the page: the player and the file to keep. */
export function SpeechPlayer({ audio, autoPlay = false }: { audio: SpeechAudio; autoPlay?: boolean }) {
  return (
    <div className="mt-2 flex max-w-full flex-wrap items-center gap-2" data-testid="speech-player">
      {/* biome-ignore lint/a11y/useMediaCaption: synthesised speech of the text shown right above it */}
      <audio controls autoPlay={autoPlay} preload="auto" src={audio.url} aria-label="Озвученный текст" className="h-10 w-72 max-w-full" />
      <a
        href={audio.url}
        download={audio.name}
        className="inline-flex h-8 items-center gap-1.5 rounded-md border border-slate-200 bg-white px-2.5 text-xs font-medium text-slate-700 hover:bg-slate-50"
      >
        <DownloadIcon size={14} />
        Скачать
      </a>
    </div>
  )
}
