import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPostgres } from '../db/dialect'
import { databaseReader } from '../test-support/db-reader'
import { eventually, startGateway } from '../test-support/gateway'
import { client, registerUser, startServer, type TestServer } from '../test-support/server'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.stop())

describe('health and routing', () => {
  test('GET /api/health answers 200 JSON', async () => {
    const res = await fetch(`${server.url}/api/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    const body = await res.json()
    expect(body).toMatchObject({ success: true, data: { status: 'ok', upstream: 'demo', mail: 'outbox', payments: 'test' } })
  })

  test('unknown API paths are JSON 404s; other paths get the SPA', async () => {
    const api = await fetch(`${server.url}/api/nope`)
    expect(api.status).toBe(404)
    expect(await api.json()).toEqual({ success: false, error: 'Не найдено' })
    const post = await fetch(`${server.url}/api/nope`, { method: 'POST' })
    expect(post.status).toBe(404)
    const v1 = await fetch(`${server.url}/v1/nope`)
    expect(v1.status).toBe(404)
    expect((await v1.json()).error.type).toBe('invalid_request_error')

    const spa = await fetch(`${server.url}/app/dashboard`)
    expect([200, 503]).toContain(spa.status) // 503 only when the SPA was never built
    if (spa.status === 200) {
      expect(spa.headers.get('content-type')).toContain('text/html')
      const html = await spa.text()
      expect(html).toContain('<div id="root">')
      const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1]
      expect(asset).toBeString()
      const js = await fetch(server.url + asset!)
      expect(js.status).toBe(200)
      expect(js.headers.get('cache-control')).toContain('immutable')
    }
    expect((await fetch(`${server.url}/../../etc/passwd`)).status).not.toBe(500)
  })
})

describe('OpenAPI', () => {
  test('the document is generated from the routes: every route has a summary and typed responses', async () => {
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).json()
    const paths = Object.keys(doc.paths)
    for (const p of [
      '/api/auth/register',
      '/api/auth/login',
      '/api/auth/refresh',
      '/api/auth/logout',
      '/api/auth/forgot-password',
      '/api/auth/reset-password',
      '/api/auth/profile',
      '/api/billing/balance',
      '/api/billing/transactions',
      '/api/billing/usage',
      '/api/health',
      '/api/auth/api-keys',
      '/api/auth/api-keys/{id}',
      '/v1/models',
      '/v1/chat/completions',
      '/v1/images',
      '/v1/images/generations',
    ])
      expect(paths).toContain(p)
    expect(paths.filter((p) => !p.startsWith('/api/') && !p.startsWith('/v1/'))).toEqual([])
    for (const [path, ops] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(ops)) {
        expect({ path, method, summary: typeof op.summary }).toEqual({ path, method, summary: 'string' })
        expect(Object.keys(op.responses ?? {}).length).toBeGreaterThan(0)
      }
    expect(doc.paths['/api/auth/register'].post.requestBody).toBeDefined()
  })

  test('a UI is served at /api/docs', async () => {
    const res = await fetch(`${server.url}/api/docs`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('/api/openapi.json')
  })
})

describe('process', () => {
  test('migrations create the schema in a fresh DATA_DIR, and data survives a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-restart-'))
    const first = await startServer({ DATA_DIR: dataDir })
    const { email, password } = await registerUser(first.url)
    expect(await first.stop()).toBe(0)
    expect(first.logs()).toContain('stopped')
    if (!onPostgres) expect(existsSync(join(dataDir, 'gateway.db'))).toBe(true) // PostgreSQL: the harness's database
    const tables = (
      await databaseReader(first.databaseUrl)<{ name: string }>(
        onPostgres ? "select table_name as name from information_schema.tables where table_schema in ('public', 'drizzle')" : "select name from sqlite_master where type = 'table'",
      )
    ).map((r) => r.name)
    expect(tables).toEqual(expect.arrayContaining(['users', 'ledger_entries', 'refresh_tokens', 'password_resets', 'holds', '__drizzle_migrations']))

    const second = await startServer({ DATA_DIR: dataDir })
    try {
      const login = await client(second.url).post('/api/auth/login', { email, password })
      expect(login.status).toBe(200) // same generated JWT secret file, same database
      expect(login.body.data.user.balance).toBe(50)
    } finally {
      await second.stop()
    }
  })

  test('SIGTERM lets an in-flight request finish and settle, then exits 0', async () => {
    const gw = await startGateway({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-sigterm-')) }) // its own: the books are read after the exit
    try {
      const c = await gw.customer()
      // A slow answer (≈ 200 ms a token): SIGTERM comes once its hold shows the server is inside it.
      const inflight = fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'медленно [[fault:slow]]' }], max_tokens: 5 }),
      })
      await eventually(async () => (await gw.books(c.user.id)).held > 0)
      const exit = gw.server.stop()
      const res = await inflight
      expect(res.status).toBe(200)
      expect(await exit).toBe(0)
      // Settled before the exit: charged once, nothing left held.
      const books = await gw.books(c.user.id)
      expect(books).toMatchObject({ held: 0, ledgerSum: books.balance })
      expect(books.usage).toHaveLength(1)
    } finally {
      await gw.upstream.stop()
    }
  })

  test('without SMTP the reset letter is written to DATA_DIR/outbox', async () => {
    const s = await startServer({ PUBLIC_URL: 'http://localhost:3000' })
    try {
      const { email, api } = await registerUser(s.url)
      await api.post('/api/auth/forgot-password', { email })
      const outbox = join(s.dataDir, 'outbox')
      let files: string[] = []
      for (let i = 0; i < 100 && files.length < 2; i++) {
        files = existsSync(outbox) ? readdirSync(outbox) : []
        await Bun.sleep(20)
      }
      expect(files.some((f) => f.endsWith('.eml'))).toBe(true)
      const json = JSON.parse(readFileSync(join(outbox, files.find((f) => f.endsWith('.json'))!), 'utf8'))
      expect(json.to).toBe(email)
      expect(json.text).toMatch(/http:\/\/localhost:3000\/reset-password\/[A-Za-z0-9_-]{40,}/)
    } finally {
      await s.stop()
    }
  })

  test('a bad setting fails fast with a clear message', async () => {
    const proc = Bun.spawn(['bun', 'src/index.ts'], { env: { ...process.env, PORT: 'abc', DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-bad-')) }, stderr: 'pipe', stdout: 'pipe' })
    expect(await proc.exited).toBe(1)
    expect(await new Response(proc.stderr).text()).toContain('PORT must be an integer')
  })
})
