// The tools our customers point at us, as they are (issue 15): the official openai client's
// Responses and embeddings, @anthropic-ai/sdk (Claude Code's protocol) with x-api-key and Bearer,
// the Vercel AI SDK's default OpenAI provider and @openrouter/ai-sdk-provider. Each charge equals the
// reported cost × rate × markup; each new route refuses an unaffordable request in its own protocol.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { createOpenRouter } from '@openrouter/ai-sdk-provider'
import { generateText, jsonSchema, streamText, tool } from 'ai'
import OpenAI from 'openai'
import { expectedCharge, startGateway } from '../test-support/gateway'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let c: Awaited<ReturnType<Gateway['customer']>>

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: 'boss@clients.test' })
  c = await gw.customer()
})
afterAll(() => gw.stop())

/** Runs `fn` and checks that every request it made was charged exactly its reported cost, once. */
async function charged<T>(fn: () => Promise<T>, who = c) {
  const before = new Set((await gw.books(who.user.id)).usage.map((u) => u.upstream_id))
  const result = await fn()
  const fresh = (await gw.books(who.user.id)).usage.filter((u) => !before.has(u.upstream_id))
  expect(fresh.length).toBeGreaterThan(0)
  for (const u of fresh) {
    expect(u.status).toBe('success')
    expect(u.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost))
  }
  const books = await gw.books(who.user.id)
  expect(books.held).toBe(0)
  expect(books.ledgerSum).toBe(books.balance)
  return { result, charge: fresh.reduce((s, u) => s + u.cost_micros, 0), rows: fresh }
}

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Погода в городе',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
}

describe('openai: Responses and embeddings', () => {
  const sdk = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: c.key, maxRetries: 0 })

  test('responses.create: text, charged the reported cost, usage.cost in rubles', async () => {
    const { result, charge, rows } = await charged(() => sdk().responses.create({ model: 'openai/gpt-4o-mini', input: 'Привет! Расскажи о себе.', max_output_tokens: 60 }))
    expect(result.object).toBe('response')
    expect(result.output_text).toContain('Демо')
    expect(result.usage!.input_tokens).toBeGreaterThan(0)
    expect((result.usage as any).cost).toBe(charge / 1e6)
    expect(rows[0]!.model).toBe('openai/gpt-4o-mini')
  })

  test('responses stream with a function tool, then the tool output round', async () => {
    const { result } = await charged(async () => {
      const stream = await sdk().responses.create({
        model: 'openai/gpt-4o-mini',
        input: 'Какая погода в Казани? Вызови get_weather.',
        tools: [weather],
        tool_choice: 'required',
        stream: true,
      })
      const types: string[] = []
      let done: any
      for await (const event of stream) {
        types.push(event.type)
        if (event.type === 'response.completed') done = event.response
      }
      return { types, done }
    })
    expect(result.types[0]).toBe('response.created')
    expect(result.types).toContain('response.function_call_arguments.delta')
    expect(result.types.at(-1)).toBe('response.completed')
    const call = result.done.output.find((o: any) => o.type === 'function_call')
    expect(call.name).toBe('get_weather')
    expect(JSON.parse(call.arguments).city).toBeTruthy()
    expect(typeof result.done.usage.cost).toBe('number')

    const { result: next } = await charged(() =>
      sdk().responses.create({
        model: 'openai/gpt-4o-mini',
        input: [{ role: 'user', content: 'Какая погода в Казани?' }, call, { type: 'function_call_output', call_id: call.call_id, output: '{"t": "+3 °C"}' }],
        tools: [weather],
      }),
    )
    expect(next.output_text.length).toBeGreaterThan(0)
  })

  test('previous_response_id continues a stored response (issue 28); an unknown one is a 404', async () => {
    const first = await sdk().responses.create({ model: 'openai/gpt-4o-mini', input: 'Запомни число 7' })
    const { result: next } = await charged(() => sdk().responses.create({ model: 'openai/gpt-4o-mini', input: 'и ещё', previous_response_id: first.id }))
    expect(next.previous_response_id).toBe(first.id)
    const err = await sdk()
      .responses.create({ model: 'openai/gpt-4o-mini', input: 'и ещё', previous_response_id: 'resp_1' })
      .catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.NotFoundError)
    expect(err.code).toBe('previous_response_not_found')
  })

  test('embeddings.create: vectors, charged per input token', async () => {
    const { result, charge } = await charged(() => sdk().embeddings.create({ model: 'openai/text-embedding-3-small', input: ['первый текст', 'второй текст'] }))
    expect(result.data).toHaveLength(2)
    expect(result.data[0]!.embedding.length).toBeGreaterThan(100)
    expect((result.usage as any).cost).toBe(charge / 1e6)
    const wrong = await sdk()
      .embeddings.create({ model: 'openai/gpt-4o-mini', input: 'x' })
      .catch((e) => e)
    expect(wrong.status).toBe(400)
    const chatWithEmbedder = await sdk()
      .chat.completions.create({ model: 'openai/text-embedding-3-small', messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e)
    expect(chatWithEmbedder.status).toBe(400)
  })
})

describe('@anthropic-ai/sdk: Messages as Claude Code speaks it', () => {
  const withKey = () => new Anthropic({ baseURL: gw.url, apiKey: c.key, maxRetries: 0 })
  const withBearer = () => new Anthropic({ baseURL: gw.url, authToken: c.key, apiKey: null, maxRetries: 0 })
  const getWeather = {
    name: 'get_weather',
    description: 'Погода в городе',
    input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
  }

  test('messages.create, charged the reported cost; x-api-key requests forward the anthropic headers', async () => {
    const { result, charge } = await charged(() =>
      withKey().messages.create({ model: 'anthropic/claude-3-haiku', max_tokens: 100, system: 'Ты помощник.', messages: [{ role: 'user', content: 'Привет!' }] }),
    )
    expect(result.type).toBe('message')
    expect(result.content[0]!.type).toBe('text')
    expect((result.usage as any).cost).toBe(charge / 1e6)
    // The client's protocol version (and betas) reach the router as sent; without one, the first version.
    const sdkVersion = gw.upstream.log.filter((r) => r.path.endsWith('/messages')).at(-1)!.headers['anthropic-version']
    expect(sdkVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    const raw = (headers: Record<string, string>) =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': c.key, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'anthropic/claude-3-haiku', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      })
    expect((await raw({ 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' })).status).toBe(200)
    let sent = gw.upstream.log.filter((r) => r.path.endsWith('/messages')).at(-1)!
    expect(sent.headers).toMatchObject({ 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' })
    expect((await raw({})).status).toBe(200)
    sent = gw.upstream.log.filter((r) => r.path.endsWith('/messages')).at(-1)!
    expect(sent.headers['anthropic-version']).toBe('2023-06-01')
  })

  test('messages.stream with Bearer, and a tool-use turn', async () => {
    const { result } = await charged(async () => {
      const stream = withBearer().messages.stream({
        model: 'anthropic/claude-3-haiku',
        max_tokens: 200,
        tools: [getWeather],
        tool_choice: { type: 'any' },
        messages: [{ role: 'user', content: 'Погода в Казани?' }],
      })
      return stream.finalMessage()
    })
    expect(result.stop_reason).toBe('tool_use')
    const use = result.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock
    expect(use.name).toBe('get_weather')

    const { result: answer } = await charged(async () =>
      withBearer()
        .messages.stream({
          model: 'anthropic/claude-3-haiku',
          max_tokens: 200,
          tools: [getWeather],
          messages: [
            { role: 'user', content: 'Погода в Казани?' },
            { role: 'assistant', content: result.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '+3 °C, облачно' }] },
          ],
        })
        .finalMessage(),
    )
    expect(answer.stop_reason).toBe('end_turn')
    expect((answer.content[0] as Anthropic.TextBlock).text.length).toBeGreaterThan(0)
  })

  test('Claude Code’s own model names map to the catalogue; count_tokens is free', async () => {
    const before = (await gw.books(c.user.id)).balance
    const counted = await withKey().messages.countTokens({ model: 'claude-3-haiku-20240307', messages: [{ role: 'user', content: 'Сколько здесь токенов?' }] })
    expect(counted.input_tokens).toBeGreaterThan(0)
    expect((await gw.books(c.user.id)).balance).toBe(before)
    const { rows } = await charged(() => withKey().messages.create({ model: 'claude-3-haiku-20240307', max_tokens: 20, messages: [{ role: 'user', content: 'Привет' }] }))
    expect(rows[0]!.model).toBe('anthropic/claude-3-haiku')
  })

  test('errors in Anthropic’s shape: authentication_error, not_found_error, invalid_request_error', async () => {
    const bad = await new Anthropic({ baseURL: gw.url, apiKey: 'sk-gw-wrong', maxRetries: 0 }).messages
      .create({ model: 'anthropic/claude-3-haiku', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e)
    expect(bad).toBeInstanceOf(Anthropic.AuthenticationError)
    expect(bad.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    const missing = await withKey()
      .messages.create({ model: 'nobody/none', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e)
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError)
    const invalid = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': c.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-3-haiku', messages: [] }),
    })
    expect(invalid.status).toBe(400)
    expect(await invalid.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
  })
})

describe('the Vercel AI SDK', () => {
  test('the default OpenAI provider (Responses): generateText and streamText', async () => {
    const openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: c.key })
    const { result } = await charged(() => generateText({ model: openai('openai/gpt-4o-mini'), prompt: 'Привет!', maxRetries: 0 }))
    expect(result.text).toContain('Демо')
    expect(result.usage.inputTokens).toBeGreaterThan(0)
    expect(gw.upstream.log.at(-1)!.path).toEndWith('/responses')

    const { result: streamed } = await charged(async () => {
      const s = streamText({ model: openai('openai/gpt-4o-mini'), prompt: 'Расскажи о погоде', maxRetries: 0 })
      let text = ''
      for await (const delta of s.textStream) text += delta
      return { text, usage: await s.usage }
    })
    expect(streamed.text).toContain('Демо')
    expect(streamed.usage.outputTokens).toBeGreaterThan(0)
  })

  test('a tool call through the default provider', async () => {
    const openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: c.key })
    const { result } = await charged(() =>
      generateText({
        model: openai('openai/gpt-4o-mini'),
        prompt: 'Погода в Казани? Вызови get_weather.',
        tools: {
          get_weather: tool({ description: 'Погода', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }),
        },
        toolChoice: 'required',
        maxRetries: 0,
      }),
    )
    expect(result.toolCalls[0]!.toolName).toBe('get_weather')
  })

  test('@openrouter/ai-sdk-provider streamText reports usage (the usage chunk is always relayed)', async () => {
    const openrouter = createOpenRouter({ baseURL: `${gw.url}/v1`, apiKey: c.key })
    const { result, charge } = await charged(async () => {
      const s = streamText({ model: openrouter.chat('openai/gpt-4o-mini'), prompt: 'Привет!', maxRetries: 0 })
      let text = ''
      for await (const delta of s.textStream) text += delta
      return { text, usage: await s.usage, meta: await s.providerMetadata }
    })
    expect(result.text).toContain('Демо')
    expect(result.usage.inputTokens).toBeGreaterThan(0)
    expect(result.usage.outputTokens).toBeGreaterThan(0)
    expect((result.meta as any)?.openrouter?.usage?.cost).toBe(charge / 1e6)
  })
})

describe('every new route holds like chat', () => {
  test('20 concurrent requests per route on a small balance: served or refused with the route’s own 402, never below zero', async () => {
    const admin = await gw.customer('boss@clients.test')
    const poor = await gw.customer()
    const start = (await gw.books(poor.user.id)).balance
    const set = await admin.api.post(`/api/admin/users/${poor.user.id}/balance`, { amount: 1 - start / 1e6, description: 'test' }, admin.accessToken)
    expect(set.status).toBe(200)
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${poor.key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const routes = [
      () => post('/v1/responses', { model: 'openai/gpt-4', input: '[[fault:long]] пиши', max_output_tokens: 40 }),
      () => post('/v1/messages', { model: 'openai/gpt-4', max_tokens: 40, messages: [{ role: 'user', content: '[[fault:long]] пиши' }] }),
      () => post('/v1/messages', { model: 'openai/gpt-4', max_tokens: 40, stream: true, messages: [{ role: 'user', content: '[[fault:long]] пиши' }] }),
      () => post('/v1/embeddings', { model: 'openai/text-embedding-3-large', input: Array.from({ length: 200 }, (_, i) => `текст номер ${i} `.repeat(40)) }),
    ]
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => routes[i % routes.length]!()).map(async (r) => {
        const res = await r
        return { status: res.status, path: new URL(res.url).pathname, body: await res.text() }
      }),
    )
    expect(results.filter((r) => r.status !== 200 && r.status !== 402)).toEqual([])
    expect(results.some((r) => r.status === 402)).toBe(true)
    for (const r of results.filter((r) => r.status === 402)) {
      const body = JSON.parse(r.body)
      if (r.path === '/v1/messages') expect(body).toMatchObject({ type: 'error', error: { type: 'billing_error' } })
      else expect(body.error.code).toBe('insufficient_balance')
    }
    const books = await gw.books(poor.user.id)
    expect(books.balance).toBeGreaterThanOrEqual(0)
    expect(books.held).toBe(0)
    expect(books.ledgerSum).toBe(books.balance)
    for (const u of books.usage.filter((u) => u.status === 'success')) expect(u.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost))
    const [{ n }] = (await gw.read<{ n: number }>('select count(*) as n from uncovered_costs')) as [{ n: number }]
    expect(n).toBe(0)
  })
})
