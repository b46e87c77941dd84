// Protocol details every /v1 client relies on (issue 15, item 4–5): the usage chunk always relayed,
// usage.cost in rubles, null as absent, models without model, x-request-id, CORS for any origin,
// OpenAI-shaped images usage, and the cost lookups /v1/generation and /v1/key.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectedCharge, startGateway } from '../test-support/gateway'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let c: Awaited<ReturnType<Gateway['customer']>>

beforeAll(async () => {
  gw = await startGateway()
  c = await gw.customer()
})
afterAll(() => gw.stop())

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
const get = (path: string, key = c.key) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
const say = (text: string) => [{ role: 'user', content: text }]
const dataEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && !e.includes('[DONE]'))
    .map((e) => JSON.parse(e.slice(6)))

describe('/v1 protocol details', () => {
  test('a stream relays the final usage chunk without stream_options, with usage.cost = the charge in rubles', async () => {
    const res = await post('/v1/chat/completions', { model: 'openai/gpt-4o-mini', stream: true, messages: say('привет') })
    expect(res.status).toBe(200)
    const events = dataEvents(await res.text())
    const last = events.at(-1)
    expect(last.choices).toEqual([])
    expect(last.usage.prompt_tokens).toBeGreaterThan(0)
    const [row] = (await gw.books(c.user.id)).usage.filter((u) => u.upstream_id === last.id)
    expect(row!.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(last.id)!.total_cost))
    expect(last.usage.cost).toBe(row!.cost_micros / 1e6)
    expect(last.usage.cost_details).toBeUndefined()
  })

  test('null means absent for optional parameters', async () => {
    const res = await post('/v1/chat/completions', {
      model: 'openai/gpt-4o-mini',
      temperature: null,
      max_tokens: null,
      stream: null,
      stream_options: null,
      top_p: null,
      messages: say('привет'),
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.object).toBe('chat.completion')
    expect(typeof body.usage.cost).toBe('number')
  })

  test('models without model is accepted; the first that answers is billed', async () => {
    const res = await post('/v1/chat/completions', { models: ['openai/gpt-4o-mini', 'openai/gpt-3.5-turbo'], max_tokens: 10, messages: say('привет') })
    expect(res.status).toBe(200)
    expect((await res.json()).model).toBe('openai/gpt-4o-mini')
    const none = await post('/v1/chat/completions', { messages: say('привет') })
    expect(none.status).toBe(400)
    expect((await none.json()).error.message).toContain('model')
  })

  test('x-request-id on every answer, the client’s own echoed', async () => {
    const mine = await post('/v1/chat/completions', { model: 'openai/gpt-4o-mini', max_tokens: 5, messages: say('привет') }, { 'x-request-id': 'my-trace-42' })
    expect(mine.headers.get('x-request-id')).toBe('my-trace-42')
    const ours = await get('/v1/models')
    expect(ours.headers.get('x-request-id')).toMatch(/^req_/)
    const failed = await get('/v1/models/no/such')
    expect(failed.status).toBe(404)
    expect(failed.headers.get('x-request-id')).toMatch(/^req_/)
    const hostile = await post('/v1/chat/completions', {}, { 'x-request-id': 'a b <script>' })
    expect(hostile.headers.get('x-request-id')).toMatch(/^req_/)
  })

  test('CORS: a preflight from any origin is allowed for /v1 only', async () => {
    const pre = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-api-key, anthropic-version',
      },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
    for (const h of ['Authorization', 'Content-Type', 'x-api-key', 'anthropic-version', 'anthropic-beta']) expect(pre.headers.get('access-control-allow-headers')).toContain(h)
    // DELETE for /v1/responses/{id} (the SDK's responses.delete from a browser app).
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS')
    const res = await post('/v1/chat/completions', { model: 'openai/gpt-4o-mini', max_tokens: 5, messages: say('привет') }, { origin: 'https://app.example' })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const api = await fetch(`${gw.url}/api/health`, { headers: { origin: 'https://app.example' } })
    expect(api.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('/v1/images usage has the ImagesResponse shape', async () => {
    const res = await post('/v1/images', { model: 'black-forest-labs/flux.2-pro', prompt: 'кот', response_format: 'b64_json' })
    expect(res.status).toBe(200)
    const { usage } = await res.json()
    expect(Object.keys(usage).sort()).toEqual(['cost', 'cost_rub', 'input_tokens', 'input_tokens_details', 'output_tokens', 'total_tokens'])
    expect(usage.input_tokens_details).toEqual({ text_tokens: usage.input_tokens, image_tokens: 0 })
  })

  test('GET /v1/generation: one request of the caller’s own, in rubles; 404 for anyone else', async () => {
    const res = await post('/v1/chat/completions', { model: 'openai/gpt-4o-mini', max_tokens: 8, messages: say('сколько стоит') })
    const body = await res.json()
    const found = await get(`/v1/generation?id=${body.id}`)
    expect(found.status).toBe(200)
    const { data } = await found.json()
    expect(data).toMatchObject({
      id: body.id,
      model: 'openai/gpt-4o-mini',
      total_cost: body.usage.cost,
      tokens_prompt: body.usage.prompt_tokens,
      tokens_completion: body.usage.completion_tokens,
      status: 'success',
      streamed: false,
    })
    expect(typeof data.latency).toBe('number')
    const other = await gw.customer()
    expect((await get(`/v1/generation?id=${body.id}`, other.key)).status).toBe(404)
    expect((await get('/v1/generation')).status).toBe(400)
  })

  test('GET /v1/key: the calling key’s label, spend, limit and the balance in the router’s shape', async () => {
    const k = await gw.customer()
    await c.api.patch(`/api/auth/api-keys/${k.keyId}`, {}, k.accessToken)
    const set = await k.api.patch(`/api/auth/api-keys/${k.keyId}`, { monthlyLimit: 10 }, k.accessToken)
    expect(set.status).toBe(200)
    await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', max_tokens: 8, messages: say('привет') }),
    })
    const spent = (await gw.books(k.user.id)).usage.reduce((s, u) => s + u.cost_micros, 0)
    const { data } = await (await get('/v1/key', k.key)).json()
    expect(data).toMatchObject({
      label: 'test',
      usage: spent / 1e6,
      usage_monthly: spent / 1e6,
      limit: 10,
      limit_remaining: (10_000_000 - spent) / 1e6,
      limit_reset: 'monthly',
      balance: (await gw.books(k.user.id)).balance / 1e6,
    })
    const session = await (await get('/v1/key', k.accessToken)).json()
    expect(session.data).toMatchObject({ label: 'Веб-сессия', limit: null, limit_remaining: null })
  })
})
