// The microphone through MediaRecorder: start, the seconds so far, stop with the recording. The
// browser asks for the microphone once; a refusal is remembered by the browser, so while the
// permission reads «denied» the page says how to allow it instead of asking again.
import { useCallback, useEffect, useRef, useState } from 'react'

/** Recordings longer than this stop by themselves: ten minutes stay well under the 25 MB upload limit. */
export const MAX_RECORDING_SECONDS = 600

export const MIC_DENIED = 'Доступ к микрофону запрещён. Разрешите его в настройках сайта (значок слева от адреса) и нажмите кнопку ещё раз.'
export const MIC_UNAVAILABLE = 'Микрофон недоступен в этом браузере'
export const MIC_NOT_FOUND = 'Микрофон не найден: подключите его и попробуйте снова'

/** The containers MediaRecorder writes, in order of preference (Chrome: WebM, Firefox: Ogg, Safari: MP4). */
const TYPES = [
  ['audio/webm;codecs=opus', 'webm'],
  ['audio/webm', 'webm'],
  ['audio/ogg;codecs=opus', 'ogg'],
  ['audio/mp4', 'm4a'],
] as const

export interface Recording {
  blob: Blob
  filename: string
  seconds: number
}

export type RecorderState = 'idle' | 'starting' | 'recording'

/** A recording problem worth telling the customer about, in their words. */
export class MicError extends Error {}

export const recordingSupported = () => typeof window !== 'undefined' && typeof MediaRecorder !== 'undefined' && !!navigator.mediaDevices?.getUserMedia

async function permissionDenied(): Promise<boolean> {
  try {
    const status = await navigator.permissions?.query({ name: 'microphone' as PermissionName })
    return status?.state === 'denied'
  } catch {
    return false // not every browser can be asked (Firefox, Safari): then getUserMedia tells
  }
}

export function useRecorder() {
  const [state, setState] = useState<RecorderState>('idle')
  const [elapsed, setElapsed] = useState(0)
  const live = useRef<{ recorder: MediaRecorder; stream: MediaStream; chunks: Blob[]; startedAt: number; ext: string; timer: ReturnType<typeof setInterval> } | null>(null)
  const finished = useRef<((r: Recording | null) => void) | null>(null)

  const release = useCallback(() => {
    const now = live.current
    if (!now) return
    clearInterval(now.timer)
    for (const track of now.stream.getTracks()) track.stop()
    live.current = null
    setState('idle')
  }, [])

  const stop = useCallback((): Promise<Recording | null> => {
    const now = live.current
    if (!now || now.recorder.state === 'inactive') return Promise.resolve(null)
    return new Promise((resolve) => {
      finished.current = resolve
      now.recorder.stop()
    })
  }, [])

  const start = useCallback(async () => {
    if (live.current || state !== 'idle') return
    if (!recordingSupported()) throw new MicError(MIC_UNAVAILABLE)
    if (await permissionDenied()) throw new MicError(MIC_DENIED)
    setState('starting')
    let stream: MediaStream
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } })
    } catch (error) {
      setState('idle')
      const name = (error as DOMException)?.name
      if (name === 'NotAllowedError' || name === 'SecurityError') throw new MicError(MIC_DENIED)
      if (name === 'NotFoundError' || name === 'OverconstrainedError') throw new MicError(MIC_NOT_FOUND)
      throw new MicError(MIC_UNAVAILABLE)
    }
    const [mimeType, ext] = TYPES.find(([type]) => MediaRecorder.isTypeSupported(type)) ?? ['', 'webm']
    const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined)
    const chunks: Blob[] = []
    const startedAt = performance.now()
    recorder.ondataavailable = (event) => {
      if (event.data.size > 0) chunks.push(event.data)
    }
    recorder.onstop = () => {
      const seconds = (performance.now() - startedAt) / 1000
      const blob = new Blob(chunks, { type: recorder.mimeType || mimeType || 'audio/webm' })
      release()
      finished.current?.(blob.size > 0 ? { blob, filename: `recording.${ext}`, seconds } : null)
      finished.current = null
    }
    const timer = setInterval(() => {
      const seconds = (performance.now() - startedAt) / 1000
      setElapsed(seconds)
      if (seconds >= MAX_RECORDING_SECONDS && recorder.state === 'recording') recorder.stop()
    }, 250)
    live.current = { recorder, stream, chunks, startedAt, ext, timer }
    setElapsed(0)
    recorder.start(1000)
    setState('recording')
  }, [state, release])

  /** Stops without keeping anything. */
  const cancel = useCallback(() => {
    finished.current = null
    const now = live.current
    if (now && now.recorder.state !== 'inactive') {
      now.recorder.onstop = null
      now.recorder.stop()
    }
    release()
  }, [release])

  // Leaving the page turns the microphone off.
  useEffect(() => cancel, [cancel])

  return { state, elapsed, start, stop, cancel }
}
