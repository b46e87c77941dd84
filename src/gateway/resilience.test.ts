// When the router stumbles (issue 26): retries before the first byte, the circuit breaker, the second
// router, count_tokens without the router's count, and the status page — against fake routers whose
// faults the tests switch on (outage(), refuse()).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { toneWav } from '../test-support/audio'
import { eventually, expectedCharge, startGateway } from '../test-support/gateway'
import { registerUser, uniqueEmail } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>

const say = (text: string) => [{ role: 'user', content: text }]
const post = (gw: Gateway, key: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
const chat = (gw: Gateway, key: string, body: Record<string, unknown>) => post(gw, key, '/v1/chat/completions', { model: 'openai/gpt-4o-mini', max_tokens: 30, ...body })
/** Requests a router received whose body carries `text`. */
const received = <R extends { body: unknown }>(log: R[], text: string) => log.filter((r) => JSON.stringify(r.body ?? '').includes(text))
const TTS = 'openai/gpt-4o-mini-tts'
const WHISPER = 'openai/whisper-1'
const speech = (gw: Gateway, key: string, input: string) => post(gw, key, '/v1/audio/speech', { model: TTS, input, voice: 'alloy' })
const transcription = (gw: Gateway, key: string) =>
  post(gw, key, '/v1/audio/transcriptions', { model: WHISPER, input_audio: { data: Buffer.from(toneWav(2)).toString('base64'), format: 'wav' } })
const dataEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && !e.includes('[DONE]'))
    .map((e) => JSON.parse(e.slice(6)))

/** One Responses turn over the WebSocket mode: the frames up to its end (completed, failed or an error). */
async function socketTurn(gw: Gateway, key: string, body: Record<string, unknown>) {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } } as unknown as string[])
  const frames: Array<Record<string, any>> = []
  const ended = new Promise<void>((resolve, reject) => {
    ws.onmessage = (e) => {
      const frame = JSON.parse(String(e.data))
      frames.push(frame)
      if (['response.completed', 'response.failed', 'error'].includes(frame.type)) resolve()
    }
    ws.onerror = () => reject(new Error('the socket failed'))
  })
  await new Promise<void>((resolve) => {
    ws.onopen = () => resolve()
  })
  ws.send(JSON.stringify({ type: 'response.create', ...body }))
  await ended
  ws.close()
  return frames
}

/** One answered request: its one usage row, charged the reported cost of the router that answered. */
async function chargedOnce(gw: Gateway, c: Customer, upstreamId: string, router = gw.upstream) {
  const rows = (await gw.books(c.user.id)).usage.filter((u) => u.upstream_id === upstreamId)
  expect(rows).toHaveLength(1)
  expect(rows[0]!.status).toBe('success')
  expect(rows[0]!.cost_micros).toBe(expectedCharge(router.generations.get(upstreamId)!.total_cost))
  return rows[0]!
}

async function booksBalanced(gw: Gateway, c: Customer) {
  const books = await gw.books(c.user.id)
  expect(books.held).toBe(0)
  expect(books.ledgerSum).toBe(books.balance)
  expect(books.balance).toBe(50_000_000 - books.usage.reduce((s, u) => s + u.cost_micros, 0))
}

/** A gateway with a customer and an admin (who reads /api/admin/upstreams). */
async function withAdmin(...[env, upstreamOpts, fallbackOpts]: Parameters<typeof startGateway>) {
  const adminEmail = uniqueEmail('admin')
  const gw = await startGateway({ ...env, ADMIN_EMAILS: adminEmail }, upstreamOpts, fallbackOpts)
  return { gw, c: await gw.customer(), admin: await registerUser(gw.url, adminEmail) }
}

describe('retries before the first byte', () => {
  let gw: Gateway
  let c: Customer
  let admin: Awaited<ReturnType<typeof registerUser>>
  beforeAll(async () => {
    ;({ gw, c, admin } = await withAdmin({ UPSTREAM_TIMEOUT_MS: '3000' }, { noCountTokens: true }))
  })
  afterAll(() => gw.stop())

  test('a refused connection is retried, and the answer is charged once', async () => {
    await gw.upstream.refuse()
    const reopen = setTimeout(() => gw.upstream.accept(), 250) // the first try is refused; a later one gets through
    const res = await chat(gw, c.key, { messages: say('после отказа в соединении') })
    clearTimeout(reopen)
    gw.upstream.accept()
    expect(res.status).toBe(200)
    const body = await res.json()
    await chargedOnce(gw, c, body.id)
    expect(received(gw.upstream.log, 'после отказа в соединении')).toHaveLength(1) // refused tries never arrived
    const breakers = await admin.api.get('/api/admin/upstreams', admin.accessToken)
    expect(breakers.status).toBe(200)
    const primary = breakers.body.data.upstreams.find((u: { name: string }) => u.name === 'primary')
    expect(primary.state).toBe('closed')
    expect(primary.recentErrors.map((e: { reason: string }) => e.reason)).toContain('нет соединения')
  })

  test('a 503 is retried after its Retry-After; one hold, settled once at the answer used', async () => {
    gw.upstream.outage({ fault: 'http503', requests: 1 })
    const started = Date.now()
    const res = await chat(gw, c.key, { messages: say('после 503') })
    expect(res.status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000) // Retry-After: 1
    const body = await res.json()
    expect(received(gw.upstream.log, 'после 503')).toHaveLength(2)
    const row = await chargedOnce(gw, c, body.id)
    expect(body.usage.cost).toBe(row.cost_micros / 1e6)
    await booksBalanced(gw, c)
  })

  test('a 429 with Retry-After is waited out and retried (streamed: nothing reached the client before)', async () => {
    gw.upstream.outage({ fault: 'http429', requests: 1 })
    const started = Date.now()
    const res = await chat(gw, c.key, { stream: true, messages: say('после 429') })
    expect(res.status).toBe(200)
    const events = dataEvents(await res.text())
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(received(gw.upstream.log, 'после 429')).toHaveLength(2)
    const row = await chargedOnce(gw, c, events.at(-1).id)
    expect(events.at(-1).usage.cost).toBe(row.cost_micros / 1e6)
  })

  test('a streamed request whose head never comes is retried (nothing was generated yet)', async () => {
    gw.upstream.outage({ fault: 'timeout', requests: 1 })
    const res = await chat(gw, c.key, { stream: true, messages: say('после зависания') })
    expect(res.status).toBe(200)
    const events = dataEvents(await res.text())
    const tries = received(gw.upstream.log, 'после зависания')
    expect(tries).toHaveLength(2)
    expect(tries[0]!.aborted).toBe(true)
    await chargedOnce(gw, c, events.at(-1).id)
  })

  test('a drop mid-stream is not retried: the client gets the error event, and it is billed as before (nothing without a usage)', async () => {
    const before = (await gw.books(c.user.id)).balance
    gw.upstream.outage({ fault: 'break', requests: 1 })
    const res = await chat(gw, c.key, { stream: true, messages: say('обрыв посреди ответа') })
    expect(res.status).toBe(200)
    const events = dataEvents(await res.text())
    expect(events.some((e) => e.choices?.[0]?.delta?.content)).toBe(true)
    expect(events.at(-1).error.message).toBe('Соединение с провайдером модели прервано.')
    expect(received(gw.upstream.log, 'обрыв посреди ответа')).toHaveLength(1)
    await eventually(async () => (await gw.books(c.user.id)).held === 0)
    expect((await gw.books(c.user.id)).balance).toBe(before)
  })

  test('every retry failing ends in the last failure, with nothing charged', async () => {
    const before = (await gw.books(c.user.id)).balance
    gw.upstream.outage({ fault: 'http502', requests: 3 })
    const res = await chat(gw, c.key, { messages: say('три раза 502') })
    expect(res.status).toBe(502)
    expect((await res.json()).error.code).toBe('upstream_error')
    expect(received(gw.upstream.log, 'три раза 502')).toHaveLength(3) // the first try and 2 retries, no more
    await booksBalanced(gw, c)
    expect((await gw.books(c.user.id)).balance).toBe(before)
  })

  test('voice too: speech and a transcription that met a 503 before the first byte are retried, each charged once', async () => {
    gw.upstream.outage({ fault: 'http503', requests: 1 })
    const said = await speech(gw, c.key, 'Повтор после отказа')
    expect(said.status).toBe(200)
    expect((await said.arrayBuffer()).byteLength).toBeGreaterThan(0)
    const id = said.headers.get('x-generation-id')!
    expect(received(gw.upstream.log, 'Повтор после отказа')).toHaveLength(2)
    await eventually(async () => (await gw.books(c.user.id)).usage.some((u) => u.upstream_id === id))
    await chargedOnce(gw, c, id)

    gw.upstream.outage({ fault: 'http502', requests: 2 })
    const heard = await transcription(gw, c.key)
    expect(heard.status).toBe(200)
    expect(gw.upstream.log.filter((r) => r.path.endsWith('/audio/transcriptions'))).toHaveLength(3)
    await chargedOnce(gw, c, heard.headers.get('x-generation-id')!)
    await booksBalanced(gw, c)
  })

  test('count_tokens answers when the router has no such route: estimated like the hold, said in a header, free', async () => {
    const before = await gw.books(c.user.id)
    const body = { model: 'anthropic/claude-3-haiku', messages: [{ role: 'user', content: 'Сколько здесь токенов?' }] }
    const res = await post(gw, c.key, '/v1/messages/count_tokens', body, { 'anthropic-version': '2023-06-01' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-token-count-estimated')).toBe('true')
    const { input_tokens } = await res.json()
    expect(input_tokens).toBeGreaterThan(0)
    // And when the router cannot be reached at all.
    await gw.upstream.refuse()
    try {
      const down = await post(gw, c.key, '/v1/messages/count_tokens', body)
      expect(down.status).toBe(200)
      expect(down.headers.get('x-token-count-estimated')).toBe('true')
      expect((await down.json()).input_tokens).toBe(input_tokens)
    } finally {
      gw.upstream.accept()
    }
    const after = await gw.books(c.user.id)
    expect(after.balance).toBe(before.balance)
    expect(after.usage).toHaveLength(before.usage.length)
    // A model we do not have is still a 404.
    const unknown = await post(gw, c.key, '/v1/messages/count_tokens', { ...body, model: 'nobody/nothing' })
    expect(unknown.status).toBe(404)
  })
})

describe('the circuit breaker', () => {
  let gw: Gateway
  let c: Customer
  let c2: Customer
  beforeAll(async () => {
    gw = await startGateway({ UPSTREAM_BREAKER_MIN_REQUESTS: '4', UPSTREAM_BREAKER_FAILURE_PERCENT: '50', UPSTREAM_BREAKER_COOLDOWN_MS: '1500' })
    c = await gw.customer()
    c2 = await gw.customer()
  })
  afterAll(() => gw.stop())

  test('opens after the threshold: then every protocol fails fast with 503 upstream_unavailable and Retry-After, sending nothing', async () => {
    gw.upstream.outage({ fault: 'http500' }) // not retried: one try per request
    // Two customers meet the outage: one account's failures alone never open it (breaker-scope.test.ts).
    for (let i = 0; i < 4; i++) expect((await chat(gw, (i % 2 ? c2 : c).key, { messages: say(`сбой ${i}`) })).status).toBe(502)
    const sent = gw.upstream.log.length

    const started = Date.now()
    const plain = await chat(gw, c.key, { messages: say('пока открыт') })
    const streamed = await chat(gw, c.key, { stream: true, messages: say('пока открыт') })
    const responses = await post(gw, c.key, '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'пока открыт' })
    const embeddings = await post(gw, c.key, '/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'пока открыт' })
    const images = await post(gw, c.key, '/v1/images', { model: 'black-forest-labs/flux.2-pro', prompt: 'пока открыт' })
    const messages = await post(gw, c.key, '/v1/messages', { model: 'anthropic/claude-3-haiku', max_tokens: 20, messages: say('пока открыт') })
    const said = await speech(gw, c.key, 'пока открыт')
    const heard = await transcription(gw, c.key)
    expect(Date.now() - started).toBeLessThan(1000) // fast: nobody waited for the router

    for (const res of [plain, streamed, responses, embeddings, images, said, heard]) {
      expect(res.status).toBe(503)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      const { error } = await res.json()
      expect(error).toMatchObject({ type: 'server_error', code: 'upstream_unavailable', param: null })
      expect(error.message).toStartWith('Провайдер моделей временно недоступен')
    }
    // Anthropic's shape on /v1/messages: Claude Code reads it.
    expect(messages.status).toBe(503)
    expect(Number(messages.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    const anthropic = await messages.json()
    expect(anthropic.type).toBe('error')
    expect(anthropic.error.type).toBe('overloaded_error')
    expect(anthropic.error.message).toStartWith('Провайдер моделей временно недоступен')

    // A WebSocket turn gets the same failure as an error event, on a socket that stays open.
    const frames = await socketTurn(gw, c.key, { model: 'openai/gpt-4o-mini', input: 'пока открыт', store: false })
    expect(frames.at(-1)).toMatchObject({ type: 'error', status: 503, error: { code: 'upstream_unavailable' } })

    expect(gw.upstream.log.length).toBe(sent) // no upstream traffic while open
    await booksBalanced(gw, c)
  })

  test('after the cool-down a probe goes through: one failing re-opens it, three good ones close it', async () => {
    await Bun.sleep(1600)
    const sent = gw.upstream.log.length
    expect((await chat(gw, c.key, { messages: say('проба при сбое') })).status).toBe(502) // the probe, still failing
    expect(gw.upstream.log.length).toBe(sent + 1)
    expect((await chat(gw, c.key, { messages: say('снова открыт') })).status).toBe(503)

    gw.upstream.outage(null) // the router is back
    await Bun.sleep(1600)
    for (let i = 0; i < 3; i++) expect((await chat(gw, c.key, { messages: say(`проба ${i}`) })).status).toBe(200)
    expect((await chat(gw, c.key, { messages: say('снова работает') })).status).toBe(200)
    await booksBalanced(gw, c)

    // Each transition logged once, as it happened.
    const logs = gw.server.logs()
    const count = (s: string) => logs.split(s).length - 1
    expect(count('[upstream] primary: circuit opened')).toBe(1)
    expect(count('[upstream] primary: circuit half-open')).toBe(2)
    expect(count('[upstream] primary: circuit re-opened (a probe failed)')).toBe(1)
    expect(count('[upstream] primary: circuit closed')).toBe(1)
    expect(logs).toContain('4 of 4 requests failed (HTTP 500)')
  })

  test('/status shows the incident once the router recovered: start, end, duration, what failed; JSON at /api/status', async () => {
    const res = await fetch(`${gw.url}/api/status`)
    expect(res.status).toBe(200)
    const { data } = await res.json()
    expect(data.status).toBe('operational')
    expect(data.components.map((x: { id: string; state: string }) => [x.id, x.state])).toEqual([
      ['api', 'operational'],
      ['upstream-primary', 'operational'],
      ['payments', 'operational'],
    ])
    expect(data.incidents).toHaveLength(1)
    const incident = data.incidents[0]
    expect(incident).toMatchObject({ upstream: 'primary', what: 'Основной провайдер моделей: HTTP 500' })
    expect(incident.endedAt).not.toBeNull()
    expect(Date.parse(incident.endedAt) - Date.parse(incident.startedAt)).toBeGreaterThanOrEqual(3000) // open, a failed probe, open again, probes
    expect(incident.durationSec).toBeGreaterThanOrEqual(3)
    expect(data.days).toHaveLength(90)
    expect(data.days.at(-1).uptime).toBeLessThan(1)
    expect(data.days.at(-2).uptime).toBe(1)

    const page = await fetch(`${gw.url}/status`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<title>Состояние сервиса — AI Gateway</title>')
    expect(html).toContain('Все системы работают')
    expect(html).toContain('<th>Что отказало</th>')
    expect(html).toContain('<td>Основной провайдер моделей: HTTP 500</td>')
  })
})

describe('a second upstream', () => {
  let gw: Gateway
  let c: Customer
  let c2: Customer
  let admin: Awaited<ReturnType<typeof registerUser>>
  beforeAll(async () => {
    ;({ gw, c, admin } = await withAdmin({ UPSTREAM_BREAKER_MIN_REQUESTS: '4', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' }, {}, { lacks: ['openai/gpt-4'] }))
    c2 = await gw.customer()
    // The second router's catalogue is read at start.
    await eventually(() => gw.fallback!.log.some((r) => r.path.endsWith('/embeddings/models')))
  })
  afterAll(() => gw.stop())

  test('while the primary fails, requests succeed through the second one, charged at its reported cost', async () => {
    gw.upstream.outage({ fault: 'http502' })
    const res = await chat(gw, c.key, { messages: say('через резерв') })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(received(gw.upstream.log, 'через резерв')).toHaveLength(3) // every retry at the primary first
    expect(received(gw.fallback!.log, 'через резерв')).toHaveLength(1)
    expect(gw.fallback!.log.at(-1)!.headers.authorization).toBe('Bearer sk-or-v1-test-fallback-key')
    await chargedOnce(gw, c, body.id, gw.fallback!)
    expect(body.usage.cost).toBe(expectedCharge(gw.fallback!.generations.get(body.id)!.total_cost) / 1e6)
    const [row] = await gw.read<{ upstream: string }>('select upstream from usage_logs where upstream_id = ?', body.id)
    expect(row!.upstream).toBe('fallback')
    const lookup = await fetch(`${gw.url}/v1/generation?id=${body.id}`, { headers: { authorization: `Bearer ${c.key}` } })
    expect((await lookup.json()).data).toMatchObject({ id: body.id, upstream: 'fallback' })
  })

  test('with the primary’s breaker open, requests go straight to the second one: streamed, Messages, embeddings, images, voice, a WebSocket turn', async () => {
    // Another customer's failures at the primary (the 4th and on) open its breaker: two accounts met the outage.
    expect((await chat(gw, c2.key, { messages: say('открываем') })).status).toBe(200)
    await eventually(() => gw.server.logs().includes('[upstream] primary: circuit opened'))
    const sent = gw.upstream.log.length

    const streamed = await chat(gw, c.key, { stream: true, messages: say('поток через резерв') })
    expect(streamed.status).toBe(200)
    const last = dataEvents(await streamed.text()).at(-1)
    await chargedOnce(gw, c, last.id, gw.fallback!)
    const messages = await post(gw, c.key, '/v1/messages', { model: 'anthropic/claude-3-haiku', max_tokens: 20, messages: say('Claude через резерв') })
    expect(messages.status).toBe(200)
    expect((await messages.json()).type).toBe('message')
    const embeddings = await post(gw, c.key, '/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'вектор через резерв' })
    expect(embeddings.status).toBe(200)
    const images = await post(gw, c.key, '/v1/images', { model: 'black-forest-labs/flux.2-pro', prompt: 'маяк через резерв', response_format: 'b64_json' })
    expect(images.status).toBe(200)
    // Speech's cost is read from /generation: at the router that answered.
    const said = await speech(gw, c.key, 'Голос через резерв')
    expect(said.status).toBe(200)
    await said.arrayBuffer()
    const speechId = said.headers.get('x-generation-id')!
    await eventually(async () => (await gw.books(c.user.id)).usage.some((u) => u.upstream_id === speechId))
    await chargedOnce(gw, c, speechId, gw.fallback!)
    expect(gw.fallback!.log.some((r) => r.path.endsWith('/generation') && r.query.includes(speechId))).toBe(true)
    const heard = await transcription(gw, c.key)
    expect(heard.status).toBe(200)
    await chargedOnce(gw, c, heard.headers.get('x-generation-id')!, gw.fallback!)
    const turn = await socketTurn(gw, c.key, { model: 'openai/gpt-4o-mini', input: 'сокет через резерв' })
    const completed = turn.at(-1)!
    expect(completed.type).toBe('response.completed')
    expect(received(gw.fallback!.log, 'сокет через резерв')).toHaveLength(1)
    const [socketRow] = await gw.read<{ upstream: string; cost_micros: number }>('select upstream, cost_micros from usage_logs where response_id = ?', completed.response.id)
    expect(socketRow!.upstream).toBe('fallback')
    expect(completed.response.usage.cost).toBe(socketRow!.cost_micros / 1e6)
    expect(gw.upstream.log.length).toBe(sent) // the primary is left alone
    const rows = await gw.read<{ upstream: string; n: number }>('select upstream, count(*) as n from usage_logs where user_id in (?, ?) group by upstream', c.user.id, c2.user.id)
    expect(rows.find((r) => r.upstream === 'fallback')!.n).toBeGreaterThanOrEqual(9)
    await booksBalanced(gw, c)
    await booksBalanced(gw, c2)
  })

  test('a model the second router lacks is never sent to it: fast 503 while the primary is down', async () => {
    const res = await chat(gw, c.key, { model: 'openai/gpt-4', messages: say('модель, которой нет в резерве') })
    expect(res.status).toBe(503)
    expect((await res.json()).error.code).toBe('upstream_unavailable')
    expect(received(gw.fallback!.log, 'модель, которой нет в резерве')).toHaveLength(0)
    expect(received(gw.upstream.log, 'модель, которой нет в резерве')).toHaveLength(0)
  })

  test('the status page and the admin say the primary is down and the second one serves', async () => {
    const { data } = await (await fetch(`${gw.url}/api/status`)).json()
    expect(data.status).toBe('degraded')
    expect(data.components.find((x: { id: string }) => x.id === 'upstream-primary').state).toBe('outage')
    expect(data.components.find((x: { id: string }) => x.id === 'upstream-fallback').state).toBe('operational')
    expect(data.incidents[0]).toMatchObject({ upstream: 'primary', endedAt: null, what: 'Основной провайдер моделей: HTTP 502' })

    const res = await admin.api.get('/api/admin/upstreams', admin.accessToken)
    const [primary, fallback] = res.body.data.upstreams
    expect(primary).toMatchObject({ name: 'primary', state: 'open' })
    expect(primary.retryAfterSec).toBeGreaterThan(0)
    expect(primary.recentErrors[0].reason).toBe('HTTP 502')
    expect(fallback).toMatchObject({ name: 'fallback', state: 'closed', host: new URL(gw.fallback!.url).host })
    expect(fallback.models).toBeGreaterThan(5)
    expect(JSON.stringify(res.body)).not.toContain('sk-or-v1') // no key reaches the page
    expect((await c.api.get('/api/admin/upstreams', c.accessToken)).status).toBe(403)
  })
})
