// The API reference at /api/docs: Scalar's browser bundle from the npm package (pinned exactly in
// package.json, copied into dist/api-docs by `bun run build`), served from our own origin — the
// site keeps tokens in localStorage, so no script may come from a CDN. The page has no inline
// script: the bundle reads its configuration from the data attributes of #api-reference.
// The OpenAPI document itself stays at /api/openapi.json (@elysiajs/openapi, UI disabled).

import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Elysia } from 'elysia'
import { builtFileAnswer, htmlAnswer } from './gzip'
import { esc } from './render'
import { htmlSecurityHeaders } from './security'

const DIR = fileURLToPath(new URL('../../dist/api-docs', import.meta.url))
export const API_DOCS_PATH = '/api/docs'
export const API_SPEC_PATH = '/api/openapi.json'
const ASSETS = `${API_DOCS_PATH}/assets/`

interface Manifest {
  version: string
  script: string
}

/** dist/api-docs/manifest.json, re-read when a new build replaces it. */
function manifestLoader() {
  const file = join(DIR, 'manifest.json')
  let cached: { mtimeMs: number; manifest: Manifest } | null = null
  return (): Manifest | null => {
    if (!existsSync(file)) return null
    const mtimeMs = statSync(file).mtimeMs
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, manifest: JSON.parse(readFileSync(file, 'utf8')) }
    return cached.manifest
  }
}

/** Scalar's configuration: nothing that reaches a third-party host (fonts, telemetry, AI agent, proxy). */
const CONFIGURATION = {
  url: API_SPEC_PATH,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  localization: { locale: 'ru' },
}

export function apiDocsHtml(script: string): string {
  return `<!doctype html>
<html lang="ru">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Справочник API — AI Gateway</title>
    <meta name="description" content="Справочник HTTP API: аккаунты, баланс и OpenAI-совместимый шлюз." />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
  </head>
  <body>
    <div id="api-reference" data-url="${API_SPEC_PATH}" data-configuration="${esc(JSON.stringify(CONFIGURATION))}"></div>
    <script src="${ASSETS}${esc(script)}"></script>
  </body>
</html>
`
}

const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })
const notFound = () => new Response(JSON.stringify({ success: false, error: 'Не найдено' }), { status: 404, headers: { 'content-type': 'application/json; charset=utf-8' } })

export function apiDocsRoutes(config: { publicUrl: string }) {
  const loadManifest = manifestLoader()
  return (
    new Elysia({ name: 'api-docs' })
      .get(
        API_DOCS_PATH,
        ({ request }) => {
          const manifest = loadManifest()
          if (!manifest) return text(503, 'Справочник API не собран: выполните `bun run build`.')
          const html = apiDocsHtml(manifest.script)
          const headers = {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-cache',
            vary: 'accept-encoding',
            ...htmlSecurityHeaders(config.publicUrl, 'api-docs'),
          }
          return htmlAnswer(request, html, headers)
        },
        { detail: { hide: true } },
      )
      // The bundle's name carries its version and a hash of its content: cached for a year.
      .get(
        `${ASSETS}:file`,
        ({ params, request }) => {
          const manifest = loadManifest()
          if (!manifest || params.file !== manifest.script) return notFound()
          const file = join(DIR, manifest.script)
          const headers: Record<string, string> = {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': 'public, max-age=31536000, immutable',
            vary: 'accept-encoding',
          }
          return builtFileAnswer(request, file, headers)
        },
        { detail: { hide: true } },
      )
  )
}
