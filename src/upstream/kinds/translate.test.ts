// The Responses and Messages translation over a chat-only upstream, spoken to with the official SDKs
// (openai, @anthropic-ai/sdk) through a local server: the fake rouble aggregator behind the openai kind.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { messagesWire } from '../../gateway/messages'
import { responsesWire } from '../../gateway/responses'
import { createOpenAIClient } from './openai'
import { type FakeAggregator, FAKE_AGGREGATOR_REPLY as REPLY, startFakeAggregator } from './openai-fake'
import { translating } from './translate'
import type { KindClient, OpenAIEntry } from './types'

const MODEL = 'deepseek-chat'
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }

let fake: FakeAggregator
let server: ReturnType<typeof Bun.serve>
let openai: OpenAI
let anthropic: Anthropic

beforeAll(async () => {
  fake = await startFakeAggregator()
  const entry: OpenAIEntry = { id: 'aitunnel', kind: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-aitunnel-test', residency: 'ru', currency: 'RUB', models: [] }
  const kind = translating(createOpenAIClient(entry))
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (req.method !== 'POST' || (path !== '/v1/responses' && path !== '/v1/messages')) return new Response('no route', { status: 404 })
      // As the gateway forwards them (protocols.ts): the anthropic-* headers ride along.
      const headers: Record<string, string> = {}
      for (const h of ['anthropic-version', 'anthropic-beta']) if (req.headers.get(h)) headers[h] = req.headers.get(h)!
      return kind.post(path.slice(3), (await req.json()) as Record<string, unknown>, req.signal, headers)
    },
  })
  openai = new OpenAI({ apiKey: 'sk-gw-test', baseURL: `http://127.0.0.1:${server.port}/v1`, maxRetries: 0 })
  anthropic = new Anthropic({ apiKey: 'sk-gw-test', baseURL: `http://127.0.0.1:${server.port}`, maxRetries: 0 })
})
afterAll(async () => {
  server.stop(true)
  await fake.stop()
})

/** The chat body the aggregator got last. */
const sent = () => fake.log.at(-1)!.body as Record<string, any>
/** What the aggregator counted and charged for its last answer (its own rule: JSON chars / 4; words). */
function charged(completion: number) {
  const prompt = Math.ceil(JSON.stringify(sent().messages).length / 4)
  return { prompt, completion, cost: fake.charges.at(-1)! }
}
const words = (s: string) => s.split(/\s+/).length

describe('Responses API (openai SDK)', () => {
  test('a plain answer: the response object, the usage the aggregator counted and its cost_rub', async () => {
    const r = await openai.responses.create({ model: MODEL, instructions: 'Отвечай кратко.', input: 'Привет!', max_output_tokens: 200, temperature: 0.2 })
    expect(r.id).toMatch(/^resp_[0-9a-f-]{36}$/)
    expect(r.object).toBe('response')
    expect(r.status).toBe('completed')
    expect(r.model).toBe(MODEL)
    expect(r.output_text).toBe(REPLY)
    expect(r.output).toHaveLength(1)
    expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: REPLY, annotations: [] }] })
    const c = charged(words(REPLY))
    expect(r.usage).toMatchObject({
      input_tokens: c.prompt,
      output_tokens: c.completion,
      total_tokens: c.prompt + c.completion,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    })
    expect((r.usage as any).cost_rub).toBe(c.cost)
    expect(sent()).toMatchObject({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Отвечай кратко.' },
        { role: 'user', content: 'Привет!' },
      ],
      max_tokens: 200,
      temperature: 0.2,
    })
    expect(sent().stream).toBeUndefined()
  })

  test('a stream: the SDK event sequence, numbered, ending in response.completed with the usage and cost_rub', async () => {
    const stream = await openai.responses.create({
      model: MODEL,
      input: [
        { role: 'developer', content: 'Будь вежлив.' },
        { role: 'user', content: 'Как дела?' },
      ],
      stream: true,
    })
    const events: any[] = []
    for await (const e of stream) events.push(e)
    const types = events.map((e) => e.type)
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added'])
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'])
    expect(types.slice(4, -4).every((t) => t === 'response.output_text.delta')).toBe(true)
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    const text = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('')
    expect(text.trim()).toBe(REPLY)
    const done = events.at(-1).response
    expect(done.id).toBe(events[0].response.id)
    expect(done.output[0].content[0].text).toBe(text)
    const c = charged(words(REPLY))
    expect(done.usage).toMatchObject({ input_tokens: c.prompt, output_tokens: c.completion, total_tokens: c.prompt + c.completion, cost_rub: c.cost })
    expect(sent().messages[0]).toEqual({ role: 'system', content: 'Будь вежлив.' })
    expect(sent()).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  test('a function-tool round trip: function_call (streamed, accumulated by the SDK) → function_call_output → the final text', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', description: 'Погода в городе', parameters: WEATHER, strict: false }]
    const ask = { role: 'user' as const, content: 'Какая погода в Москве?' }
    const final = await openai.responses.stream({ model: MODEL, input: [ask], tools }).finalResponse()
    expect(final.status).toBe('completed')
    const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall
    expect(call).toMatchObject({ type: 'function_call', name: 'weather', arguments: '{"city":"Москва"}', status: 'completed' })
    expect(call.call_id).toMatch(/^call_/)
    expect(call.id).toMatch(/^fc_/)
    expect(final.usage).toMatchObject({ input_tokens: charged(12).prompt, output_tokens: 12, cost_rub: fake.charges.at(-1) })
    expect(sent().tools).toEqual([{ type: 'function', function: { name: 'weather', description: 'Погода в городе', parameters: WEATHER, strict: false } }])

    const r = await openai.responses.create({
      model: MODEL,
      tools,
      input: [ask, ...(final.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"temp":-5}' }],
    })
    expect(r.output_text).toBe('По данным инструмента: {"temp":-5}')
    expect(sent().messages).toEqual([
      { role: 'user', content: 'Какая погода в Москве?' },
      { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'weather', arguments: '{"city":"Москва"}' } }] },
      { role: 'tool', tool_call_id: call.call_id, content: '{"temp":-5}' },
    ])
    expect(r.usage?.output_tokens).toBe(words(r.output_text))
  })

  test("the aggregator's 429 is the SDK's RateLimitError; what a chat model cannot take is a 400 that never reaches it", async () => {
    fake.failNext(429, 'Слишком много запросов')
    const limited = await openai.responses.create({ model: MODEL, input: 'Привет' }).catch((e) => e)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    expect(limited.status).toBe(429)
    expect(limited.message).toContain('Слишком много запросов')

    const calls = fake.log.length
    const image = await openai.responses
      .create({ model: MODEL, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' }] }] })
      .catch((e) => e)
    expect(image).toBeInstanceOf(OpenAI.BadRequestError)
    expect(image.message).toContain('изображения')
    const search = await openai.responses.create({ model: MODEL, input: 'Новости', tools: [{ type: 'web_search' }] }).catch((e) => e)
    expect(search).toBeInstanceOf(OpenAI.BadRequestError)
    expect(search.message).toContain('web_search')
    expect(fake.log.length).toBe(calls)
  })
})

describe('Messages API (@anthropic-ai/sdk)', () => {
  test('a plain answer: the message, stop reason, usage as the aggregator counted it and cost_rub; no anthropic-* headers upstream', async () => {
    const m = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 300,
      system: [{ type: 'text', text: 'Ты помощник.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Привет!' }] }],
      stop_sequences: ['###'],
      output_config: { format: { type: 'json_schema', schema: WEATHER } },
      // Older clients still send sampling settings this SDK no longer types.
      temperature: 0.5,
    } as Anthropic.MessageCreateParamsNonStreaming)
    expect(m.id).toMatch(/^msg_/)
    expect(m).toMatchObject({ type: 'message', role: 'assistant', model: MODEL, stop_reason: 'end_turn', stop_sequence: null })
    expect(m.content).toEqual([{ type: 'text', text: REPLY, citations: null }])
    const c = charged(words(REPLY))
    expect(m.usage).toMatchObject({ input_tokens: c.prompt, output_tokens: c.completion, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
    expect((m.usage as any).cost_rub).toBe(c.cost)
    expect(sent()).toMatchObject({
      model: MODEL,
      max_tokens: 300,
      temperature: 0.5,
      stop: ['###'],
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema: WEATHER, strict: true } },
      messages: [
        { role: 'system', content: 'Ты помощник.' },
        { role: 'user', content: 'Привет!' },
      ],
    })
    const headers = fake.log.at(-1)!.headers
    expect(Object.keys(headers).filter((h) => h.startsWith('anthropic-'))).toEqual([])
  })

  test('a stream: finalMessage() has the text and the counts; message_delta carries cost_rub', async () => {
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 300, messages: [{ role: 'user', content: 'Как дела?' }] })
    const events: any[] = []
    stream.on('streamEvent', (e) => void events.push(e))
    const m = await stream.finalMessage()
    expect(m.id).toMatch(/^msg_/)
    expect(m.stop_reason).toBe('end_turn')
    expect(m.content).toHaveLength(1)
    expect((m.content[0] as Anthropic.TextBlock).text.trim()).toBe(REPLY)
    const c = charged(words(REPLY))
    expect(m.usage).toMatchObject({ input_tokens: c.prompt, output_tokens: c.completion })
    const types = events.map((e) => e.type)
    expect(types.slice(0, 2)).toEqual(['message_start', 'content_block_start'])
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop'])
    const delta = events.find((e) => e.type === 'message_delta')
    expect(delta.usage).toMatchObject({ input_tokens: c.prompt, output_tokens: c.completion, cost_rub: c.cost })
    expect(events[0].message.usage.input_tokens).toBeGreaterThan(0) // an estimate until message_delta
  })

  test('a tool_use → tool_result round trip (the call plain, then streamed; the result streamed)', async () => {
    const tools: Anthropic.Tool[] = [{ name: 'weather', description: 'Погода в городе', input_schema: WEATHER as Anthropic.Tool.InputSchema }]
    const ask: Anthropic.MessageParam = { role: 'user', content: 'Какая погода в Москве?' }
    const m = await anthropic.messages.create({ model: MODEL, max_tokens: 300, tools, tool_choice: { type: 'auto' }, messages: [ask] })
    expect(m.stop_reason).toBe('tool_use')
    const use = m.content[0] as Anthropic.ToolUseBlock
    expect(use).toMatchObject({ type: 'tool_use', name: 'weather', input: { city: 'Москва' } })
    expect(use.id).toMatch(/^toolu_[A-Za-z0-9_-]+$/)
    expect(m.usage).toMatchObject({ input_tokens: charged(12).prompt, output_tokens: 12 })
    expect(sent()).toMatchObject({ tools: [{ type: 'function', function: { name: 'weather', description: 'Погода в городе', parameters: WEATHER } }], tool_choice: 'auto' })

    const streamed = await anthropic.messages.stream({ model: MODEL, max_tokens: 300, tools, messages: [ask] }).finalMessage()
    expect(streamed.stop_reason).toBe('tool_use')
    expect(streamed.content[0]).toMatchObject({ type: 'tool_use', name: 'weather', input: { city: 'Москва' } })

    const answer = await anthropic.messages
      .stream({
        model: MODEL,
        max_tokens: 300,
        tools,
        messages: [
          ask,
          { role: 'assistant', content: m.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: '-5 °C' }] }] },
        ],
      })
      .finalMessage()
    expect((answer.content[0] as Anthropic.TextBlock).text.trim()).toBe('По данным инструмента: -5 °C')
    expect(answer.stop_reason).toBe('end_turn')
    expect(sent().messages).toEqual([
      { role: 'user', content: 'Какая погода в Москве?' },
      { role: 'assistant', content: null, tool_calls: [{ id: use.id, type: 'function', function: { name: 'weather', arguments: '{"city":"Москва"}' } }] },
      { role: 'tool', tool_call_id: use.id, content: '-5 °C' },
    ])
  })

  test("the aggregator's 429 is the SDK's RateLimitError in Anthropic's shape; an image is a 400 that never reaches it", async () => {
    fake.failNext(429, 'Слишком много запросов')
    const limited = await anthropic.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'Привет' }] }).catch((e) => e)
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError)
    expect(limited.status).toBe(429)
    expect(limited.error).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'Слишком много запросов' } })

    const calls = fake.log.length
    const image = await anthropic.messages
      .create({
        model: MODEL,
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }] }],
      })
      .catch((e) => e)
    expect(image).toBeInstanceOf(Anthropic.BadRequestError)
    expect(image.error.error.type).toBe('invalid_request_error')
    expect(image.error.error.message).toContain('изображения')
    expect(fake.log.length).toBe(calls)
  })
})

// ---------------------------------------------------------------------------------------------------
// Against a stub chat upstream: what the fake cannot show.

const sse = (chunks: unknown[], done = true) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '')

/** `text` delivered `size` bytes at a time (multi-byte letters and events split across reads). */
function trickle(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close()
      c.enqueue(bytes.slice(at, (at += size)))
    },
  })
}

/** A chat upstream answering `answer()`; it keeps what it was sent. */
function stub(answer: () => Response) {
  const seen: { body?: Record<string, any>; signal?: AbortSignal; headers?: Record<string, string> } = {}
  const client: KindClient = {
    async post(path, body, signal, headers) {
      expect(path).toBe('/chat/completions')
      Object.assign(seen, { body, signal, headers })
      return answer()
    },
  }
  return { kind: translating(client), seen }
}

async function eventsOf(res: Response): Promise<Array<{ event?: string; data: any }>> {
  const text = await res.text()
  return text
    .split('\n\n')
    .filter((b) => b && !b.startsWith(':'))
    .map((b) => ({ event: /^event: (.*)$/m.exec(b)?.[1], data: JSON.parse(b.slice(b.indexOf('data: ') + 6)) }))
}

const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
})
const USAGE = { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49, prompt_tokens_details: { cached_tokens: 30 }, cost_rub: '0.0421', estimated: true }
/** Text, then two calls (their arguments in pieces), then the usage: split every 5 bytes. */
const MIXED = sse([
  chunk({ role: 'assistant', content: 'Сейчас ' }),
  chunk({ content: 'узнаю.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"Москва"}' } }] }),
  chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } }] }),
  chunk({}, 'tool_calls'),
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [], usage: USAGE },
])
const streamed = () => new Response(trickle(MIXED, 5), { headers: { 'content-type': 'text/event-stream' } })

describe('translation details', () => {
  test('Responses stream split anywhere: items in order, arguments whole, cached tokens and every extra usage field kept; the signal reaches upstream', async () => {
    const { kind, seen } = stub(streamed)
    const signal = new AbortController().signal
    const res = await kind.post('/responses', { model: 'm', input: 'x', stream: true }, signal)
    expect(seen.signal).toBe(signal)
    const events = await eventsOf(res)
    for (const e of events) expect(e.event).toBe(e.data.type)
    const done = events.at(-1)!.data.response
    expect(done.output.map((i: any) => [i.type, i.call_id ?? i.content[0].text, i.arguments])).toEqual([
      ['message', 'Сейчас узнаю.', undefined],
      ['function_call', 'call_a', '{"city":"Москва"}'],
      ['function_call', 'call_b', '{}'],
    ])
    expect(done.usage).toEqual({
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 49,
      cost_rub: '0.0421',
      estimated: true,
    })
    const args = events.filter((e) => e.event === 'response.function_call_arguments.delta' && e.data.output_index === 1).map((e) => e.data.delta)
    expect(args.join('')).toBe('{"city":"Москва"}')
  })

  test("the client's leaving reaches the upstream: cancelling the translated stream cancels the chat stream", async () => {
    let cancelled = false
    const endless = () =>
      new Response(
        new ReadableStream({
          async pull(c) {
            await Bun.sleep(5)
            if (!cancelled) c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(chunk({ content: 'ещё ' }))}\n\n`))
          },
          cancel: () => void (cancelled = true),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    for (const [path, body] of [
      ['/responses', { model: 'm', input: 'x', stream: true }],
      ['/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], stream: true }],
    ] as const) {
      cancelled = false
      const res = await stub(endless).kind.post(path, body, new AbortController().signal)
      const reader = res.body!.getReader()
      await reader.read()
      await reader.read()
      await reader.cancel()
      expect(cancelled).toBe(true)
    }
  })

  test('Messages stream split anywhere: blocks in order, cached tokens apart from input_tokens, extras in message_delta', async () => {
    const { kind } = stub(streamed)
    const events = await eventsOf(
      await kind.post('/messages', { model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], stream: true }, new AbortController().signal),
    )
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    expect(events[5].data.content_block).toMatchObject({ type: 'tool_use', id: 'toolu_call_a', name: 'weather', input: {} })
    expect(events[9].data.content_block).toMatchObject({ type: 'tool_use', id: 'toolu_call_b', name: 'time' })
    expect(events.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
      usage: { input_tokens: 10, output_tokens: 9, cache_read_input_tokens: 30, cache_creation_input_tokens: 0, cost_rub: '0.0421', estimated: true },
    })
  })

  test("the gateway's readers take the translated usage (tokens; a cached prompt counted whole for Messages)", async () => {
    const plain = (body: unknown) => () => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
    const answer = { id: 'c', object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Да' }, finish_reason: 'stop' }], usage: USAGE }
    const r = await (await stub(plain(answer)).kind.post('/responses', { model: 'm', input: 'x' }, new AbortController().signal)).json()
    expect(responsesWire.answer(r)).toMatchObject({ usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 }, responseId: r.id })
    const m = await (
      await stub(plain(answer)).kind.post('/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal)
    ).json()
    expect(messagesWire.answer(m)).toMatchObject({ usage: { prompt_tokens: 40, completion_tokens: 9 }, responseId: m.id })

    const rEvents = await eventsOf(await stub(streamed).kind.post('/responses', { model: 'm', input: 'x', stream: true }, new AbortController().signal))
    const rReader = responsesWire.reader()
    const rSeen = rEvents.map((e) => rReader.inspect(e.event!, JSON.stringify(e.data), true)).filter((s) => s !== 'drop' && s.usage)
    expect(rSeen).toHaveLength(1)
    expect((rSeen[0] as any).usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 9 })

    const mEvents = await eventsOf(
      await stub(streamed).kind.post('/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], stream: true }, new AbortController().signal),
    )
    const mReader = messagesWire.reader()
    const mSeen = mEvents.map((e) => mReader.inspect(e.event!, JSON.stringify(e.data), true)).filter((s) => s !== 'drop' && s.usage)
    expect(mSeen).toHaveLength(1)
    expect((mSeen[0] as any).usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 9 })
  })

  test('Retry-After survives both error shapes; no usage → an estimate marked estimated; an error mid-stream ends it in the protocol’s error event', async () => {
    const limited = () =>
      new Response(JSON.stringify({ error: { message: 'медленнее', code: 'rate_limit_exceeded', type: 'rate_limit_error' } }), { status: 429, headers: { 'retry-after': '7' } })
    const m = await stub(limited).kind.post('/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal)
    expect(m.status).toBe(429)
    expect(m.headers.get('retry-after')).toBe('7')
    expect(await m.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'медленнее' } })
    const r = await stub(limited).kind.post('/responses', { model: 'm', input: 'x' }, new AbortController().signal)
    expect([r.status, r.headers.get('retry-after'), ((await r.json()) as any).error.code]).toEqual([429, '7', 'rate_limit_exceeded'])

    const noUsage = () => new Response(sse([chunk({ content: 'Привет, мир' }), chunk({}, 'stop')]), { headers: { 'content-type': 'text/event-stream' } })
    const est = (await eventsOf(await stub(noUsage).kind.post('/responses', { model: 'm', input: 'Здравствуй', stream: true }, new AbortController().signal))).at(-1)!
    expect(est.data.response.usage).toMatchObject({ output_tokens: 4, estimated: true })
    expect(est.data.response.usage.input_tokens).toBeGreaterThan(0)

    const broken = () =>
      new Response(sse([chunk({ content: 'Нач' }), { error: { message: 'модель упала' } }, chunk({ content: 'ало' })]), { headers: { 'content-type': 'text/event-stream' } })
    const rErr = (await eventsOf(await stub(broken).kind.post('/responses', { model: 'm', input: 'x', stream: true }, new AbortController().signal))).at(-1)!
    expect(rErr).toMatchObject({ event: 'error', data: { type: 'error', message: 'модель упала' } })
    const mErr = await eventsOf(
      await stub(broken).kind.post('/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], stream: true }, new AbortController().signal),
    )
    expect(mErr.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'api_error', message: 'модель упала' } } })
    expect(mErr.some((e) => e.event === 'message_stop')).toBe(false)
  })
})
