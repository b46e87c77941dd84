// How long audio plays, read from what a decoder plays — MP3 and ADTS frames, WAV samples, FLAC
// frames, Opus packets, AAC access units — never from what a header claims (a Xing frame count, a
// WAV data size, FLAC's total samples, a container's duration). A router's provider decodes the
// data and bills what it plays, and a header is whatever the sender wrote: a hold priced from one
// is a hold the sender chose. Where a codec is not walked here (Vorbis, ALAC, ADPCM…), the bound is
// the size at the leanest plausible bitrate. Each reader returns seconds, or null when it finds
// nothing it can time. Pure: no I/O, no dependency.

/** 6 kbit/s, the lowest bitrate of Opus and of the speech codecs: the size bound of a codec not walked. */
export const FLOOR_BYTES_PER_SECOND = 750

/** The size bound: what `bytes` can play at most at the floor bitrate. */
export const sizeBound = (b: Uint8Array) => b.length / FLOOR_BYTES_PER_SECOND

/** Samples summed per rate and divided once: 0.02 s added 600 times is not 12 s in floating point. */
class Clock {
  private readonly samples = new Map<number, number>()
  add(samples: number, rate: number) {
    this.samples.set(rate, (this.samples.get(rate) ?? 0) + samples)
  }
  get seconds() {
    let s = 0
    for (const [rate, n] of this.samples) s += n / rate
    return s
  }
  get empty() {
    return this.samples.size === 0
  }
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n))
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u32le = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0

/** Where the audio begins after any ID3v2 tags (MP3, ADTS and FLAC files may carry them). */
export function afterId3(b: Uint8Array): number {
  let at = 0
  while (at + 10 <= b.length && b[at] === 0x49 && b[at + 1] === 0x44 && b[at + 2] === 0x33) {
    const size = ((b[at + 6]! & 0x7f) << 21) | ((b[at + 7]! & 0x7f) << 14) | ((b[at + 8]! & 0x7f) << 7) | (b[at + 9]! & 0x7f)
    at += 10 + size + (b[at + 5]! & 0x10 ? 10 : 0) // the footer flag adds ten bytes
  }
  return at
}

// ─── WAV: the samples present ───────────────────────────────────────────────────────────────

/** PCM, IEEE float, A-law, µ-law: a fixed number of bytes per sample. */
const FIXED_WIDTH_TAGS = new Set([1, 3, 6, 7])

/**
 * Seconds of the samples after the `data` chunk's start — to the end of the file, whatever size the
 * chunk declares (a decoder that reads on plays them). A compressed codec: the size bound.
 */
export function wavSeconds(b: Uint8Array): number | null {
  if (b.length < 12 || !['RIFF', 'RF64', 'BW64'].includes(ascii(b, 0, 4)) || ascii(b, 8, 4) !== 'WAVE') return null
  let fmt: { tag: number; channels: number; rate: number; bits: number } | undefined
  for (let at = 12; at + 8 <= b.length; ) {
    const id = ascii(b, at, 4)
    const size = u32le(b, at + 4)
    const body = at + 8
    if (id === 'fmt ' && size >= 16 && body + 16 <= b.length) {
      const tag = u16le(b, body)
      // WAVE_FORMAT_EXTENSIBLE names the codec in its sub-format GUID's first two bytes.
      const real = tag === 0xfffe && size >= 26 && body + 26 <= b.length ? u16le(b, body + 24) : tag
      fmt = { tag: real, channels: u16le(b, body + 2), rate: u32le(b, body + 4), bits: u16le(b, body + 14) }
    } else if (id === 'data') {
      if (!fmt) return null
      const bytes = b.length - body
      if (!FIXED_WIDTH_TAGS.has(fmt.tag)) return bytes / FLOOR_BYTES_PER_SECOND
      const frame = fmt.channels * Math.ceil(fmt.bits / 8)
      return fmt.rate > 0 && frame > 0 ? bytes / frame / fmt.rate : null
    }
    at = body + size + (size & 1)
  }
  return null
}

// ─── MP3 and ADTS AAC: frame by frame ───────────────────────────────────────────────────────

type Frame = { length: number; samples: number; rate: number }

const MPEG_RATES = [44100, 48000, 32000]
/** kbit/s by [MPEG-1?][layer bits: 3 = I, 2 = II, 1 = III][bitrate index − 1]. */
const MPEG1_KBPS: Record<number, number[]> = {
  3: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  2: [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  1: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
}
const MPEG2_KBPS: Record<number, number[]> = {
  3: [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  2: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  1: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}

/** The MPEG audio frame whose header is at `at` (free-format frames have no length: not one). */
export function mpegFrame(b: Uint8Array, at: number): Frame | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null
  const version = (b[at + 1]! >> 3) & 3 // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = (b[at + 1]! >> 1) & 3 // 3: I, 2: II, 1: III
  const bitrateIndex = b[at + 2]! >> 4
  const rateIndex = (b[at + 2]! >> 2) & 3
  if (version === 1 || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null
  const v1 = version === 3
  const rate = MPEG_RATES[rateIndex]! >> (v1 ? 0 : version === 2 ? 1 : 2)
  const bps = (v1 ? MPEG1_KBPS : MPEG2_KBPS)[layer]![bitrateIndex - 1]! * 1000
  const padding = (b[at + 2]! >> 1) & 1
  const samples = layer === 3 ? 384 : layer === 2 || v1 ? 1152 : 576
  const length = layer === 3 ? (Math.floor((12 * bps) / rate) + padding) * 4 : Math.floor(((samples / 8) * bps) / rate) + padding
  return { length, samples, rate }
}

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

/** The ADTS (AAC) frame whose header is at `at`: 1024 samples per raw data block. */
export function adtsFrame(b: Uint8Array, at: number): Frame | null {
  if (at + 7 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xf6) !== 0xf0) return null // sync, layer 00
  const rate = ADTS_RATES[(b[at + 2]! >> 2) & 0xf]
  const length = ((b[at + 3]! & 3) << 11) | (b[at + 4]! << 3) | (b[at + 5]! >> 5)
  if (!rate || length < 7) return null
  return { length, samples: ((b[at + 6]! & 3) + 1) * 1024, rate }
}

/**
 * Every frame from the start: a frame followed by another (or by the end) is skipped whole; after one
 * that is not — the last before a tag, or a false sync in junk — the search goes on from its next
 * byte, so no frame a resyncing decoder would find hides inside it. A false sync costs the sender a
 * few milliseconds of hold; a missed frame would cost us its price.
 */
function walkFrames(b: Uint8Array, frame: (b: Uint8Array, at: number) => Frame | null): number | null {
  const clock = new Clock()
  let at = afterId3(b)
  while (at + 4 <= b.length) {
    const f = b[at] === 0xff ? frame(b, at) : null
    if (!f) {
      // The next 0xFF: the next byte when it is one (a file of 0xFF), else found natively.
      at = b[at + 1] === 0xff ? at + 1 : b.indexOf(0xff, at + 1)
      if (at < 0) break
      continue
    }
    clock.add(f.samples, f.rate)
    const next = at + f.length
    at = next >= b.length || frame(b, next) ? next : at + 1
  }
  return clock.empty ? null : clock.seconds
}

/**
 * Where, within the first 64 KB after any ID3v2 tag, three frames follow one another: an MP3 (or
 * ADTS) stream behind a few bytes of junk. A single sync is not enough: junk is full of them.
 */
export function framesBehindJunk(b: Uint8Array, frame: (b: Uint8Array, at: number) => Frame | null): boolean {
  const from = afterId3(b)
  for (let at = from; at < Math.min(b.length, from + 65_536); at++) {
    if (b[at] !== 0xff) continue
    let p = at
    let n = 0
    for (let f = frame(b, p); f && n < 3; f = frame(b, p)) {
      n++
      p += f.length
    }
    if (n === 3) return true
  }
  return false
}

export const mp3Seconds = (b: Uint8Array) => walkFrames(b, mpegFrame)
export const adtsSeconds = (b: Uint8Array) => walkFrames(b, adtsFrame)

// ─── FLAC: the block sizes of the frames present ────────────────────────────────────────────

const CRC8 = (() => {
  const table = new Uint8Array(256)
  for (let i = 0; i < 256; i++) {
    let c = i
    for (let j = 0; j < 8; j++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff
    table[i] = c
  }
  return table
})()

const FLAC_RATES = [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000]

/** The FLAC frame header at `at` (sync, fields, CRC-8 checked): its block size, rate and end. */
function flacFrame(b: Uint8Array, at: number, streamRate: number): { samples: number; rate: number; end: number } | null {
  if (at + 6 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xfe) !== 0xf8) return null
  const sizeCode = b[at + 2]! >> 4
  const rateCode = b[at + 2]! & 0xf
  const channels = b[at + 3]! >> 4
  const depth = (b[at + 3]! >> 1) & 7
  if (sizeCode === 0 || rateCode === 15 || channels > 10 || depth === 3 || b[at + 3]! & 1) return null
  // The frame or sample number, coded like UTF-8 in one to seven bytes.
  let p = at + 4
  const ones = Math.clz32(~(b[p]! << 24))
  if (ones === 1 || ones > 7) return null
  const extra = ones === 0 ? 0 : ones - 1
  for (let i = 1; i <= extra; i++) if (((b[p + i] ?? 0) & 0xc0) !== 0x80) return null
  p += 1 + extra
  let samples: number
  if (sizeCode === 1) samples = 192
  else if (sizeCode <= 5) samples = 576 << (sizeCode - 2)
  else if (sizeCode === 6) samples = (b[p++] ?? 0) + 1
  else if (sizeCode === 7) {
    samples = (((b[p] ?? 0) << 8) | (b[p + 1] ?? 0)) + 1
    p += 2
  } else samples = 256 << (sizeCode - 8)
  let rate: number
  if (rateCode === 0) rate = streamRate
  else if (rateCode <= 11) rate = FLAC_RATES[rateCode]!
  else if (rateCode === 12) rate = (b[p++] ?? 0) * 1000
  else {
    rate = (((b[p] ?? 0) << 8) | (b[p + 1] ?? 0)) * (rateCode === 14 ? 10 : 1)
    p += 2
  }
  if (p >= b.length || rate <= 0) return null
  let crc = 0
  for (let i = at; i < p; i++) crc = CRC8[crc ^ b[i]!]!
  return crc === b[p] ? { samples, rate, end: p + 1 } : null
}

/** The sum of the block sizes of every frame whose header checks out (STREAMINFO's total is a claim). */
export function flacSeconds(b: Uint8Array): number | null {
  let at = afterId3(b)
  if (ascii(b, at, 4) !== 'fLaC') return null
  at += 4
  let streamRate = 0
  for (let last = false; !last; ) {
    if (at + 4 > b.length) return null
    last = (b[at]! & 0x80) !== 0
    const size = (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!
    // STREAMINFO: the sample rate is 20 bits, ten bytes into the block.
    if ((b[at]! & 0x7f) === 0 && size >= 18 && at + 22 <= b.length) streamRate = (b[at + 14]! << 12) | (b[at + 15]! << 4) | (b[at + 16]! >> 4)
    at += 4 + size
  }
  const clock = new Clock()
  for (let i = at; i + 6 <= b.length; i++) {
    if (b[i] !== 0xff || (b[i + 1]! & 0xfe) !== 0xf8) continue
    const f = flacFrame(b, i, streamRate)
    if (!f) continue
    clock.add(f.samples, f.rate)
    i = f.end - 1
  }
  return clock.empty ? null : clock.seconds
}

// ─── Opus packets (in Ogg and in WebM) ──────────────────────────────────────────────────────

/** Samples at 48 kHz an Opus packet plays, from its TOC byte and (code 3) frame count (RFC 6716 §3.1); at most 120 ms. */
export function opusPacketSamples(toc: number, count: number | undefined): number {
  const config = toc >> 3
  // Frame sizes in units of 2.5 ms (120 samples): SILK 10/20/40/60, hybrid 10/20, CELT 2.5/5/10/20 ms.
  const units = config < 12 ? [4, 8, 16, 24][config & 3]! : config < 16 ? [4, 8][config & 1]! : [1, 2, 4, 8][config & 3]!
  const code = toc & 3
  const frames = code === 0 ? 1 : code < 3 ? 2 : (count ?? 0) & 0x3f
  return Math.min(frames * units, 48) * 120
}

/** The longest an Opus packet plays, for a laced block whose packets are not delimited here. */
export const OPUS_MAX_PACKET_SAMPLES = 48 * 120

// ─── Ogg: pages with a valid CRC, Opus packets timed ────────────────────────────────────────

const OGG_CRC = (() => {
  const table = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let r = i << 24
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1
    table[i] = r >>> 0
  }
  return table
})()

/** The CRC-32 an Ogg page carries over `bytes` (its own CRC field read as zeros when `crcAt` is given). */
export function oggCrc(bytes: Uint8Array, crcAt?: number): number {
  let c = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = crcAt !== undefined && i >= crcAt && i < crcAt + 4 ? 0 : bytes[i]!
    c = ((c << 8) ^ OGG_CRC[((c >>> 24) ^ byte) & 0xff]!) >>> 0
  }
  return c
}

const oggPageValid = (b: Uint8Array, at: number, end: number): boolean => oggCrc(b.subarray(at, end), 22) === u32le(b, at + 22)

const isOggS = (b: Uint8Array, at: number) => b[at] === 0x4f && b[at + 1] === 0x67 && b[at + 2] === 0x67 && b[at + 3] === 0x53

/**
 * An Ogg file: the Opus streams' audio packets timed one by one (the last page's granule position is
 * a claim); a page whose CRC fails is skipped as libogg skips it. Without an Opus stream (Vorbis,
 * Speex, FLAC in Ogg), the size bound.
 */
export function oggSeconds(b: Uint8Array): number | null {
  const streams = new Map<number, { opus: boolean; packets: number }>()
  let samples = 0
  let pages = 0
  // A file of false "OggS" each claiming 64 KB would cost a CRC of 64 KB per byte: past a few
  // passes over the file it is not measured but refused.
  let crcBudget = 2 * b.length + 1_000_000
  for (let at = 0; at + 27 <= b.length; ) {
    const segments = b[at + 26]!
    let end = at + 27 + segments
    for (let i = 0; i < segments && end <= b.length; i++) end += b[at + 27 + i]!
    const candidate = isOggS(b, at) && end <= b.length
    if (candidate && (crcBudget -= end - at) < 0) return null
    if (!candidate || !oggPageValid(b, at, end)) {
      const next = b.indexOf(0x4f, at + 1)
      if (next < 0) break
      at = next
      continue
    }
    pages++
    const serial = u32le(b, at + 14)
    let stream = streams.get(serial)
    if (!stream) {
      stream = { opus: (b[at + 5]! & 0x02) !== 0 && ascii(b, at + 27 + segments, 8) === 'OpusHead', packets: 0 }
      streams.set(serial, stream)
    }
    // A page that continues a packet begins inside it; a lacing value under 255 ends a packet.
    let inPacket = (b[at + 5]! & 0x01) !== 0
    for (let i = 0, p = at + 27 + segments; i < segments; i++) {
      const lacing = b[at + 27 + i]!
      if (!inPacket && lacing > 0) {
        // Packets 0 and 1 of an Opus stream are OpusHead and OpusTags; audio follows.
        if (stream.opus && stream.packets >= 2) samples += opusPacketSamples(b[p]!, lacing > 1 ? b[p + 1] : undefined)
        stream.packets++
      }
      inPacket = lacing === 255
      p += lacing
    }
    at = end
  }
  if (pages === 0) return null
  return [...streams.values()].some((s) => s.opus) ? samples / 48_000 : sizeBound(b)
}

// ─── WebM / Matroska: block timecodes, Opus blocks timed ────────────────────────────────────

const SEGMENT = 0x18538067
const INFO = 0x1549a966
const TIMECODE_SCALE = 0x2ad7b1
const TRACKS = 0x1654ae6b
const TRACK_ENTRY = 0xae
const TRACK_NUMBER = 0xd7
const CODEC_ID = 0x86
const CLUSTER = 0x1f43b675
const CLUSTER_TIMECODE = 0xe7
const SIMPLE_BLOCK = 0xa3
const BLOCK_GROUP = 0xa0
const BLOCK = 0xa1
/** Elements that sit beside clusters in a segment: one of these ends a cluster of unknown size. */
const LEVEL_ONE = new Set([CLUSTER, 0x1c53bb6b, 0x1254c367, 0x1043a770, 0x1941a469, 0x114d9b74, TRACKS, INFO])

/** An EBML (Matroska/WebM) stream begins with the EBML header's id. */
export const isEbml = (b: Uint8Array) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3

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

/** What a WebM's blocks say: the last block's time (seconds), and the samples each track's blocks play if they are Opus. */
export type WebmTiming = { last: number | null; opus: number | null }

/**
 * The blocks of a WebM/Matroska stream: the time of the last one (cluster + block timecodes) and, for
 * the Opus tracks (CodecID A_OPUS), the seconds their packets play — a laced block counted at the
 * longest an Opus packet plays, for each packet it holds.
 */
export function webmTiming(b: Uint8Array): WebmTiming | null {
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
  const opusTracks = new Set<number>()
  const samples = new Map<number, number>() // by track number, as if every track were Opus
  const block = (start: number, end: number, clusterTime: number) => {
    const track = vint(b, start, false)
    if (!track || start + track.length + 3 > end) return
    const at = start + track.length
    last = Math.max(last, clusterTime + new DataView(b.buffer, b.byteOffset + at, 2).getInt16(0))
    const lacing = (b[at + 2]! >> 1) & 3
    const data = at + 3
    if (data >= end) return
    const played = lacing ? (b[data]! + 1) * OPUS_MAX_PACKET_SAMPLES : opusPacketSamples(b[data]!, data + 1 < end ? b[data + 1] : undefined)
    samples.set(track.value, (samples.get(track.value) ?? 0) + played)
  }
  const children = (e: Element, each: (child: Element) => void) => {
    for (let c = e.start; c < e.end; ) {
      const child = element(b, c)
      if (!child) break
      each(child)
      c = child.end
    }
  }
  while (at < segmentEnd) {
    const e = element(b, at)
    if (!e) break
    if (e.id === INFO) {
      children(e, (child) => {
        if (child.id === TIMECODE_SCALE) scale = uint(b, child.start, child.end) || scale
      })
      at = e.end
    } else if (e.id === TRACKS) {
      children(e, (entry) => {
        if (entry.id !== TRACK_ENTRY) return
        let number = -1
        let codec = ''
        children(entry, (field) => {
          if (field.id === TRACK_NUMBER) number = uint(b, field.start, field.end)
          else if (field.id === CODEC_ID) codec = ascii(b, field.start, field.end - field.start)
        })
        if (codec.replace(/\0+$/, '') === 'A_OPUS') opusTracks.add(number)
      })
      at = e.end
    } else if (e.id === CLUSTER) {
      let clusterTime = 0
      let c = e.start
      while (c < e.end) {
        const child = element(b, c)
        if (!child || (e.unknown && LEVEL_ONE.has(child.id))) break
        if (child.id === CLUSTER_TIMECODE) clusterTime = uint(b, child.start, child.end)
        else if (child.id === SIMPLE_BLOCK) block(child.start, child.end, clusterTime)
        else if (child.id === BLOCK_GROUP)
          children(child, (inner) => {
            if (inner.id === BLOCK) block(inner.start, inner.end, clusterTime)
          })
        c = child.end
      }
      at = c
    } else {
      if (e.unknown) break
      at = e.end
    }
  }
  let opus = 0
  for (const track of opusTracks) opus += samples.get(track) ?? 0
  return { last: last > 0 ? (last * scale) / 1e9 : null, opus: opusTracks.size ? opus / 48_000 : null }
}

/** Seconds up to the last block of a WebM/Matroska stream, from the cluster and block timecodes. */
export const webmSeconds = (b: Uint8Array): number | null => webmTiming(b)?.last ?? null

/** A WebM: its Opus packets timed; another codec (Vorbis), the larger of the last block's time and the size bound. */
export function webmAudioSeconds(b: Uint8Array): number | null {
  const timing = webmTiming(b)
  if (!timing) return null
  if (timing.opus !== null) return timing.opus
  return Math.max(timing.last ?? 0, sizeBound(b))
}

// ─── MP4 / M4A: the audio track's access units ──────────────────────────────────────────────

type Box = { type: string; start: number; end: number }

/** The boxes between `from` and `to`: type, body start, end (64-bit sizes and size 0 = to the end included). */
function boxes(b: Uint8Array, from: number, to: number): Box[] {
  const out: Box[] = []
  for (let at = from; at + 8 <= to; ) {
    let size = u32be(b, at)
    let start = at + 8
    if (size === 1) {
      if (at + 16 > to) break
      size = u32be(b, at + 8) * 2 ** 32 + u32be(b, at + 12)
      start = at + 16
    } else if (size === 0) size = to - at
    if (size < start - at) break
    out.push({ type: ascii(b, at + 4, 4), start, end: Math.min(to, at + size) })
    at += size
  }
  return out
}

const child = (b: Uint8Array, box: Box | undefined, type: string) => (box ? boxes(b, box.start, box.end).find((c) => c.type === type) : undefined)

/** MPEG-4 audio (AAC) object types in an esds, and MPEG-1/2 audio (MP3). */
const AAC_OTI = new Set([0x40, 0x66, 0x67, 0x68])
const MP3_OTI = new Set([0x69, 0x6b])

/** The esds's object type and, for AAC, the core sampling rate its AudioSpecificConfig names. */
function esds(b: Uint8Array, box: Box): { oti: number; rate?: number } | null {
  let p = box.start + 4 // version and flags
  const descriptor = () => {
    const tag = b[p++]
    for (let i = 0; i < 4 && b[p++]! & 0x80; i++);
    return tag
  }
  if (descriptor() !== 3) return null
  p += 2 // ES_ID
  const flags = b[p++] ?? 0
  if (flags & 0x80) p += 2
  if (flags & 0x40) p += 1 + (b[p] ?? 0)
  if (flags & 0x20) p += 2
  if (descriptor() !== 4 || p + 13 > box.end) return null
  const oti = b[p]!
  p += 13
  if (descriptor() !== 5 || p + 2 > box.end) return { oti }
  // AudioSpecificConfig: object type (5 bits, 31 escapes 6 more), then the frequency index (15: 24 explicit bits).
  let bit = p * 8
  const bits = (n: number) => {
    let v = 0
    for (let i = 0; i < n; i++, bit++) v = v * 2 + (((b[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1)
    return v
  }
  if (bits(5) === 31) bits(6)
  const index = bits(4)
  const rate = index === 15 ? bits(24) : ADTS_RATES[index]
  return { oti, rate: rate || undefined }
}

/** What one sample plays at most: `samples` at `rate` (null: a codec not walked). */
type Unit = { samples: number; rate: number }
type Track = { id: number; perSample: Unit | null; samples: number }

/** A sound track of a moov: its id, the seconds one sample plays at most (null: a codec not walked) and its sample count. */
function soundTrack(b: Uint8Array, trak: Box): Track | null {
  const tkhd = child(b, trak, 'tkhd')
  const mdia = child(b, trak, 'mdia')
  const hdlr = child(b, mdia, 'hdlr')
  if (!tkhd || !hdlr || ascii(b, hdlr.start + 8, 4) !== 'soun') return null
  const id = u32be(b, tkhd.start + (b[tkhd.start] === 1 ? 20 : 12))
  const stbl = child(b, child(b, mdia, 'minf'), 'stbl')
  const stsd = child(b, stbl, 'stsd')
  let perSample: Unit | null = null
  if (stsd && stsd.start + 44 <= stsd.end) {
    const e = stsd.start + 8 // the first sample entry
    const entryEnd = Math.min(stsd.end, e + u32be(b, e))
    const type = ascii(b, e + 4, 4)
    const entryRate = u16be(b, e + 32) // 16.16 fixed point
    const version = u16be(b, e + 16) // QuickTime's sound description versions add fields
    const inner = e + 36 + (version === 1 ? 16 : version === 2 ? 36 : 0)
    if (type === 'mp4a') {
      const box = boxes(b, inner, entryEnd).find((c) => c.type === 'esds')
      const codec = box ? esds(b, box) : null
      // 1024 samples per AAC access unit at the core rate (960, 512, 480 in other profiles: fewer);
      // the lower of the two rates the file names, AAC's lowest when it names none.
      const rates = [codec?.rate, entryRate].filter((r): r is number => !!r && r > 0)
      if (!codec || AAC_OTI.has(codec.oti)) perSample = { samples: 1024, rate: rates.length ? Math.min(...rates) : 7350 }
      else if (MP3_OTI.has(codec.oti)) perSample = { samples: 1152, rate: rates.length ? Math.min(...rates) : 8000 }
    } else if (type === 'Opus') perSample = { samples: OPUS_MAX_PACKET_SAMPLES, rate: 48_000 }
  }
  let samples = 0
  const stsz = child(b, stbl, 'stsz')
  const stz2 = child(b, stbl, 'stz2')
  if (stsz && stsz.start + 12 <= stsz.end) {
    // The count is bounded by the table it indexes (or, for one size for all, by the file).
    const size = u32be(b, stsz.start + 4)
    const count = u32be(b, stsz.start + 8)
    samples = Math.min(count, size ? Math.floor(b.length / size) : Math.floor((stsz.end - stsz.start - 12) / 4))
  } else if (stz2 && stz2.start + 12 <= stz2.end) {
    const field = b[stz2.start + 7]! || 4
    samples = Math.min(u32be(b, stz2.start + 8), Math.floor(((stz2.end - stz2.start - 12) * 8) / field))
  }
  return { id, perSample, samples }
}

/** Samples a trun lists, bounded by the entries it holds. */
function trunSamples(b: Uint8Array, trun: Box): number {
  if (trun.start + 8 > trun.end) return 0
  const flags = (b[trun.start + 1]! << 16) | (b[trun.start + 2]! << 8) | b[trun.start + 3]!
  const count = u32be(b, trun.start + 4)
  const entries = trun.start + 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0)
  let entryBytes = 0
  for (const f of [0x100, 0x200, 0x400, 0x800]) if (flags & f) entryBytes += 4
  return Math.min(count, entryBytes ? Math.floor(Math.max(0, trun.end - entries) / entryBytes) : b.length)
}

/**
 * An MP4/M4A: the sound tracks' samples (stsz, and the trun of each fragment, as MediaRecorder writes
 * them) × what one plays at most — an AAC access unit 1024 samples at the core rate. mvhd's and
 * mdhd's durations and stts's are claims and not read. A codec not walked (ALAC, FLAC…): the size bound.
 */
export function mp4Seconds(b: Uint8Array): number | null {
  const tracks: Track[] = []
  const fragments = new Map<number, number>()
  for (const top of boxes(b, 0, b.length)) {
    if (top.type === 'moov') {
      for (const trak of boxes(b, top.start, top.end)) {
        const track = trak.type === 'trak' ? soundTrack(b, trak) : null
        if (track) tracks.push(track)
      }
    } else if (top.type === 'moof') {
      for (const traf of boxes(b, top.start, top.end)) {
        if (traf.type !== 'traf') continue
        const parts = boxes(b, traf.start, traf.end)
        const tfhd = parts.find((p) => p.type === 'tfhd')
        if (!tfhd || tfhd.start + 8 > tfhd.end) continue
        const id = u32be(b, tfhd.start + 4)
        for (const trun of parts) if (trun.type === 'trun') fragments.set(id, (fragments.get(id) ?? 0) + trunSamples(b, trun))
      }
    }
  }
  if (tracks.length === 0) return null
  let seconds = 0
  let unwalked = false
  for (const t of tracks) {
    if (t.perSample === null) unwalked = true
    else seconds += ((t.samples + (fragments.get(t.id) ?? 0)) * t.perSample.samples) / t.perSample.rate
  }
  return unwalked ? Math.max(seconds, sizeBound(b)) : seconds
}
