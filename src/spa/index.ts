// Serves the built SPA (dist/web, made by `bun run build`): hashed assets with a year of caching
// (gzip-compressed when the browser accepts it),
// files copied from public/, sitemap.xml and robots.txt, landing.html for `/` (the landing's own
// light entry, issue 29) and index.html for every other non-API path (client-side routing); also
// the API reference UI at /api/docs (api-docs.ts). Every HTML answer carries the headers of security.ts (CSP, Permissions-Policy, HSTS over https).
// Crawlers do not run JavaScript, so each page's HTML already carries
// its title, description, canonical link, social tags, JSON-LD and text (see pages.ts).

import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Elysia } from 'elysia'
import { publicSeller, SELLER_ISLAND_ID } from '../content/seller'
import { jsonForScript } from '../content/seo'
import { apiDocsRoutes } from './api-docs'
import { builtFileAnswer, htmlAnswer } from './gzip'
import { type PageDeps, type RenderedPage, resolvePage, showcaseModels } from './pages'
import { esc, headHtml } from './render'
import { htmlSecurityHeaders } from './security'
import { robotsTxt, sitemapXml } from './sitemap'

const DIST = fileURLToPath(new URL('../../dist/web', import.meta.url))
const notFound = () => new Response('Не найдено', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })

interface Shell {
  mtimeMs: number
  /** index.html up to where the page's <title> and metadata go */
  head: string
  /** from there to </head> */
  headEnd: string
  /** from </head> to the <noscript> */
  body: string
  /** after the </noscript> */
  tail: string
  /** lazy chunk source → files to preload */
  lazy: Record<string, string[]>
  entry: Set<string>
}

/**
 * index.html (or landing.html) split around the places a page fills in; re-read when a new build replaces it
 * (`bun run dev` rebuilds under a running server).
 */
function shellLoader(index: string, entryKey: 'entry' | 'landing') {
  let cached: Shell | null = null
  return (): Shell | null => {
    if (!existsSync(index)) return null
    const mtimeMs = statSync(index).mtimeMs
    if (cached?.mtimeMs === mtimeMs) return cached
    const html = readFileSync(index, 'utf8')
      .replace(/\s*<meta\s+name="description"[\s\S]*?>/i, '')
      .replace(/<title>[\s\S]*?<\/title>/i, '<!--seo-->')
    const [head, rest = ''] = html.split('<!--seo-->')
    const headClose = rest.indexOf('</head>')
    const noscript = /<noscript>[\s\S]*?<\/noscript>/i.exec(rest)
    let lazy: Record<string, string[]> = {}
    let entry = new Set<string>()
    try {
      const manifest = JSON.parse(readFileSync(join(DIST, 'build-manifest.json'), 'utf8'))
      lazy = manifest.lazy ?? {}
      entry = new Set(manifest[entryKey]?.js ?? [])
    } catch {
      /* an older build without a manifest: no preloading */
    }
    const bodyStart = rest.slice(headClose)
    cached = {
      mtimeMs,
      head: head!,
      headEnd: rest.slice(0, headClose),
      body: noscript ? rest.slice(headClose, noscript.index) : bodyStart.replace(/<\/body>/i, ''),
      tail: noscript ? rest.slice(noscript.index + noscript[0].length) : '</body></html>',
      lazy,
      entry,
    }
    return cached
  }
}

/**
 * ALLOW_TEST_PAYMENTS: every page carries the flag inline, so the banner shows on the landing
 * without an extra request (web/components/test-payments-banner.tsx reads it).
 */
const TEST_PAYMENTS_ISLAND = '<script type="application/json" id="test-payments-mode">true</script>'

/** SELLER_*: the seller the legal pages and the footer name, inline like the flag above (no flash of the generic text). */
function sellerIsland(deps: PageDeps): string {
  const seller = publicSeller(deps.config.seller ?? null)
  return seller ? `<script type="application/json" id="${SELLER_ISLAND_ID}">${jsonForScript(seller)}</script>` : ''
}

function pageHtml(shell: Shell, page: RenderedPage, origin: string, showcase: string): string {
  const preload = (page.chunk ? (shell.lazy[page.chunk] ?? []) : [])
    .filter((file) => !shell.entry.has(file))
    .map((file) => `<link rel="modulepreload" crossorigin href="/${esc(file)}">`)
    .join('')
  return `${shell.head + headHtml(page.meta, origin) + shell.headEnd + preload + shell.body + showcase}<noscript><div class="noscript-page">${page.body}</div></noscript>${shell.tail}`
}

/**
 * The landing's nine catalogue models, inline (under 1 KB): the page shows them without fetching
 * the whole /v1/models list, which with a full catalogue outweighs the landing's code. Sent with
 * every page, because the SPA may reach the landing from any of them.
 */
function showcaseIsland(deps: PageDeps): string {
  const models = showcaseModels(deps)
  return models.length ? `<script type="application/json" id="showcase-data">${jsonForScript(models)}</script>` : ''
}

export function spaRoutes(deps: PageDeps) {
  const index = join(DIST, 'index.html')
  const landing = join(DIST, 'landing.html')
  const loadShell = shellLoader(index, 'entry')
  const loadLanding = shellLoader(landing, 'landing')
  const origin = deps.config.publicUrl
  return (
    new Elysia({ name: 'spa' })
      .use(apiDocsRoutes(deps.config))
      // Hashed build files: cached for a year; the gzip twin the build wrote is sent when accepted.
      .get(
        '/assets/*',
        ({ params, request }) => {
          const name = params['*']
          if (!/^[\w.-]+$/.test(name)) return notFound()
          const file = join(DIST, 'assets', name)
          if (!existsSync(file)) return notFound()
          const headers: Record<string, string> = {
            'content-type': Bun.file(file).type,
            'cache-control': 'public, max-age=31536000, immutable',
            vary: 'accept-encoding',
          }
          return builtFileAnswer(request, file, headers)
        },
        { detail: { hide: true } },
      )
      .get('/robots.txt', () => new Response(robotsTxt(origin), { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=3600' } }), {
        detail: { hide: true },
      })
      .get(
        '/sitemap.xml',
        async () => {
          const built = existsSync(index) ? statSync(index).mtime : new Date()
          return new Response(
            await sitemapXml(
              deps.db,
              origin,
              built,
              deps.catalog.list().map((m) => m.id),
            ),
            {
              headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=600' },
            },
          )
        },
        { detail: { hide: true } },
      )
      .get(
        '/*',
        async ({ path, request }) => {
          if (path === '/api' || path.startsWith('/api/')) return json(404, { success: false, error: 'Не найдено' })
          if (path === '/v1' || path.startsWith('/v1/'))
            return json(404, { error: { message: `Unknown endpoint ${path}`, type: 'invalid_request_error', code: 'not_found', param: null } })
          // Root-level files from public/ (favicon, og-image…); normalize() keeps lookups inside DIST.
          let decoded: string
          try {
            decoded = decodeURIComponent(path)
          } catch {
            decoded = path
          }
          const file = join(DIST, normalize(decoded).replace(/^(\.\.[/\\])+/, ''))
          if (file.startsWith(`${DIST}/`) && file !== index && file !== landing && !file.endsWith('build-manifest.json') && existsSync(file) && statSync(file).isFile())
            return new Response(Bun.file(file), { headers: { 'cache-control': 'public, max-age=3600' } })
          // Reset, confirmation and invitation tokens are in the path: never let them leave in a Referer header.
          const referrer: Record<string, string> = ['/reset-password/', '/verify-email/', '/invite/'].some((p) => path.startsWith(p)) ? { 'referrer-policy': 'no-referrer' } : {}
          // a build without the landing's entry (older): the SPA shows the landing too
          const shell = (path === '/' && loadLanding()) || loadShell()
          if (!shell) return new Response('Интерфейс не собран: выполните `bun run build`.', { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', ...referrer } })
          const page = await resolvePage(path, deps)
          const html = pageHtml(shell, page, origin, showcaseIsland(deps) + sellerIsland(deps) + (deps.config.testPaymentsBanner ? TEST_PAYMENTS_ISLAND : ''))
          const headers = {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-cache',
            vary: 'accept-encoding',
            ...htmlSecurityHeaders(origin, 'app'),
            ...referrer,
          }
          return htmlAnswer(request, html, headers, page.status)
        },
        { detail: { hide: true } },
      )
  )
}
