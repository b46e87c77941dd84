// How long a recording is, and which of the router's audio formats it is, read from its bytes with
// music-metadata (WAV, MP3, OGG/Opus and Vorbis, FLAC, M4A/AAC, WebM). A browser's MediaRecorder
// writes WebM without a Duration element (it streams as it records), so for WebM the clusters'
// timecodes are read as well. The transcription hold is priced from this duration.
import { parseBuffer } from 'music-metadata'

/** The router's `input_audio.format` values (protocols.md 1.14). */
export const AUDIO_FORMATS = ['wav', 'mp3', 'flac', 'm4a', 'ogg', 'webm', 'aac'] as const
export type AudioFormat = (typeof AUDIO_FORMATS)[number]

export type AudioInfo = { seconds: number; format: AudioFormat }

/** Longer than this is not a recording anyone transcribes in one request: a header that lies. */
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

const MIME_OF: Record<AudioFormat, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  webm: 'audio/webm',
  aac: 'audio/aac',
}

/** The router's format for what music-metadata recognised. */
function formatOf(container: string | undefined, codec: string | undefined): AudioFormat | undefined {
  const c = (container ?? '').toLowerCase()
  if (c === 'wave' || c.startsWith('rf64')) return 'wav'
  if (c === 'flac') return 'flac'
  if (c === 'ogg') return 'ogg'
  if (c.startsWith('ebml/')) return 'webm'
  if (c === 'adts') return 'aac'
  if (c === 'mpeg') return (codec ?? '').toLowerCase().includes('aac') ? 'aac' : 'mp3'
  // ISO base media (M4A, isom, mp42, 3gp…): the brands joined with slashes.
  if (/(^|\/)(m4a|m4b|isom|iso\d|mp4\d|mp41|3gp\d?|dash|f4a)/.test(c)) return 'm4a'
  return undefined
}

/**
 * The recording's duration and format, or null when the bytes are not audio music-metadata can time
 * (or claim an absurd length). `hint`: the file name's extension or the declared type, used only
 * where the bytes leave the format open.
 */
export async function audioInfo(bytes: Uint8Array, hint?: AudioFormat): Promise<AudioInfo | null> {
  if (bytes.byteLength === 0) return null
  let container: string | undefined
  let codec: string | undefined
  let seconds: number | undefined
  try {
    const meta = await parseBuffer(bytes, hint ? { mimeType: MIME_OF[hint] } : undefined, { duration: true, skipCovers: true })
    container = meta.format.container
    codec = meta.format.codec
    seconds = meta.format.duration
  } catch {
    // music-metadata gives up on a segment of unknown size, as a live MediaRecorder writes it.
    if (!isEbml(bytes)) return null
    container = 'EBML/webm'
  }
  const format = formatOf(container, codec)
  if (!format) return null
  if (format === 'webm' && !(seconds && seconds > 0)) seconds = webmSeconds(bytes) ?? undefined
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_AUDIO_SECONDS) return null
  return { seconds, format }
}

// ─── WebM without a Duration: the last block's time ─────────────────────────────────────────

const SEGMENT = 0x18538067
const INFO = 0x1549a966
const TIMECODE_SCALE = 0x2ad7b1
const CLUSTER = 0x1f43b675
const CLUSTER_TIMECODE = 0xe7
const SIMPLE_BLOCK = 0xa3
const BLOCK_GROUP = 0xa0
const BLOCK = 0xa1
/** Elements that sit beside clusters in a segment: one of these ends a cluster of unknown size. */
const LEVEL_ONE = new Set([CLUSTER, 0x1c53bb6b, 0x1254c367, 0x1043a770, 0x1941a469, 0x114d9b74, 0x1654ae6b, INFO])

/** An EBML (Matroska/WebM) stream begins with the EBML header's id. */
const isEbml = (b: Uint8Array) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3

type Vint = { value: number; length: number; unknown: boolean }

/** An EBML variable-length integer at `at`; `keepMarker` for element ids. */
function vint(b: Uint8Array, at: number, keepMarker: boolean): Vint | null {
  const first = b[at]
  if (first === undefined || first === 0) return null
  const length = Math.clz32(first) - 23 // leading zeros within the byte, plus one
  if (length > 8 || at + length > b.length) return null
  let value = keepMarker ? first : first & (0xff >> length)
  let allOnes = value === 0xff >> length
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i]!
    if (b[at + i] !== 0xff) allOnes = false
  }
  return { value, length, unknown: !keepMarker && allOnes }
}

type Element = { id: number; start: number; end: number; unknown: boolean }

function element(b: Uint8Array, at: number): Element | null {
  const id = vint(b, at, true)
  if (!id) return null
  const size = vint(b, at + id.length, false)
  if (!size) return null
  const start = at + id.length + size.length
  return { id: id.value, start, end: size.unknown ? b.length : Math.min(b.length, start + size.value), unknown: size.unknown }
}

const uint = (b: Uint8Array, start: number, end: number) => {
  let v = 0
  for (let i = start; i < end; i++) v = v * 256 + b[i]!
  return v
}

/** The block's timecode relative to its cluster (after the track number). */
function blockTime(b: Uint8Array, start: number): number | null {
  const track = vint(b, start, false)
  if (!track || start + track.length + 2 > b.length) return null
  const at = start + track.length
  return new DataView(b.buffer, b.byteOffset + at, 2).getInt16(0)
}

/** Seconds up to the last block of a WebM/Matroska stream, from the cluster and block timecodes. */
export function webmSeconds(b: Uint8Array): number | null {
  let at = 0
  let segmentEnd = -1
  // Top level: the EBML header, then the segment.
  while (at < b.length) {
    const e = element(b, at)
    if (!e) return null
    if (e.id === SEGMENT) {
      at = e.start
      segmentEnd = e.end
      break
    }
    at = e.end
  }
  if (segmentEnd < 0) return null
  let scale = 1_000_000 // ns per timecode unit (the default)
  let last = -1
  while (at < segmentEnd) {
    const e = element(b, at)
    if (!e) break
    if (e.id === INFO) {
      for (let c = e.start; c < e.end; ) {
        const child = element(b, c)
        if (!child) break
        if (child.id === TIMECODE_SCALE) scale = uint(b, child.start, child.end) || scale
        c = child.end
      }
      at = e.end
    } else if (e.id === CLUSTER) {
      let clusterTime = 0
      let c = e.start
      while (c < e.end) {
        const child = element(b, c)
        if (!child || (e.unknown && LEVEL_ONE.has(child.id))) break
        if (child.id === CLUSTER_TIMECODE) clusterTime = uint(b, child.start, child.end)
        else if (child.id === SIMPLE_BLOCK) {
          const t = blockTime(b, child.start)
          if (t !== null) last = Math.max(last, clusterTime + t)
        } else if (child.id === BLOCK_GROUP) {
          for (let g = child.start; g < child.end; ) {
            const inner = element(b, g)
            if (!inner) break
            if (inner.id === BLOCK) {
              const t = blockTime(b, inner.start)
              if (t !== null) last = Math.max(last, clusterTime + t)
            }
            g = inner.end
          }
        }
        c = child.end
      }
      at = c
    } else {
      if (e.unknown) break
      at = e.end
    }
  }
  return last > 0 ? (last * scale) / 1e9 : null
}
