// Money under stress: concurrent spending of a small balance, and every way the upstream can fail.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { add, ceilUnits, dec, mul } from '../lib/decimal'
import { eventually, expectedCharge, startGateway, TEST_RATE } from '../test-support/gateway'
import { startServer } from '../test-support/server'
import { CATALOGUE } from '../upstream/demo'

type Gateway = Awaited<ReturnType<typeof startGateway>>

const chat = (gw: Gateway, key: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', ...body }),
    signal,
  })

const say = (text: string) => [{ role: 'user', content: text }]

/** Reads an SSE response to the end: data payloads (parsed) and comments. */
async function readSse(res: Response) {
  const text = await res.text()
  const events = text.split('\n\n').filter(Boolean)
  return {
    comments: events.filter((e) => e.startsWith(':')),
    data: events.filter((e) => e.startsWith('data: ') && !e.includes('[DONE]')).map((e) => JSON.parse(e.slice(6))),
    done: text.includes('data: [DONE]'),
  }
}

describe('50 concurrent requests against a small balance', () => {
  let gw: Gateway
  beforeAll(async () => {
    gw = await startGateway({ WELCOME_BONUS_RUB: '2' })
  })
  afterAll(() => gw.stop())

  test('each is served or refused with 402; the balance never goes negative and equals bonus − usage', async () => {
    const c = await gw.customer()
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await chat(gw, c.key, { model: 'openai/gpt-4', max_tokens: 40, stream: i % 2 === 0, messages: say(`запрос ${i}`) })
        const body = i % 2 === 0 && res.status === 200 ? await readSse(res) : await res.json()
        return { status: res.status, body }
      }),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true)
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0)
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0)
    for (const r of results.filter((r) => r.status === 402)) expect(r.body.error.code).toBe('insufficient_balance')

    const books = await gw.books(c.user.id)
    const spent = books.usage.reduce((s, u) => s + u.cost_micros, 0)
    expect(books.balance).toBeGreaterThanOrEqual(0)
    expect(books.balance).toBe(2_000_000 - spent)
    expect(books.ledgerSum).toBe(books.balance)
    expect(books.held).toBe(0)
    expect(books.usage.filter((u) => u.status === 'success')).toHaveLength(statuses.filter((s) => s === 200).length)
    // Each served request was charged exactly its upstream cost, once.
    for (const u of books.usage) expect(u.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost))
  })

  test('an unaffordable max_tokens gets 402 saying how many tokens the balance affords', async () => {
    const c = await gw.customer()
    const res = await chat(gw, c.key, { model: 'openai/gpt-4', max_tokens: 4000, messages: say('x') })
    expect(res.status).toBe(402)
    expect(res.headers.get('x-should-retry')).toBe('false')
    const { error } = await res.json()
    expect(error.code).toBe('insufficient_balance')
    expect(error.type).toBe('insufficient_balance')
    expect(error.action).toEqual({ label: 'Пополнить баланс', url: '/app/billing' })
    // 2 ₽ / (0.00006 $ × rate × 1.3) per token, less the prompt: about 270 tokens.
    const affordable = Number(error.message.match(/хватает примерно на ([\d\s]+) токен/)?.[1]?.replace(/\s/g, ''))
    expect(affordable).toBeGreaterThan(250)
    expect(affordable).toBeLessThan(278)
  })

  test('without max_tokens the completion is capped to what the balance affords', async () => {
    const c = await gw.customer()
    const res = await chat(gw, c.key, { model: 'openai/gpt-4', messages: say('расскажи') })
    expect(res.status).toBe(200)
    const sent = gw.upstream.log.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body as { max_tokens?: number }
    expect(sent.max_tokens).toBeGreaterThan(250)
    expect(sent.max_tokens).toBeLessThan(278)
  })
})

describe('upstream faults', () => {
  let gw: Gateway
  let c: Awaited<ReturnType<Gateway['customer']>>
  let requests = 0
  beforeAll(async () => {
    gw = await startGateway({ UPSTREAM_TIMEOUT_MS: '1500' }, { tokenDelayMs: 5 })
    c = await gw.customer()
  })
  afterAll(() => gw.stop())

  const balance = async () => (await gw.books(c.user.id)).balance

  test.each([
    ['http500', 502, 'upstream_error'],
    ['http502', 502, 'upstream_error'],
    ['http503', 502, 'upstream_error'],
    ['http429', 429, 'rate_limit_exceeded'],
    ['http400', 400, 'invalid_request'],
    ['error200', 502, 'upstream_error'],
    ['toplevel200', 502, 'upstream_error'],
    ['timeout', 504, 'upstream_timeout'],
  ])('%s → %d %s, nothing charged, no hold left', async (fault, status, code) => {
    const before = await balance()
    const res = await chat(gw, c.key, { messages: say(`[[fault:${fault}]] привет`) })
    requests++
    expect(res.status).toBe(status)
    const body = await res.json()
    expect(body.error).toMatchObject({ code, param: null })
    expect(body.error.message).toMatch(/[А-Яа-я]/)
    if (status >= 500) expect(res.headers.get('x-should-retry')).toBe('false')
    expect(await balance()).toBe(before)
    expect((await gw.books(c.user.id)).held).toBe(0)
  })

  test('the timed-out upstream call was aborted', () => {
    const call = gw.upstream.log.filter((r) => JSON.stringify(r.body).includes('[[fault:timeout]]')).at(-1)!
    expect(call.aborted).toBe(true)
  })

  test("the router's own 402 (our account is empty) is a 503 to the customer, never 'insufficient balance'", async () => {
    const before = await balance()
    const res = await chat(gw, c.key, { messages: say('[[fault:credits402]]') })
    requests++
    expect(res.status).toBe(503)
    const { error } = await res.json()
    expect(error.code).toBe('service_unavailable')
    expect(error.message).toBe('Сервис временно недоступен. Попробуйте позже.')
    expect(error.action).toBeUndefined()
    expect(await balance()).toBe(before)
  })

  test('a mid-stream error ends the stream with an OpenAI error event and charges nothing', async () => {
    const before = await balance()
    const res = await chat(gw, c.key, { stream: true, messages: say('[[fault:midstream]]') })
    requests++
    expect(res.status).toBe(200)
    const sse = await readSse(res)
    expect(sse.data.some((d) => d.choices?.[0]?.delta?.content)).toBe(true)
    const last = sse.data.at(-1)
    expect(last.error).toMatchObject({ type: 'server_error', code: 'upstream_error' })
    expect(last.error.message).toStartWith('Провайдер модели прервал ответ')
    await eventually(async () => (await gw.books(c.user.id)).held === 0)
    expect(await balance()).toBe(before)
  })

  test('a broken upstream connection ends the stream with an error event and charges nothing', async () => {
    const before = await balance()
    const res = await chat(gw, c.key, { stream: true, messages: say('[[fault:break]]') })
    requests++
    const sse = await readSse(res)
    expect(sse.data.at(-1).error.message).toBe('Соединение с провайдером модели прервано.')
    expect(sse.done).toBe(false)
    await eventually(async () => (await gw.books(c.user.id)).held === 0)
    expect(await balance()).toBe(before)
  })

  test('keep-alive comments are relayed to the client', async () => {
    const res = await chat(gw, c.key, { stream: true, messages: say('hi') })
    requests++
    const sse = await readSse(res)
    expect(sse.comments).toContain(': OPENROUTER PROCESSING')
    expect(sse.done).toBe(true)
  })

  test('no reported cost: billed by tokens × price instead', async () => {
    const before = await balance()
    const res = await chat(gw, c.key, { messages: say('[[fault:nocost]] посчитай') })
    requests++
    expect(res.status).toBe(200)
    const { usage } = await res.json()
    const m = CATALOGUE.find((x) => x.id === 'openai/gpt-3.5-turbo')!
    const usd = add(mul(dec(m.pricing.prompt), dec(usage.prompt_tokens)), mul(dec(m.pricing.completion), dec(usage.completion_tokens)))
    const expected = ceilUnits(mul(usd, dec(TEST_RATE), dec('1.3')), 6)
    expect(before - (await balance())).toBe(expected)
    expect(Number(usage.cost_rub)).toBe(expected / 1e6)
  })

  test('a client that disconnects mid-stream pays what the upstream reports for what it generated', async () => {
    const before = await balance()
    const ac = new AbortController()
    const res = await chat(gw, c.key, { model: 'anthropic/claude-3-haiku', stream: true, messages: say('[[fault:slow]] длинный ответ') }, ac.signal)
    requests++
    const reader = res.body!.getReader()
    let chunks = 0
    while (chunks < 4) {
      const { value } = await reader.read()
      if (value && new TextDecoder().decode(value).includes('"content"')) chunks++
    }
    ac.abort()
    const row = (await eventually(async () => (await gw.books(c.user.id)).usage.find((u) => u.status === 'cancelled')))!
    const gen = gw.upstream.generations.get(row.upstream_id!)!
    expect(gen.cancelled).toBe(true)
    expect(gen.tokens_completion).toBeLessThan(60) // stopped early: not the whole reply
    expect(row.cost_micros).toBe(expectedCharge(gen.total_cost))
    expect(before - (await balance())).toBe(row.cost_micros)
    expect(gw.upstream.log.filter((r) => JSON.stringify(r.body).includes('[[fault:slow]]')).at(-1)!.aborted).toBe(true)
  })

  test('after all of it: one usage row per request, books balanced, nothing held', async () => {
    const books = await gw.books(c.user.id)
    expect(books.usage).toHaveLength(requests)
    expect(books.ledgerSum).toBe(books.balance)
    expect(books.held).toBe(0)
    const charges = (await gw.read<{ n: number }>("select count(*) as n from ledger_entries where user_id = ? and type = 'usage'", c.user.id))[0]!.n
    expect(charges).toBe(books.usage.filter((u) => u.cost_micros > 0).length)
  })
})

describe('request validation and pass-through', () => {
  let gw: Gateway
  let c: Awaited<ReturnType<Gateway['customer']>>
  beforeAll(async () => {
    gw = await startGateway()
    c = await gw.customer()
  })
  afterAll(() => gw.stop())

  test.each([
    [{ messages: say('x'), temperature: 3 }, 'temperature', 'temperature должен быть числом от 0 до 2'],
    [{ messages: say('x'), temperature: 'hot' }, 'temperature', 'temperature должен быть числом от 0 до 2'],
    [{ messages: [] }, 'messages', 'messages должен быть непустым массивом сообщений'],
    [{ messages: say('x'), max_tokens: 0 }, 'max_tokens', 'max_tokens должен быть целым числом не меньше 1'],
    [{ messages: say('x'), max_tokens: 1.5 }, 'max_tokens', 'max_tokens должен быть целым числом не меньше 1'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role', 'role должен быть system, developer, user, assistant или tool'],
    [{ model: '', messages: say('x') }, 'model', 'Укажите model — идентификатор модели из /v1/models'],
  ])('%j → 400 on %s', async (body, param, message) => {
    const res = await chat(gw, c.key, body)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: { message, type: 'invalid_request_error', code: 'invalid_request', param } })
  })

  test('malformed JSON is a 400 in OpenAI shape', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: '{"model":',
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('invalid_json')
  })

  test('missing or foreign credentials are 401s in OpenAI shape', async () => {
    const none = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: '{}' })
    expect(none.status).toBe(401)
    expect((await none.json()).error.code).toBe('missing_api_key')
    const wrong = await chat(gw, 'sk-gw-not-a-key', { messages: say('x') })
    expect((await wrong.json()).error).toMatchObject({ code: 'invalid_api_key', type: 'invalid_request_error' })
  })

  test('unknown parameters and multimodal parts reach the upstream untouched', async () => {
    const content = [
      { type: 'text', text: 'Что на картинке?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
    ]
    const res = await chat(gw, c.key, {
      model: 'anthropic/claude-3-haiku',
      messages: [{ role: 'user', content }],
      top_p: 0.9,
      response_format: { type: 'json_object' },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    })
    expect(res.status).toBe(200)
    const sent = gw.upstream.log.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body as Record<string, any>
    expect(sent.messages[0].content).toEqual(content)
    expect(sent.top_p).toBe(0.9)
    expect(sent.response_format).toEqual({ type: 'json_object' })
    expect(sent.tools[0].function.name).toBe('f')
    expect(sent.user).toMatch(/^[0-9a-f]{32}$/) // hashed: no customer id leaves for the router
  })

  test('the web session access token is accepted as the Bearer credential', async () => {
    const res = await chat(gw, c.accessToken, { messages: say('из браузера') })
    expect(res.status).toBe(200)
  })
})

describe('crash recovery', () => {
  test('holds left open by a crash are released once the dead instance’s lease lapses, not before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-crash-'))
    const LEASE = '3000'
    const gw = await startGateway({ DATA_DIR: dataDir, HOLD_LEASE_MS: LEASE })
    const c = await gw.customer()
    // A slow request is in flight, its worst case held, when the process dies without a shutdown.
    const inFlight = chat(gw, c.key, { messages: say('долгий ответ [[fault:slow]]'), max_tokens: 100 }).catch(() => null)
    await eventually(async () => (await gw.books(c.user.id)).held > 0)
    await gw.server.kill()
    await inFlight
    const before = await gw.books(c.user.id)
    expect(before.held).toBeGreaterThan(0)
    // The lease the dead instance last renewed: measured against it, not the kill's clock (a busy
    // machine delays both the kill and the renewals).
    const [lease] = await gw.read<{ until: number }>('select max(lease_until) as until from holds where user_id = ?', c.user.id)
    const again = await startServer({ DATA_DIR: dataDir, OPENROUTER_API_KEY: 'x', OPENROUTER_BASE_URL: gw.upstream.url, USD_RUB_RATE: TEST_RATE, HOLD_LEASE_MS: LEASE })
    try {
      // The restarted process is another instance: it gives the dead one's holds back only after
      // their lease lapsed (another instance might still be serving them), then within a sweep.
      await eventually(async () => (await gw.books(c.user.id)).held === 0, 15_000)
      expect(Date.now()).toBeGreaterThanOrEqual(lease!.until)
      // The sweep says so once its unit committed: the line may reach us a moment after the books do.
      await eventually(() => again.logs().includes('released 1 hold(s) of stopped instances'), 5_000)
      // The reservation is given back and nothing was charged for the request that never finished.
      expect(await gw.books(c.user.id)).toMatchObject({ held: 0, balance: before.balance, ledgerSum: before.balance })
      expect(before.balance).toBe(50_000_000)
    } finally {
      await again.stop()
      await gw.upstream.stop()
    }
  })
})
