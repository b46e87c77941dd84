// The duration a transcription is held on comes from what plays — frames, samples, packets — and
// never from what a header claims (issue 33): each format with a header that lies, junk around the
// frames, and files built to make the reader slow.
import { describe, expect, test } from 'bun:test'
import { parseBuffer } from 'music-metadata'
import { mp3WithXing, mp3WithXingSeconds, oggOpus, toneWav, wavClaiming } from '../test-support/audio'
import { audioInfo } from './audio-duration'
import { FLOOR_BYTES_PER_SECOND, oggCrc, opusPacketSamples } from './audio-frames'

const bytes = (...parts: (number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((p) => [...p]))
const text = (s: string) => [...s].map((c) => c.charCodeAt(0))
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff]

describe('MP3: the frames, not the Xing header', () => {
  test('a Xing header claiming one frame over 5 MB of frames: music-metadata believes it, the hold does not', async () => {
    const mp3 = mp3WithXing(1300)
    expect(mp3.length).toBeGreaterThan(5_000_000)
    expect((await parseBuffer(mp3, undefined, { duration: true })).format.duration).toBeCloseTo(0.026, 3)
    expect(await audioInfo(mp3)).toEqual({ format: 'mp3', seconds: mp3WithXingSeconds(1300) })
  })

  test('behind an ID3v2 tag or junk, with a junk byte after every frame, before an ID3v1 tag: every frame counts', async () => {
    const frames = mp3WithXing(10)
    const real = mp3WithXingSeconds(10)
    const id3 = [...text('ID3'), 4, 0, 0, 0, 0, 1, 0, ...new Array(128).fill(0)] // a 128-byte tag
    expect((await audioInfo(bytes(id3, frames)))!.seconds).toBe(real)
    expect((await audioInfo(bytes(new Array(300).fill(0x20), frames)))!.seconds).toBe(real)
    expect((await audioInfo(bytes(frames, text('TAG'), new Array(125).fill(0))))!.seconds).toBeGreaterThanOrEqual(real)
    // A decoder resyncs past a stray byte and plays the next frame; so does the count.
    const interleaved = bytes(...Array.from({ length: frames.length / 104 }, (_, i) => [...frames.subarray(i * 104, (i + 1) * 104), 0x00]))
    expect((await audioInfo(interleaved))!.seconds).toBeGreaterThanOrEqual(real)
  })
})

describe('WAV: the samples present, not the data size declared', () => {
  test('a header claiming 11 hours over one second holds one second; one claiming 1 s over 60 s holds 60 s', async () => {
    expect(await audioInfo(wavClaiming(1, 11 * 3600))).toEqual({ format: 'wav', seconds: 1 })
    expect(await audioInfo(wavClaiming(60, 1))).toEqual({ format: 'wav', seconds: 60 })
    expect(await audioInfo(toneWav(2.5))).toEqual({ format: 'wav', seconds: 2.5 })
  })

  test('extensible PCM is timed; a compressed codec is bounded by its size; no fmt before data is refused', async () => {
    const wav = toneWav(2)
    // WAVE_FORMAT_EXTENSIBLE with a PCM sub-format: a 40-byte fmt chunk.
    const ext = bytes(wav.subarray(0, 16), [40, 0, 0, 0, 0xfe, 0xff], wav.subarray(22, 36), [22, 0, 16, 0, 4, 0, 0, 0, 1, 0, ...new Array(14).fill(0)], wav.subarray(36))
    expect(await audioInfo(ext)).toEqual({ format: 'wav', seconds: 2 })
    const adpcm = toneWav(2)
    adpcm[20] = 0x11 // IMA ADPCM: not walked
    expect(await audioInfo(adpcm)).toEqual({ format: 'wav', seconds: 64_000 / FLOOR_BYTES_PER_SECOND })
    expect(await audioInfo(bytes(wav.subarray(0, 12), wav.subarray(36)))).toBeNull()
  })
})

// ─── FLAC ──────────────────────────────────────────────────────────────────────────

const crc8 = (data: number[]) => {
  let c = 0
  for (const b of data) {
    c ^= b
    for (let i = 0; i < 8; i++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff
  }
  return c
}
/** UTF-8-style coding of a frame number (FLAC). */
const utf8 = (n: number) => [...new TextEncoder().encode(String.fromCodePoint(n))]

/** A FLAC stream of `frames` 4096-sample mono frames at 44.1 kHz whose STREAMINFO claims `claimedSamples`. */
function flac(frames: number, claimedSamples: number): Uint8Array {
  // Block sizes, frame sizes, then 44 100 Hz (20 bits), mono, 16 bits, the total (36 bits), the MD5.
  const info = [...u16be(4096), ...u16be(4096), 0, 0, 0, 0, 0, 0, 0x0a, 0xc4, 0x40, 0xf0, ...u32be(claimedSamples), ...new Array(16).fill(0)]
  const streaminfo = [0x80, 0, 0, 34, ...info]
  const out: number[] = [...text('fLaC'), ...streaminfo]
  for (let i = 0; i < frames; i++) {
    const header = [0xff, 0xf8, 0xc9, 0x08, ...utf8(i)] // 4096 samples, 44.1 kHz, mono, 16 bits
    out.push(...header, crc8(header), 0x00, 0x00, 0x00, 0x00, 0x12, 0x34) // a constant subframe, CRC-16
  }
  return Uint8Array.from(out)
}

describe('FLAC: the frames, not STREAMINFO', () => {
  test('STREAMINFO claiming one sample over 200 frames holds the 200 frames', async () => {
    expect(await audioInfo(flac(200, 1))).toEqual({ format: 'flac', seconds: (200 * 4096) / 44_100 })
  })
})

// ─── Ogg ───────────────────────────────────────────────────────────────────────────

/** Every page of an Ogg file with its granule position set to `granule` (CRCs rewritten). */
function oggWithGranule(file: Uint8Array, granule: bigint): Uint8Array {
  const out = Buffer.from(file)
  for (let at = 0; at < out.length; ) {
    const segments = out[at + 26]!
    let end = at + 27 + segments
    for (let i = 0; i < segments; i++) end += out[at + 27 + i]!
    if (out.readBigInt64LE(at + 6) > 0n) out.writeBigInt64LE(granule, at + 6)
    out.writeUInt32LE(oggCrc(out.subarray(at, end), 22), at + 22)
    at = end
  }
  return out
}

describe('Ogg: the Opus packets, not the granule positions', () => {
  test('pages claiming 1 s over 30 s of packets hold 30 s; a page with a bad CRC is skipped as a decoder skips it', async () => {
    expect((await audioInfo(oggOpus(30)))!.seconds).toBeCloseTo(30, 9)
    const lying = oggWithGranule(oggOpus(30), 48_000n)
    expect((await parseBuffer(lying, { mimeType: 'audio/ogg' }, { duration: true })).format.duration).toBeLessThan(1.1)
    expect((await audioInfo(lying))!.seconds).toBeCloseTo(30, 9)
    const corrupt = Buffer.from(oggOpus(30))
    corrupt[corrupt.length - 10] = corrupt[corrupt.length - 10]! ^ 0xff // the last page (its 50 frames): 29 s remain
    expect((await audioInfo(corrupt))!.seconds).toBeCloseTo(29, 9)
  })

  test('TOC durations: SILK 60 ms, CELT 2.5 ms ×48, at most 120 ms a packet', () => {
    expect(opusPacketSamples(0b00011_000, undefined)).toBe(2880) // SILK NB 60 ms, one frame
    expect(opusPacketSamples(0b10000_011, 48)).toBe(5760) // CELT 2.5 ms × 48
    expect(opusPacketSamples(0b00011_011, 63)).toBe(5760) // 63 × 60 ms is not a packet: capped
  })

  test('Vorbis (not walked) is bounded by its size at 6 kbit/s', async () => {
    const head = Buffer.from(oggOpus(1))
    head.write('\x01vorbis\0', 28, 'latin1') // the first packet no longer says OpusHead
    const info = await audioInfo(oggWithGranule(head, 1n))
    expect(info).toEqual({ format: 'ogg', seconds: head.length / FLOOR_BYTES_PER_SECOND })
  })
})

// ─── ADTS, WebM, M4A ───────────────────────────────────────────────────────────────

describe('ADTS AAC, WebM Opus, M4A AAC: what plays', () => {
  test('ADTS: 1024 samples per raw data block of every frame', async () => {
    const frame = (blocks: number) => {
      const length = 20
      return [0xff, 0xf1, (1 << 6) | (8 << 2), 0x40 | ((length >> 11) & 3), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc | (blocks - 1), ...new Array(13).fill(0)]
    }
    const adts = bytes(...Array.from({ length: 100 }, (_, i) => frame(i % 2 ? 2 : 1)))
    expect(await audioInfo(adts)).toEqual({ format: 'aac', seconds: (150 * 1024) / 16_000 })
  })

  // EBML helpers: an element with a one-byte size, and one of unknown size.
  const el = (id: number[], body: number[]) => [...id, 0x80 | body.length, ...body]
  const unknown = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
  const header = el([0x1a, 0x45, 0xdf, 0xa3], el([0x42, 0x82], text('webm')))
  const tracks = (codec: string) => el([0x16, 0x54, 0xae, 0x6b], el([0xae], [...el([0xd7], [1]), ...el([0x86], text(codec))]))

  test('WebM: an Opus track’s packets, whatever the timecodes say; another codec: the size bound', async () => {
    // 500 blocks of one 20 ms CELT packet, every timecode 0: the timecodes claim nothing, the packets play 10 s.
    const block = el([0xa3], [0x81, 0, 0, 0x80, 0xf8, 0xff, 0xfe])
    const cluster = [0x1f, 0x43, 0xb6, 0x75, ...unknown, ...el([0xe7], [0]), ...Array.from({ length: 500 }, () => block).flat()]
    const opus = bytes(header, [0x18, 0x53, 0x80, 0x67], unknown, tracks('A_OPUS'), cluster)
    expect(await audioInfo(opus)).toEqual({ format: 'webm', seconds: 10 })
    // A laced block of 3 packets counts 3 × 120 ms.
    const laced = bytes(
      header,
      [0x18, 0x53, 0x80, 0x67],
      unknown,
      tracks('A_OPUS'),
      [0x1f, 0x43, 0xb6, 0x75, ...unknown],
      el([0xa3], [0x81, 0, 0, 0x82, 2, 3, 3, 0xf8, 0xff, 0xfe]),
    )
    expect((await audioInfo(laced))!.seconds).toBeCloseTo(0.36, 9)
    const vorbis = bytes(header, [0x18, 0x53, 0x80, 0x67], unknown, tracks('A_VORBIS'), cluster)
    expect(await audioInfo(vorbis)).toEqual({ format: 'webm', seconds: vorbis.length / FLOOR_BYTES_PER_SECOND })
  })

  const box = (type: string, ...body: (number[] | Uint8Array)[]) => {
    const inner = bytes(...body)
    return bytes(u32be(8 + inner.length), text(type), inner)
  }
  const full = (type: string, ...body: number[][]) => box(type, [0, 0, 0, 0], ...body)
  /** A sound track: AAC at 44.1 kHz in its sample entry and AudioSpecificConfig, `count` samples in stsz. */
  const aacTrak = (count: number, entryRate = 44_100) =>
    box(
      'trak',
      full('tkhd', new Array(8).fill(0), u32be(1), new Array(68).fill(0)),
      box(
        'mdia',
        full('mdhd', new Array(20).fill(0)), // its duration: not read
        full('hdlr', [0, 0, 0, 0], text('soun'), new Array(13).fill(0)),
        box(
          'minf',
          box(
            'stbl',
            full('stsd', u32be(1), [
              ...box(
                'mp4a',
                new Array(6).fill(0),
                [0, 1],
                new Array(8).fill(0),
                [0, 1, 0, 16, 0, 0, 0, 0],
                [...u16be(entryRate), 0, 0],
                // esds: ES_Descriptor → DecoderConfig (AAC) → AudioSpecificConfig (AAC LC, 44.1 kHz, mono)
                full('esds', [0x03, 25, 0, 1, 0, 0x04, 17, 0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 2, 0x12, 0x08]),
              ),
            ]),
            full('stsz', u32be(0), u32be(count), ...Array.from({ length: count }, () => u32be(6))),
          ),
        ),
      ),
    )

  test('M4A: AAC access units × 1024 samples at the core rate; fragments counted; mvhd not read', async () => {
    const ftyp = box('ftyp', text('M4A '), u32be(0), text('isomM4A '))
    const plain = bytes(ftyp, box('moov', full('mvhd', new Array(96).fill(0)), aacTrak(1000)), box('mdat', new Array(6000).fill(0)))
    expect(await audioInfo(plain)).toEqual({ format: 'm4a', seconds: (1000 * 1024) / 44_100 })
    // The sample entry says 8 kHz: the lower rate the file names is held (a longer duration).
    const low = bytes(ftyp, box('moov', aacTrak(1000, 8000)), box('mdat', new Array(6000).fill(0)))
    expect((await audioInfo(low))!.seconds).toBe((1000 * 1024) / 8000)
    // As MediaRecorder writes it: no samples in the moov, 300 + 200 in two fragments.
    const fragment = (count: number) =>
      box('moof', box('traf', full('tfhd', u32be(1)), box('trun', [0, 0, 0x02, 0x00], u32be(count), ...Array.from({ length: count }, () => u32be(6)))))
    const fragmented = bytes(ftyp, box('moov', aacTrak(0)), fragment(300), box('mdat', new Array(1800).fill(0)), fragment(200), box('mdat', new Array(1200).fill(0)))
    expect(await audioInfo(fragmented)).toEqual({ format: 'm4a', seconds: (500 * 1024) / 44_100 })
    // No sound track: refused.
    expect(await audioInfo(bytes(ftyp, box('mdat', new Array(100).fill(0))))).toBeNull()
  })
})

describe('hostile bytes are refused or bounded, and read in one pass', () => {
  test('25 MB of 0xFF, of false Ogg pages, of junk behind an ID3 tag', async () => {
    const ff = new Uint8Array(25 * 1024 * 1024).fill(0xff)
    expect(await audioInfo(ff, 'mp3')).toBeNull()
    ff.set([...text('ID3'), 3, 0, 0, 0, 0, 0, 0])
    expect(await audioInfo(ff, 'mp3')).toBeNull()
    // A false page header every 283 bytes, each claiming 64 KB of segments.
    const pages = new Uint8Array(25 * 1024 * 1024)
    for (let at = 0; at + 300 < pages.length; at += 283) {
      pages.set(text('OggS'), at)
      pages[at + 26] = 255
      pages.fill(255, at + 27, at + 27 + 255)
    }
    expect(await audioInfo(pages)).toBeNull()
    const flacJunk = new Uint8Array(25 * 1024 * 1024).fill(0xff)
    flacJunk.set([...text('fLaC'), 0x80, 0, 0, 0])
    expect(await audioInfo(flacJunk)).toBeNull()
  })
})
