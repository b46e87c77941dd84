import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { YandexEntry } from './types'
import { createYandexClient, usageStream } from './yandex'
import { FAKE_YANDEX_DIMENSIONS, FAKE_YANDEX_HANG, FAKE_YANDEX_REPLY, type FakeYandex, startFakeYandex, YANDEX_UNSUPPORTED_FIELDS } from './yandex-fake'

const KEY = 'AQVN-test-key'
const FOLDER = 'b1gtestfolder'

let fake: FakeYandex // streams carry no usage (the unconfirmed reading)
let fakeWithUsage: FakeYandex // streams end with usage

beforeAll(async () => {
  fake = await startFakeYandex({ apiKey: KEY, folderId: FOLDER })
  fakeWithUsage = await startFakeYandex({ apiKey: KEY, folderId: FOLDER, streamUsage: true })
})
afterAll(async () => {
  await fake.stop()
  await fakeWithUsage.stop()
})

const entryFor = (f: FakeYandex, over: Partial<YandexEntry> = {}): YandexEntry => ({
  kind: 'yandex',
  id: 'yandex-test',
  baseUrl: f.baseUrl,
  apiKey: KEY,
  folderId: FOLDER,
  residency: 'ru',
  currency: 'RUB',
  models: [],
  ...over,
})

const client = (f: FakeYandex = fake, over: Partial<YandexEntry> = {}) => createYandexClient(entryFor(f, over), { now: () => 1_750_000_000_000 })
const signal = () => new AbortController().signal
const lastLog = (f: FakeYandex = fake) => f.log[f.log.length - 1]!
const lastBody = (f: FakeYandex = fake) => lastLog(f).body as Record<string, any>

const MESSAGES = [
  { role: 'system', content: 'Ты помощник.' }, // 12 characters
  { role: 'user', content: 'Привет' }, // 6
]

/** The data events of a stream, parsed, and whether it ended with [DONE]. */
async function readSse(res: Response) {
  const text = await res.text()
  const data = text
    .split('\n\n')
    .map((e) => e.trim())
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
  const done = data[data.length - 1] === '[DONE]'
  return { chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d)), done }
}

describe('request', () => {
  test('sends the key, the folder as OpenAI-Project, and the model as a gpt:// URI; answers with our model name', async () => {
    const res = await client().post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES }, signal())
    expect(res.status).toBe(200)
    const log = lastLog()
    expect(log.path).toBe('/v1/chat/completions')
    expect(log.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(log.headers['openai-project']).toBe(FOLDER)
    expect(log.headers['content-type']).toContain('application/json')
    expect(lastBody().model).toBe(`gpt://${FOLDER}/yandexgpt/rc`)
    const body = (await res.json()) as any
    expect(body.object).toBe('chat.completion')
    expect(body.model).toBe('yandexgpt/rc') // not Yandex's URI: that would show the folder
    expect(body.choices[0].message.content).toBe(FAKE_YANDEX_REPLY)
    // The fake's own counts, passed on: a quarter of 18 prompt characters + 7, a quarter of 38 written.
    expect(body.usage).toEqual({ prompt_tokens: 12, completion_tokens: 10, total_tokens: 22, prompt_tokens_details: { cached_tokens: 0 } })
  })

  test('a model given as a URI is kept', async () => {
    const res = await client().post('/chat/completions', { model: `gpt://${FOLDER}/yandexgpt-lite`, messages: MESSAGES }, signal())
    expect(res.status).toBe(200)
    expect(lastBody().model).toBe(`gpt://${FOLDER}/yandexgpt-lite`)
  })

  test('the fake refuses every unsupported field (so the next test proves something)', async () => {
    for (const field of ['stop', 'stream_options', 'usage']) {
      const res = await fetch(`${fake.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'openai-project': FOLDER, 'content-type': 'application/json' },
        body: JSON.stringify({ model: `gpt://${FOLDER}/yandexgpt/rc`, messages: MESSAGES, [field]: 1 }),
      })
      expect(res.status).toBe(400)
    }
  })

  test('unsupported fields are dropped, max_completion_tokens goes as max_tokens', async () => {
    const extra = Object.fromEntries(YANDEX_UNSUPPORTED_FIELDS.map((f) => [f, f === 'stream_options' ? { include_usage: true } : f === 'usage' ? { include: true } : 1]))
    const res = await client().post(
      '/chat/completions',
      {
        ...extra,
        model: 'qwen3-235b-a22b-fp8/latest',
        messages: MESSAGES,
        temperature: 0.3,
        top_p: 0.9,
        max_completion_tokens: 50,
        max_tokens: 80,
        response_format: { type: 'json_object' },
      },
      signal(),
    )
    expect(res.status).toBe(200)
    expect(lastBody()).toEqual({
      model: `gpt://${FOLDER}/qwen3-235b-a22b-fp8/latest`,
      messages: MESSAGES,
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 50,
      response_format: { type: 'json_object' },
    })
  })

  const TOOLS = [
    { type: 'function', function: { name: 'get_weather', description: 'Погода в городе', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
  ]

  test('tool_choice: auto/none kept, required becomes auto, a forced function becomes auto with only that tool', async () => {
    const c = client()
    const ask = async (tool_choice: unknown, tools: unknown = TOOLS) => {
      const res = await c.post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES, tools, tool_choice }, signal())
      expect(res.status).toBe(200)
      return lastBody()
    }
    expect((await ask('none')).tool_choice).toBe('none')
    expect((await ask('auto')).tool_choice).toBe('auto')
    const required = await ask('required')
    expect(required.tool_choice).toBe('auto')
    expect(required.tools).toEqual(TOOLS)
    const forced = await ask({ type: 'function', function: { name: 'get_time' } })
    expect(forced.tool_choice).toBe('auto')
    expect(forced.tools).toEqual([TOOLS[1]])
    // A forced name that is not among the tools leaves the tools as they are.
    expect((await ask({ type: 'function', function: { name: 'nope' } })).tools).toEqual(TOOLS)
    // Without tools the choice means nothing and is not sent.
    expect((await c.post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES, tool_choice: 'required' }, signal())).status).toBe(200)
    expect('tool_choice' in lastBody()).toBe(false)
  })

  test('a tool-call round trip', async () => {
    const c = client()
    const ask = { role: 'user', content: 'Какая погода в Москве?' }
    const first = (await (await c.post('/chat/completions', { model: 'yandexgpt/rc', messages: [ask], tools: TOOLS }, signal())).json()) as any
    const choice = first.choices[0]
    expect(choice.finish_reason).toBe('tool_calls')
    const call = choice.message.tool_calls[0]
    expect(call.function.name).toBe('get_weather')
    expect(typeof call.function.arguments).toBe('string')
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Москва' })
    const messages = [ask, choice.message, { role: 'tool', tool_call_id: call.id, content: '+5°C, облачно' }]
    const res = await c.post('/chat/completions', { model: 'yandexgpt/rc', messages, tools: TOOLS }, signal())
    expect(res.status).toBe(200)
    expect(lastBody().messages).toEqual(messages)
    const second = (await res.json()) as any
    expect(second.choices[0].finish_reason).toBe('stop')
    expect(second.choices[0].message.content).toContain('+5°C, облачно')
  })
})

describe('streams', () => {
  test('without usage from Yandex, our estimate is appended before [DONE]', async () => {
    const res = await client().post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES, stream: true, stream_options: { include_usage: true } }, signal())
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    expect(lastBody().stream).toBe(true)
    expect('stream_options' in lastBody()).toBe(false)
    const { chunks, done } = await readSse(res)
    expect(done).toBe(true)
    // The fake cut every event in two (inside Cyrillic letters too): the text arrives whole.
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(FAKE_YANDEX_REPLY)
    expect(chunks.every((c) => c.model === 'yandexgpt/rc')).toBe(true)
    const last = chunks[chunks.length - 1]
    // 18 prompt characters / 3 = 6; the 38 written / 3 = 12.67 → 13.
    expect(last).toEqual({
      id: chunks[0].id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'yandexgpt/rc',
      choices: [],
      usage: { prompt_tokens: 6, completion_tokens: 13, total_tokens: 19, prompt_tokens_details: { cached_tokens: 0 }, estimated: true },
    })
    expect(chunks.filter((c) => c.usage).length).toBe(1)
  })

  test('with usage from Yandex, it is passed on and nothing is estimated', async () => {
    const res = await client(fakeWithUsage).post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES, stream: true }, signal())
    const { chunks, done } = await readSse(res)
    expect(done).toBe(true)
    const withUsage = chunks.filter((c) => c.usage)
    expect(withUsage.length).toBe(1)
    expect(withUsage[0]).toBe(chunks[chunks.length - 1])
    expect(withUsage[0].usage).toEqual({ prompt_tokens: 12, completion_tokens: 10, total_tokens: 22, prompt_tokens_details: { cached_tokens: 0 } })
    expect(withUsage[0].choices[0].finish_reason).toBe('stop')
    // A stream read to its end is not a closed connection (the abort tests rely on the difference).
    await Bun.sleep(20)
    expect(lastLog(fakeWithUsage).aborted).toBe(false)
  })

  test('a streamed tool call: arguments from the deltas, completion estimated from name and arguments', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    const question = 'Какая погода в Москве?'
    const res = await client().post('/chat/completions', { model: 'yandexgpt/rc', messages: [{ role: 'user', content: question }], tools, stream: true }, signal())
    const { chunks, done } = await readSse(res)
    expect(done).toBe(true)
    const args = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []).map((t: any) => t.function?.arguments ?? '')
    expect(JSON.parse(args.join(''))).toEqual({ city: 'Москва' })
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true)
    const prompt = Math.ceil(([...question].length + JSON.stringify(tools).length) / 3)
    // 'get_weather' (11) + '{"city":"Москва"}' (17) = 28 characters → 10.
    expect(chunks[chunks.length - 1].usage).toEqual({
      prompt_tokens: prompt,
      completion_tokens: 10,
      total_tokens: prompt + 10,
      prompt_tokens_details: { cached_tokens: 0 },
      estimated: true,
    })
  })
  test('CRLF events, comments, and an answer that ends without [DONE] get usage and [DONE]; a cut one does not', async () => {
    const run = async (text: string) => {
      const bytes = new TextEncoder().encode(text)
      // One byte per network chunk: the worst split there is.
      const source = new ReadableStream<Uint8Array>({
        start(c) {
          for (const b of bytes) c.enqueue(Uint8Array.of(b))
          c.close()
        },
      })
      return await new Response(source.pipeThrough(usageStream('yandexgpt-lite', 5, () => 1_750_000_000_000))).text()
    }
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'x', created: 7, model: 'gpt://f/m', choices: [{ index: 0, delta, finish_reason: finish }] })}\r\n\r\n`
    const whole = await run(`: ping\r\n\r\n${chunk({ content: 'Ёжик' })}${chunk({}, 'stop')}`)
    expect(whole).toStartWith(': ping\n\n')
    expect(whole).toEndWith('data: [DONE]\n\n')
    expect(whole).toContain('"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":0},"estimated":true}')
    expect(whole).not.toContain('gpt://')
    const cut = await run(chunk({ content: 'Ёжик' }))
    expect(cut).not.toContain('[DONE]')
    expect(cut).not.toContain('usage')
  })
})

describe('embeddings', () => {
  test('an array becomes one call per string (at most 4 at once), merged in order', async () => {
    const texts = ['а', 'бб', 'ввв', 'гггг', 'ддддд', 'ееееее']
    const before = fake.log.length
    const res = await client().post('/embeddings', { model: 'text-search-doc/latest', input: texts, dimensions: 256 }, signal())
    expect(res.status).toBe(200)
    const calls = fake.log.slice(before)
    expect(calls.length).toBe(texts.length)
    for (const call of calls) {
      expect(call.path).toBe('/v1/embeddings')
      expect(call.body).toEqual({ model: `emb://${FOLDER}/text-search-doc/latest`, input: expect.any(String), encoding_format: 'float' })
    }
    expect(calls.map((c) => (c.body as any).input).sort()).toEqual([...texts].sort())
    expect(fake.stats.embeddingsPeak).toBeGreaterThan(1)
    expect(fake.stats.embeddingsPeak).toBeLessThanOrEqual(4)
    const body = (await res.json()) as any
    expect(body.object).toBe('list')
    expect(body.model).toBe('text-search-doc/latest')
    expect(body.data.map((d: any) => d.index)).toEqual([0, 1, 2, 3, 4, 5])
    expect(body.data.map((d: any) => d.embedding[0])).toEqual([1, 2, 3, 4, 5, 6]) // the fake's first component is the length
    expect(body.data.every((d: any) => d.object === 'embedding' && d.embedding.length === FAKE_YANDEX_DIMENSIONS)).toBe(true)
    // The fake counts ceil(n/4)+1 per text: 2+2+2+2+3+3.
    expect(body.usage).toEqual({ prompt_tokens: 14, total_tokens: 14 })
  })

  test('a single string; base64 asked for is float32 little-endian of the float answer', async () => {
    const plain = (await (await client().post('/embeddings', { model: 'text-search-query/latest', input: 'запрос' }, signal())).json()) as any
    expect(plain.data.length).toBe(1)
    const res = await client().post('/embeddings', { model: 'text-search-query/latest', input: ['запрос'], encoding_format: 'base64' }, signal())
    expect((lastBody() as any).encoding_format).toBe('float')
    const encoded = ((await res.json()) as any).data[0].embedding as string
    const bytes = Buffer.from(encoded, 'base64')
    const floats = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))
    expect(floats.length).toBe(FAKE_YANDEX_DIMENSIONS)
    floats.forEach((f, i) => {
      expect(f).toBeCloseTo(plain.data[0].embedding[i], 5)
    })
  })

  test('token arrays are refused without calling Yandex; an error in one call is the answer', async () => {
    const before = fake.log.length
    const refused = await client().post('/embeddings', { model: 'text-search-doc/latest', input: [[1, 2, 3]] }, signal())
    expect(refused.status).toBe(400)
    expect(fake.log.length).toBe(before)
    fake.failNext(429, { error: { message: 'Too many embeddings' } }, { 'retry-after': '3' })
    const res = await client().post('/embeddings', { model: 'text-search-doc/latest', input: ['один', 'два', 'три'] }, signal())
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('3')
    expect(((await res.json()) as any).error.message).toBe('Too many embeddings')
  })
})

describe('errors', () => {
  const chat = () => client().post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES }, signal())

  test('429 keeps Retry-After', async () => {
    fake.failNext(429, { error: { message: 'Rate limit exceeded', http_code: 429 } }, { 'retry-after': '7' })
    const res = await chat()
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('7')
    expect(await res.json()).toEqual({ error: { message: 'Rate limit exceeded', code: 'rate_limit_exceeded', type: 'rate_limit_error' } })
  })

  test('500 with a text body', async () => {
    fake.failNext(500, 'internal error, try again', { 'content-type': 'text/plain' })
    const res = await chat()
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: { message: 'internal error, try again', code: 'upstream_error', type: 'server_error' } })
  })

  test('odd bodies: gRPC-style {message}, {error:"text"}, an HTML page, nothing', async () => {
    fake.failNext(400, { code: 3, message: 'messages[1].content: too long', details: [] })
    let res = await chat()
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: { message: 'messages[1].content: too long', code: 'invalid_request', type: 'invalid_request_error' } })
    fake.failNext(403, { error: 'Permission denied' })
    res = await chat()
    expect(await res.json()).toEqual({ error: { message: 'Permission denied', code: 'permission_denied', type: 'permission_error' } })
    fake.failNext(502, '<html><body>Bad Gateway</body></html>')
    res = await chat()
    expect(res.status).toBe(502)
    expect(((await res.json()) as any).error.message).toBe('YandexGPT вернул ошибку HTTP 502')
    fake.failNext(503, '')
    expect(((await (await chat()).json()) as any).error).toEqual({ message: 'YandexGPT вернул ошибку HTTP 503', code: 'upstream_error', type: 'server_error' })
  })

  test("Yandex's own refusal of a wrong key, in OpenAI's shape", async () => {
    const res = await client(fake, { apiKey: 'wrong' }).post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES }, signal())
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ error: { message: 'Unknown api key', code: 'invalid_api_key', type: 'authentication_error' } })
  })

  test('other paths are 404 without a call', async () => {
    const before = fake.log.length
    const res = await client().post('/responses', { model: 'yandexgpt/rc', input: 'Привет' }, signal())
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: { message: 'YandexGPT не поддерживает /responses', code: 'unsupported_endpoint', type: 'invalid_request_error' } })
    expect(fake.log.length).toBe(before)
  })
})

describe('abort and transport', () => {
  const seenClosed = async (f: FakeYandex, index: number) => {
    for (let i = 0; i < 100 && !f.log[index]?.aborted; i++) await Bun.sleep(10)
    return f.log[index]?.aborted
  }

  test('aborting a stream mid-answer closes the connection to Yandex', async () => {
    const ac = new AbortController()
    const res = await client().post('/chat/completions', { model: 'yandexgpt/rc', messages: [{ role: 'user', content: FAKE_YANDEX_HANG }], stream: true }, ac.signal)
    const index = fake.log.length - 1
    const reader = res.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain('chat.completion.chunk')
    ac.abort()
    await reader.read().catch(() => undefined)
    expect(await seenClosed(fake, index)).toBe(true)
  })

  test('aborting while waiting for a plain answer rejects and closes the connection', async () => {
    const ac = new AbortController()
    const pending = client().post('/chat/completions', { model: 'yandexgpt/rc', messages: [{ role: 'user', content: FAKE_YANDEX_HANG }] }, ac.signal)
    for (let i = 0; i < 100 && !fake.log.some((e) => JSON.stringify(e.body).includes(FAKE_YANDEX_HANG) && !e.aborted && !(e.body as any).stream); i++) await Bun.sleep(5)
    const index = fake.log.length - 1
    ac.abort()
    await expect(pending).rejects.toBeDefined()
    expect(await seenClosed(fake, index)).toBe(true)
  })

  test('caFile is read once and given to fetch as tls.ca', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yandex-ca-'))
    try {
      const file = join(dir, 'ca.pem')
      const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
      writeFileSync(file, pem)
      const seen: unknown[] = []
      const c = createYandexClient(entryFor(fake, { caFile: file }), {
        fetch: (url, init) => {
          seen.push((init as BunFetchRequestInit).tls)
          return fetch(url, init)
        },
      })
      rmSync(file) // read at creation, not per request
      expect((await c.post('/chat/completions', { model: 'yandexgpt/rc', messages: MESSAGES }, signal())).status).toBe(200)
      expect(seen).toEqual([{ ca: [pem] }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
