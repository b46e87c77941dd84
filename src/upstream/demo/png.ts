// A small, valid PNG drawn locally: a diagonal gradient between two colours taken from a hash of
// the prompt, so the same prompt always gives the same picture.
import { createHash } from 'node:crypto'
import { deflateSync } from 'node:zlib'

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32 as PNG chunks use it (ISO 3309, over chunk type + data). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  out.set(new TextEncoder().encode(type), 4)
  out.set(data, 8)
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)))
  return out
}

function ihdr(width: number, height: number): Uint8Array {
  const data = new Uint8Array(13)
  const view = new DataView(data.buffer)
  view.setUint32(0, width)
  view.setUint32(4, height)
  data.set([8, 2, 0, 0, 0], 8) // 8-bit depth, truecolour RGB, deflate, adaptive filter, no interlace
  return data
}

/** Raw scanlines (filter byte 0 + RGB triples) of a diagonal gradient from `from` to `to`. */
function gradient(width: number, height: number, from: number[], to: number[]): Uint8Array {
  const rows = new Uint8Array(height * (1 + width * 3))
  const span = Math.max(1, width + height - 2)
  let i = 0
  for (let y = 0; y < height; y++) {
    rows[i++] = 0
    for (let x = 0; x < width; x++) {
      const t = (x + y) / span
      for (let c = 0; c < 3; c++) rows[i++] = Math.round(from[c]! + (to[c]! - from[c]!) * t)
    }
  }
  return rows
}

export function encodePng(width: number, height: number, from: number[], to: number[]): Uint8Array {
  const parts = [SIGNATURE, chunk('IHDR', ihdr(width, height)), chunk('IDAT', deflateSync(gradient(width, height, from, to))), chunk('IEND', new Uint8Array(0))]
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

const SHORT_SIDE = 64
const LONG_SIDE_MAX = 512

/** "16:9" → 114×64: the short side is 64 px, the ratio is kept loosely; unknown ratios give 64×64. */
export function sizeForAspectRatio(ratio: unknown): { width: number; height: number } {
  const m = typeof ratio === 'string' ? /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(ratio.trim()) : null
  const w = m ? Number(m[1]) : 1
  const h = m ? Number(m[2]) : 1
  if (!(w > 0 && h > 0)) return { width: SHORT_SIDE, height: SHORT_SIDE }
  const long = (a: number, b: number) => Math.min(LONG_SIDE_MAX, Math.round((SHORT_SIDE * a) / b))
  return w >= h ? { width: long(w, h), height: SHORT_SIDE } : { width: SHORT_SIDE, height: long(h, w) }
}

/** A `data:image/png;base64,…` URL of the prompt's gradient. */
export function promptImageDataUrl(prompt: string, aspectRatio?: unknown): string {
  const digest = createHash('sha256').update(prompt).digest()
  const { width, height } = sizeForAspectRatio(aspectRatio)
  const png = encodePng(width, height, [...digest.subarray(0, 3)], [...digest.subarray(3, 6)])
  return `data:image/png;base64,${Buffer.from(png).toString('base64')}`
}
