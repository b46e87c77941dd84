// Generated images: stored under DATA_DIR/generated with unguessable names and served by a signed,
// expiring URL, so SDK clients can download them without our credentials.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config'
import { randomToken } from '../lib/crypto'

const TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' }
const URL_TTL_SEC = 7 * 24 * 3600
export const FILE_NAME_RE = /^[A-Za-z0-9_-]{32,64}\.(png|jpe?g|webp|gif)$/

export function createImageStore(config: Config) {
  const dir = join(config.uploadsDir, 'generated')
  mkdirSync(dir, { recursive: true })
  const sign = (name: string, exp: number) => createHmac('sha256', config.jwtSecret).update(`${name}:${exp}`).digest('base64url')

  return {
    /** Saves a `data:image/…;base64,…` URL; returns its file name, or null if it is not an image. */
    async saveDataUrl(dataUrl: string): Promise<{ name: string; b64: string; mime: string } | null> {
      const m = dataUrl.match(/^data:image\/(png|jpeg|jpg|webp|gif);base64,([A-Za-z0-9+/=\s]+)$/)
      if (!m) return null
      const ext = m[1] === 'jpg' ? 'jpeg' : m[1]!
      const b64 = m[2]!.replace(/\s+/g, '')
      const name = `${randomToken(24)}.${ext}`
      await Bun.write(join(dir, name), Buffer.from(b64, 'base64'))
      return { name, b64, mime: TYPES[ext]! }
    },

    signedUrl(name: string, now = Date.now()): string {
      const exp = Math.floor(now / 1000) + URL_TTL_SEC
      return `${config.publicUrl}/v1/files/${name}?exp=${exp}&sig=${sign(name, exp)}`
    },

    /** The file for a valid, unexpired signature; null otherwise. */
    open(name: string, exp: string | undefined, sig: string | undefined) {
      if (!FILE_NAME_RE.test(name) || !exp || !sig || !/^\d+$/.test(exp)) return null
      if (Number(exp) * 1000 < Date.now()) return null
      const expected = Buffer.from(sign(name, Number(exp)))
      const given = Buffer.from(sig)
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null
      const file = Bun.file(join(dir, name))
      return { file, type: TYPES[name.split('.').pop()!] ?? 'application/octet-stream' }
    },
  }
}

export type ImageStore = ReturnType<typeof createImageStore>
