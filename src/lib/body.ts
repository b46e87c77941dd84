// Request bodies, bounded before they are parsed or validated: a size limit per route family, refused
// from Content-Length before a byte is read (and counted while streaming when there is none), and a
// nesting-depth limit checked by a linear scan before JSON.parse — a 20 000-level body used to stall
// the event loop for 20 s in validation. Every body of every route goes through `bodyLimits`'
// parse hook, except /v1: the gateway reads its own bodies after the key is checked (gateway/auth.ts).
import { type AnyElysia, Elysia } from 'elysia'
import { AppError } from './errors'

export const KB = 1024
export const MB = 1024 * KB

/** The /v1 bodies: messages carry images and PDFs as base64 data URLs (Anthropic's own limit is 32 MB). */
export const V1_BODY_LIMIT = 32 * MB
/** Deeper than any legitimate body (JSON Schemas of tools included); arrays and objects count alike. */
export const MAX_JSON_DEPTH = 64

/** A body refused before it was parsed; `code` is the /v1 (OpenAI) error code. */
export class BodyRejected extends AppError {
  constructor(
    status: number,
    message: string,
    readonly code: 'request_too_large' | 'json_too_deep',
  ) {
    super(status, message)
  }
}

const formatSize = (bytes: number) => (bytes >= MB && bytes % MB === 0 ? `${bytes / MB} МБ` : `${Math.round(bytes / KB)} КБ`)

export const tooLarge = (limit: number, message = `Тело запроса слишком большое (больше ${formatSize(limit)})`) => new BodyRejected(413, message, 'request_too_large')

const tooDeep = (max: number) => new BodyRejected(400, `Слишком глубокая вложенность JSON (больше ${max} уровней)`, 'json_too_deep')

/**
 * True when arrays and objects nest deeper than `max`. One pass over the UTF-8 bytes, skipping
 * strings (a multi-byte character never contains an ASCII byte, so bytes are as good as characters).
 */
export function jsonTooDeep(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  const n = bytes.length
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!
    if (c === 0x22) {
      // A string: on to its closing quote, the first one after an even run of backslashes. indexOf is
      // native, so a megabyte-long string (an image as a data URL) costs next to nothing.
      for (;;) {
        const q = bytes.indexOf(0x22, i + 1)
        if (q === -1) return false // unterminated: JSON.parse reports it
        let slashes = 0
        for (let b = q - 1; b > i && bytes[b] === 0x5c; b--) slashes++
        i = q
        if (slashes % 2 === 0) break
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

/**
 * True when the request declares its length (HTTP then reads exactly that many bytes, no more); throws
 * the refusal when that length is over the limit. False for a chunked body, which must be counted.
 */
function declaredWithin(request: Request, limit: number, refusal: () => Error): boolean {
  const declared = request.headers.get('content-length')
  if (declared === null) return false
  if (!(Number(declared) <= limit)) throw refusal()
  return true
}

/**
 * The body's bytes, never more than `limit` of them: a Content-Length over the limit is refused before
 * anything is read; without one (chunked) the bytes are counted as they arrive and the stream is
 * cancelled at the first byte over.
 */
export async function readBounded(request: Request, limit: number, refusal: () => Error = () => tooLarge(limit)): Promise<Uint8Array> {
  if (declaredWithin(request, limit, refusal)) return request.body ? await request.bytes() : new Uint8Array(0)
  if (!request.body) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      void reader.cancel().catch(() => {})
      throw refusal()
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

const decoder = new TextDecoder()

const PRINTABLE: PropertyDescriptor = { value: () => '[object Object]' }

/**
 * `${value}` throws a TypeError for an object whose own "toString" is data — `{"toString": 1}` in a
 * body — and Elysia writes its validation errors that way (a 500 instead of the 400). Such objects get
 * a non-enumerable Symbol.toPrimitive and print as any other; JSON, keys and validation do not see it.
 */
function printable(v: unknown): void {
  if (typeof v !== 'object' || v === null) return
  if (Array.isArray(v)) {
    for (const x of v) printable(x)
    return
  }
  if (Object.hasOwn(v, 'toString') || Object.hasOwn(v, 'valueOf')) Object.defineProperty(v, Symbol.toPrimitive, PRINTABLE)
  for (const k in v) printable((v as Record<string, unknown>)[k])
}

/** JSON within the size and depth limits; a syntax error propagates (Elysia reports it as PARSE → 400). */
export function parseJson(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonTooDeep(bytes, maxDepth)) throw tooDeep(maxDepth)
  const value: unknown = JSON.parse(decoder.decode(bytes))
  printable(value)
  return value
}

const DANGEROUS_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Fields of a form; a repeated name becomes an array (as Elysia's own parser does). String values stay strings. */
function fieldsOf(entries: Iterable<[string, FormDataEntryValue]>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of entries) {
    if (DANGEROUS_KEYS.has(k)) continue
    const prev = out[k]
    if (prev === undefined) out[k] = v
    else if (Array.isArray(prev))
      prev.push(v) // in place: 100 000 repeats of a name stay linear
    else out[k] = [prev, v]
  }
  printable(out)
  return out
}

export type BodyLimit = {
  /** Bytes of the body as sent (multipart framing included). */
  limit: number
  /** The 413's message; the default names the limit. */
  message?: string
}

/**
 * The parsed body of any content type Elysia itself parses, read through `readBounded`; undefined for
 * no body or a content type nobody parses (such a body is never read). `contentType` is without its
 * parameters, as Elysia passes it to parse hooks.
 */
export async function readBody(request: Request, contentType: string, { limit, message }: BodyLimit): Promise<unknown> {
  if (!contentType || !request.body) return undefined
  const type = contentType.trim().toLowerCase()
  const known =
    type === 'application/json' || type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded' || type === 'application/octet-stream' || type.startsWith('text/')
  if (!known) return undefined
  const refusal = () => tooLarge(limit, message)
  if (type === 'multipart/form-data') {
    // Bun's own parser when the length is declared (and within the limit); a chunked form is read bounded first.
    const form = declaredWithin(request, limit, refusal)
      ? await request.formData()
      : await new Response((await readBounded(request, limit, refusal)) as Uint8Array<ArrayBuffer>, {
          headers: { 'content-type': request.headers.get('content-type')! },
        }).formData()
    return fieldsOf(form.entries())
  }
  const bytes = await readBounded(request, limit, refusal)
  if (type === 'application/json') return bytes.byteLength === 0 ? undefined : parseJson(bytes)
  if (type === 'application/x-www-form-urlencoded') return fieldsOf(new URLSearchParams(decoder.decode(bytes)).entries())
  if (type === 'application/octet-stream') return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  return decoder.decode(bytes)
}

/** The size limit of the routes under `prefix` (the path itself and everything below it). */
export type BodyFamily = BodyLimit & {
  prefix: string
  /** Runs before a byte of the body is read, e.g. to refuse a caller without credentials. */
  before?: (request: Request) => void
}

/** The path of a request's URL (the context's `path` is not set on routes Bun serves natively). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  const q = url.indexOf('?', start)
  return q === -1 ? url.slice(start) : url.slice(start, q)
}

const under = (path: string, prefix: string) => path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47)

const bodyReaders = new WeakSet<object>()

/** Marks a parse hook that parses exactly what Elysia's own parsers would, only bounded (see `docsSeeThroughBodyReaders`). */
export function bodyReader<F extends (...args: never[]) => unknown>(fn: F): F {
  bodyReaders.add(fn)
  return fn
}

type Route = { hooks?: Record<string, unknown> }

/**
 * @elysiajs/openapi lists no request body (no content types, so no schema) for a route with a parse
 * hook of its own. The docs plugin is shown the routes without the body readers, which parse what
 * Elysia would anyway, so their bodies are documented as before. Wraps the plugin where it is used:
 * `.use()` later points the plugin's getGlobalRoutes at the app's, and that assignment is kept beneath.
 */
export function docsSeeThroughBodyReaders<T extends AnyElysia>(docs: T): T {
  const plugin = docs as unknown as { getGlobalRoutes(): Route[] } // protected in Elysia's types
  let routes = plugin.getGlobalRoutes.bind(plugin)
  const seen = () =>
    routes().map((route) => {
      const parse = route.hooks?.parse as { fn: unknown }[] | undefined
      if (!Array.isArray(parse) || !parse.some((h) => bodyReaders.has(h.fn as object))) return route
      const rest = parse.filter((h) => !bodyReaders.has(h.fn as object))
      return { ...route, hooks: { ...route.hooks, parse: rest.length ? rest : undefined } }
    })
  Object.defineProperty(docs, 'getGlobalRoutes', {
    configurable: true,
    get: () => seen,
    set: (fn: () => Route[]) => {
      routes = fn
    },
  })
  return docs
}

/**
 * The parse hook of every route: the first family whose prefix the path is under sets the limit
 * (`fallback` for the rest); paths under a `selfRead` prefix are left to their routes, which must then
 * read through `readBody` themselves.
 */
export function bodyLimits(families: BodyFamily[], fallback: BodyLimit, selfRead: string[] = []) {
  return new Elysia({ name: 'body-limits' }).onParse(
    { as: 'global' },
    bodyReader(async ({ request }: { request: Request }, contentType: string) => {
      if (!contentType || !request.body) return undefined
      const path = pathOf(request.url)
      for (const prefix of selfRead) if (under(path, prefix)) return undefined
      const family = families.find((f) => under(path, f.prefix))
      family?.before?.(request)
      return await readBody(request, contentType, family ?? fallback)
    }),
  )
}
