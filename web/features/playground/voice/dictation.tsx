// Dictation in the composer: the microphone button records (MediaRecorder), the bar above the
// field shows the time and what the transcription may cost, and on stop the recording goes to the
// transcription model the customer chose; the transcript lands in the field, to edit before sending.
import { useEffect, useRef, useState } from 'react'
import { formatPrice } from '../../../../src/content/format'
import { CloseIcon } from '../../../components/icons'
import { Spinner } from '../../../components/spinner'
import { ApiError } from '../../../lib/api'
import { cn } from '../../../lib/cn'
import { toast } from '../../../stores/toasts'
import { MicIcon, StopIcon } from '../icons'
import type { PlaygroundModel } from '../models/models'
import { useEstimate } from '../requests/estimate'
import { MicError, recordingSupported, useRecorder } from './use-recorder'
import { TRANSCRIBE_ERROR, transcribe } from './voice'

export type Dictation = ReturnType<typeof useDictation>

/** '0:07', '1:05' */
export const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds) % 60).padStart(2, '0')}`

/** The estimate is asked again every few seconds of recording, not on every tick. */
const ESTIMATE_STEP_SECONDS = 5

export function useDictation({ model, onText, onCharged }: { model: PlaygroundModel | undefined; onText: (text: string) => void; onCharged: () => void }) {
  const recorder = useRecorder()
  const [transcribing, setTranscribing] = useState(false)
  const abort = useRef<AbortController | null>(null)
  useEffect(() => () => abort.current?.abort(), [])

  const recording = recorder.state === 'recording'
  const bucket = Math.max(ESTIMATE_STEP_SECONDS, Math.ceil(recorder.elapsed / ESTIMATE_STEP_SECONDS) * ESTIMATE_STEP_SECONDS)
  const estimate = useEstimate(recording && model ? JSON.stringify(['transcription', model.id, bucket]) : null, async () => ({
    transcription: { model: model!.id, seconds: bucket },
  }))

  async function finish() {
    const take = await recorder.stop()
    if (!take || !model) return
    const ac = new AbortController()
    abort.current = ac
    setTranscribing(true)
    try {
      const result = await transcribe(take.blob, take.filename, model.id, ac.signal)
      if (!result.text) toast.info('В записи не удалось разобрать речь')
      else {
        onText(result.text)
        toast.success(result.costRub ? `Запись распознана · ${formatPrice(Number(result.costRub))}` : 'Запись распознана')
      }
    } catch (error) {
      if (ac.signal.aborted) return
      showError(error)
    } finally {
      if (abort.current === ac) abort.current = null
      setTranscribing(false)
      onCharged()
    }
  }

  function showError(error: unknown) {
    if (error instanceof ApiError && error.code === 'insufficient_balance') {
      toast.error(error.message, { duration: 10_000, action: { label: error.action?.label ?? 'Пополнить баланс', href: error.action?.url ?? '/app/billing' } })
    } else toast.error(error instanceof MicError || (error instanceof ApiError && error.message) ? (error as Error).message : TRANSCRIBE_ERROR)
  }

  return {
    model,
    supported: recordingSupported(),
    state: transcribing ? ('transcribing' as const) : recorder.state,
    elapsed: recorder.elapsed,
    estimate,
    /** The microphone button: starts a recording, or ends it and transcribes. */
    toggle() {
      if (transcribing) return
      if (recording) void finish()
      else if (recorder.state === 'idle') recorder.start().catch(showError)
    },
    cancel() {
      abort.current?.abort()
      recorder.cancel()
    },
  }
}

export function MicButton({ dictation, disabled }: { dictation: Dictation; disabled: boolean }) {
  const { state, model } = dictation
  if (!dictation.supported) return null
  const recording = state === 'recording'
  const busy = state === 'starting' || state === 'transcribing'
  const label = recording ? 'Остановить запись и распознать' : 'Надиктовать сообщение'
  return (
    <button
      type="button"
      onClick={dictation.toggle}
      disabled={(disabled && !recording) || busy || !model}
      aria-label={label}
      aria-pressed={recording}
      title={model ? `${label}: распознаёт ${model.name || model.id}` : 'В каталоге нет моделей распознавания речи'}
      data-testid="mic-button"
      className={cn(
        'flex h-9 w-9 shrink-0 items-center justify-center rounded-lg transition-colors disabled:cursor-not-allowed disabled:opacity-50',
        recording ? 'bg-red-600 text-white hover:bg-red-500' : 'text-slate-500 hover:bg-slate-100 hover:text-slate-800',
      )}
    >
      {busy ? <Spinner size={16} /> : recording ? <StopIcon size={14} /> : <MicIcon size={18} />}
    </button>
  )
}

/** Above the field while recording (time, the estimate, done / cancel) and while the transcript is on its way. */
export function DictationBar({ dictation }: { dictation: Dictation }) {
  const { state, elapsed, estimate, model } = dictation
  if (state !== 'recording' && state !== 'transcribing') return null
  const figure = estimate.data?.maxCost
  return (
    <div
      role="status"
      data-testid="dictation-bar"
      data-state={state}
      className="mb-2 flex items-center justify-between gap-3 rounded-lg bg-white px-3 py-2 text-sm ring-1 ring-slate-200 ring-inset"
    >
      {state === 'recording' ? (
        <>
          <span className="flex min-w-0 items-center gap-2 text-slate-700">
            <span aria-hidden="true" className="h-2.5 w-2.5 shrink-0 animate-pulse rounded-full bg-red-500" />
            <span className="font-medium">Запись</span>
            <time className="tabular-nums" data-testid="recording-time">
              {clock(elapsed)}
            </time>
            {typeof figure === 'number' && (
              <span className="hidden truncate text-xs text-slate-500 sm:inline" title={`Распознаёт ${model?.name || model?.id}: больше этого запись не обойдётся`}>
                · распознавание до {formatPrice(figure)}
              </span>
            )}
          </span>
          <span className="flex shrink-0 items-center gap-1">
            <button type="button" onClick={dictation.toggle} className="h-8 rounded-md bg-indigo-600 px-3 text-xs font-medium text-white hover:bg-indigo-500">
              Готово
            </button>
            <button
              type="button"
              onClick={dictation.cancel}
              aria-label="Отменить запись"
              className="flex h-8 w-8 items-center justify-center rounded-md text-slate-500 hover:bg-slate-100 hover:text-slate-800"
            >
              <CloseIcon size={15} />
            </button>
          </span>
        </>
      ) : (
        <span className="flex items-center gap-2 text-slate-600">
          <Spinner size={14} />
          Распознаю запись…
        </span>
      )}
    </div>
  )
}
