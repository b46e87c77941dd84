// How long a recording plays, and which of the router's audio formats it is, read from its bytes.
// The transcription hold is priced from this duration, and the router bills what its provider
// decodes — so the duration is measured from the audio data (lib/audio-frames.ts: MP3 and ADTS
// frames, WAV samples, FLAC frames, Opus packets in Ogg and WebM, AAC access units in M4A), never
// taken from a header: an MP3 whose Xing header claims 0.026 s over 20 MB of frames plays the 20 MB,
// and a WAV header claiming 11 hours over one second of samples plays one second. A codec not walked
// (Vorbis, ALAC, ADPCM…) is bounded by its size at 6 kbit/s. Formats are named by the bytes too.
import {
  adtsFrame,
  adtsSeconds,
  afterId3,
  flacSeconds,
  framesBehindJunk,
  isEbml,
  mp3Seconds,
  mp4Seconds,
  mpegFrame,
  oggSeconds,
  wavSeconds,
  webmAudioSeconds,
} from './audio-frames'

export { FLOOR_BYTES_PER_SECOND, webmSeconds } from './audio-frames'

/** The router's `input_audio.format` values (protocols.md 1.14). */
export const AUDIO_FORMATS = ['wav', 'mp3', 'flac', 'm4a', 'ogg', 'webm', 'aac'] as const
export type AudioFormat = (typeof AUDIO_FORMATS)[number]

export type AudioInfo = { seconds: number; format: AudioFormat }

/** Longer than this is not a recording anyone transcribes in one request: refused, not held. */
export const MAX_AUDIO_SECONDS = 10 * 3600

const BY_EXTENSION: Record<string, AudioFormat> = {
  wav: 'wav',
  wave: 'wav',
  mp3: 'mp3',
  mpga: 'mp3',
  mpeg: 'mp3',
  flac: 'flac',
  m4a: 'm4a',
  mp4: 'm4a',
  ogg: 'ogg',
  oga: 'ogg',
  opus: 'ogg',
  webm: 'webm',
  aac: 'aac',
}

const BY_MIME: Record<string, AudioFormat> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/m4a': 'm4a',
  'video/mp4': 'm4a',
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'application/ogg': 'ogg',
  'audio/webm': 'webm',
  'video/webm': 'webm',
  'audio/aac': 'aac',
  'audio/x-aac': 'aac',
}

/** A format named by a file name's extension or a MIME type (parameters ignored), if it names one. */
export function formatHint(name?: string | null, mime?: string | null): AudioFormat | undefined {
  const type = mime?.split(';')[0]?.trim().toLowerCase()
  if (type && BY_MIME[type]) return BY_MIME[type]
  const ext = name?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1]
  return ext ? BY_EXTENSION[ext] : undefined
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n))

/**
 * The format the bytes name: a container's magic, or MPEG/ADTS frames after any ID3v2 tag (or behind
 * a little junk). Read here rather than by a tag library, whose search for a first frame takes
 * minutes over 25 MB of 0xFF.
 */
function sniff(b: Uint8Array, hint?: AudioFormat): AudioFormat | undefined {
  const magic = ascii(b, 0, 4)
  if ((magic === 'RIFF' || magic === 'RF64' || magic === 'BW64') && ascii(b, 8, 4) === 'WAVE') return 'wav'
  if (magic === 'OggS') return 'ogg'
  if (isEbml(b)) return 'webm'
  const box = ascii(b, 4, 4)
  // An old QuickTime-style M4A may open with its moov or mdat instead of an ftyp.
  if (box === 'ftyp' || (hint === 'm4a' && ['moov', 'mdat', 'free', 'skip', 'wide'].includes(box))) return 'm4a'
  const at = afterId3(b)
  if (ascii(b, at, 4) === 'fLaC') return 'flac'
  if (mpegFrame(b, at)) return 'mp3'
  if (adtsFrame(b, at)) return 'aac'
  if (framesBehindJunk(b, mpegFrame)) return 'mp3'
  if (framesBehindJunk(b, adtsFrame)) return 'aac'
  return undefined
}

const MEASURE: Record<AudioFormat, (b: Uint8Array) => number | null> = {
  wav: wavSeconds,
  mp3: mp3Seconds,
  aac: adtsSeconds,
  flac: flacSeconds,
  ogg: oggSeconds,
  webm: webmAudioSeconds,
  m4a: mp4Seconds,
}

/**
 * The recording's format and the seconds it plays at most (see the header), or null when the bytes
 * are not audio of a format the router takes, or hold nothing that plays. `hint`: the file name's
 * extension or the declared type, used only where the bytes leave the format open. A length above
 * MAX_AUDIO_SECONDS is returned as measured: the caller refuses it.
 */
// Async for its callers' sake: the reading itself is synchronous (a few hundred ms for 25 MB at worst).
export async function audioInfo(bytes: Uint8Array, hint?: AudioFormat): Promise<AudioInfo | null> {
  if (bytes.byteLength === 0) return null
  const format = sniff(bytes, hint)
  if (!format) return null
  const seconds = MEASURE[format](bytes)
  if (seconds === null || !Number.isFinite(seconds) || seconds <= 0) return null
  return { seconds, format }
}
