// The official `openai` npm client against the running gateway: every charge equals the
// upstream's reported cost × rate × 1.3, to the micro-ruble; failed requests charge nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { expectedCharge, startGateway } from '../test-support/gateway'

let gw: Awaited<ReturnType<typeof startGateway>>
let customer: Awaited<ReturnType<typeof gw.customer>>
let sdk: OpenAI

beforeAll(async () => {
  gw = await startGateway()
  customer = await gw.customer()
  sdk = new OpenAI({ apiKey: customer.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
})
afterAll(() => gw.stop())

/** Runs `fn` and checks the balance moved by exactly the expected charge for the generations it made. */
async function charged<T>(fn: () => Promise<T>): Promise<{ result: T; charge: number }> {
  const before = await gw.books(customer.user.id)
  const seen = new Set(gw.upstream.generations.keys())
  const result = await fn()
  const after = await gw.books(customer.user.id)
  const fresh = [...gw.upstream.generations.values()].filter((g) => !seen.has(g.id))
  const expected = fresh.reduce((sum, g) => sum + g.total_cost, 0)
  const charge = before.balance - after.balance
  expect(charge).toBe(expectedCharge(expected))
  expect(after.ledgerSum).toBe(after.balance)
  expect(after.held).toBe(0)
  return { result, charge }
}

describe('openai SDK', () => {
  test('lists models with ruble prices and retrieves one by its slashed id', async () => {
    const page = await sdk.models.list()
    const ids = page.data.map((m) => m.id)
    expect(ids).toContain('openai/gpt-3.5-turbo')
    expect(ids).toContain('google/gemini-2.5-flash-image')
    const model = await sdk.models.retrieve('openai/gpt-3.5-turbo')
    expect(model.id).toBe('openai/gpt-3.5-turbo')
    expect(model.object).toBe('model')
    expect((model as any).pricing.prompt).toMatch(/^\d+(\.\d+)?$/)
  })

  test('plain chat completion is charged the reported cost × rate × 1.3', async () => {
    const { result, charge } = await charged(() =>
      sdk.chat.completions.create({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет, как дела?' }], temperature: 0.7 }),
    )
    expect(result.object).toBe('chat.completion')
    expect(result.choices[0]!.message.content).toContain('Демо-ответ')
    expect(charge).toBeGreaterThan(0)
    expect(Number((result.usage as any).cost_rub)).toBe(charge / 1e6)
    // usage.cost is where OpenRouter clients read the price: ours is the charge in rubles, never the USD cost.
    expect((result.usage as any).cost).toBe(charge / 1e6)
    expect((result.usage as any).cost_details).toBeUndefined()
  })

  test('streamed chat arrives chunk by chunk and is charged exactly once', async () => {
    const { result, charge } = await charged(async () => {
      const stream = await sdk.chat.completions.create({
        model: 'anthropic/claude-3-haiku',
        messages: [{ role: 'user', content: 'Расскажи что-нибудь' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      const deltas: string[] = []
      let usage: any = null
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content) deltas.push(chunk.choices[0].delta.content)
        if (chunk.usage) usage = chunk.usage
      }
      return { deltas, usage }
    })
    expect(result.deltas.length).toBeGreaterThan(5)
    expect(result.deltas.join('')).toContain('Демо-ответ')
    expect(Number(result.usage.cost_rub)).toBeCloseTo(charge / 1e6, 6)
  })

  test('without include_usage the usage chunk still arrives, as the router sends it, with the charge', async () => {
    const { result, charge } = await charged(async () => {
      const stream = await sdk.chat.completions.create({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true })
      const chunks: Array<{ choices: unknown[]; usage?: any }> = []
      for await (const chunk of stream) chunks.push(chunk)
      return chunks
    })
    expect(result.length).toBeGreaterThan(1)
    const last = result.at(-1)!
    expect(last.choices).toEqual([]) // the SDK's own stream helpers skip it
    expect(last.usage.cost).toBe(charge / 1e6)
    expect(result.slice(0, -1).every((c) => c.choices.length > 0)).toBe(true)
  })

  test('images.generate returns a downloadable PNG by URL, or base64, and charges the cost', async () => {
    const { result } = await charged(() =>
      sdk.images.generate({ model: 'google/gemini-2.5-flash-image', prompt: 'Кот в космосе', n: 1, size: '1024x1024', response_format: 'url' }),
    )
    // The URL is absolute on PUBLIC_URL; the test server listens on a random port, so swap the origin.
    const signed = new URL(result.data![0]!.url!)
    expect(signed.pathname).toMatch(/^\/v1\/files\/[A-Za-z0-9_-]{32}\.png$/)
    const url = gw.url + signed.pathname + signed.search
    const png = await fetch(url)
    expect(png.status).toBe(200)
    expect(png.headers.get('content-type')).toBe('image/png')
    expect([...new Uint8Array(await png.arrayBuffer()).slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10])
    // A tampered signature is refused.
    expect((await fetch(url.replace(/sig=[^&]+/, 'sig=forged'))).status).toBe(404)
    expect((await fetch(gw.url + signed.pathname)).status).toBe(404)

    const { result: b64 } = await charged(() => sdk.images.generate({ model: 'google/gemini-2.5-flash-image', prompt: 'Собака', response_format: 'b64_json' }))
    expect(Buffer.from(b64.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG')
  })

  test('a text-only model refuses image generation and charges nothing', async () => {
    const before = (await gw.books(customer.user.id)).balance
    const err = await sdk.images.generate({ model: 'openai/gpt-3.5-turbo', prompt: 'x' }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.code).toBe('model_not_image_capable')
    expect((await gw.books(customer.user.id)).balance).toBe(before)
  })

  test('failed requests charge nothing', async () => {
    const before = await gw.books(customer.user.id)
    const unknown = await sdk.chat.completions.create({ model: 'nope/nothing', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError)
    expect(unknown.code).toBe('model_not_found')
    const broken = await sdk.chat.completions.create({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: '[[fault:http500]]' }] }).catch((e) => e)
    expect(broken).toBeInstanceOf(OpenAI.InternalServerError)
    const badKey = await new OpenAI({ apiKey: 'sk-gw-wrong', baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'openai/gpt-4', messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e)
    expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(badKey.code).toBe('invalid_api_key')
    const after = await gw.books(customer.user.id)
    expect(after.balance).toBe(before.balance)
    expect(after.held).toBe(0)
  })

  test('GET /api/billing/usage reports exactly what was charged, filtered by startDate', async () => {
    const books = await gw.books(customer.user.id)
    const res = await customer.api.get('/api/billing/usage', customer.accessToken)
    expect(res.status).toBe(200)
    const { totalCost, totalTokens, totalRequests, logs } = res.body.data
    const spent = books.usage.reduce((s, u) => s + u.cost_micros, 0)
    expect(totalCost).toBe(spent / 1e6)
    expect(totalCost).toBe((50_000_000 - books.balance) / 1e6)
    expect(totalRequests).toBe(books.usage.length)
    expect(totalTokens).toBe(books.usage.reduce((s, u) => s + u.prompt_tokens + u.completion_tokens, 0))
    expect(logs[0]).toMatchObject({ model: expect.any(String), totalTokens: expect.any(Number), cost: expect.any(Number), status: expect.any(String) })
    expect(Date.parse(logs[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(logs.at(-1).createdAt)) // newest first
    const future = await customer.api.get(`/api/billing/usage?startDate=${new Date(Date.now() + 3600_000).toISOString()}`, customer.accessToken)
    expect(future.body.data).toMatchObject({ totalCost: 0, totalTokens: 0, totalRequests: 0, topModels: [], logs: [] })
    const bad = await customer.api.get('/api/billing/usage?startDate=yesterday', customer.accessToken)
    expect(bad.status).toBe(400)
    expect(bad.body.error).toBe('startDate должен быть датой в формате ISO 8601')
  })
})
