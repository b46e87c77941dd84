// Playground attachments: checked by content, stored under UPLOADS_DIR/uploads (DATA_DIR unless set;
// the storage every instance shares when there are several) with random names,
// readable by their owner (session) or through a signed, expiring URL (the model provider and
// the browser's <img> tags fetch those without credentials).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config'
import type { Db } from '../db/types'
import { newId, randomToken } from '../lib/crypto'
import { AppError, badRequest } from '../lib/errors'
import type { UploadRow } from './schema'
import { sniff } from './sniff'
import { uploadsStore } from './store'

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024
/** What one customer may keep stored: attachments go when their chat is deleted. */
export const USER_QUOTA_BYTES = 1024 * 1024 * 1024
const URL_TTL_SEC = 7 * 24 * 3600
const MAX_FILENAME = 255
export const UPLOAD_NAME_RE = /^[A-Za-z0-9_-]{32}$/

export const UPLOAD_MESSAGES = {
  tooLarge: 'Файл слишком большой (макс. 20MB)',
  failed: 'Ошибка загрузки файла',
  noFile: 'Выберите файл для загрузки',
  empty: 'Файл пустой',
  type: 'Недопустимый тип файла. Можно загрузить изображения (PNG, JPEG, GIF, WebP), PDF, TXT, JSON и CSV',
  mismatch: 'Содержимое файла не соответствует его типу',
  quota: 'Превышен объём хранилища файлов (1 ГБ). Удалите старые чаты с вложениями.',
  notFound: 'Файл не найден',
  badLink: 'Ссылка на файл недействительна или устарела',
} as const

/** Control characters and path separators never reach a header or the UI; the name is for display only. */
function cleanFilename(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? ''
  const clean = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is stripped
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, MAX_FILENAME)
  return clean || 'file'
}

export type PublicUpload = { id: string; url: string; filename: string; mimetype: string; size: number }

export function uploadsService(config: Config, db: Db) {
  const store = uploadsStore(db)
  const dir = join(config.uploadsDir, 'uploads')
  mkdirSync(dir, { recursive: true })
  const sign = (name: string, exp: number) => createHmac('sha256', config.jwtSecret).update(`upload:${name}:${exp}`).digest('base64url')

  function signedUrl(name: string, now = Date.now()): string {
    const exp = Math.floor(now / 1000) + URL_TTL_SEC
    return `${config.publicUrl}/api/uploads/${name}?exp=${exp}&sig=${sign(name, exp)}`
  }

  const toPublic = (u: UploadRow): PublicUpload => ({ id: u.id, url: signedUrl(u.name), filename: u.filename, mimetype: u.mimetype, size: u.size })

  function validSignature(name: string, exp: string, sig: string): boolean {
    if (!/^\d{1,12}$/.test(exp) || Number(exp) * 1000 < Date.now()) return false
    const expected = Buffer.from(sign(name, Number(exp)))
    const given = Buffer.from(sig)
    return expected.length === given.length && timingSafeEqual(expected, given)
  }

  return {
    signedUrl,
    toPublic,

    async save(userId: string, file: File): Promise<PublicUpload> {
      if (file.size > MAX_UPLOAD_BYTES) throw new AppError(413, UPLOAD_MESSAGES.tooLarge)
      const filename = cleanFilename(file.name ?? '')
      const bytes = new Uint8Array(await file.arrayBuffer())
      const kind = sniff(bytes, filename)
      if (!kind.ok) throw badRequest(UPLOAD_MESSAGES[kind.reason])
      if ((await store.totalSizeForUser(userId)) + bytes.length > USER_QUOTA_BYTES) throw badRequest(UPLOAD_MESSAGES.quota)
      const row: UploadRow = { id: newId(), userId, name: randomToken(24), filename, mimetype: kind.mimetype, size: bytes.length, createdAt: new Date() }
      try {
        await Bun.write(join(dir, row.name), bytes)
      } catch (e) {
        console.error(`[uploads] write failed: ${(e as Error).message}`)
        throw new AppError(500, UPLOAD_MESSAGES.failed)
      }
      await store.insert(row)
      return toPublic(row)
    },

    /**
     * The file behind a URL: with a valid signature for anyone, otherwise only for its owner.
     * `viewerId` is the signed-in user (or null).
     */
    async open(
      name: string,
      access: { exp?: string; sig?: string; viewerId: string | null },
    ): Promise<{ error: 401 | 403 | 404 } | { error: null; row: UploadRow; file: ReturnType<typeof Bun.file> }> {
      if (!UPLOAD_NAME_RE.test(name)) return { error: 404 as const }
      if (access.exp !== undefined || access.sig !== undefined) {
        if (!access.exp || !access.sig || !validSignature(name, access.exp, access.sig)) return { error: 403 as const }
      } else if (!access.viewerId) return { error: 401 as const }
      const row = await store.byNameOfLiveOwner(name)
      if (!row) return { error: 404 as const }
      if (access.sig === undefined && row.userId !== access.viewerId) return { error: 404 as const }
      return { error: null, row, file: Bun.file(join(dir, row.name)) }
    },

    /** The caller's own uploads among `ids` (others' and unknown ids are left out). */
    ownedByIds: (userId: string, ids: string[]) => store.byIdsForUser([...new Set(ids)], userId),

    /** An upload's id from one of its URLs (signed or not), if the URL is ours. */
    nameFromUrl(url: string): string | null {
      const m = url.match(/\/api\/uploads\/([A-Za-z0-9_-]{32})(?:[?#]|$)/)
      return m ? m[1]! : null
    },
    byName: (name: string) => store.byName(name),

    /** Deletes rows and bytes (chat deletion). */
    async remove(ids: string[]) {
      for (const { name } of await store.deleteByIds(ids)) rmSync(join(dir, name), { force: true })
    },
    /** Removes the bytes of uploads whose rows are gone (account deletion). */
    removeStored(names: string[]) {
      for (const name of names) if (UPLOAD_NAME_RE.test(name)) rmSync(join(dir, name), { force: true })
    },
  }
}

export type UploadsService = ReturnType<typeof uploadsService>
