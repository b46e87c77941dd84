// Serves the built SPA (dist/web, made by `bun run build`): hashed assets with a year of caching,
// files copied from public/, and index.html for every other non-API path (client-side routing).
import { Elysia } from 'elysia'
import { staticPlugin } from '@elysiajs/static'
import { existsSync, statSync } from 'node:fs'
import { join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIST = fileURLToPath(new URL('../../dist/web', import.meta.url))
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })

export function spaRoutes() {
  const index = join(DIST, 'index.html')
  return new Elysia({ name: 'spa' })
    .use(
      staticPlugin({
        assets: join(DIST, 'assets'),
        prefix: '/assets',
        directive: 'immutable',
        maxAge: 31_536_000,
        indexHTML: false,
        detail: { hide: true },
      }),
    )
    .get(
      '/*',
      ({ path }) => {
        if (path === '/api' || path.startsWith('/api/')) return json(404, { success: false, error: 'Не найдено' })
        if (path === '/v1' || path.startsWith('/v1/'))
          return json(404, { error: { message: `Unknown endpoint ${path}`, type: 'invalid_request_error', code: 'not_found', param: null } })
        // Root-level files from public/ (favicon, robots.txt…); normalize() keeps lookups inside DIST.
        const file = join(DIST, normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, ''))
        if (file.startsWith(DIST + '/') && file !== index && existsSync(file) && statSync(file).isFile())
          return new Response(Bun.file(file), { headers: { 'cache-control': 'public, max-age=3600' } })
        // The reset token is in the path: never let it leave in a Referer header.
        const referrer: Record<string, string> = path.startsWith('/reset-password/') ? { 'referrer-policy': 'no-referrer' } : {}
        if (!existsSync(index))
          return new Response('Интерфейс не собран: выполните `bun run build`.', { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', ...referrer } })
        return new Response(Bun.file(index), { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...referrer } })
      },
      { detail: { hide: true } },
    )
}
