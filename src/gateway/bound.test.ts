// The hold is an upper bound of everything the router bills (issue 14): for each way a request can
// cost more than one plain completion, 20 concurrent requests on a small balance are served or
// refused with 402, every charge is the reported cost × rate × markup to the micro-ruble, nothing
// is left uncovered or held, and the balance never goes below zero.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { add, type Dec, dec } from '../lib/decimal'
import { eventually, expectedCharge, startGateway } from '../test-support/gateway'
import { registerUser } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>

const ADMIN = 'boss@bound.test'
const say = (text: string) => [{ role: 'user', content: text }]
const CONCURRENT = 20

let gw: Gateway
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN })
  admin = await registerUser(gw.url, ADMIN)
})
afterAll(() => gw.stop())

/** A customer whose balance is exactly `rub` (the welcome bonus less an admin deduction). */
async function customerWith(rub: number): Promise<Customer> {
  const c = await gw.customerWith(admin, rub)
  expect((await gw.books(c.user.id)).balance).toBe(rub * 1e6)
  return c
}

const post = (c: Customer, path: string, body: Record<string, unknown>) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** Sends `CONCURRENT` copies at once; each answer is read to its end. */
async function burst(c: Customer, path: string, body: Record<string, unknown>) {
  return Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const res = await post(c, path, body)
      const text = await res.text()
      return { status: res.status, text, json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null }
    }),
  )
}

const newGenerations = (before: Set<string>) => [...gw.upstream.generations.values()].filter((g) => !before.has(g.id))

/**
 * The books after a burst: served or 402 only, some of each; each charge = its reported cost ×
 * rate × markup; the sum of charges = what left the balance; every upstream generation billed
 * once; nothing uncovered, nothing held, nothing below zero.
 */
async function audit(c: Customer, startMicros: number, results: Awaited<ReturnType<typeof burst>>, before: Set<string>) {
  const statuses = results.map((r) => r.status)
  expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([])
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0)
  expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0)
  for (const r of results.filter((r) => r.status === 402)) expect(r.json.error.code).toBe('insufficient_balance')

  const books = await gw.books(c.user.id)
  const served = books.usage.filter((u) => u.status === 'success')
  expect(served).toHaveLength(statuses.filter((s) => s === 200).length)
  let charged = 0
  let reported: Dec = dec(0)
  for (const u of served) {
    const [row] = await gw.read<{ upstream_cost_usd: string | null }>('select upstream_cost_usd from usage_logs where upstream_id = ? and user_id = ?', u.upstream_id!, c.user.id)
    expect(row!.upstream_cost_usd).not.toBeNull()
    expect(u.cost_micros).toBe(expectedCharge(Number(row!.upstream_cost_usd)))
    charged += u.cost_micros
    reported = add(reported, dec(row!.upstream_cost_usd!))
  }
  // Every generation the upstream made for these requests was billed, and billed as reported.
  const made = newGenerations(before).reduce((sum, g) => add(sum, dec(g.total_cost)), dec(0))
  expect(made).toEqual(reported)
  expect(books.balance).toBe(startMicros - charged)
  expect(books.balance).toBeGreaterThanOrEqual(0)
  expect(books.ledgerSum).toBe(books.balance)
  expect(books.held).toBe(0)
  const [{ n, s }] = (await gw.read<{ n: number; s: number }>(
    'select count(*) as n, coalesce(sum(uncovered_micros), 0) as s from uncovered_costs where user_id = ?',
    c.user.id,
  )) as [{ n: number; s: number }]
  expect({ n, s }).toEqual({ n: 0, s: 0 })
  return { served, books }
}

async function scenario(rub: number, path: string, body: Record<string, unknown>) {
  const c = await customerWith(rub)
  const before = new Set(gw.upstream.generations.keys())
  const results = await burst(c, path, body)
  return { c, results, ...(await audit(c, rub * 1e6, results, before)) }
}

const lastSent = () => gw.upstream.log.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body as Record<string, any>

describe('the hold bounds what the router bills', () => {
  test('/v1/images n=4 on a model priced by output picture', async () => {
    const { served } = await scenario(50, '/v1/images', { model: 'black-forest-labs/flux.2-pro', prompt: 'кот в шляпе', n: 4, response_format: 'b64_json' })
    // 4 pictures at $0.03: 14.43 ₽ a request, so three fit into 50 ₽.
    expect(served).toHaveLength(3)
  })

  test('the same image-only model through /v1/chat/completions', async () => {
    const { served } = await scenario(10, '/v1/chat/completions', { model: 'black-forest-labs/flux.2-pro', messages: say('закат над морем') })
    expect(served).toHaveLength(2) // 3.61 ₽ a picture
  })

  test('n: 3 with max_tokens: 10 on a model that writes to the limit', async () => {
    const { results } = await scenario(3, '/v1/chat/completions', { model: 'openai/gpt-4', n: 3, max_tokens: 10, messages: say('[[fault:long]] пиши') })
    const answer = results.find((r) => r.status === 200)!.json
    expect(answer.choices).toHaveLength(3)
    expect(answer.usage.completion_tokens).toBe(30)
  })

  test('models: [cheap, dear] where the router falls back to the dear one', async () => {
    const { served } = await scenario(3, '/v1/chat/completions', {
      models: ['openai/gpt-3.5-turbo', 'openai/gpt-4'],
      max_tokens: 50,
      messages: say('[[fault:fallback]] [[fault:long]] ответь'),
    })
    // Billed and logged as the model that answered.
    for (const u of served) expect(u.model).toBe('openai/gpt-4')
  })

  test('plugins: web with max_results 10', async () => {
    const body = { model: 'openai/gpt-3.5-turbo', plugins: [{ id: 'web', max_results: 10 }], max_tokens: 20, messages: say('новости') }
    const { c, served } = await scenario(20, '/v1/chat/completions', body)
    expect(served).toHaveLength(4) // 10 results at $0.004: 4.81 ₽ a request
    expect(lastSent().plugins).toEqual([{ id: 'web', max_results: 10 }])
    // What is left cannot pay for the search: the 402 says what to lower.
    const refused = await post(c, '/v1/chat/completions', body)
    expect(refused.status).toBe(402)
    expect((await refused.json()).error.message).toContain('max_results')
  })

  test('a web plugin without max_results is held and sent with the router default of 5', async () => {
    await scenario(10, '/v1/chat/completions', { model: 'openai/gpt-3.5-turbo', plugins: [{ id: 'web' }], max_tokens: 20, messages: say('новости') })
    expect(lastSent().plugins).toEqual([{ id: 'web', max_results: 5 }])
  })

  test('20 concurrent streamed n: 3 requests', async () => {
    const { results } = await scenario(5, '/v1/chat/completions', { model: 'openai/gpt-4', n: 3, max_tokens: 20, stream: true, messages: say('[[fault:long]] пиши') })
    const ok = results.find((r) => r.status === 200)!
    expect(ok.text).toContain('data: [DONE]')
  })

  test('a large tools schema counts in the prompt', async () => {
    const tools = Array.from({ length: 12 }, (_, i) => ({
      type: 'function',
      function: {
        name: `tool_${i}`,
        description: 'Получает сведения из внутренней системы учёта заказов и возвращает их в виде таблицы. '.repeat(4),
        parameters: { type: 'object', properties: { id: { type: 'string', description: 'Идентификатор записи в системе' } }, required: ['id'] },
      },
    }))
    const { served } = await scenario(30, '/v1/chat/completions', { model: 'openai/gpt-4', tools, max_tokens: 16, messages: say('найди заказ') })
    for (const u of served) expect(u.prompt_tokens).toBeGreaterThan(1000)
  })

  test('the :online variant: forwarded as named, held with the default web results', async () => {
    const { served } = await scenario(10, '/v1/chat/completions', { model: 'openai/gpt-3.5-turbo:online', max_tokens: 20, messages: say('что нового') })
    expect(lastSent().model).toBe('openai/gpt-3.5-turbo:online')
    for (const u of served) expect(u.model).toBe('openai/gpt-3.5-turbo:online')
  })

  test('other routing variants are served at the base model’s price', async () => {
    const c = await customerWith(10)
    for (const v of ['nitro', 'floor', 'thinking', 'exacto', 'extended']) {
      const res = await post(c, '/v1/chat/completions', { model: `openai/gpt-4o-mini:${v}`, max_tokens: 10, messages: say('привет') })
      expect(res.status).toBe(200)
      expect(lastSent().model).toBe(`openai/gpt-4o-mini:${v}`)
    }
    const bad = await post(c, '/v1/chat/completions', { model: 'openai/gpt-4o-mini:bogus', messages: say('привет') })
    expect(bad.status).toBe(404)
  })
})

describe('a reported cost the hold could not foresee', () => {
  test('is charged up to the balance; the rest is recorded as uncovered, logged as ALERT and shown to the admin', async () => {
    const c = await customerWith(1)
    gw.upstream.failNext('overbill')
    const res = await post(c, '/v1/chat/completions', { model: 'openai/gpt-4', max_tokens: 100, messages: say('[[fault:long]] пиши') })
    expect(res.status).toBe(200)
    const books = await gw.books(c.user.id)
    const [u] = books.usage
    const cost = expectedCharge(gw.upstream.generations.get(u!.upstream_id!)!.total_cost)
    expect(cost).toBeGreaterThan(1_000_000)
    // Charged the whole balance, never below zero; the rest is on record.
    expect(u!.cost_micros).toBe(1_000_000)
    expect(books.balance).toBe(0)
    expect(books.ledgerSum).toBe(0)
    expect(books.held).toBe(0)
    const rows = await gw.read<{ cost_micros: number; charged_micros: number; uncovered_micros: number; held_micros: number }>(
      'select cost_micros, charged_micros, uncovered_micros, held_micros from uncovered_costs where user_id = ?',
      c.user.id,
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ cost_micros: cost, charged_micros: 1_000_000, uncovered_micros: cost - 1_000_000 })
    expect(rows[0]!.held_micros).toBeLessThan(cost)
    await eventually(() => gw.server.logs().includes('ALERT uncovered cost')) // the log line may trail the answer

    const stats = await admin.api.get('/api/admin/stats', admin.accessToken)
    expect(stats.body.data.finance.uncoveredRequests).toBe(1)
    expect(stats.body.data.finance.uncoveredCost).toBe((cost - 1_000_000) / 1e6)
    const list = await admin.api.get('/api/admin/uncovered', admin.accessToken)
    expect(list.body).toMatchObject({ success: true, requests: 1, total: (cost - 1_000_000) / 1e6 })
    expect(list.body.data[0]).toMatchObject({ userId: c.user.id, email: c.email, model: 'openai/gpt-4', charged: 1, uncovered: (cost - 1_000_000) / 1e6 })
    const forbidden = await c.api.get('/api/admin/uncovered', c.accessToken)
    expect(forbidden.status).toBe(403)
  })
})

describe('POST /api/playground/estimate', () => {
  test('answers the hold the request will get; an image-only model’s estimate is its exact charge', async () => {
    const c = await customerWith(10)
    const images = { model: 'black-forest-labs/flux.2-pro', prompt: 'маяк', n: 2, response_format: 'b64_json' }
    const est = await c.api.post('/api/playground/estimate', { images }, c.accessToken)
    expect(est.status).toBe(200)
    expect(est.body.data).toMatchObject({ affordable: true, message: null })
    const res = await post(c, '/v1/images', images)
    expect(res.status).toBe(200)
    const [u] = (await gw.books(c.user.id)).usage
    expect(est.body.data.maxCost).toBe(u!.cost_micros / 1e6)
    expect(est.body.data.hold).toBe(u!.cost_micros / 1e6)

    const dear = await c.api.post('/api/playground/estimate', { chat: { model: 'openai/gpt-4', max_tokens: 100_000, messages: say('x') } }, c.accessToken)
    expect(dear.body.data).toMatchObject({ affordable: false, hold: null })
    expect(dear.body.data.message).toContain('max_tokens')
    // what the money affords, as a number the Playground can set max_tokens to
    const n = dear.body.data.affordableTokens
    expect(Number.isInteger(n)).toBe(true)
    expect(dear.body.data.message).toContain(`примерно на ${new Intl.NumberFormat('ru-RU').format(n)} токен`)
    const fits = await c.api.post('/api/playground/estimate', { chat: { model: 'openai/gpt-4', max_tokens: n, messages: say('x') } }, c.accessToken)
    expect(fits.body.data).toMatchObject({ affordable: true, message: null, affordableTokens: null })
    const over = await c.api.post('/api/playground/estimate', { chat: { model: 'openai/gpt-4', max_tokens: n + 1, messages: say('x') } }, c.accessToken)
    expect(over.body.data).toMatchObject({ affordable: false, affordableTokens: n })
    const sent = await post(c, '/v1/chat/completions', { model: 'openai/gpt-4', max_tokens: n, messages: say('x') })
    expect(sent.status).toBe(200)
    const unknown = await c.api.post('/api/playground/estimate', { chat: { model: 'no/such', messages: say('x') } }, c.accessToken)
    expect(unknown.status).toBe(404)
    const anonymous = await c.api.post('/api/playground/estimate', { images })
    expect(anonymous.status).toBe(401)
  })

  test('a comparison (one prompt to several models at once) is estimated as its holds would be placed: the sum, one shared max_tokens that fits them all', async () => {
    const c = await customerWith(10)
    const models = ['openai/gpt-4', 'openai/gpt-4o', 'anthropic/claude-3-haiku']
    const body = (model: string, max_tokens: number) => ({ model, max_tokens, messages: say('Сравни') })
    const one = async (model: string, max_tokens: number) =>
      (await c.api.post('/api/playground/estimate', { chat: body(model, max_tokens) }, c.accessToken)).body.data as { maxCost: number; hold: number }
    const cheap = await c.api.post('/api/playground/estimate', { compare: models.map((m) => body(m, 100)) }, c.accessToken)
    expect(cheap.body.data).toMatchObject({ affordable: true, message: null, affordableTokens: null })
    const singles = await Promise.all(models.map((m) => one(m, 100)))
    expect(cheap.body.data.maxCost).toBeCloseTo(
      singles.reduce((sum, e) => sum + e.maxCost, 0),
      6,
    )

    // Together they do not fit: refused, naming the model, with the shared cap that fits them all.
    const dear = await c.api.post('/api/playground/estimate', { compare: models.map((m) => body(m, 4000)) }, c.accessToken)
    expect(dear.body.data).toMatchObject({ affordable: false, hold: null })
    expect(dear.body.data.message).toMatch(/^openai\/gpt-4(o)?: Недостаточно средств/)
    const n = dear.body.data.affordableTokens as number
    expect(n).toBeGreaterThanOrEqual(16)
    expect(n).toBeLessThan(4000)
    const fits = await c.api.post('/api/playground/estimate', { compare: models.map((m) => body(m, n)) }, c.accessToken)
    expect(fits.body.data).toMatchObject({ affordable: true })
    // and sent at once with that cap, every one is answered
    const sent = await Promise.all(models.map((m) => post(c, '/v1/chat/completions', body(m, n))))
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200])
    const books = await gw.books(c.user.id)
    expect(books.ledgerSum).toBe(books.balance)
    expect(books.balance).toBeGreaterThanOrEqual(0)

    const tooMany = await c.api.post('/api/playground/estimate', { compare: [...models, models[0]].map((m) => body(m, 10)) }, c.accessToken)
    expect(tooMany.status).toBe(400)
  })
})
