// Compressed answers for the SPA and the API reference: an HTML page gzipped per request, a built
// file's .gz twin (written by the build) sent instead of the file, both only when the browser
// accepts gzip. The callers' headers should carry `vary: accept-encoding`.

import { existsSync } from 'node:fs'

export const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')

/** `html`, gzipped when the browser accepts it (a page is a few KB: well under a millisecond). */
export function htmlAnswer(request: Request, html: string, headers: Record<string, string>, status = 200): Response {
  if (acceptsGzip(request)) return new Response(Bun.gzipSync(html), { status, headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(html, { status, headers })
}

/** A built file, or its `.gz` twin when there is one and the browser accepts gzip. */
export function builtFileAnswer(request: Request, file: string, headers: Record<string, string>): Response {
  if (acceptsGzip(request) && existsSync(`${file}.gz`)) return new Response(Bun.file(`${file}.gz`), { headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(Bun.file(file), { headers })
}
