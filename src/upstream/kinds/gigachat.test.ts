import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FetchLike } from '../fetch-like'
import { createGigachatClient, TEXT_ONLY_MESSAGE, toGigachatChat } from './gigachat'
import { type FakeGigachat, startFakeGigachat } from './gigachat-fake'
import type { GigachatEntry } from './types'

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i
const signal = () => new AbortController().signal

const entryFor = (fake: { authUrl: string; baseUrl: string }, extra: Partial<GigachatEntry> = {}): GigachatEntry => ({
  id: 'gigachat',
  kind: 'gigachat',
  baseUrl: fake.baseUrl,
  authUrl: fake.authUrl,
  authKey: 'test-auth-key',
  scope: 'GIGACHAT_API_PERS',
  residency: 'ru',
  currency: 'RUB',
  models: [],
  ...extra,
})

const user = (content: string) => ({ model: 'GigaChat-2-Max', messages: [{ role: 'user', content }] })

/** The `data:` payloads of an SSE body. */
async function events(res: Response): Promise<string[]> {
  const text = await res.text()
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true)
      return block.slice(6)
    })
}

let fake: FakeGigachat
beforeAll(async () => {
  fake = await startFakeGigachat()
})
afterAll(() => fake.stop())

const apiCalls = () => fake.log.filter((e) => e.path.startsWith('/api/v1/'))
const lastApiBody = () => apiCalls().at(-1)!.body as Record<string, any>

describe('tokens', () => {
  test('one token serves many requests; the OAuth call is what GigaChat expects', async () => {
    const before = fake.tokensIssued()
    const client = createGigachatClient(entryFor(fake))
    expect(client.tokenExpiresAt()).toBeNull()
    for (let i = 0; i < 5; i++) expect((await client.post('/chat/completions', user('Привет'), signal())).status).toBe(200)
    expect(fake.tokensIssued() - before).toBe(1)
    const oauth = fake.log.filter((e) => e.path === '/api/v2/oauth').at(-1)!
    expect(oauth.headers.authorization).toBe('Basic test-auth-key')
    expect(oauth.headers.rquid).toMatch(UUID4)
    expect(oauth.headers.accept).toBe('application/json')
    expect(oauth.headers['content-type']).toStartWith('application/x-www-form-urlencoded')
    expect(oauth.body).toBe('scope=GIGACHAT_API_PERS')
    expect(apiCalls().at(-1)!.headers.authorization).toStartWith('Bearer fake-')
    const exp = client.tokenExpiresAt()!
    expect(Math.abs(exp - (Date.now() + 30 * 60_000))).toBeLessThan(5_000)
  })

  test('concurrent first requests share one token request', async () => {
    const before = fake.tokensIssued()
    const client = createGigachatClient(entryFor(fake))
    const answers = await Promise.all(Array.from({ length: 8 }, () => client.post('/chat/completions', user('Привет'), signal())))
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200))
    expect(fake.tokensIssued() - before).toBe(1)
  })

  test('renewed when less than a minute is left (by opts.now)', async () => {
    let clock = Date.now()
    const client = createGigachatClient(entryFor(fake), { now: () => clock })
    const before = fake.tokensIssued()
    await client.post('/chat/completions', user('Привет'), signal())
    const exp = client.tokenExpiresAt()!
    clock = exp - 61_000
    await client.post('/chat/completions', user('Привет'), signal())
    expect(fake.tokensIssued() - before).toBe(1)
    clock = exp - 59_000
    expect((await client.post('/chat/completions', user('Привет'), signal())).status).toBe(200)
    expect(fake.tokensIssued() - before).toBe(2)
  })

  test('a 401 renews the token once and retries once; a second 401 is the answer', async () => {
    const client = createGigachatClient(entryFor(fake))
    await client.post('/chat/completions', user('Привет'), signal())
    const before = fake.tokensIssued()
    const logAt = fake.log.length
    fake.expireTokens()
    expect((await client.post('/chat/completions', user('Привет'), signal())).status).toBe(200)
    expect(fake.tokensIssued() - before).toBe(1)
    expect(fake.log.slice(logAt).map((e) => [e.path, e.status])).toEqual([
      ['/api/v1/chat/completions', 401],
      ['/api/v2/oauth', 200],
      ['/api/v1/chat/completions', 200],
    ])

    fake.failNext(401, 'Unauthorized')
    fake.failNext(401, 'Unauthorized')
    const res = await client.post('/chat/completions', user('Привет'), signal())
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({
      error: { message: 'GigaChat не принял токен доступа шлюза: Unauthorized', type: 'server_error', code: 'upstream_auth_failed', param: null },
    })
    expect(fake.tokensIssued() - before).toBe(2)
  })

  test('a refused token is a 502 naming GigaChat’s words; a dead host rejects', async () => {
    const wrongKey = createGigachatClient(entryFor(fake, { authKey: 'wrong' }))
    const res = await wrongKey.post('/chat/completions', user('Привет'), signal())
    expect(res.status).toBe(502)
    expect(await res.json()).toEqual({
      error: { message: "GigaChat не выдал шлюзу токен доступа (HTTP 401): Can't decode 'Authorization' header", type: 'server_error', code: 'upstream_auth_failed', param: null },
    })
    expect(wrongKey.tokenExpiresAt()).toBeNull()
    const wrongScope = createGigachatClient(entryFor(fake, { scope: 'GIGACHAT_API_CORP' }))
    expect(((await (await wrongScope.post('/chat/completions', user('Привет'), signal())).json()) as any).error.message).toContain(
      'scope from db not fully includes consumed scope',
    )

    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const port = closed.port
    closed.stop(true)
    const dead = createGigachatClient(entryFor({ authUrl: `http://127.0.0.1:${port}/api/v2/oauth`, baseUrl: fake.baseUrl }))
    await expect(dead.post('/chat/completions', user('Привет'), signal())).rejects.toThrow()
    const deadApi = createGigachatClient(entryFor({ authUrl: fake.authUrl, baseUrl: `http://127.0.0.1:${port}/api/v1` }))
    await expect(deadApi.post('/chat/completions', user('Привет'), signal())).rejects.toThrow()
  })
})

describe('chat', () => {
  const client = () => createGigachatClient(entryFor(fake))

  test('plain answer: only v1 fields go up, an OpenAI chat.completion comes back', async () => {
    const res = await client().post(
      '/chat/completions',
      {
        model: 'GigaChat-2-Max',
        messages: [
          { role: 'system', content: 'Ты помощник.' },
          { role: 'user', content: 'Привет' },
          { role: 'system', content: 'Будь краток.' },
        ],
        temperature: 0,
        top_p: 0.9,
        n: 1,
        max_completion_tokens: 50,
        stop: ['\n'],
        user: 'u-1',
        seed: 7,
        frequency_penalty: 0.5,
        response_format: { type: 'text' },
        stream_options: { include_usage: true },
      },
      signal(),
      { 'X-Request-ID': 'req-123' },
    )
    expect(res.status).toBe(200)
    expect(apiCalls().at(-1)!.headers['x-request-id']).toBe('req-123')
    expect(lastApiBody()).toEqual({
      model: 'GigaChat-2-Max',
      messages: [
        { role: 'system', content: 'Ты помощник.\n\nБудь краток.' },
        { role: 'user', content: 'Привет' },
      ],
      temperature: 0.001,
      top_p: 0.9,
      n: 1,
      max_tokens: 50,
    })
    const json = (await res.json()) as any
    expect(json).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f-]{36}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'GigaChat-2-Max:2.0.28.2',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Ответ GigaChat: Привет' }, finish_reason: 'stop' }],
      // 32 characters → 8 prompt tokens, 2 of them precached; 3 words.
      usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11, prompt_tokens_details: { cached_tokens: 2 } },
    })
  })

  test('max_tokens cuts the answer: finish_reason length', async () => {
    const json = (await (await client().post('/chat/completions', { ...user('раз два три'), max_tokens: 2 }, signal())).json()) as any
    expect(json.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'Ответ GigaChat:' }, finish_reason: 'length' })
  })

  test('streamed answer: OpenAI chunks with one id, usage with the finish, then [DONE]', async () => {
    const res = await client().post('/chat/completions', { ...user('Скажи три слова'), stream: true, stream_options: { include_usage: true } }, signal())
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect(lastApiBody().stream).toBe(true)
    expect(apiCalls().at(-1)!.headers.accept).toBe('text/event-stream')
    const data = await events(res)
    expect(data.at(-1)).toBe('[DONE]')
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
    const id = chunks[0].id
    expect(id).toMatch(/^chatcmpl-/)
    for (const c of chunks) {
      expect(c.id).toBe(id)
      expect(c.object).toBe('chat.completion.chunk')
      expect(c.model).toBe('GigaChat-2-Max:2.0.28.2')
      expect(typeof c.created).toBe('number')
    }
    expect(chunks[0].choices).toEqual([{ index: 0, delta: { role: 'assistant', content: 'Ответ ' }, finish_reason: null }])
    expect(chunks.map((c) => c.choices[0].delta.content).join('')).toBe('Ответ GigaChat: Скажи три слова')
    expect(chunks.slice(0, -1).every((c) => c.usage === undefined)).toBe(true)
    expect(chunks.at(-1)).toEqual({
      id,
      object: 'chat.completion.chunk',
      created: expect.any(Number),
      model: 'GigaChat-2-Max:2.0.28.2',
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9, prompt_tokens_details: { cached_tokens: 1 } },
    })
  })

  test('events split anywhere (mid-UTF-8, CRLF) read the same', async () => {
    const rechunking: FetchLike = async (url, init) => {
      const res = await fetch(url, init)
      if (!res.headers.get('content-type')?.includes('event-stream')) return res
      const bytes = new TextEncoder().encode((await res.text()).replaceAll('\n', '\r\n'))
      let at = 0
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (at >= bytes.length) return c.close()
          c.enqueue(bytes.slice(at, at + 3))
          at += 3
        },
      })
      return new Response(body, { status: res.status, headers: res.headers })
    }
    const res = await createGigachatClient(entryFor(fake), { fetch: rechunking }).post('/chat/completions', { ...user('Скажи три слова'), stream: true }, signal())
    const data = await events(res)
    expect(data.at(-1)).toBe('[DONE]')
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
    expect(chunks.map((c) => c.choices[0].delta.content).join('')).toBe('Ответ GigaChat: Скажи три слова')
    expect(chunks.at(-1).usage.total_tokens).toBe(9)
  })

  test('streams as it comes, and the client’s abort reaches GigaChat', async () => {
    const abort = new AbortController()
    const started = performance.now()
    const res = await client().post('/chat/completions', { ...user('медленно'), stream: true }, abort.signal)
    const reader = res.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toContain('слово1')
    // The whole answer takes 4 s upstream: the first piece came long before.
    expect(performance.now() - started).toBeLessThan(1_000)
    const cancelledBefore = fake.streamsCancelled()
    abort.abort()
    await reader.read().catch(() => {})
    for (let i = 0; i < 50 && fake.streamsCancelled() === cancelledBefore; i++) await Bun.sleep(10)
    expect(fake.streamsCancelled() - cancelledBefore).toBe(1)
  })

  const weatherTool = {
    type: 'function',
    function: { name: 'get_weather', description: 'Погода в городе', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  }

  test('tool call round trip: tools → tool_calls (arguments a JSON string) → tool result → answer', async () => {
    const c = client()
    const messages: any[] = [{ role: 'user', content: 'Какая погода в Москве?' }]
    const first = (await (await c.post('/chat/completions', { model: 'GigaChat-2-Max', messages, tools: [weatherTool] }, signal())).json()) as any
    expect(lastApiBody()).toEqual({
      model: 'GigaChat-2-Max',
      messages,
      functions: [{ name: 'get_weather', description: 'Погода в городе', parameters: weatherTool.function.parameters }],
      function_call: 'auto',
    })
    expect(first.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Москва"}' } }],
        },
        finish_reason: 'tool_calls',
      },
    ])
    const call = first.choices[0].message.tool_calls[0]
    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temperature":21}' })
    const second = (await (await c.post('/chat/completions', { model: 'GigaChat-2-Max', messages, tools: [weatherTool] }, signal())).json()) as any
    expect(lastApiBody().messages.slice(1)).toEqual([
      { role: 'assistant', content: '', function_call: { name: 'get_weather', arguments: { city: 'Москва' } } },
      { role: 'function', name: 'get_weather', content: '{"temperature":21}' },
    ])
    expect(second.choices[0].message).toEqual({ role: 'assistant', content: 'По данным функции get_weather: {"temperature":21}' })
    expect(second.choices[0].finish_reason).toBe('stop')

    // A result that is not a JSON object is wrapped into one; a second parallel call (and its result) is dropped.
    messages.splice(1, 2, { ...first.choices[0].message, tool_calls: [call, { ...call, id: 'call_2' }] }, { role: 'tool', tool_call_id: call.id, content: '+21, ясно' })
    messages.push({ role: 'tool', tool_call_id: 'call_2', content: '{}' })
    const third = (await (await c.post('/chat/completions', { model: 'GigaChat-2-Max', messages, tools: [weatherTool] }, signal())).json()) as any
    expect(lastApiBody().messages.slice(2)).toEqual([{ role: 'function', name: 'get_weather', content: '{"result":"+21, ясно"}' }])
    expect(third.choices[0].message.content).toBe('По данным функции get_weather: {"result":"+21, ясно"}')
  })

  test('tool_choice: a named function is forced, required is auto, none is none', async () => {
    const c = client()
    const forced = (await (
      await c.post('/chat/completions', { ...user('Привет'), tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } }, signal())
    ).json()) as any
    expect(lastApiBody().function_call).toEqual({ name: 'get_weather' })
    expect(forced.choices[0].finish_reason).toBe('tool_calls')
    await c.post('/chat/completions', { ...user('Привет'), tools: [weatherTool], tool_choice: 'required' }, signal())
    expect(lastApiBody().function_call).toBe('auto')
    const none = (await (await c.post('/chat/completions', { ...user('погода?'), tools: [weatherTool], tool_choice: 'none' }, signal())).json()) as any
    expect(lastApiBody().function_call).toBe('none')
    expect(none.choices[0].message.content).toBe('Ответ GigaChat: погода?')
  })

  test('a streamed tool call is one tool_calls delta with JSON-string arguments', async () => {
    const res = await client().post('/chat/completions', { ...user('Какая погода?'), tools: [weatherTool], stream: true }, signal())
    const data = await events(res)
    expect(data.at(-1)).toBe('[DONE]')
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
    expect(chunks).toHaveLength(1)
    expect(chunks[0].choices).toEqual([
      {
        index: 0,
        delta: {
          role: 'assistant',
          content: '',
          tool_calls: [{ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Москва"}' } }],
        },
        finish_reason: 'tool_calls',
      },
    ])
    expect(chunks[0].usage.completion_tokens).toBe(1)
  })

  test('images are refused before anything goes upstream; other paths are unsupported', async () => {
    const calls = fake.log.length
    const res = await client().post(
      '/chat/completions',
      {
        model: 'GigaChat-2-Max',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Что тут?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
            ],
          },
        ],
      },
      signal(),
    )
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error).toEqual({ message: TEXT_ONLY_MESSAGE, type: 'invalid_request_error', code: 'invalid_request_error', param: null })
    const other = await client().post('/responses', {}, signal())
    expect(other.status).toBe(404)
    expect(((await other.json()) as any).error).toEqual({
      message: 'GigaChat не поддерживает /responses',
      type: 'invalid_request_error',
      code: 'unsupported_endpoint',
      param: null,
    })
    expect(fake.log.length).toBe(calls)
  })

  test('translation: text parts joined, developer is system, legacy function messages kept', () => {
    expect(
      toGigachatChat({
        model: 'GigaChat',
        messages: [
          { role: 'developer', content: [{ type: 'text', text: 'Правило' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'раз' },
              { type: 'text', text: 'два' },
            ],
          },
          { role: 'assistant', content: null },
          { role: 'function', name: 'f', content: '42' },
        ],
        temperature: 0.7,
        max_tokens: 10,
        stream: false,
      }),
    ).toEqual({
      model: 'GigaChat',
      messages: [
        { role: 'system', content: 'Правило' },
        { role: 'user', content: 'раз\nдва' },
        { role: 'assistant', content: '' },
        { role: 'function', name: 'f', content: '{"result":42}' },
      ],
      temperature: 0.7,
      max_tokens: 10,
    })
  })
})

describe('errors', () => {
  const client = () => createGigachatClient(entryFor(fake))
  const cases: Array<[number, string, Record<string, string> | undefined, { message: string; type: string; code: string }]> = [
    [
      429,
      'Too many requests',
      { 'Retry-After': '7' },
      { message: 'GigaChat перегружен запросами, повторите позже: Too many requests', type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    ],
    [
      402,
      'Payment Required',
      undefined,
      { message: 'У шлюза закончился оплаченный объём токенов GigaChat: Payment Required', type: 'server_error', code: 'upstream_payment_required' },
    ],
    [
      413,
      'Payload too large',
      undefined,
      { message: 'Запрос не помещается в контекст модели GigaChat: Payload too large', type: 'invalid_request_error', code: 'context_length_exceeded' },
    ],
    [
      422,
      'Invalid params: repetition_penalty must be in range (0, +inf)',
      undefined,
      { message: expect.stringContaining('repetition_penalty'), type: 'invalid_request_error', code: 'invalid_request_error' },
    ],
    [500, 'Internal Server Error', undefined, { message: 'Сбой на стороне GigaChat: Internal Server Error', type: 'server_error', code: 'upstream_error' }],
  ]
  for (const [status, message, headers, error] of cases) {
    test(`${status} keeps its status in OpenAI's shape`, async () => {
      fake.failNext(status, message, headers)
      const res = await client().post('/chat/completions', { ...user('Привет'), stream: status === 500 }, signal())
      expect(res.status).toBe(status)
      expect(res.headers.get('retry-after')).toBe(headers?.['Retry-After'] ?? null)
      expect(await res.json()).toEqual({ error: { ...error, param: null } })
    })
  }

  test('an unknown model is model_not_found', async () => {
    const res = await client().post('/chat/completions', { ...user('Привет'), model: 'GigaChat-9' }, signal())
    expect(res.status).toBe(404)
    expect(((await res.json()) as any).error.code).toBe('model_not_found')
  })
})

describe('embeddings', () => {
  const client = () => createGigachatClient(entryFor(fake))

  test('a string or an array in, an OpenAI list with summed usage out', async () => {
    const one = (await (await client().post('/embeddings', { model: 'Embeddings', input: 'Привет мир' }, signal())).json()) as any
    expect(lastApiBody()).toEqual({ model: 'Embeddings', input: ['Привет мир'] })
    expect(one).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, 2, 'П'.codePointAt(0)! / 2048, 0.5] }],
      model: 'Embeddings',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    })
    const two = (await (await client().post('/embeddings', { model: 'Embeddings', input: ['раз', 'два три'], encoding_format: 'float' }, signal())).json()) as any
    expect(two.data.map((d: any) => d.index)).toEqual([0, 1])
    expect(two.usage).toEqual({ prompt_tokens: 1 + 2, total_tokens: 3 })
  })

  test('base64 as OpenAI’s SDKs ask for it; dimensions refused', async () => {
    const json = (await (await client().post('/embeddings', { model: 'Embeddings', input: 'Привет мир', encoding_format: 'base64' }, signal())).json()) as any
    const bytes = Buffer.from(json.data[0].embedding, 'base64')
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))).toEqual(Array.from(new Float32Array([0.1, 2, 'П'.codePointAt(0)! / 2048, 0.5])))
    const dims = await client().post('/embeddings', { model: 'Embeddings', input: 'x', dimensions: 2 }, signal())
    expect(dims.status).toBe(400)
  })
})

describe('the fake', () => {
  test('refuses what an untranslated OpenAI body would carry', async () => {
    const strict = await startFakeGigachat()
    try {
      const { access_token } = (await (
        await fetch(strict.authUrl, {
          method: 'POST',
          headers: { authorization: 'Basic test-auth-key', rquid: crypto.randomUUID(), 'content-type': 'application/x-www-form-urlencoded' },
          body: 'scope=GIGACHAT_API_PERS',
        })
      ).json()) as any
      const post = (body: unknown) =>
        fetch(`${strict.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      const tools = await post({ ...user('Привет'), tools: [] })
      expect(tools.status).toBe(422)
      expect(await tools.json()).toEqual({ status: 422, message: 'Invalid params: unknown field "tools"' })
      const system = await post({
        model: 'GigaChat',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'system', content: 'b' },
        ],
      })
      expect(await system.json()).toEqual({ status: 422, message: 'Invalid params: system message must be the first message' })
      expect((await post({ ...user('a'), temperature: 0 })).status).toBe(422)
      expect((await fetch(`${strict.baseUrl}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(401)
    } finally {
      await strict.stop()
    }
  })
})

describe('TLS', () => {
  test('caFile is trusted for this client; without it the connection is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gigachat-tls-'))
    const openssl = (...args: string[]) => {
      const run = Bun.spawnSync(['openssl', ...args], { cwd: dir, stderr: 'pipe' })
      if (run.exitCode !== 0) throw new Error(run.stderr.toString())
    }
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
    let tlsFake: FakeGigachat | undefined
    try {
      openssl('req', '-x509', ...ec, '-days', '1', '-subj', '/CN=Test Russian Trusted Root CA', '-keyout', 'ca.key', '-out', 'ca.pem')
      openssl('req', ...ec, '-subj', '/CN=127.0.0.1', '-keyout', 'server.key', '-out', 'server.csr')
      writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n')
      openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'ext.cnf', '-out', 'server.pem')
      tlsFake = await startFakeGigachat({ tls: { cert: readFileSync(join(dir, 'server.pem'), 'utf8'), key: readFileSync(join(dir, 'server.key'), 'utf8') } })
      expect(tlsFake.baseUrl).toStartWith('https://127.0.0.1:')

      const trusted = createGigachatClient(entryFor(tlsFake, { caFile: join(dir, 'ca.pem') }))
      const res = await trusted.post('/chat/completions', user('Привет'), signal())
      expect(res.status).toBe(200)
      expect(((await res.json()) as any).choices[0].message.content).toBe('Ответ GigaChat: Привет')

      const untrusted = createGigachatClient(entryFor(tlsFake))
      const logged = tlsFake.log.length
      await expect(untrusted.post('/chat/completions', user('Привет'), signal())).rejects.toThrow(/certificate|CERT/i)
      expect(tlsFake.log.length).toBe(logged) // refused at the handshake: nothing reached the server
    } finally {
      await tlsFake?.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

test('no request the client sent was refused by the fake as untranslated', () => {
  expect(fake.log.filter((e) => e.status === 422 && !e.injected)).toEqual([])
  expect(fake.log.length).toBeGreaterThan(30)
})
