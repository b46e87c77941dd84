// Attachments: a quick check in the browser (the server decides by content), and how each kind
// reaches the model — built here, in the browser, as OpenAI content parts:
//   images → image_url parts, PDFs → file parts, txt/json/csv → text parts with the file's text.
// Pictures and PDFs go as the signed link when the server's public address is reachable from the
// internet (https, not localhost), so the provider downloads them itself; otherwise (a local
// install) as data URLs read from the file, because the provider could not reach the link.
import type { AttachKinds, ContentPart, UploadedFile } from '../types'

export const MAX_FILE_BYTES = 20 * 1024 * 1024
export const MAX_ATTACHMENTS = 10
export const FILE_TOO_LARGE = 'Файл слишком большой (макс. 20MB)'
export const FILE_TYPE_ERROR = 'Недопустимый тип файла. Можно загрузить изображения, PDF, TXT, JSON и CSV'
export const NO_IMAGES_ERROR = 'Эта модель не принимает изображения. Выберите модель с поддержкой изображений'
export const NO_FILES_ERROR = 'Эта модель не читает PDF: прикрепите изображение или текстовый файл'
const IMAGE_ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,.png,.jpg,.jpeg,.gif,.webp'
const FILE_ACCEPT = 'application/pdf,text/plain,application/json,text/csv,.txt,.json,.csv,.md,.pdf'
/** What the file picker offers (the server checks the content anyway). */
export const ACCEPT = `${IMAGE_ACCEPT},${FILE_ACCEPT}`

const TEXT_ACCEPT = 'text/plain,application/json,text/csv,.txt,.json,.csv,.md'

/**
 * The picker's accept list for what the model reads (models.ts attachKinds): pictures need vision,
 * PDFs the file modality; text files are sent as text, so any model that takes attachments reads them.
 */
export function acceptFor(kinds: AttachKinds): string {
  if (kinds.files) return kinds.images ? ACCEPT : FILE_ACCEPT
  return kinds.images ? `${IMAGE_ACCEPT},${TEXT_ACCEPT}` : ''
}

/** What the attach button's tooltip lists. */
export const acceptHint = (kinds: AttachKinds) => [kinds.images && 'изображения', kinds.files && 'PDF', 'TXT, JSON, CSV'].filter(Boolean).join(', ')

const EXTENSIONS = /\.(png|jpe?g|gif|webp|pdf|txt|json|csv|md|log)$/i
const TYPES = /^(image\/(png|jpeg|gif|webp)|application\/(pdf|json)|text\/(plain|csv|markdown))$/
const IMAGE_FILE = /^image\/|\.(png|jpe?g|gif|webp)$/i
const PDF_FILE = /^application\/pdf$|\.pdf$/i

/** null when the file may be uploaded (for a model that reads `kinds`), else the message to show. */
export function checkFile(file: File, kinds: AttachKinds = { images: true, files: true }): string | null {
  if (file.size > MAX_FILE_BYTES) return FILE_TOO_LARGE
  if (!TYPES.test(file.type) && !EXTENSIONS.test(file.name)) return FILE_TYPE_ERROR
  if ((IMAGE_FILE.test(file.type) || IMAGE_FILE.test(file.name)) && !kinds.images) return NO_IMAGES_ERROR
  if ((PDF_FILE.test(file.type) || PDF_FILE.test(file.name)) && !kinds.files) return NO_FILES_ERROR
  return null
}

export type AttachmentKind = 'image' | 'pdf' | 'text'

export function kindOf(mimetype: string): AttachmentKind {
  if (mimetype.startsWith('image/')) return 'image'
  if (mimetype === 'application/pdf') return 'pdf'
  return 'text'
}

/** Whether an attachment (by its type) is something this model reads. */
export const fits = (mimetype: string, kinds: AttachKinds) => {
  const kind = kindOf(mimetype)
  return kind === 'image' ? kinds.images : kind === 'pdf' ? kinds.files : kinds.images || kinds.files
}

/** '1,2 МБ', '34 КБ' */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toLocaleString('ru-RU', { maximumFractionDigits: 1 })} МБ`
  if (bytes >= 1024) return `${Math.round(bytes / 1024).toLocaleString('ru-RU')} КБ`
  return `${bytes} Б`
}

/** A link of ours as a same-origin path: the browser fetches it from this site whatever PUBLIC_URL says. */
export function sameOrigin(url: string): string {
  try {
    const u = new URL(url, window.location.href)
    if (u.pathname.startsWith('/api/uploads/') || u.pathname.startsWith('/v1/files/')) return `${u.pathname}${u.search}`
  } catch {
    /* not a URL: use as is */
  }
  return url
}

/** Whether a model provider on the internet can download this link. */
export function isPublicUrl(url: string): boolean {
  try {
    const u = new URL(url)
    if (u.protocol !== 'https:') return false
    return !/^(localhost|127\.|10\.|192\.168\.|0\.0\.0\.0|\[::1\])|\.local$|\.localhost$/i.test(u.hostname)
  } catch {
    return false
  }
}

function blobToDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(blob)
  })
}

/** File contents by upload id: a fresh attachment is read from disk once, older ones fetched once. */
const cache = new Map<string, Promise<Blob>>()

export function rememberLocalFile(upload: UploadedFile, file: Blob) {
  // typed as the server found it by content (the browser guesses from the name)
  cache.set(upload.id, Promise.resolve(new Blob([file], { type: upload.mimetype })))
}

function blobOf(file: UploadedFile): Promise<Blob> {
  let found = cache.get(file.id)
  if (!found) {
    found = fetch(sameOrigin(file.url)).then((r) => {
      if (!r.ok) throw new Error(`attachment ${file.filename}: ${r.status}`)
      return r.blob()
    })
    found.catch(() => cache.delete(file.id))
    cache.set(file.id, found)
  }
  return found
}

export async function readText(file: UploadedFile): Promise<string> {
  return (await blobOf(file)).text()
}

/** The content of a user message for the model: plain text, or parts when files are attached. */
export async function buildContent(text: string, files: UploadedFile[]): Promise<string | ContentPart[]> {
  if (files.length === 0) return text
  const parts: ContentPart[] = []
  // The docs advise the text first, then the media.
  if (text.trim()) parts.push({ type: 'text', text })
  for (const f of files.filter((f) => kindOf(f.mimetype) === 'text')) {
    parts.push({ type: 'text', text: `Файл «${f.filename}»:\n\n${await readText(f)}` })
  }
  for (const f of files) {
    const kind = kindOf(f.mimetype)
    if (kind === 'text') continue
    const source = isPublicUrl(f.url) ? f.url : await blobToDataUrl(await blobOf(f))
    if (kind === 'image') parts.push({ type: 'image_url', image_url: { url: source } })
    else parts.push({ type: 'file', file: { filename: f.filename, file_data: source } })
  }
  if (parts.length === 0) parts.push({ type: 'text', text: '' })
  return parts
}

/**
 * A picture the model returned as a data URL, as a file to upload (so the chat keeps a link, not
 * megabytes). Decoded here rather than fetched: the page's CSP (connect-src 'self') refuses data: URLs.
 */
export async function dataUrlToBlob(dataUrl: string): Promise<Blob> {
  const comma = dataUrl.indexOf(',')
  const header = dataUrl.slice(5, comma) // after 'data:'
  const payload = dataUrl.slice(comma + 1)
  const type = header.split(';')[0] || 'application/octet-stream'
  if (!header.endsWith(';base64')) return new Blob([decodeURIComponent(payload)], { type })
  const binary = atob(payload)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Blob([bytes], { type })
}
