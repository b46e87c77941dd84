// Issue 16, item 2: every body is bounded before it is parsed or validated — a size per route family
// (refused from Content-Length unread, or counted while it streams), a nesting depth before JSON.parse,
// and on /v1 the key before the body. Over a limit: 413 or 400 in milliseconds, in the route's shape.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { headOnly, rssMb, serverPid } from '../test-support/process'
import { readResult, startServer } from '../test-support/server'

const KB = 1024
const MB = 1024 * KB
let gw: Awaited<ReturnType<typeof startGateway>>
let customer: Awaited<ReturnType<typeof gw.customer>>
let pid: number

beforeAll(async () => {
  gw = await startGateway()
  customer = await gw.customer()
  pid = serverPid(gw.server.dataDir)
}, 30_000)
afterAll(() => gw.stop())

const JSON_TYPE = { 'content-type': 'application/json' }
const post = async (path: string, body: BodyInit, headers: Record<string, string> = {}) => {
  const started = performance.now()
  const res = await readResult(await fetch(gw.url + path, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body }))
  return { ...res, ms: performance.now() - started }
}
/** A body sent chunked (no Content-Length): `chunks` × `size` bytes of spaces. */
const chunked = (chunks: number, size = 64 * KB) => {
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ >= chunks) c.close()
      else c.enqueue(new Uint8Array(size).fill(0x20))
    },
  })
}
const nestedObjects = (levels: number) => `${'{"event":'.repeat(levels)}1${'}'.repeat(levels)}`
const nestedArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)

const TOO_DEEP = 'Слишком глубокая вложенность JSON (больше 64 уровней)'
const API_TOO_LARGE = { success: false, error: 'Тело запроса слишком большое (больше 64 КБ)' }
const V1_TOO_LARGE = { error: { message: 'Тело запроса слишком большое (больше 32 МБ)', type: 'invalid_request_error', code: 'request_too_large', param: null } }

describe('nesting depth: refused before JSON.parse', () => {
  test('20 000-level bodies to the unauthenticated webhook answer in < 1 s while /api/health stays fast', async () => {
    let slowestHealth = 0
    let polling = true
    const poll = (async () => {
      while (polling) {
        const started = performance.now()
        expect((await fetch(`${gw.url}/api/health`)).status).toBe(200)
        slowestHealth = Math.max(slowestHealth, performance.now() - started)
        await Bun.sleep(10)
      }
    })()
    const [objects, arrays, deepSmall, tenThousand, hundredThousand] = await Promise.all([
      post('/api/payments/webhook', nestedObjects(20_000)), // 180 KB: over the size limit before depth matters
      post('/api/payments/webhook', nestedArrays(20_000)), // 40 KB: within the size, far over the depth
      post('/api/payments/webhook', `${'{"a":'.repeat(7_000)}1${'}'.repeat(7_000)}`),
      post('/api/payments/webhook', nestedArrays(10_000)),
      post('/api/payments/webhook', nestedArrays(100_000)),
    ])
    polling = false
    await poll
    expect([objects.status, objects.body]).toEqual([413, API_TOO_LARGE])
    expect([arrays.status, arrays.body]).toEqual([400, { success: false, error: TOO_DEEP }])
    expect([deepSmall.status, deepSmall.body]).toEqual([400, { success: false, error: TOO_DEEP }])
    expect([tenThousand.status, tenThousand.body]).toEqual([400, { success: false, error: TOO_DEEP }])
    expect([hundredThousand.status, hundredThousand.body]).toEqual([413, API_TOO_LARGE])
    for (const r of [objects, arrays, deepSmall, tenThousand, hundredThousand]) expect(r.ms).toBeLessThan(1000)
    expect(slowestHealth).toBeLessThan(200)
  }, 15_000)

  test('64 levels pass the depth check (and meet validation); 65 do not; brackets inside strings do not count', async () => {
    // {"event":{"event":…1}}: at 64 levels the schema answers (event must be a string), at 65 the depth check.
    const at64 = await post('/api/payments/webhook', nestedObjects(64))
    expect(at64.status).toBe(400)
    expect(at64.body.error).not.toBe(TOO_DEEP)
    expect((await post('/api/payments/webhook', nestedObjects(65))).body).toEqual({ success: false, error: TOO_DEEP })
    expect((await post('/api/payments/webhook', nestedArrays(65))).body).toEqual({ success: false, error: TOO_DEEP })
    // A notification nobody recognises is acknowledged (200) — what matters is that it got past the depth check.
    const inString = await post('/api/payments/webhook', JSON.stringify({ event: '['.repeat(5000) + '\\"{'.repeat(1000) }))
    expect(inString.status).toBe(200)
  })

  test("/v1 (with a key): too deep is a 400 in OpenAI's shape, naming the limit", async () => {
    const res = await post('/v1/chat/completions', nestedArrays(100), { authorization: `Bearer ${customer.key}` })
    expect([res.status, res.body]).toEqual([400, { error: { message: TOO_DEEP, type: 'invalid_request_error', code: 'json_too_deep', param: null } }])
  })
})

describe('size per route family', () => {
  test('a 2 MB JSON to /api/auth/login → 413, refused from its Content-Length before it is read', async () => {
    const res = await post('/api/auth/login', JSON.stringify({ email: 'a@example.ru', password: 'x'.repeat(2 * MB) }))
    expect([res.status, res.body]).toEqual([413, API_TOO_LARGE])
    expect(res.headers.get('connection')).toBe('close') // the unread rest of the body goes with the connection
    // Only the head is sent: the answer comes without the server waiting for the 2 MB.
    const head = await headOnly(gw.url, 'POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': String(2 * MB) })
    expect(head.status).toBe(413)
    expect(head.ms).toBeLessThan(1000)
  }, 15_000)

  test('chunked (no Content-Length): counted while it streams, 413 at the first byte over', async () => {
    const res = await post('/api/auth/login', chunked(32)) // 2 MB of spaces
    expect([res.status, res.body]).toEqual([413, API_TOO_LARGE])
    // Within the limit, chunked bodies are read as usual.
    const enc = new TextEncoder().encode(JSON.stringify({ email: 'nobody@example.ru', password: 'wrong-password-1' }))
    const small = await post(
      '/api/auth/login',
      new ReadableStream({
        start: (c) => {
          c.enqueue(enc)
          c.close()
        },
      }),
    )
    expect(small.status).toBe(401)
  }, 15_000)

  test('/api/chats takes a message of 100 000 characters (over the 64 KB of other /api JSON)', async () => {
    const created = await post('/api/chats', JSON.stringify({ title: 'Длинный', model: 'openai/gpt-4o-mini' }), { authorization: `Bearer ${customer.accessToken}` })
    expect(created.status).toBe(201)
    const content = 'Ж'.repeat(100_000) // 200 KB in UTF-8
    const res = await post(`/api/chats/${created.body.data.id}/messages`, JSON.stringify({ role: 'user', content }), { authorization: `Bearer ${customer.accessToken}` })
    expect(res.status).toBe(201)
    const tooBig = await post(`/api/chats/${created.body.data.id}/messages`, JSON.stringify({ role: 'user', content: 'x'.repeat(2 * MB) }), {
      authorization: `Bearer ${customer.accessToken}`,
    })
    expect([tooBig.status, tooBig.body]).toEqual([413, { success: false, error: 'Тело запроса слишком большое (больше 1 МБ)' }])
  }, 15_000)

  test('the larger /api families (upload, estimate, chats): no credentials → 401 before the body is read; over 20 MB → 413 with the upload message', async () => {
    const multipart = { 'content-type': 'multipart/form-data; boundary=x' }
    expect((await headOnly(gw.url, 'POST', '/api/upload', { ...multipart, 'content-length': String(10 * MB) })).status).toBe(401)
    expect((await headOnly(gw.url, 'POST', '/api/playground/estimate', { 'content-type': 'application/json', 'content-length': String(10 * MB) })).status).toBe(401)
    expect((await headOnly(gw.url, 'POST', '/api/chats/x/messages', { 'content-type': 'application/json', 'content-length': String(512 * KB) })).status).toBe(401)
    const over = await headOnly(gw.url, 'POST', '/api/upload', { ...multipart, 'content-length': String(21 * MB), authorization: `Bearer ${customer.accessToken}` })
    expect(over.status).toBe(413)
  })
})

describe('/v1: the key before the body', () => {
  test("40 MB without a key (or with a wrong one) → 401 at once, the body unread, the server's memory unmoved", async () => {
    const before = rssMb(pid)
    const none = await post('/v1/chat/completions', new Uint8Array(40 * MB))
    expect(none.status).toBe(401)
    expect(none.body.error.code).toBe('missing_api_key')
    expect(rssMb(pid) - before).toBeLessThan(50)
    // The head alone gets the 401: the server never waits for the body.
    const length = { 'content-type': 'application/json', 'content-length': String(40 * MB) }
    for (const [path, headers] of [
      ['/v1/chat/completions', {}],
      ['/v1/chat/completions', { authorization: 'Bearer sk-gw-not-a-key' }],
      ['/v1/responses', { authorization: 'Bearer not-even-a-jwt' }],
      ['/v1/messages', { 'x-api-key': 'sk-gw-not-a-key' }],
    ] as const) {
      const head = await headOnly(gw.url, 'POST', path, { ...length, ...headers })
      expect({ path, status: head.status }).toEqual({ path, status: 401 })
      expect(head.ms).toBeLessThan(1000)
    }
    const anthropic = await readResult(
      await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...JSON_TYPE, 'x-api-key': 'sk-gw-not-a-key' }, body: new Uint8Array(1 * MB) }),
    )
    expect([anthropic.status, anthropic.body.type, anthropic.body.error?.type]).toEqual([401, 'error', 'authentication_error'])
  }, 30_000)

  test("with a key, over 32 MB → 413 in OpenAI's shape (Anthropic's on /v1/messages), by Content-Length or while chunked", async () => {
    const auth = { authorization: `Bearer ${customer.key}` }
    const head = await headOnly(gw.url, 'POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': String(33 * MB), ...auth })
    expect(head.status).toBe(413)
    const declared = await post('/v1/chat/completions', new Uint8Array(33 * MB).fill(0x20), auth)
    expect([declared.status, declared.body]).toEqual([413, V1_TOO_LARGE])
    const streamed = await post('/v1/chat/completions', chunked(33 * 16), auth)
    expect([streamed.status, streamed.body]).toEqual([413, V1_TOO_LARGE])
    const messages = await post('/v1/messages', chunked(33 * 16), { 'x-api-key': customer.key })
    expect([messages.status, messages.body]).toEqual([413, { type: 'error', error: { type: 'request_too_large', message: 'Тело запроса слишком большое (больше 32 МБ)' } }])
  }, 30_000)

  test('a large legitimate body (a 3 MB image as a data URL) goes through', async () => {
    const dataUrl = `data:image/png;base64,${Buffer.from(new Uint8Array(2 * MB + 1).fill(7)).toString('base64')}`
    const body = {
      model: 'openai/gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Что на картинке?' },
            { type: 'image_url', image_url: { url: dataUrl } },
          ],
        },
      ],
      max_tokens: 16,
    }
    const res = await post('/v1/chat/completions', JSON.stringify(body), { authorization: `Bearer ${customer.key}` })
    expect(res.status).toBe(200)
    expect(res.body.object).toBe('chat.completion')
  }, 15_000)

  test("over Bun's own backstop (64 MB): 413 before any of our code, even without a key; 6 × 120 MB leave the memory where it was", async () => {
    const head = await headOnly(gw.url, 'POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': String(65 * MB) })
    expect(head.status).toBe(413)
    const before = rssMb(pid)
    const heads = await Promise.all(
      ['/api/auth/login', '/api/payments/webhook', '/api/upload', '/v1/chat/completions', '/v1/messages', '/api/chats'].map((path) =>
        headOnly(gw.url, 'POST', path, { 'content-type': 'application/json', 'content-length': String(120 * MB), authorization: `Bearer ${customer.key}` }),
      ),
    )
    expect(heads.map((h) => h.status)).toEqual([413, 413, 413, 413, 413, 413])
    expect(rssMb(pid) - before).toBeLessThan(20)
  })
})

describe('the OpenAPI document', () => {
  test('still lists the request bodies (the bounded readers parse what Elysia would)', async () => {
    const doc = await (await fetch(`${gw.url}/api/openapi.json`)).json()
    for (const [path, method] of [
      ['/api/auth/login', 'post'],
      ['/api/payments/webhook', 'post'],
      ['/api/chats/{id}/messages', 'post'],
      ['/v1/chat/completions', 'post'],
      ['/v1/messages', 'post'],
    ]) {
      const content = doc.paths[path!][method!].requestBody?.content ?? {}
      expect({ path, json: content['application/json']?.schema?.type ?? content['application/json']?.schema?.$ref }).toEqual({ path, json: expect.any(String) })
    }
  })
})

describe('in production mode', () => {
  test('the same limits and answers (NODE_ENV=production)', async () => {
    const prod = await startServer({ NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'true', USD_RUB_RATE: '92.5' })
    try {
      const send = async (path: string, body: BodyInit) => {
        const started = performance.now()
        const res = await readResult(await fetch(prod.url + path, { method: 'POST', headers: JSON_TYPE, body }))
        return { status: res.status, body: res.body, ms: performance.now() - started }
      }
      const deep = await send('/api/payments/webhook', nestedArrays(20_000))
      expect([deep.status, deep.body]).toEqual([400, { success: false, error: TOO_DEEP }])
      expect(deep.ms).toBeLessThan(1000)
      const big = await send('/api/auth/login', JSON.stringify({ email: 'a@example.ru', password: 'x'.repeat(2 * MB) }))
      expect([big.status, big.body]).toEqual([413, API_TOO_LARGE])
      const noKey = await headOnly(prod.url, 'POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': String(40 * MB) })
      expect(noKey.status).toBe(401)
    } finally {
      // Refused bodies close their connections: a graceful stop does not wait for bodies nobody reads.
      const stopping = performance.now()
      expect(await prod.stop()).toBe(0)
      expect(performance.now() - stopping).toBeLessThan(5000)
    }
  }, 30_000)
})
