// Generated images: stored under UPLOADS_DIR/generated (shared by every instance) with unguessable
// names and served by a signed, expiring URL, so SDK clients can download them without our
// credentials. Each belongs to the customer who generated it (gateway/schema.ts): a link is served
// only while its owner's account is alive, and renewed only for its owner.
//
// Pictures generated before owners were recorded have no row. The Playground saved the assistant
// message with a picture as it was generated, so the earliest chat message naming a picture is its
// generator's: such a picture gets that owner the first time a renewal, a signed link or an erasure
// meets it (insert-once, so no start-up scan). A picture no chat names (generated through the API
// only) stays ownerless and is no longer served: its links expired within 7 days anyway.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config'
import type { Db } from '../db/types'
import { randomToken } from '../lib/crypto'
import { gatewayStore } from './store'

const TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' }
const URL_TTL_SEC = 7 * 24 * 3600
export const FILE_NAME_RE = /^[A-Za-z0-9_-]{32,64}\.(png|jpe?g|webp|gif)$/
/** How many names no chat named a process remembers (the oldest is forgotten first). */
const UNNAMED_MAX = 10_000

/** What the chats tell about pictures generated before owners were recorded (chats/service.ts chatPictures). */
export type ChatPictures = {
  /** The account whose chat message names the picture earliest, and when. */
  firstNamer(name: string): Promise<{ userId: string; at: Date } | undefined>
  /** The pictures an account's own chats name. */
  namedBy(userId: string): Promise<string[]>
}

export function createImageStore(config: Config, db: Db, chats?: ChatPictures) {
  const dir = join(config.uploadsDir, 'generated')
  mkdirSync(dir, { recursive: true })
  const store = gatewayStore(db)
  const sign = (name: string, exp: number) => createHmac('sha256', config.jwtSecret).update(`${name}:${exp}`).digest('base64url')
  function signedUrl(name: string, now = Date.now()): string {
    const exp = Math.floor(now / 1000) + URL_TTL_SEC
    return `${config.publicUrl}/v1/files/${name}?exp=${exp}&sig=${sign(name, exp)}`
  }

  // Names a signed link asked for that no chat named: not looked up again by this process (the
  // lookup reads every message). Renewals and erasures look anyway: their own chat names the picture.
  const unnamed = new Set<string>()

  /** The picture's owner, given to it first if it predates owners and its file is still here. */
  async function ownerOf(name: string, remember = false) {
    const owner = await store.ownerOf(name)
    if (owner || !chats || (remember && unnamed.has(name))) return owner
    if (!(await Bun.file(join(dir, name)).exists())) return undefined
    const first = await chats.firstNamer(name)
    if (!first) {
      if (remember) {
        if (unnamed.size >= UNNAMED_MAX) unnamed.delete(unnamed.values().next().value!)
        unnamed.add(name)
      }
      return undefined
    }
    await store.claimImage({ name, userId: first.userId, createdAt: first.at })
    return store.ownerOf(name)
  }

  return {
    /** Saves a `data:image/…;base64,…` URL as `userId`'s; returns its file name, or null if it is not an image. */
    async saveDataUrl(dataUrl: string, userId: string): Promise<{ name: string; b64: string; mime: string } | null> {
      const m = dataUrl.match(/^data:image\/(png|jpeg|jpg|webp|gif);base64,([A-Za-z0-9+/=\s]+)$/)
      if (!m) return null
      const ext = m[1] === 'jpg' ? 'jpeg' : m[1]!
      const b64 = m[2]!.replace(/\s+/g, '')
      const name = `${randomToken(24)}.${ext}`
      await Bun.write(join(dir, name), Buffer.from(b64, 'base64'))
      await store.insertImage({ name, userId, createdAt: new Date() })
      return { name, b64, mime: TYPES[ext]! }
    },

    signedUrl,

    /** A fresh link to one of `userId`'s own pictures; null for anyone else's (or an unknown name). */
    async renewFor(userId: string, name: string): Promise<string | null> {
      if (!FILE_NAME_RE.test(name)) return null
      const owner = await ownerOf(name)
      return owner?.alive && owner.userId === userId ? signedUrl(name) : null
    },

    /** The file for a valid, unexpired signature whose owner's account is alive; null otherwise. */
    async open(name: string, exp: string | undefined, sig: string | undefined) {
      if (!FILE_NAME_RE.test(name) || !exp || !sig || !/^\d+$/.test(exp)) return null
      if (Number(exp) * 1000 < Date.now()) return null
      const expected = Buffer.from(sign(name, Number(exp)))
      const given = Buffer.from(sig)
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null
      if (!(await ownerOf(name, true))?.alive) return null
      const file = Bun.file(join(dir, name))
      if (!(await file.exists())) return null
      return { file, type: TYPES[name.split('.').pop()!] ?? 'application/octet-stream' }
    },

    /**
     * Before an account is erased: the pictures its chats name that predate owners get their owner,
     * so those that turn out to be its own go with the others (and the rest stay with theirs).
     */
    async claimNamedBy(userId: string) {
      for (const name of chats ? await chats.namedBy(userId) : []) if (FILE_NAME_RE.test(name)) await ownerOf(name)
    },

    /** Removes the bytes of pictures whose rows are gone (account deletion). */
    removeStored(names: string[]) {
      for (const name of names) if (FILE_NAME_RE.test(name)) rmSync(join(dir, name), { force: true })
    },
  }
}

export type ImageStore = ReturnType<typeof createImageStore>
