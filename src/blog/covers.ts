// Article covers: files under UPLOADS_DIR/blog-images (DATA_DIR unless set: the storage every
// instance shares) with unguessable names, served publicly at /blog-images/<name> (covers are
// public, like the articles). Only real images are written: the bytes must match the declared
// type and stay under the size limit.
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { randomToken } from '../lib/crypto'

export const COVER_URL_PREFIX = '/blog-images/'
export const COVER_NAME_RE = /^[A-Za-z0-9_-]{32,64}\.(png|jpeg|webp|gif)$/
export const MAX_COVER_BYTES = 10 * 1024 * 1024

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' } as const
type Ext = keyof typeof TYPES

/** The image type the bytes really are (magic numbers), whatever the data URL claimed. */
function sniff(b: Uint8Array): Ext | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png'
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg'
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'webp'
  if (b.length >= 6 && String.fromCharCode(...b.subarray(0, 4)) === 'GIF8') return 'gif'
  return null
}

export function createCoverStore(uploadsDir: string) {
  const dir = join(uploadsDir, 'blog-images')
  mkdirSync(dir, { recursive: true })

  return {
    /** Writes a `data:image/…;base64,…` picture; null when it is not a real image or too large. */
    async saveDataUrl(dataUrl: string): Promise<string | null> {
      const m = /^data:image\/[a-z+.-]+;base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl)
      if (!m) return null
      const bytes = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')
      if (bytes.length === 0 || bytes.length > MAX_COVER_BYTES) return null
      const ext = sniff(bytes)
      if (!ext) return null
      const name = `${randomToken(24)}.${ext}`
      await Bun.write(join(dir, name), bytes)
      return name
    },

    /** Best effort: a leftover file is harmless, a failed request because of one is not. */
    remove(name: string | null | undefined) {
      if (name && COVER_NAME_RE.test(name)) rmSync(join(dir, name), { force: true })
    },

    /** The file behind a public cover URL, or null (bad name, missing file). */
    async open(name: string) {
      if (!COVER_NAME_RE.test(name)) return null
      const file = Bun.file(join(dir, name))
      if (!(await file.exists()) || file.size > MAX_COVER_BYTES) return null
      return { file, type: TYPES[name.split('.').pop() as Ext] }
    },

    path: (name: string) => join(dir, name),
  }
}

export type CoverStore = ReturnType<typeof createCoverStore>

export const coverUrl = (name: string | null) => (name ? COVER_URL_PREFIX + name : null)
