// The demo upstream's Responses API (`POST /responses`) and embeddings (`POST /embeddings`,
// `GET /embeddings/models`) over real HTTP, with exact BigInt costs, and through the official
// `openai` SDK (protocols.md 1.12).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { EMBEDDING_MODELS } from './catalogue'
import type { RunningFakeUpstream } from './index'
import { computeCost, femtoToUsd, toFemto } from './pricing'
import { replyText, splitTokens } from './replies'
import { readSseFrames, startDemoForTest, until } from './test-setup'

type Json = Record<string, any>

const API_KEY = 'sk-or-v1-demo-test'
let up: RunningFakeUpstream
let client: OpenAI
let models: Map<string, Json>

beforeAll(async () => {
  ;({ up, models } = await startDemoForTest({ faults: true, tokenDelayMs: 5, apiKey: API_KEY }))
  client = new OpenAI({ baseURL: up.url, apiKey: API_KEY, maxRetries: 0 })
})
afterAll(() => up.stop())

const auth = { Authorization: `Bearer ${API_KEY}` }
const get = (path: string) => fetch(`${up.url}${path}`, { headers: auth })
const post = (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${up.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth },
    body: JSON.stringify(body),
    ...init,
  })

const cp = (s: string) => [...s].length
const tokensOf = (s: string) => Math.ceil(cp(s) / 4)
const pricing = (id: string) => models.get(id)!.pricing

/** usage.cost recomputed independently from the catalogue's decimal strings. */
const costUsd = (id: string, promptTokens: number, completionTokens: number, inputImages = 0) =>
  femtoToUsd(computeCost(pricing(id), { promptTokens, completionTokens, outputImages: 0, inputImages }).total)

type NamedEvent = { event?: string; data?: any; comment?: string }

/** Reads an SSE body with `event:` lines; `stopAfter` cancels the body once it returns true. */
const readEvents = (res: Response, stopAfter?: (events: NamedEvent[]) => boolean) =>
  readSseFrames(
    res,
    (raw) => {
      const ev: NamedEvent = {}
      for (const line of raw.split('\n')) {
        if (line.startsWith(':')) ev.comment = line.slice(1).trim()
        else if (line.startsWith('event: ')) ev.event = line.slice(7)
        else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6))
      }
      return ev
    },
    stopAfter,
  )

const typesOf = (events: NamedEvent[]) => events.filter((e) => e.data).map((e) => e.data.type as string)
const deltas = (events: NamedEvent[]) => events.filter((e) => e.data?.type === 'response.output_text.delta')

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Погода в городе',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, units: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
  },
}
const TIME = { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } }

// ---------------------------------------------------------------- responses

describe('POST /responses', () => {
  test('plain text: the Response object, exact usage and cost, X-Generation-Id and the generation record', async () => {
    const input = 'Расскажи о демо-режиме'
    const res = await post('/responses', { model: 'openai/gpt-4', input, temperature: 0.5 })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    const genId = res.headers.get('x-generation-id')!
    expect(genId).toStartWith('gen-')
    expect(body.id).toBe(`resp_${genId.slice(4)}`)

    const text = replyText(input)
    const inputTokens = tokensOf(input) + 4
    const outputTokens = splitTokens(text).length
    expect(body).toMatchObject({
      object: 'response',
      model: 'openai/gpt-4',
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      metadata: {},
      parallel_tool_calls: true,
      temperature: 0.5,
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      text: { format: { type: 'text' } },
    })
    expect(body.created_at).toBeNumber()
    expect(body.output).toHaveLength(1)
    expect(body.output[0]).toMatchObject({ type: 'message', status: 'completed', role: 'assistant' })
    expect(body.output[0].id).toStartWith('msg_')
    expect(body.output[0].content).toEqual([{ type: 'output_text', text, annotations: [] }])
    const cost = costUsd('openai/gpt-4', inputTokens, outputTokens)
    expect(body.usage).toMatchObject({
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
      cost,
    })
    expect(up.generations.get(genId)).toMatchObject({
      api_type: 'responses',
      model: 'openai/gpt-4',
      tokens_prompt: inputTokens,
      tokens_completion: outputTokens,
      total_cost: cost,
      finish_reason: 'stop',
      streamed: false,
      cancelled: false,
    })
  })

  test('input tokens: instructions, every text, function call arguments and outputs, 4 per item, tools JSON; images at pricing.image', async () => {
    const instructions = 'Отвечай кратко.'
    const input = [
      { type: 'message', role: 'developer', content: 'Ты демо.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Что на картинке?' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
        ],
      },
      { role: 'assistant', content: [{ type: 'output_text', text: 'Кот.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'get_time', arguments: '{"zone":"MSK"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '12:00' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'А сейчас?' },
          { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,AA' },
        ],
      },
    ]
    const tools = [TIME]
    const body = (await (await post('/responses', { model: 'openai/gpt-4o-mini', instructions, input, tools, tool_choice: 'none' })).json()) as Json
    const texts = [instructions, 'Ты демо.', 'Что на картинке?', 'Кот.', '{"zone":"MSK"}', '12:00', 'А сейчас?']
    const expected = Math.ceil(texts.reduce((n, t) => n + cp(t), 0) / 4) + 4 * input.length + tokensOf(JSON.stringify(tools))
    expect(body.usage.input_tokens).toBe(expected)
    expect(body.instructions).toBe(instructions)
    expect(body.tool_choice).toBe('none')
    // The last user text is what the reply quotes; one input image is billed.
    expect(body.output[0].content[0].text).toBe(replyText('А сейчас?'))
    expect(body.usage.cost).toBe(costUsd('openai/gpt-4o-mini', expected, body.usage.output_tokens, 1))
    const stats = up.generations.get(`gen-${body.id.slice(5)}`)!
    expect(stats.num_media_prompt).toBe(2)
  })

  test('cut by max_output_tokens: status incomplete, incomplete_details, the first N pieces billed', async () => {
    const res = await post('/responses', { model: 'openai/gpt-4', input: 'x', max_output_tokens: 3 })
    const body = (await res.json()) as Json
    const pieces = splitTokens(replyText('x'))
    expect(body.status).toBe('incomplete')
    expect(body.incomplete_details).toEqual({ reason: 'max_output_tokens' })
    expect(body.max_output_tokens).toBe(3)
    expect(body.output[0].status).toBe('incomplete')
    expect(body.output[0].content[0].text).toBe(pieces.slice(0, 3).join(''))
    expect(body.usage.output_tokens).toBe(3)
    expect(body.usage.cost).toBe(costUsd('openai/gpt-4', tokensOf('x') + 4, 3))
    expect(up.generations.get(res.headers.get('x-generation-id')!)!.finish_reason).toBe('length')
  })

  test('function_call, then function_call_output: the round trip and its billing', async () => {
    const question = 'Какая погода в Москве? Вызови get_weather.'
    const first = await post('/responses', { model: 'openai/gpt-4o-mini', input: question, tools: [TIME, WEATHER] })
    const body = (await first.json()) as Json
    const args = '{"city":"демо"}' // required string parameters only: `days` is an integer, `units` optional
    expect(body.status).toBe('completed')
    expect(body.output).toHaveLength(1)
    const call = body.output[0]
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: args, status: 'completed' })
    expect(call.id).toStartWith('fc_')
    expect(call.call_id).toStartWith('call_')
    const inputTokens = tokensOf(question) + 4 + tokensOf(JSON.stringify([TIME, WEATHER]))
    expect(body.usage.input_tokens).toBe(inputTokens)
    expect(body.usage.output_tokens).toBe(tokensOf(args))
    expect(body.usage.cost).toBe(costUsd('openai/gpt-4o-mini', inputTokens, tokensOf(args)))
    expect(up.generations.get(first.headers.get('x-generation-id')!)!.finish_reason).toBe('tool_calls')

    const history = [
      { role: 'user', content: question },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '{"temp":"+21°C"}' },
    ]
    const second = (await (await post('/responses', { model: 'openai/gpt-4o-mini', input: history, tools: [TIME, WEATHER] })).json()) as Json
    expect(second.output[0].type).toBe('message')
    const text: string = second.output[0].content[0].text
    expect(text).toContain('get_weather')
    expect(text).toContain('{"temp":"+21°C"}')
    const secondInput = Math.ceil((cp(question) + cp(args) + cp('{"temp":"+21°C"}')) / 4) + 4 * 3 + tokensOf(JSON.stringify([TIME, WEATHER]))
    expect(second.usage.input_tokens).toBe(secondInput)
    expect(second.usage.output_tokens).toBe(splitTokens(text).length)
    expect(second.usage.cost).toBe(costUsd('openai/gpt-4o-mini', secondInput, splitTokens(text).length))
  })

  test('the tool-call trigger: tool_choice names it or is "required", or the last user text names it; never "none"', async () => {
    const output = async (input: unknown, extra: Json = {}) =>
      ((await (await post('/responses', { model: 'openai/gpt-4', input, tools: [TIME, WEATHER], ...extra })).json()) as Json).output[0]
    expect(await output('Привет')).toMatchObject({ type: 'message' })
    expect(await output('Привет', { tool_choice: 'auto' })).toMatchObject({ type: 'message' })
    expect(await output('Привет', { tool_choice: 'required' })).toMatchObject({ type: 'function_call', name: 'get_time', arguments: '{"zone":"демо"}' })
    expect(await output('Привет', { tool_choice: { type: 'function', name: 'get_weather' } })).toMatchObject({ name: 'get_weather' })
    expect(await output('call GET_WEATHER please')).toMatchObject({ type: 'function_call', name: 'get_weather' })
    expect(await output('get_weather', { tool_choice: 'none' })).toMatchObject({ type: 'message' })
    // An earlier user message naming the tool does not count: only the last user text does.
    expect(
      await output([
        { role: 'user', content: 'get_time' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'спасибо' },
      ]),
    ).toMatchObject({ type: 'message' })
    // After a function_call_output, even "required" answers with text.
    const after = await output(
      [
        { role: 'user', content: 'get_time' },
        { type: 'function_call', call_id: 'c1', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: '12:00' },
      ],
      { tool_choice: 'required' },
    )
    expect(after.type).toBe('message')
    expect(after.content[0].text).toContain('12:00')
  })

  test('a tool loop: [[tool-loop:N]] calls again after each output until N outputs, then text; an output needs its call', async () => {
    const input: Json[] = [{ role: 'user', content: 'Погода по очереди: get_weather [[tool-loop:3]]' }]
    const kinds: string[] = []
    for (let turn = 0; turn < 4; turn++) {
      const item = ((await (await post('/responses', { model: 'openai/gpt-4', input, tools: [TIME, WEATHER] })).json()) as Json).output[0]
      kinds.push(item.type === 'function_call' ? item.name : item.type)
      if (item.type !== 'function_call') break
      input.push({ type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments })
      input.push({ type: 'function_call_output', call_id: item.call_id, output: `+${turn} °C` })
    }
    expect(kinds).toEqual(['get_weather', 'get_weather', 'get_weather', 'message'])
    // Stateless like the router: an output whose call is not in `input` is refused.
    const orphan = await post('/responses', { model: 'openai/gpt-4', input: [{ type: 'function_call_output', call_id: 'call_x', output: '1' }] })
    expect(orphan.status).toBe(400)
    expect(((await orphan.json()) as Json).error.message).toContain('call_x')
  })

  test('stream: event order, sequence numbers, deltas and the completed usage', async () => {
    const res = await post('/responses', { model: 'openai/gpt-4', input: 'Поток', stream: true })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const genId = res.headers.get('x-generation-id')!
    const events = await readEvents(res)
    expect(events[0]!.comment).toBe('OPENROUTER PROCESSING')
    const text = replyText('Поток')
    const n = splitTokens(text).length
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(n).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    const data = events.filter((e) => e.data)
    data.forEach((e, i) => {
      expect(e.event).toBe(e.data.type)
      expect(e.data.sequence_number).toBe(i)
    })
    const [created, inProgress, added, partAdded] = data.map((e) => e.data)
    expect(created.response).toMatchObject({ id: `resp_${genId.slice(4)}`, status: 'in_progress', output: [], usage: null })
    expect(inProgress.response.status).toBe('in_progress')
    expect(added.item).toMatchObject({ type: 'message', status: 'in_progress', role: 'assistant', content: [] })
    const itemId = added.item.id
    expect(partAdded).toMatchObject({ item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } })
    for (const d of deltas(events)) expect(d.data).toMatchObject({ item_id: itemId, output_index: 0, content_index: 0 })
    expect(
      deltas(events)
        .map((d) => d.data.delta)
        .join(''),
    ).toBe(text)
    const tail = data.slice(-4).map((e) => e.data)
    expect(tail[0]).toMatchObject({ item_id: itemId, text })
    expect(tail[1].part).toEqual({ type: 'output_text', text, annotations: [] })
    expect(tail[2].item).toMatchObject({ id: itemId, status: 'completed', content: [{ type: 'output_text', text }] })
    const completed = tail[3].response
    const inputTokens = tokensOf('Поток') + 4
    expect(completed).toMatchObject({ status: 'completed', output: [tail[2].item] })
    expect(completed.usage).toMatchObject({
      input_tokens: inputTokens,
      output_tokens: n,
      total_tokens: inputTokens + n,
      cost: costUsd('openai/gpt-4', inputTokens, n),
    })
    expect(up.generations.get(genId)).toMatchObject({ api_type: 'responses', streamed: true, tokens_completion: n, total_cost: completed.usage.cost })
  })

  test('stream: a function call, and a cut answer ends with response.incomplete', async () => {
    const events = await readEvents(await post('/responses', { model: 'openai/gpt-4', input: 'x', tools: [WEATHER], tool_choice: 'required', stream: true }))
    const args = '{"city":"демо"}'
    const pieces = Math.ceil(cp(args) / 4)
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...Array<string>(pieces).fill('response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ])
    const data = events.filter((e) => e.data).map((e) => e.data)
    expect(data[2].item).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '', status: 'in_progress' })
    const argDeltas = data.filter((d) => d.type === 'response.function_call_arguments.delta')
    expect(argDeltas.map((d) => d.delta).join('')).toBe(args)
    expect(data.at(-3)).toMatchObject({ item_id: data[2].item.id, name: 'get_weather', arguments: args })
    expect(data.at(-1).response.output[0]).toMatchObject({ arguments: args, status: 'completed', call_id: data[2].item.call_id })
    expect(data.at(-1).response.usage.output_tokens).toBe(pieces)

    const cut = await readEvents(await post('/responses', { model: 'openai/gpt-4', input: 'x', max_output_tokens: 2, stream: true }))
    const last = cut.filter((e) => e.data).at(-1)!
    expect(last.event).toBe('response.incomplete')
    expect(last.data.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })
    expect(last.data.response.usage.output_tokens).toBe(2)
    expect(deltas(cut)).toHaveLength(2)
  })

  test('failed mid-stream: a few deltas, then response.failed with the error; billed what was emitted', async () => {
    const input = 'Сломайся [[fault:midstream]]'
    const res = await post('/responses', { model: 'openai/gpt-4', input, stream: true })
    const genId = res.headers.get('x-generation-id')!
    const events = await readEvents(res)
    expect(deltas(events)).toHaveLength(3)
    const last = events.filter((e) => e.data).at(-1)!
    expect(last.event).toBe('response.failed')
    expect(last.data.response).toMatchObject({ status: 'failed', error: { code: 'server_error', message: expect.any(String) } })
    expect(last.data.response.output[0].content[0].text).toBe(
      deltas(events)
        .map((d) => d.data.delta)
        .join(''),
    )
    const inputTokens = tokensOf(input) + 4
    expect(last.data.response.usage).toMatchObject({ output_tokens: 3, cost: costUsd('openai/gpt-4', inputTokens, 3) })
    expect(up.generations.get(genId)).toMatchObject({ finish_reason: 'error', tokens_completion: 3, cancelled: false })

    // Without streaming, error200 is a 200 whose body says failed.
    const json = await post('/responses', { model: 'openai/gpt-4', input: 'x [[fault:error200]]' })
    expect(json.status).toBe(200)
    const body = (await json.json()) as Json
    expect(body).toMatchObject({ status: 'failed', error: { code: 'server_error' } })
    expect(body.usage.output_tokens).toBe(3)
  })

  test('faults: HTTP errors before any generation, nocost, overbill, failNext, break', async () => {
    const before = up.generations.size
    const r503 = await post('/responses', { model: 'openai/gpt-4', input: '[[fault:http503]]' })
    expect(r503.status).toBe(503)
    expect(r503.headers.get('retry-after')).toBe('1')
    expect((await post('/responses', { model: 'openai/gpt-4', input: '[[fault:credits402]]' })).status).toBe(402)
    expect(up.generations.size).toBe(before)

    const nocost = (await (await post('/responses', { model: 'openai/gpt-4', input: 'a [[fault:nocost]]' })).json()) as Json
    expect(nocost.usage).not.toHaveProperty('cost')
    expect(nocost.usage.output_tokens).toBeGreaterThan(0)

    const input = 'b [[fault:overbill]]'
    const over = await post('/responses', { model: 'openai/gpt-4', input })
    const overBody = (await over.json()) as Json
    const trueFemto = computeCost(pricing('openai/gpt-4'), {
      promptTokens: tokensOf(input) + 4,
      completionTokens: overBody.usage.output_tokens,
      outputImages: 0,
    }).total
    expect(overBody.usage.cost).toBe(femtoToUsd(trueFemto * 10n))
    expect(up.generations.get(over.headers.get('x-generation-id')!)!.total_cost).toBe(femtoToUsd(trueFemto * 10n))

    up.failNext('http429', (b) => b.input === 'armed')
    expect((await post('/responses', { model: 'openai/gpt-4', input: 'armed' })).status).toBe(429)
    expect((await post('/responses', { model: 'openai/gpt-4', input: 'armed' })).status).toBe(200)

    const broken = await post('/responses', { model: 'openai/gpt-4', input: 'c [[fault:break]]', stream: true })
    await expect(readEvents(broken)).rejects.toThrow()
    expect(up.generations.get(broken.headers.get('x-generation-id')!)).toMatchObject({ finish_reason: 'error', tokens_completion: 3 })
  })

  test('a client abort mid-stream records a cancelled generation billed for what was emitted', async () => {
    const controller = new AbortController()
    const res = await post('/responses', { model: 'openai/gpt-4', input: 'длинно [[fault:slow]]', stream: true }, { signal: controller.signal })
    const genId = res.headers.get('x-generation-id')!
    await readEvents(res, (events) => deltas(events).length >= 2)
    controller.abort()
    const stats = await until(() => up.generations.get(genId))
    expect(stats).toMatchObject({ cancelled: true, finish_reason: null, api_type: 'responses' })
    expect(stats.tokens_completion).toBeGreaterThanOrEqual(2)
    expect(stats.tokens_completion).toBeLessThan(60)
    expect(stats.total_cost).toBe(costUsd('openai/gpt-4', stats.tokens_prompt, stats.tokens_completion))
  })

  test('400s: previous_response_id, unknown model, bad input; variants resolve like chat', async () => {
    const refused = await post('/responses', { model: 'openai/gpt-4', input: 'x', previous_response_id: 'resp_123' })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as Json).error).toMatchObject({ code: 400, message: 'previous_response_id is not supported' })
    const unknown = await post('/responses', { model: 'nobody/nothing', input: 'x' })
    expect(unknown.status).toBe(400)
    expect((await post('/responses', { model: 'openai/text-embedding-3-small', input: 'x' })).status).toBe(400)
    expect((await post('/responses', { model: 'openai/gpt-4', input: [] })).status).toBe(400)
    expect((await post('/responses', { model: 'openai/gpt-4', input: [{ type: 'reasoning_x' }] })).status).toBe(400)
    expect((await post('/responses', { model: 'openai/gpt-4', input: 'x', max_output_tokens: 0 })).status).toBe(400)
    expect((await post('/responses', { model: 'openai/gpt-4', input: 'x', tools: [WEATHER], tool_choice: { type: 'function', name: 'nope' } })).status).toBe(400)
    const nitro = (await (await post('/responses', { model: 'openai/gpt-4:nitro', input: 'x' })).json()) as Json
    expect(nitro.model).toBe('openai/gpt-4:nitro')
    expect(nitro.usage.cost).toBe(costUsd('openai/gpt-4', nitro.usage.input_tokens, nitro.usage.output_tokens))
  })
})

describe('the openai SDK on /responses', () => {
  test('client.responses.create parses the Response; output_text is the reply', async () => {
    const response = await client.responses.create({ model: 'openai/gpt-4o-mini', input: 'Привет, SDK', instructions: 'Кратко.' })
    expect(response.object).toBe('response')
    expect(response.status).toBe('completed')
    expect(response.output_text).toBe(replyText('Привет, SDK'))
    const usage = response.usage as OpenAI.Responses.ResponseUsage & { cost: number }
    const inputTokens = Math.ceil((cp('Привет, SDK') + cp('Кратко.')) / 4) + 4
    expect(usage.input_tokens).toBe(inputTokens)
    expect(usage.cost).toBe(costUsd('openai/gpt-4o-mini', inputTokens, usage.output_tokens))
  })

  test('client.responses.create with stream: true yields every event up to response.completed', async () => {
    const stream = await client.responses.create({ model: 'openai/gpt-4o-mini', input: 'Поток SDK', stream: true })
    const types: string[] = []
    let text = ''
    let completed: OpenAI.Responses.Response | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') completed = event.response
    }
    expect(types[0]).toBe('response.created')
    expect(types.at(-1)).toBe('response.completed')
    expect(text).toBe(replyText('Поток SDK'))
    expect(completed!.usage!.output_tokens).toBe(splitTokens(text).length)
  })

  test('a function call through the SDK, and response.failed surfaces as an event', async () => {
    const response = await client.responses.create({
      model: 'openai/gpt-4o-mini',
      input: 'Нужна get_weather',
      tools: [{ ...WEATHER, strict: false } as OpenAI.Responses.FunctionTool],
    })
    const call = response.output[0] as OpenAI.Responses.ResponseFunctionToolCall
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' })
    expect(JSON.parse(call.arguments)).toEqual({ city: 'демо' })
    expect(response.output_text).toBe('')

    const stream = await client.responses.create({ model: 'openai/gpt-4o-mini', input: 'x [[fault:midstream]]', stream: true })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    expect(types.at(-1)).toBe('response.failed')
  })
})

// ---------------------------------------------------------------- embeddings

const SMALL = 'openai/text-embedding-3-small'
const LARGE = 'openai/text-embedding-3-large'

const embed = async (body: Json) => {
  const res = await post('/embeddings', body)
  return { res, body: (await res.json()) as Json }
}
const norm = (v: number[]) => Math.hypot(...v)
/** Exact: tokens × pricing.prompt. */
const embeddingCost = (model: (typeof EMBEDDING_MODELS)[number], tokens: number) => femtoToUsd(BigInt(tokens) * toFemto(model.pricing.prompt))
const small = EMBEDDING_MODELS.find((m) => m.id === SMALL)!
const large = EMBEDDING_MODELS.find((m) => m.id === LARGE)!

function decodeBase64(b64: string): number[] {
  const bytes = Buffer.from(b64, 'base64')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true))
}

describe('POST /embeddings', () => {
  test('float: unit-length native vectors, the same text the same vector, exact usage and cost, generation record', async () => {
    const input = ['Привет, мир', 'hello', 'Привет, мир']
    const { res, body } = await embed({ model: SMALL, input })
    expect(res.status).toBe(200)
    const genId = res.headers.get('x-generation-id')!
    expect(genId).toStartWith('gen-')
    expect(body).toMatchObject({ object: 'list', model: SMALL })
    expect(body.data.map((d: Json) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
      ['embedding', 2],
    ])
    for (const d of body.data) {
      expect(d.embedding).toHaveLength(1536)
      expect(norm(d.embedding)).toBeCloseTo(1, 5)
    }
    expect(body.data[2].embedding).toEqual(body.data[0].embedding)
    expect(body.data[1].embedding).not.toEqual(body.data[0].embedding)
    const again = await embed({ model: SMALL, input: 'hello' })
    expect(again.body.data[0].embedding).toEqual(body.data[1].embedding)
    // Another model gives another vector for the same text.
    expect((await embed({ model: LARGE, input: 'hello', dimensions: 1536 })).body.data[0].embedding).not.toEqual(body.data[1].embedding)

    const tokens = tokensOf('Привет, мир') * 2 + tokensOf('hello')
    const cost = embeddingCost(small, tokens)
    expect(cost).toBe(femtoToUsd(computeCost(small.pricing, { promptTokens: tokens, completionTokens: 0, outputImages: 0 }).total))
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens, cost })
    expect(up.generations.get(genId)).toMatchObject({
      api_type: 'embeddings',
      model: SMALL,
      tokens_prompt: tokens,
      tokens_completion: 0,
      total_cost: cost,
      streamed: false,
      cancelled: false,
    })
  })

  test('base64: little-endian float32 that decodes to exactly the float vectors', async () => {
    const input = ['один', 'два']
    const floats = (await embed({ model: SMALL, input, encoding_format: 'float' })).body
    const b64 = (await embed({ model: SMALL, input, encoding_format: 'base64' })).body
    expect(b64.usage).toEqual(floats.usage)
    for (const [i, d] of b64.data.entries()) {
      expect(d.embedding).toBeString()
      expect(decodeBase64(d.embedding)).toEqual(floats.data[i].embedding)
    }
    expect((await embed({ model: SMALL, input, encoding_format: 'hex' })).res.status).toBe(400)
  })

  test('dimensions: a shortened vector is the native one cut and rescaled to unit length; bounds', async () => {
    const native = (await embed({ model: LARGE, input: 'вектор' })).body.data[0].embedding as number[]
    expect(native).toHaveLength(3072)
    const short = (await embed({ model: LARGE, input: 'вектор', dimensions: 256 })).body.data[0].embedding as number[]
    expect(short).toHaveLength(256)
    expect(norm(short)).toBeCloseTo(1, 5)
    const scale = short[0]! / native[0]!
    for (let i = 0; i < 256; i++) expect(short[i]!).toBeCloseTo(native[i]! * scale, 5)
    expect((await embed({ model: LARGE, input: 'x', dimensions: 3072 })).res.status).toBe(200)
    expect((await embed({ model: SMALL, input: 'x', dimensions: 1536 })).res.status).toBe(200)
    for (const dimensions of [0, -1, 1.5, 1537, '256']) {
      expect((await embed({ model: SMALL, input: 'x', dimensions })).res.status).toBe(400)
    }
  })

  test('token arrays: one array is one input; tokens are array lengths; costs exact on both models', async () => {
    const one = (await embed({ model: SMALL, input: [1, 2, 3] })).body
    expect(one.data).toHaveLength(1)
    expect(one.usage).toEqual({ prompt_tokens: 3, total_tokens: 3, cost: embeddingCost(small, 3) })
    const many = (
      await embed({
        model: LARGE,
        input: [
          [1, 2],
          [3, 4, 5],
          [1, 2],
        ],
      })
    ).body
    expect(many.data).toHaveLength(3)
    expect(many.data[2].embedding).toEqual(many.data[0].embedding)
    expect(many.usage).toEqual({ prompt_tokens: 7, total_tokens: 7, cost: embeddingCost(large, 7) })
    // A token array and the text of its digits are different inputs.
    expect((await embed({ model: SMALL, input: '1,2,3' })).body.data[0].embedding).not.toEqual(one.data[0].embedding)
    const long = 'а'.repeat(4001)
    expect((await embed({ model: LARGE, input: long })).body.usage).toEqual({ prompt_tokens: 1001, total_tokens: 1001, cost: embeddingCost(large, 1001) })
    for (const input of [undefined, '', [], [''], ['a', 1], [[]], [[1, 'a']], [-1], [1.5], [[1], 'a'], {}]) {
      expect((await embed({ model: SMALL, input })).res.status).toBe(400)
    }
  })

  test('only an embeddings model: chat models 400 here, embedding models 400 in chat', async () => {
    const { res, body } = await embed({ model: 'openai/gpt-4o', input: 'x' })
    expect(res.status).toBe(400)
    expect(body.error).toMatchObject({ code: 400, message: 'openai/gpt-4o is not an embeddings model' })
    expect((await embed({ model: 'nobody/nothing', input: 'x' })).res.status).toBe(400)
    expect((await embed({ input: 'x' })).res.status).toBe(400)
    const chat = await post('/chat/completions', { model: SMALL, messages: [{ role: 'user', content: 'x' }] })
    expect(chat.status).toBe(400)
  })

  test('faults from any input string: HTTP errors, nocost, overbill, timeout', async () => {
    const before = up.generations.size
    expect((await embed({ model: SMALL, input: ['a', 'b [[fault:http429]]'] })).res.status).toBe(429)
    expect((await embed({ model: SMALL, input: '[[fault:http500]]' })).res.status).toBe(500)
    expect(up.generations.size).toBe(before)

    const nocost = (await embed({ model: SMALL, input: 'x [[fault:nocost]]' })).body
    expect(nocost.usage).toEqual({ prompt_tokens: tokensOf('x [[fault:nocost]]'), total_tokens: tokensOf('x [[fault:nocost]]') })

    const text = 'x [[fault:overbill]]'
    const over = await embed({ model: LARGE, input: text })
    const tenfold = femtoToUsd(BigInt(tokensOf(text)) * toFemto(large.pricing.prompt) * 10n)
    expect(over.body.usage.cost).toBe(tenfold)
    expect(up.generations.get(over.res.headers.get('x-generation-id')!)!.total_cost).toBe(tenfold)

    const controller = new AbortController()
    const pending = post('/embeddings', { model: SMALL, input: 'ждать [[fault:timeout]]' }, { signal: controller.signal }).catch((e: unknown) => e)
    const entry = await until(() => up.log.find((r) => (r.body as Json | null)?.input === 'ждать [[fault:timeout]]'))
    await Bun.sleep(50)
    controller.abort()
    await pending
    const stats = await until(() => [...up.generations.values()].find((g) => g.api_type === 'embeddings' && g.cancelled))
    expect(stats.tokens_prompt).toBe(tokensOf('ждать [[fault:timeout]]'))
    expect(entry.aborted).toBe(true)
  })
})

describe('embedding models', () => {
  test('GET /embeddings/models lists them (same shape as /models); /models never does, /models/{id} resolves them', async () => {
    const list = (await (await get('/embeddings/models')).json()) as Json
    expect(list.data.map((m: Json) => m.id)).toEqual([SMALL, LARGE])
    expect(list.total_count).toBe(2)
    expect(list.links).toEqual({ next: null })
    expect(list.data[0]).toMatchObject({
      context_length: 8192,
      architecture: { modality: 'text->embeddings', input_modalities: ['text'], output_modalities: ['embeddings'] },
      pricing: { prompt: '0.00000002', completion: '0' },
    })
    expect(list.data[1].pricing.prompt).toBe('0.00000013')
    const modelKeys = Object.keys(models.get('openai/gpt-4')!).sort()
    for (const m of list.data) expect(Object.keys(m).sort()).toEqual(modelKeys)

    for (const query of ['', '?output_modalities=all', '?output_modalities=embeddings', '?output_modalities=text,image']) {
      const ids = ((await (await get(`/models${query}`)).json()) as Json).data.map((m: Json) => m.id)
      expect(ids).not.toContain(SMALL)
      expect(ids).not.toContain(LARGE)
    }
    const one = (await (await get(`/models/${SMALL}`)).json()) as Json
    expect(one.data.id).toBe(SMALL)
    const paged = (await (await get('/embeddings/models?limit=1')).json()) as Json
    expect(paged.links.next).toBe('/api/v1/embeddings/models?limit=1&offset=1')
  })
})

describe('the openai SDK on /embeddings', () => {
  test('client.embeddings.create (the SDK asks for base64 and decodes it) equals the float answer', async () => {
    const viaSdk = await client.embeddings.create({ model: SMALL, input: ['SDK', 'вектор'] })
    const floats = (await embed({ model: SMALL, input: ['SDK', 'вектор'] })).body
    expect(viaSdk.data).toHaveLength(2)
    for (const [i, d] of viaSdk.data.entries()) expect(Array.from(d.embedding)).toEqual(floats.data[i].embedding)
    expect(viaSdk.usage).toEqual(floats.usage)
    const explicit = await client.embeddings.create({ model: LARGE, input: 'x', encoding_format: 'float', dimensions: 64 })
    expect(explicit.data[0]!.embedding).toHaveLength(64)
    expect((explicit.usage as OpenAI.CreateEmbeddingResponse.Usage & { cost: number }).cost).toBe(embeddingCost(large, 1))
  })
})
