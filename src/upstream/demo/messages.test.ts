// The demo upstream's Anthropic Messages API (`POST /messages`, `POST /messages/count_tokens`) over
// real HTTP: shapes, exact token and cost accounting, tool use, the SSE event order, faults, and the
// official `@anthropic-ai/sdk` client pointed at the fake.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CATALOGUE, type RunningFakeUpstream, startFakeUpstream } from './index'
import { computeCost, femtoToUsd } from './pricing'
import { readSseFrames, startDemoForTest, until } from './test-setup'

type Json = Record<string, any>

const MODEL = 'anthropic/claude-3-haiku'
const PRICING = CATALOGUE.find((m) => m.id === MODEL)!.pricing

const cp = (s: string) => [...s].length
const words = (s: string) => (s.match(/\s*\S+/g) ?? []).length

/** The documented formula, computed independently: ceil(text / 4) + 4 per message + ceil(JSON(tools) / 4). */
function inputTokens(texts: string[], messages: number, tools?: unknown): number {
  const text = Math.ceil(texts.reduce((n, t) => n + cp(t), 0) / 4)
  return text + 4 * messages + (tools === undefined ? 0 : Math.ceil(cp(JSON.stringify(tools)) / 4))
}

/** USD as the router reports it, from exact BigInt femto-dollars. */
const costUsd = (promptTokens: number, completionTokens: number, inputImages = 0, factor = 1n) =>
  femtoToUsd(computeCost(PRICING, { promptTokens, completionTokens, outputImages: 0, inputImages }).total * factor)

const WEATHER = {
  name: 'get_weather',
  description: 'Погода в городе',
  input_schema: {
    type: 'object',
    properties: { city: { type: 'string' }, units: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
  },
}
const TIME = { name: 'get_time', description: 'Время', input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } }

let up: RunningFakeUpstream

beforeAll(async () => {
  ;({ up } = await startDemoForTest({ faults: true, tokenDelayMs: 1 }))
})
afterAll(() => up.stop())

function post(path: string, body: unknown, headers: Record<string, string> = {}, on = up) {
  return fetch(`${on.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  })
}

const messages = (body: Json, headers?: Record<string, string>) => post('/messages', { model: MODEL, max_tokens: 1000, ...body }, headers)

async function message(body: Json): Promise<Json> {
  const res = await messages(body)
  expect(res.status).toBe(200)
  return (await res.json()) as Json
}

type Event = { event: string; data: Json }

/** Reads an SSE body of `event:` + `data:` frames; `stopAfter` cancels the read early. */
const readEvents = (res: Response, stopAfter?: (events: Event[]) => boolean) =>
  readSseFrames(
    res,
    (frame): Event => {
      const event = /^event: (.*)$/m.exec(frame)?.[1]
      const data = /^data: (.*)$/m.exec(frame)?.[1]
      if (!event || data === undefined) throw new Error(`not an event frame: ${frame}`)
      return { event, data: JSON.parse(data) }
    },
    stopAfter,
  )

async function generation(id: string | null): Promise<Json> {
  expect(id).toStartWith('gen-')
  const res = await fetch(`${up.url}/generation?id=${id}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as Json).data
}

async function expectAnthropicError(res: Response, status: number, type: string): Promise<string> {
  expect(res.status).toBe(status)
  const body = (await res.json()) as Json
  expect(body.type).toBe('error')
  expect(body.error.type).toBe(type)
  expect(body.error.message).toBeString()
  return body.error.message
}

// ---------------------------------------------------------------- non-stream

describe('POST /messages', () => {
  test('plain text: the message shape, exact input/output tokens and cost, generation stats (api_type messages)', async () => {
    const system = [
      { type: 'text', text: 'Ты — демо.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Отвечай кратко.' },
    ]
    const history = [
      { role: 'user', content: 'Привет, мир' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'не считается', signature: 'sig' },
          { type: 'text', text: 'Здравствуйте!' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Как дела? 🙂' },
          { type: 'redacted_thinking', data: 'xyz' },
        ],
      },
    ]
    const res = await messages(
      { system, messages: history, temperature: 0.5, top_p: 0.9, top_k: 40, stop_sequences: ['###'], metadata: { user_id: 'u-42' } },
      { 'anthropic-beta': 'prompt-caching-2024-07-31,output-128k-2025-02-19' },
    )
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body.id).toMatch(/^msg_[A-Za-z0-9]{20}$/)
    expect(body).toMatchObject({ type: 'message', role: 'assistant', model: MODEL, stop_reason: 'end_turn', stop_sequence: null })
    expect(body.content).toHaveLength(1)
    expect(body.content[0].type).toBe('text')
    expect(body.content[0].text).toContain('Как дела? 🙂')
    const input = inputTokens(['Ты — демо.', 'Отвечай кратко.', 'Привет, мир', 'Здравствуйте!', 'Как дела? 🙂'], 3)
    const output = words(body.content[0].text)
    expect(body.usage).toEqual({
      input_tokens: input,
      output_tokens: output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cost: costUsd(input, output),
    })
    const stats = await generation(res.headers.get('x-generation-id'))
    expect(stats).toMatchObject({
      api_type: 'messages',
      model: MODEL,
      tokens_prompt: input,
      tokens_completion: output,
      total_cost: costUsd(input, output),
      finish_reason: 'stop',
      streamed: false,
      cancelled: false,
      external_user: 'u-42',
      num_media_prompt: 0,
    })
    // The Anthropic headers are optional and kept in the request log.
    const logged = up.log.findLast((r) => r.path.endsWith('/messages'))!
    expect(logged.headers['anthropic-version']).toBe('2023-06-01')
    expect(logged.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,output-128k-2025-02-19')
    const bare = await fetch(`${up.url}/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'без заголовков' }] }),
    })
    expect(bare.status).toBe(200)
  })

  test('max_tokens cut: stop_reason max_tokens, output_tokens = max_tokens, billed exactly', async () => {
    const body = await message({ max_tokens: 3, messages: [{ role: 'user', content: 'Расскажи длинную историю' }] })
    expect(body.stop_reason).toBe('max_tokens')
    expect(words(body.content[0].text)).toBe(3)
    const input = inputTokens(['Расскажи длинную историю'], 1)
    expect(body.usage).toMatchObject({ input_tokens: input, output_tokens: 3, cost: costUsd(input, 3) })
  })

  test('model ids resolve like chat: a routing variant answers and bills as its base and reports its suffix', async () => {
    const body = await message({ model: `${MODEL}:nitro`, messages: [{ role: 'user', content: 'вариант' }] })
    expect(body.model).toBe(`${MODEL}:nitro`)
    expect(body.usage.cost).toBe(costUsd(body.usage.input_tokens, body.usage.output_tokens))
  })

  test('images are billed at pricing.image each (also inside a tool_result); documents add no tokens', async () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }
    const url = { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }
    const doc = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'не считается' } }
    const res = await messages({
      messages: [
        { role: 'user', content: [image, doc, { type: 'text', text: 'Что на картинке?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'look', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [url, { type: 'text', text: 'кот' }] }] },
      ],
    })
    const body = (await res.json()) as Json
    const input = inputTokens(['Что на картинке?', '{}', 'кот'], 3)
    expect(body.usage.input_tokens).toBe(input)
    expect(body.usage.cost).toBe(costUsd(input, body.usage.output_tokens, 2))
    expect(body.usage.cost).toBeGreaterThan(2 * Number(PRICING.image))
    const stats = await generation(res.headers.get('x-generation-id'))
    expect(stats.num_media_prompt).toBe(3)
  })

  test('nocost drops usage.cost; overbill reports 10× the true cost', async () => {
    const plain = await message({ messages: [{ role: 'user', content: 'без цены [[fault:nocost]]' }] })
    expect(plain.usage).not.toHaveProperty('cost')
    expect(plain.usage.output_tokens).toBeGreaterThan(0)
    const res = await messages({ messages: [{ role: 'user', content: 'дорого [[fault:overbill]]' }] })
    const over = (await res.json()) as Json
    const tenfold = costUsd(over.usage.input_tokens, over.usage.output_tokens, 0, 10n)
    expect(over.usage.cost).toBe(tenfold)
    expect((await generation(res.headers.get('x-generation-id'))).total_cost).toBe(tenfold)
  })
})

// ---------------------------------------------------------------- tool use

describe('tool use', () => {
  test('round trip: tool_use (its name in the user text) → tool_result → a text answer that mentions the result', async () => {
    const tools = [TIME, WEATHER]
    const first = [{ role: 'user', content: 'Какая погода в Москве? Вызови get_weather.' }]
    const res = await messages({ tools, messages: first })
    const call = (await res.json()) as Json
    expect(call.stop_reason).toBe('tool_use')
    expect(call.content).toHaveLength(2)
    expect(call.content[0]).toEqual({ type: 'text', text: 'Демо-ответ: вызываю инструмент get_weather.' })
    const use = call.content[1]
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'демо' } })
    expect(use.id).toMatch(/^toolu_[A-Za-z0-9]{20}$/)
    // output = the sentence's words + the input JSON in chunks of 8 code points
    const output = 4 + Math.ceil(cp(JSON.stringify({ city: 'демо' })) / 8)
    const input1 = inputTokens([first[0]!.content], 1, tools)
    expect(call.usage).toMatchObject({ input_tokens: input1, output_tokens: output, cost: costUsd(input1, output) })
    expect((await generation(res.headers.get('x-generation-id'))).finish_reason).toBe('tool_calls')

    const second = [...first, { role: 'assistant', content: call.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '+21 °C, ясно' }] }]
    const answer = await message({ tools, messages: second })
    expect(answer.stop_reason).toBe('end_turn')
    expect(answer.content).toHaveLength(1)
    expect(answer.content[0].text).toContain('get_weather вернул «+21 °C, ясно»')
    const input2 = inputTokens([first[0]!.content, 'Демо-ответ: вызываю инструмент get_weather.', JSON.stringify(use.input), '+21 °C, ясно'], 3, tools)
    expect(answer.usage.input_tokens).toBe(input2)
    expect(answer.usage.cost).toBe(costUsd(input2, words(answer.content[0].text)))
  })

  test('tool_choice: any → the first tool, tool → the named one, none → text; no name in the text → text', async () => {
    const tools = [TIME, WEATHER]
    const ask = [{ role: 'user', content: 'Сколько времени?' }]
    const auto = await message({ tools, messages: ask })
    expect(auto.stop_reason).toBe('end_turn')
    expect(auto.content.map((b: Json) => b.type)).toEqual(['text'])
    const any = await message({ tools, tool_choice: { type: 'any' }, messages: ask })
    expect(any.content[1]).toMatchObject({ type: 'tool_use', name: 'get_time', input: { zone: 'демо' } })
    const named = await message({ tools, tool_choice: { type: 'tool', name: 'get_weather' }, messages: ask })
    expect(named.content[1]).toMatchObject({ name: 'get_weather', input: { city: 'демо' } })
    const none = await message({ tools, tool_choice: { type: 'none' }, messages: [{ role: 'user', content: 'get_time!' }] })
    expect(none.stop_reason).toBe('end_turn')
    expect(none.content.map((b: Json) => b.type)).toEqual(['text'])
  })

  test('a call that does not fit in max_tokens is not made: its sentence, stop_reason max_tokens', async () => {
    const fits = await message({ max_tokens: 6, tools: [WEATHER], messages: [{ role: 'user', content: 'get_weather' }] })
    expect(fits.stop_reason).toBe('tool_use')
    expect(fits.usage.output_tokens).toBe(6)
    const body = await message({ max_tokens: 5, tools: [WEATHER], messages: [{ role: 'user', content: 'get_weather' }] })
    expect(body.stop_reason).toBe('max_tokens')
    expect(body.content).toEqual([{ type: 'text', text: 'Демо-ответ: вызываю инструмент get_weather.' }])
    expect(body.usage.output_tokens).toBe(4)
  })
})

// ---------------------------------------------------------------- stream

describe('stream', () => {
  test('event order, text deltas, and the final usage with the exact cost', async () => {
    const text = 'Поток, пожалуйста'
    const [plain, res] = await Promise.all([message({ messages: [{ role: 'user', content: text }] }), messages({ stream: true, messages: [{ role: 'user', content: text }] })])
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const events = await readEvents(res)
    const names = events.map((e) => e.event)
    const deltas = events.filter((e) => e.event === 'content_block_delta')
    expect(names).toEqual(['message_start', 'ping', 'content_block_start', ...deltas.map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop'])
    for (const e of events) expect(e.data.type).toBe(e.event)
    const start = events[0]!.data.message
    const input = inputTokens([text], 1)
    expect(start).toMatchObject({ type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null })
    expect(start.id).toMatch(/^msg_/)
    expect(start.usage).toMatchObject({ input_tokens: input, output_tokens: 0 })
    expect(events[2]!.data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
    const streamed = deltas.map((e) => {
      expect(e.data.index).toBe(0)
      expect(e.data.delta.type).toBe('text_delta')
      return e.data.delta.text
    })
    expect(streamed.join('')).toBe(plain.content[0].text)
    const final = events.at(-2)!.data
    expect(final.delta).toEqual({ stop_reason: 'end_turn', stop_sequence: null })
    expect(final.usage).toMatchObject({ input_tokens: input, output_tokens: deltas.length, cost: costUsd(input, deltas.length) })
    const stats = await generation(res.headers.get('x-generation-id'))
    expect(stats).toMatchObject({ api_type: 'messages', streamed: true, tokens_completion: deltas.length, total_cost: final.usage.cost })
  })

  test('tool use streams a text block, then a tool_use block whose input_json_delta chunks join to the input', async () => {
    const res = await messages({ stream: true, tools: [WEATHER], messages: [{ role: 'user', content: 'get_weather' }] })
    const events = await readEvents(res)
    const blocks = events.filter((e) => e.event === 'content_block_start').map((e) => e.data)
    expect(blocks[0]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
    expect(blocks[1]).toMatchObject({ index: 1, content_block: { type: 'tool_use', name: 'get_weather', input: {} } })
    expect(blocks[1].content_block.id).toMatch(/^toolu_/)
    const json = events.filter((e) => e.event === 'content_block_delta' && e.data.index === 1)
    expect(json.every((e) => e.data.delta.type === 'input_json_delta')).toBe(true)
    expect(JSON.parse(json.map((e) => e.data.delta.partial_json).join(''))).toEqual({ city: 'демо' })
    expect(events.filter((e) => e.event === 'content_block_stop').map((e) => e.data.index)).toEqual([0, 1])
    const final = events.at(-2)!.data
    expect(final.delta.stop_reason).toBe('tool_use')
    expect(final.usage.output_tokens).toBe(events.filter((e) => e.event === 'content_block_delta').length)
  })

  test("error mid-stream: three deltas, an `error` event in Anthropic's shape, no message_stop; the three are billed", async () => {
    for (const fault of ['midstream', 'error200']) {
      const res = await messages({ stream: true, messages: [{ role: 'user', content: `сломайся [[fault:${fault}]]` }] })
      expect(res.status).toBe(200)
      const events = await readEvents(res)
      expect(events.map((e) => e.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'error'])
      expect(events.at(-1)!.data).toEqual({ type: 'error', error: { type: 'api_error', message: 'Upstream provider error' } })
      const stats = await generation(res.headers.get('x-generation-id'))
      const input = inputTokens([`сломайся [[fault:${fault}]]`], 1)
      expect(stats).toMatchObject({ tokens_completion: 3, finish_reason: 'error', total_cost: costUsd(input, 3) })
    }
  })

  test('break resets the connection after three deltas; the generation is recorded as failed', async () => {
    const res = await messages({ stream: true, messages: [{ role: 'user', content: 'оборвись [[fault:break]]' }] })
    const id = res.headers.get('x-generation-id')
    await expect(readEvents(res)).rejects.toThrow()
    expect(await generation(id)).toMatchObject({ tokens_completion: 3, finish_reason: 'error' })
  })

  test('a client that goes away is billed for what was emitted', async () => {
    const res = await messages({ stream: true, messages: [{ role: 'user', content: 'медленно [[fault:slow]]' }] })
    const id = res.headers.get('x-generation-id')!
    const events = await readEvents(res, (seen) => seen.filter((e) => e.event === 'content_block_delta').length >= 2)
    expect(events.at(-1)!.event).toBe('content_block_delta')
    const stats = await until(() => up.generations.get(id))
    expect(stats.cancelled).toBe(true)
    expect(stats.tokens_completion).toBeGreaterThanOrEqual(2)
    expect(stats.tokens_completion).toBeLessThan(60)
    expect(stats.total_cost).toBe(costUsd(stats.tokens_prompt, stats.tokens_completion))
  })

  test('long waits send `ping` events, not comments', async () => {
    const slow = await startFakeUpstream({ faults: true, tokenDelayMs: 1300 })
    try {
      const res = await post('/messages', { model: MODEL, max_tokens: 1, stream: true, messages: [{ role: 'user', content: 'жду' }] }, {}, slow)
      const raw = await res.text()
      expect(raw).not.toContain('\n:')
      expect(raw.startsWith(':')).toBe(false)
      const names = [...raw.matchAll(/^event: (.*)$/gm)].map((m) => m[1])
      expect(names).toEqual(['message_start', 'ping', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
    } finally {
      await slow.stop()
    }
  })
})

// ---------------------------------------------------------------- faults and errors

describe('faults and errors', () => {
  test("http faults answer in Anthropic's error shape with the fault's status", async () => {
    const cases: [string, number, string][] = [
      ['http400', 400, 'invalid_request_error'],
      ['credits402', 402, 'billing_error'],
      ['http429', 429, 'rate_limit_error'],
      ['http500', 500, 'api_error'],
      ['http502', 502, 'api_error'],
      ['http503', 503, 'overloaded_error'],
    ]
    const before = up.generations.size
    for (const [fault, status, type] of cases) {
      const res = await messages({ messages: [{ role: 'user', content: `[[fault:${fault}]]` }] })
      await expectAnthropicError(res, status, type)
      if (status === 429 || status === 503) expect(res.headers.get('retry-after')).toBe('1')
    }
    up.failNext('http429', (b) => (b.metadata as Json | undefined)?.user_id === 'armed')
    await expectAnthropicError(await messages({ metadata: { user_id: 'armed' }, messages: [{ role: 'user', content: 'обычный текст' }] }), 429, 'rate_limit_error')
    expect(up.generations.size).toBe(before)
  })

  test('error200 without streaming: a 200 whose body is an error; the partial answer is billed', async () => {
    const res = await messages({ messages: [{ role: 'user', content: 'ошибка [[fault:error200]]' }] })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'api_error', message: 'Upstream provider error' } })
    expect(await generation(res.headers.get('x-generation-id'))).toMatchObject({ tokens_completion: 3, finish_reason: 'error' })
  })

  test("timeout never answers; the client's abort records a cancelled generation with no output", async () => {
    const abort = new AbortController()
    const pending = fetch(`${up.url}/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: '[[fault:timeout]] молчи' }] }),
      signal: abort.signal,
    })
    const before = new Set(up.generations.keys())
    await Bun.sleep(100)
    abort.abort()
    await expect(pending).rejects.toThrow()
    const stats = await until(() => [...up.generations.values()].find((g) => !before.has(g.id) && g.api_type === 'messages'))
    expect(stats).toMatchObject({ cancelled: true, tokens_completion: 0 })
  })

  test('invalid requests: 400 invalid_request_error; an unknown model 404 not_found_error', async () => {
    const user = [{ role: 'user', content: 'x' }]
    const bad: Json[] = [
      { model: MODEL, messages: user },
      { model: MODEL, max_tokens: 0, messages: user },
      { model: MODEL, max_tokens: 1.5, messages: user },
      { model: MODEL, max_tokens: 10, messages: [] },
      { model: MODEL, max_tokens: 10, messages: [{ role: 'system', content: 'x' }] },
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'video' }] }] },
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }] },
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file' } }] }] },
      { model: MODEL, max_tokens: 10, system: 5, messages: user },
      { model: MODEL, max_tokens: 10, tools: [{ name: 't' }], messages: user },
      { model: MODEL, max_tokens: 10, tools: [WEATHER], tool_choice: { type: 'tool', name: 'nope' }, messages: user },
      { model: MODEL, max_tokens: 10, thinking: { type: 'enabled', budget_tokens: 10 }, messages: user },
      { max_tokens: 10, messages: user },
    ]
    for (const body of bad) await expectAnthropicError(await post('/messages', body), 400, 'invalid_request_error')
    await expectAnthropicError(await post('/messages', { model: 'acme/nope', max_tokens: 10, messages: user }), 404, 'not_found_error')
    const ok = await post('/messages', { model: MODEL, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: user })
    expect(ok.status).toBe(200)
  })

  test('with an API key: x-api-key or Bearer accepted, otherwise 401 authentication_error', async () => {
    const locked = await startFakeUpstream({ apiKey: 'sk-demo' })
    try {
      const body = { model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'ключ' }] }
      expect((await post('/messages', body, { 'x-api-key': 'sk-demo' }, locked)).status).toBe(200)
      expect((await post('/messages', body, { Authorization: 'Bearer sk-demo' }, locked)).status).toBe(200)
      await expectAnthropicError(await post('/messages', body, {}, locked), 401, 'authentication_error')
      await expectAnthropicError(await post('/messages', body, { 'x-api-key': 'wrong' }, locked), 401, 'authentication_error')
      await expectAnthropicError(await post('/messages/count_tokens', body, {}, locked), 401, 'authentication_error')
    } finally {
      await locked.stop()
    }
  })
})

// ---------------------------------------------------------------- mid-conversation system messages

describe('mid-conversation system messages (role "system" inside messages)', () => {
  test('accepted where Anthropic accepts them, and billed as entries with their text', async () => {
    const accepted: Json[][] = [
      [
        { role: 'user', content: 'Привет' },
        { role: 'system', content: 'Отвечай кратко' },
      ],
      [
        { role: 'user', content: 'Привет' },
        { role: 'system', content: [{ type: 'text', text: 'Отвечай кратко' }] },
        { role: 'assistant', content: 'Хорошо' },
        { role: 'user', content: 'Ещё' },
      ],
      [
        { role: 'user', content: 'Найди' },
        { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { q: 'x' } }] },
        { role: 'system', content: 'Только по-русски' },
      ],
    ]
    for (const conversation of accepted) expect((await messages({ messages: conversation })).status).toBe(200)
    const body = { model: MODEL, messages: accepted[0] }
    const expected = inputTokens(['Привет', 'Отвечай кратко'], 2)
    expect(await (await post('/messages/count_tokens', body)).json()).toEqual({ input_tokens: expected })
    expect((await message({ messages: accepted[0] })).usage.input_tokens).toBe(expected)
  })

  test('refused elsewhere with 400 invalid_request_error: first, after a plain assistant turn, before a user turn, two in a row, non-text content', async () => {
    const refused: Json[][] = [
      [
        { role: 'system', content: 'Первое' },
        { role: 'user', content: 'x' },
      ],
      [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'y' },
        { role: 'system', content: 'z' },
      ],
      [
        { role: 'user', content: 'x' },
        { role: 'system', content: 'z' },
        { role: 'user', content: 'x' },
      ],
      [
        { role: 'user', content: 'x' },
        { role: 'system', content: 'z' },
        { role: 'system', content: 'z' },
      ],
      [
        { role: 'user', content: 'x' },
        { role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://example.ru/a.png' } }] },
      ],
    ]
    for (const conversation of refused) {
      await expectAnthropicError(await messages({ messages: conversation }), 400, 'invalid_request_error')
      await expectAnthropicError(await post('/messages/count_tokens', { model: MODEL, messages: conversation }), 400, 'invalid_request_error')
    }
  })
})

// ---------------------------------------------------------------- count_tokens

describe('POST /messages/count_tokens', () => {
  test('answers the input_tokens /messages bills, needs no max_tokens, and is free', async () => {
    const body = {
      model: MODEL,
      system: 'Система',
      tools: [WEATHER],
      messages: [
        { role: 'user', content: 'get_weather' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'get_weather', input: { city: 'Омск' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: [{ type: 'text', text: 'снег' }] }] },
      ],
    }
    const before = up.generations.size
    const res = await post('/messages/count_tokens', body)
    expect(res.status).toBe(200)
    const expected = inputTokens(['Система', 'get_weather', '{"city":"Омск"}', 'снег'], 3, [WEATHER])
    expect(await res.json()).toEqual({ input_tokens: expected })
    expect(up.generations.size).toBe(before)
    const billed = await message({ ...body, max_tokens: 100 })
    expect(billed.usage.input_tokens).toBe(expected)
    await expectAnthropicError(await post('/messages/count_tokens', { model: 'acme/nope', messages: body.messages }), 404, 'not_found_error')
    await expectAnthropicError(await post('/messages/count_tokens', { model: MODEL, messages: [] }), 400, 'invalid_request_error')
  })
})

// ---------------------------------------------------------------- the official SDK

const sdk = await import('@anthropic-ai/sdk').catch(() => null)

describe.skipIf(!sdk)('@anthropic-ai/sdk against the fake', () => {
  const client = (opts: Json = {}) => {
    const Anthropic = sdk!.default
    return new Anthropic({ baseURL: up.url.replace(/\/v1$/, ''), apiKey: 'sk-demo', maxRetries: 0, ...opts })
  }

  test('messages.create: text and tool_use with exact usage; the SDK calls /api/v1/messages', async () => {
    const msg = await client().messages.create({
      model: MODEL,
      max_tokens: 100,
      system: 'Система',
      messages: [{ role: 'user', content: 'Привет из SDK' }],
    })
    expect(up.log.at(-1)!.path).toBe('/api/v1/messages')
    expect(msg.type).toBe('message')
    expect(msg.stop_reason).toBe('end_turn')
    const text = msg.content[0]!.type === 'text' ? msg.content[0]!.text : ''
    expect(text).toContain('Привет из SDK')
    const input = inputTokens(['Система', 'Привет из SDK'], 1)
    expect(msg.usage.input_tokens).toBe(input)
    expect((msg.usage as unknown as Json).cost).toBe(costUsd(input, words(text)))

    const call = await client().messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [WEATHER as never],
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'Погода?' }],
    })
    expect(call.stop_reason).toBe('tool_use')
    expect(call.content[1]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'демо' } })
  })

  test('messages.stream(...).finalMessage(): text and tool_use blocks, usage, and the cost on message_delta', async () => {
    const stream = client().messages.stream({
      model: MODEL,
      max_tokens: 100,
      tools: [WEATHER as never],
      messages: [{ role: 'user', content: 'get_weather в Казани' }],
    })
    let text = ''
    let delta: Json | undefined
    stream.on('text', (piece) => (text += piece))
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_delta') delta = event as unknown as Json
    })
    const final = await stream.finalMessage()
    expect(final.stop_reason).toBe('tool_use')
    expect(final.content[0]).toEqual({ type: 'text', text: 'Демо-ответ: вызываю инструмент get_weather.' } as never)
    expect(text).toBe('Демо-ответ: вызываю инструмент get_weather.')
    expect(final.content[1]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'демо' } })
    const output = 4 + Math.ceil(cp('{"city":"демо"}') / 8)
    const input = inputTokens(['get_weather в Казани'], 1, [WEATHER])
    expect(final.usage).toMatchObject({ input_tokens: input, output_tokens: output })
    // The SDK's snapshot keeps only the counters it knows; the router's `cost` is on the message_delta event.
    expect(delta!.usage).toMatchObject({ input_tokens: input, output_tokens: output, cost: costUsd(input, output) })
  })

  test('errors: HTTP faults become typed APIErrors; a mid-stream error event rejects finalMessage', async () => {
    const Anthropic = sdk!.default
    const ask = (content: string) => ({ model: MODEL, max_tokens: 50, messages: [{ role: 'user' as const, content }] })
    const rate = await client()
      .messages.create(ask('[[fault:http429]]'))
      .catch((e: unknown) => e)
    expect(rate).toBeInstanceOf(Anthropic.RateLimitError)
    expect((rate as InstanceType<typeof Anthropic.APIError>).status).toBe(429)
    const missing = await client()
      .messages.create({ ...ask('x'), model: 'acme/nope' })
      .catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError)
    const broken = await client()
      .messages.stream(ask('[[fault:midstream]]'))
      .finalMessage()
      .catch((e: unknown) => e)
    expect(broken).toBeInstanceOf(Anthropic.APIError)
    expect(String((broken as Error).message)).toContain('Upstream provider error')
  })

  test('messages.countTokens matches the billed input_tokens', async () => {
    const body = { model: MODEL, system: 'Считай', messages: [{ role: 'user' as const, content: 'Сколько токенов?' }] }
    const counted = await client().messages.countTokens(body)
    expect(counted.input_tokens).toBe(inputTokens(['Считай', 'Сколько токенов?'], 1))
  })
})
