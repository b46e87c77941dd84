// What a file really is, decided from its bytes: image signatures, the PDF header, or UTF-8 text.
// The name only picks among text flavours (csv vs plain) and must not contradict the content: a
// text file called photo.png, or a PNG called notes.txt, is refused.

export type Sniffed = { ok: true; mimetype: string; kind: 'image' | 'pdf' | 'text' } | { ok: false; reason: 'type' | 'mismatch' | 'empty' }

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) => b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v)
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))

function imageType(b: Uint8Array): string | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))) return 'image/gif'
  if (startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)) return 'image/webp'
  return null
}

/**
 * A PDF starts with its header. Readers tolerate junk before it, but a file that only contains
 * `%PDF-` somewhere (an HTML page, say) must not be labelled and served as a PDF.
 */
export const PDF_MAGIC = ascii('%PDF-')
export const isPdf = (b: Uint8Array): boolean => startsWith(b, PDF_MAGIC)

/**
 * Valid UTF-8 (an optional BOM), no NUL bytes and almost no control characters: what editors,
 * spreadsheets and JSON writers produce. Executables, archives and UTF-16 files all fail this.
 */
function isText(b: Uint8Array): boolean {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b)
  } catch {
    return false
  }
  let control = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0) return false
    // tab, line feed, form feed, carriage return and escape (ANSI colours in logs) are fine
    if ((c < 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13 && c !== 27) || c === 127) control++
  }
  return control <= Math.max(2, text.length / 1000)
}

const IMAGE_EXT = new Set(['png', 'jpg', 'jpeg', 'jfif', 'gif', 'webp'])
const TEXT_EXT = new Set(['txt', 'text', 'json', 'csv', 'tsv', 'md', 'markdown', 'log'])

const extensionOf = (filename: string) => {
  const m = filename.toLowerCase().match(/\.([a-z0-9]{1,10})$/)
  return m ? m[1]! : ''
}

export function sniff(bytes: Uint8Array, filename: string): Sniffed {
  if (bytes.length === 0) return { ok: false, reason: 'empty' }
  const ext = extensionOf(filename)
  const image = imageType(bytes)
  if (image) return ext === '' || IMAGE_EXT.has(ext) ? { ok: true, mimetype: image, kind: 'image' } : { ok: false, reason: 'mismatch' }
  if (isPdf(bytes)) return ext === '' || ext === 'pdf' ? { ok: true, mimetype: 'application/pdf', kind: 'pdf' } : { ok: false, reason: 'mismatch' }
  if (!isText(bytes)) return { ok: false, reason: 'type' }
  // Text that claims to be a picture or a PDF is not what the customer thinks it is.
  if (IMAGE_EXT.has(ext) || ext === 'pdf') return { ok: false, reason: 'mismatch' }
  if (ext !== '' && !TEXT_EXT.has(ext)) return { ok: false, reason: 'type' }
  if (ext === 'csv' || ext === 'tsv') return { ok: true, mimetype: 'text/csv', kind: 'text' }
  if (ext === 'json' || (ext === '' && looksLikeJson(bytes))) return { ok: true, mimetype: 'application/json', kind: 'text' }
  if (ext === 'md' || ext === 'markdown') return { ok: true, mimetype: 'text/markdown', kind: 'text' }
  return { ok: true, mimetype: 'text/plain', kind: 'text' }
}

function looksLikeJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes))
    return true
  } catch {
    return false
  }
}
