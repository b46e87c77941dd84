// The security headers of HTML answers (security.ts) and the API reference served from our own
// origin (api-docs.ts), as a browser or curl gets them from the real server. Needs `bun run build`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../test-support/server'

const HTML_PAGES = ['/', '/blog', '/app/dashboard', '/docs', '/api/docs', '/pay/test/some-payment-id', '/no-such-page']

let http: TestServer
let https: TestServer

beforeAll(async () => {
  ;[http, https] = await Promise.all([startServer(), startServer({ PUBLIC_URL: 'https://gateway.example.ru' })])
})
afterAll(() => Promise.all([http?.stop(), https?.stop()]))

/** CSP directives by name: `script-src 'self'` → { 'script-src': ["'self'"] }. */
function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!.toLowerCase(), values]),
  )
}

/** Every <script> of a page: its attributes and the text inside. */
function scripts(html: string) {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].map((m) => ({
    attrs: m[1]!,
    src: /\bsrc="([^"]*)"/.exec(m[1]!)?.[1],
    type: /\btype="([^"]*)"/.exec(m[1]!)?.[1],
    body: m[2]!,
  }))
}

describe('every HTML answer carries a Content-Security-Policy and a Permissions-Policy', () => {
  for (const path of HTML_PAGES)
    test(`${path}: script-src 'self' with no inline or eval, no framing, no plugins`, async () => {
      const res = await fetch(http.url + path)
      expect(res.headers.get('content-type')).toStartWith('text/html')
      const csp = res.headers.get('content-security-policy')
      expect(csp).toBeTruthy()
      const d = directives(csp!)
      expect(d['script-src']).toEqual(["'self'"])
      expect(d['default-src']).toEqual(["'self'"])
      expect(d['connect-src']).toEqual(["'self'"])
      expect(d['object-src']).toEqual(["'none'"])
      expect(d['frame-ancestors']).toEqual(["'none'"])
      expect(d['base-uri']).toEqual(["'self'"])
      expect(d['form-action']).toEqual(["'self'"])
      expect(csp).not.toContain('unsafe-eval')
      expect(csp).not.toMatch(/https?:\/\/|\*/)
      expect(res.headers.get('permissions-policy')).toBe('camera=(), microphone=(self), geolocation=(), payment=(), usb=()')
      await res.arrayBuffer()
    })

  test("the SPA's pages need no inline style; only the API reference allows it (Scalar injects its stylesheet)", async () => {
    const app = directives((await fetch(`${http.url}/`)).headers.get('content-security-policy')!)
    expect(app['style-src']).toEqual(["'self'"])
    const docs = directives((await fetch(`${http.url}/api/docs`)).headers.get('content-security-policy')!)
    expect(docs['style-src']).toEqual(["'self'", "'unsafe-inline'"])
  })

  test('the same headers on a gzip-compressed page', async () => {
    for (const path of ['/', '/api/docs']) {
      const res = await fetch(http.url + path, { headers: { 'accept-encoding': 'gzip' }, decompress: false })
      expect(res.headers.get('content-encoding')).toBe('gzip')
      expect(directives(res.headers.get('content-security-policy')!)['script-src']).toEqual(["'self'"])
      expect(res.headers.get('permissions-policy')).toBeTruthy()
      await res.arrayBuffer()
    }
  })

  test('the pages have no executable inline script: only JSON-LD and JSON data islands, which are never run', async () => {
    for (const path of HTML_PAGES) {
      const html = await (await fetch(https.url + path)).text()
      for (const s of scripts(html)) {
        if (s.src !== undefined) {
          expect(s.src).toMatch(/^\/(?!\/)/)
          expect(s.body.trim()).toBe('')
        } else expect(['application/ld+json', 'application/json']).toContain(s.type!)
      }
      // no inline event handlers either
      expect(html).not.toMatch(/<[^>]+\son[a-z]+=/i)
    }
  })

  test('JSON, health and scripts are not HTML and carry no policy', async () => {
    for (const path of ['/api/openapi.json', '/api/health', '/robots.txt']) {
      const res = await fetch(http.url + path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).not.toContain('text/html')
      expect(res.headers.get('content-security-policy')).toBeNull()
      await res.arrayBuffer()
    }
  })
})

describe('Strict-Transport-Security follows PUBLIC_URL', () => {
  test('absent when PUBLIC_URL is http', async () => {
    for (const path of ['/', '/api/docs']) {
      const res = await fetch(http.url + path)
      expect(res.headers.get('strict-transport-security')).toBeNull()
      await res.arrayBuffer()
    }
  })

  test('a year, with subdomains, on every HTML answer when PUBLIC_URL is https', async () => {
    for (const path of HTML_PAGES) {
      const res = await fetch(https.url + path)
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains')
      expect(res.headers.get('content-security-policy')).toBeTruthy()
      await res.arrayBuffer()
    }
  })
})

describe('/api/docs: the API reference from our own origin', () => {
  test('the page loads one same-origin script and names no CDN', async () => {
    const res = await fetch(`${http.url}/api/docs`)
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).not.toMatch(/cdn\.|jsdelivr|unpkg|https?:\/\//i)
    const all = scripts(html)
    expect(all).toHaveLength(1)
    expect(all[0]!.src).toMatch(/^\/api\/docs\/assets\/scalar-\d+\.\d+\.\d+-[a-z0-9]+\.js$/)
    expect(all[0]!.body).toBe('')
    // Scalar reads where the document is from data attributes, not from an inline script.
    expect(html).toContain('id="api-reference"')
    expect(html).toContain('data-url="/api/openapi.json"')
  })

  test('the bundle is the pinned version, JavaScript, cached for a year, gzip-compressed on request', async () => {
    const pinned = (await Bun.file(new URL('../../package.json', import.meta.url)).json()).devDependencies['@scalar/api-reference']
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/)
    const src = scripts(await (await fetch(`${http.url}/api/docs`)).text())[0]!.src!
    expect(src).toContain(`scalar-${pinned}-`)

    const res = await fetch(http.url + src)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('content-security-policy')).toBeNull()
    const body = await res.text()
    expect(body.length).toBeGreaterThan(1_000_000)
    expect(body).toContain('createApiReference')
    expect(body).not.toContain('sourceMappingURL')
    // Zod's eval probe is answered up front (scripts/build-web.ts): no violation under script-src 'self'
    expect(body).not.toContain('Function(``)')

    const gz = await fetch(http.url + src, { headers: { 'accept-encoding': 'gzip' }, decompress: false })
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe(body)
  })

  test('any other name under /api/docs/assets/ is a JSON 404', async () => {
    for (const name of ['scalar.js', 'scalar-0.0.0-x.js', '..%2Fmanifest.json', 'manifest.json']) {
      const res = await fetch(`${http.url}/api/docs/assets/${name}`)
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ success: false, error: 'Не найдено' })
    }
  })

  test('/api/openapi.json is still the document, without the UI routes in it', async () => {
    const res = await fetch(`${http.url}/api/openapi.json`)
    const doc = (await res.json()) as { info: { title: string }; paths: Record<string, unknown> }
    expect(doc.info.title).toBe('AI Gateway API')
    expect(Object.keys(doc.paths).length).toBeGreaterThan(20)
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/docs'))).toEqual([])
    expect(doc.paths['/v1/chat/completions']).toBeDefined()
  })
})
