// Recordings made in code for the voice tests: WAV through src/lib/wav.ts, and an Ogg Opus stream
// as a messenger's voice message is stored — OpusHead and OpusTags pages, then audio pages whose
// granule positions say how long it plays (RFC 7845). The audio packets are silent CELT frames:
// enough for any duration reader and for the fake router, which does not decode them. And the
// hostile ones (issue 33): an MP3 whose Xing header, a WAV whose data size, lies about the length.
import { oggCrc } from '../lib/audio-frames'
import { toneWav } from '../lib/wav'

export { toneWav, wavFile } from '../lib/wav'

const SERIAL = 0x5e1ec7

/** One Ogg page holding whole `packets` (each under 255 bytes), ending at `granule`. */
function oggPage(packets: Uint8Array[], granule: bigint, sequence: number, flags: number): Uint8Array {
  const body = Buffer.concat(packets)
  const header = Buffer.alloc(27 + packets.length)
  header.write('OggS', 0, 'latin1')
  header[5] = flags
  header.writeBigInt64LE(granule, 6)
  header.writeUInt32LE(SERIAL, 14)
  header.writeUInt32LE(sequence, 18)
  header[26] = packets.length
  packets.forEach((p, i) => {
    header[27 + i] = p.length
  })
  const page = Buffer.concat([header, body])
  page.writeUInt32LE(oggCrc(page), 22)
  return page
}

const PRE_SKIP = 312
/** A 20 ms CELT fullband frame of silence (TOC config 31, one frame). */
const SILENT_FRAME = Uint8Array.of(0xf8, 0xff, 0xfe)

/** An Ogg Opus file that plays for `seconds` (20 ms frames, 50 to a page). */
export function oggOpus(seconds: number): Uint8Array {
  const head = Buffer.alloc(19)
  head.write('OpusHead', 0, 'latin1')
  head[8] = 1 // version
  head[9] = 1 // mono
  head.writeUInt16LE(PRE_SKIP, 10)
  head.writeUInt32LE(48_000, 12)
  const vendor = 'gateway-tests'
  const tags = Buffer.alloc(16 + vendor.length)
  tags.write('OpusTags', 0, 'latin1')
  tags.writeUInt32LE(vendor.length, 8)
  tags.write(vendor, 12, 'latin1')
  const pages = [oggPage([head], 0n, 0, 0x02), oggPage([tags], 0n, 1, 0)]
  const frames = Math.max(1, Math.round(seconds * 50))
  let granule = BigInt(PRE_SKIP)
  for (let done = 0, seq = 2; done < frames; seq++) {
    const count = Math.min(50, frames - done)
    done += count
    granule += BigInt(count * 960)
    pages.push(
      oggPage(
        Array.from({ length: count }, () => SILENT_FRAME),
        granule,
        seq,
        done === frames ? 0x04 : 0,
      ),
    )
  }
  return Buffer.concat(pages)
}

/**
 * An MP3 (MPEG-1 Layer III, 32 kbit/s, 44.1 kHz, mono) of silent frames playing `seconds`, whose
 * first frame is a Xing header claiming `claimedFrames` frames in all — what music-metadata and
 * every player that trusts it report, however many frames follow.
 */
export function mp3WithXing(seconds: number, claimedFrames = 1): Uint8Array {
  const FRAME = 104 // 144 × 32 000 / 44 100, unpadded
  const frames = Math.max(2, Math.round((seconds * 44_100) / 1152))
  const out = new Uint8Array(frames * FRAME)
  for (let i = 0; i < frames; i++) out.set([0xff, 0xfb, 0x10, 0xc0], i * FRAME)
  const xing = new DataView(out.buffer, 4 + 17) // after the header and mono side info
  out.set([0x58, 0x69, 0x6e, 0x67], 4 + 17) // "Xing"
  xing.setUint32(4, 0x3) // frames and bytes fields present
  xing.setUint32(8, claimedFrames)
  xing.setUint32(12, claimedFrames * FRAME)
  return out
}

/** Seconds the frames of mp3WithXing(seconds) really play. */
export const mp3WithXingSeconds = (seconds: number) => (Math.max(2, Math.round((seconds * 44_100) / 1152)) * 1152) / 44_100

/**
 * toneWav(`seconds`) whose RIFF size, data size and a `fact` chunk's sample count all claim
 * `claimedSeconds` (16 kHz, 16-bit mono): music-metadata takes the fact chunk at its word.
 */
export function wavClaiming(seconds: number, claimedSeconds: number): Uint8Array {
  const wav = toneWav(seconds)
  const claimed = Math.round(claimedSeconds * 16_000)
  const out = new Uint8Array(wav.length + 12)
  out.set(wav.subarray(0, 36))
  out.set([0x66, 0x61, 0x63, 0x74, 4, 0, 0, 0], 36) // "fact", 4 bytes
  out.set(wav.subarray(36), 48)
  const view = new DataView(out.buffer)
  view.setUint32(44, claimed, true)
  view.setUint32(4, 48 + claimed * 2 - 8, true)
  view.setUint32(52, claimed * 2, true)
  return out
}
