// The Responses API's WebSocket mode (issue 28) against the running gateway: the official `openai`
// client's ResponsesWS runs a 20-turn tool loop over one connection, each turn charged its reported
// cost × rate × 1.3; chains with store: false live in the connection; every failure is an error event
// on a socket that stays usable; a dropped connection leaves nothing held; the limits close cleanly.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect as connectTcp } from 'node:net'
import OpenAI from 'openai'
import { ResponsesWS } from 'openai/resources/responses/ws'
import { eventually, expectedCharge, startGateway } from '../test-support/gateway'
import { client } from '../test-support/server'
import { generationIdOf, LOOP_PROMPT, toolOutput, WEATHER } from '../test-support/tool-loop'

type Json = Record<string, any>
type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>

let gw: Gateway
/** Short lifetimes and low connection limits. */
let limited: Gateway

beforeAll(async () => {
  ;[gw, limited] = await Promise.all([
    // No welcome bonus: the tests fund the accounts they spend from, and one runs out of money.
    startGateway({ WELCOME_BONUS_RUB: '0' }),
    startGateway({ RESPONSES_WS_MAX_AGE_SEC: '2', RESPONSES_WS_PER_KEY: '2', RESPONSES_WS_PER_ACCOUNT: '3' }),
  ])
})
afterAll(() => Promise.all([gw.stop(), limited.stop()]))

/** Tops the account up through the built-in test payment page. */
async function topUp(c: Customer, rub: number) {
  const created = await c.api.post('/api/payments/create', { amount: rub, returnUrl: '/app/billing' }, c.accessToken)
  const providerId = new URL(created.body.data.confirmationUrl).pathname.split('/').pop()!
  expect((await client(gw.url).post(`/api/payments/test/${providerId}/pay`)).body.data.status).toBe('succeeded')
}

async function funded() {
  const c = await gw.customer()
  await topUp(c, 1000)
  return c
}

const wsUrl = (g: Gateway) => `${g.url.replace(/^http/, 'ws')}/v1/responses`

/** A plain WebSocket client speaking the documented events: frames as they came, awaited one by one. */
async function connect(g: Gateway, key: string, header = 'authorization') {
  const ws = new WebSocket(wsUrl(g), { headers: { [header]: header === 'authorization' ? `Bearer ${key}` : key } } as unknown as string[])
  const frames: Json[] = []
  let seen = 0
  let wake = () => {}
  ws.onmessage = (e) => {
    frames.push(JSON.parse(String(e.data)))
    wake()
  }
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.onclose = (e) => {
      resolve({ code: e.code, reason: e.reason })
      wake()
    }
  })
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('the connection did not open'))
  })
  return {
    ws,
    frames,
    closed,
    send: (event: Json | string) => ws.send(typeof event === 'string' ? event : JSON.stringify(event)),
    /** The next frame (after those already taken) that `match` accepts. */
    async next(match: (f: Json) => boolean = () => true, timeoutMs = 10_000): Promise<Json> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        while (seen < frames.length) {
          const f = frames[seen++]!
          if (match(f)) return f
        }
        if (ws.readyState === WebSocket.CLOSED) throw new Error(`closed while waiting; frames: ${JSON.stringify(frames.map((x) => x.type))}`)
        if (Date.now() > deadline) throw new Error(`no such frame in time; frames: ${JSON.stringify(frames.map((x) => x.type))}`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 100)
        })
      }
    },
  }
}

const finalOrError = (f: Json) => f.type === 'response.completed' || f.type === 'response.incomplete' || f.type === 'error'
const create = (body: Json) => ({ type: 'response.create', model: 'openai/gpt-4o-mini', ...body })

/** A client's text frame (masked, as RFC 6455 requires of clients), any length. */
function maskedFrame(text: string): Buffer {
  const payload = Buffer.from(text)
  const mask = Buffer.from([7, 13, 42, 99])
  const header = Buffer.alloc(14)
  header[0] = 0x81 // FIN, text
  header[1] = 0x80 | 127 // masked, 64-bit length
  header.writeBigUInt64BE(BigInt(payload.length), 2)
  mask.copy(header, 10)
  for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!
  return Buffer.concat([header, payload])
}

const usageCount = async (g: Gateway, userId: string) => (await g.read<{ n: number }>('select count(*) as n from usage_logs where user_id = ?', userId))[0]!.n
const lastUpstreamBody = (g: Gateway) => g.upstream.log.filter((r) => r.path.endsWith('/responses')).at(-1)!.body as Json

describe('the handshake', () => {
  test('credentials as on HTTP: a bad key gets 401 before any upgrade; Bearer or x-api-key upgrades; GET without an upgrade is 426', async () => {
    const c = await gw.customer()
    const refused = await fetch(`${gw.url}/v1/responses`, { headers: { authorization: 'Bearer sk-gw-wrong' } })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as Json).error.code).toBe('invalid_api_key')
    await expect(connect(gw, 'sk-gw-wrong')).rejects.toThrow('did not open')
    const plain = await fetch(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${c.key}` } })
    expect(plain.status).toBe(426)
    expect(((await plain.json()) as Json).error.code).toBe('upgrade_required')
    const byHeader = await connect(gw, c.key, 'x-api-key')
    byHeader.ws.close()
    const bySession = await connect(gw, c.accessToken)
    bySession.ws.close()
  })
})

describe('one connection, many turns', () => {
  test('a 20-turn tool loop over one connection with the official client: each turn charged its reported cost × rate × 1.3', async () => {
    const c = await funded()
    const sdk = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
    const rws = new ResponsesWS(sdk)
    const before = await gw.books(c.user.id)
    let previous: string | undefined
    let input: OpenAI.Responses.ResponseInput | string = LOOP_PROMPT(19)
    let charged = 0
    let last: OpenAI.Responses.Response | undefined
    try {
      for (let turn = 1; turn <= 20; turn++) {
        const done = rws.emitted('response.completed')
        const deltas: string[] = []
        const onDelta = (e: { delta: string }) => deltas.push(e.delta)
        rws.on('response.function_call_arguments.delta', onDelta)
        rws.send({ type: 'response.create', model: 'openai/gpt-4o-mini', input, tools: [WEATHER], previous_response_id: previous, max_output_tokens: 200 })
        const response = ((await done) as unknown as OpenAI.Responses.ResponseCompletedEvent).response
        rws.off('response.function_call_arguments.delta', onDelta)
        expect(response.previous_response_id ?? undefined).toBe(previous)
        // The router got the whole chain, though only the new item crossed the socket.
        expect(turn === 1 ? 1 : lastUpstreamBody(gw).input.length).toBe(2 * turn - 1)
        // A well-funded account's charge is applied right after its answer (money/reserves.ts, PostgreSQL).
        const row = await eventually(
          async () => (await gw.read<{ cost_micros: number; status: string }>('select cost_micros, status from usage_logs where upstream_id = ?', generationIdOf(response.id)))[0],
        )
        expect(row.status).toBe('success')
        expect(row.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(generationIdOf(response.id))!.total_cost))
        expect((response.usage as Json).cost).toBe(row.cost_micros / 1e6)
        charged += row.cost_micros
        previous = response.id
        last = response
        const item = response.output[0]!
        if (turn < 20) {
          const call = item as OpenAI.Responses.ResponseFunctionToolCall
          expect(call.type).toBe('function_call')
          expect(deltas.join('')).toBe(call.arguments) // the same events as the HTTP stream
          input = [{ type: 'function_call_output', call_id: call.call_id, output: toolOutput(turn) }]
        }
      }
      // The client turns an error event into a rejection carrying the event.
      const failed = rws.emitted('response.completed')
      rws.send({ type: 'response.create', model: 'openai/gpt-4o-mini', input: 'x', previous_response_id: 'resp_unknown' })
      const err = await failed.then(
        () => null,
        (e) => e,
      )
      expect(err.error).toMatchObject({ type: 'error', status: 404, error: { code: 'previous_response_not_found' } })
    } finally {
      rws.close()
    }
    expect((last!.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({ type: 'output_text', text: expect.stringContaining('+19 °C') })
    // Nothing stays held: on PostgreSQL a well-funded account's reserve goes back once idle (money/reserves.ts).
    await eventually(async () => (await gw.books(c.user.id)).held === 0, 5000)
    const after = await gw.books(c.user.id)
    expect(before.balance - after.balance).toBe(charged)
    expect(after.ledgerSum).toBe(after.balance)
    // Stored, so the chain goes on over HTTP (any instance: it is in the database).
    const next = await sdk.responses.create({ model: 'openai/gpt-4o-mini', input: 'Итог одной строкой', previous_response_id: previous })
    expect(lastUpstreamBody(gw).input).toHaveLength(1 + 2 * 19 + 1 + 1)
    expect(next.previous_response_id).toBe(previous)
  })

  test('store: false chains from the connection memory only; generate: false warms up with nothing held or charged', async () => {
    const c = await funded()
    const a = await connect(gw, c.key)
    a.send(create({ input: 'Первый', store: false }))
    const r1 = (await a.next(finalOrError)).response
    a.send(create({ input: 'Второй', store: false, previous_response_id: r1.id }))
    const r2 = (await a.next(finalOrError)).response
    expect(r2.previous_response_id).toBe(r1.id)
    expect(lastUpstreamBody(gw).input.map((i: Json) => i.role)).toEqual(['user', 'assistant', 'user'])
    const unstored = await fetch(`${gw.url}/v1/responses/${r1.id}`, { headers: { authorization: `Bearer ${c.key}` } })
    expect(unstored.status).toBe(404)

    const usage = await usageCount(gw, c.user.id)
    const upstreamCalls = gw.upstream.log.length
    a.send(create({ input: 'Разогрев', generate: false, previous_response_id: r2.id }))
    const created = await a.next()
    expect(created).toMatchObject({ type: 'response.created', response: { status: 'in_progress' } })
    const warm = (await a.next()).response
    expect(warm).toMatchObject({ status: 'completed', output: [], previous_response_id: r2.id })
    expect(await usageCount(gw, c.user.id)).toBe(usage)
    expect(gw.upstream.log.length).toBe(upstreamCalls)
    a.send(create({ input: 'Третий', store: false, previous_response_id: warm.id }))
    await a.next(finalOrError)
    expect(lastUpstreamBody(gw).input.map((i: Json) => i.content)).toEqual(['Первый', expect.anything(), 'Второй', expect.anything(), 'Разогрев', 'Третий'])

    // Another connection (or instance) does not have that memory.
    const b = await connect(gw, c.key)
    b.send(create({ input: 'x', previous_response_id: r2.id }))
    expect((await b.next()).error.code).toBe('previous_response_not_found')
    a.ws.close()
    b.ws.close()
    expect((await gw.books(c.user.id)).held).toBe(0)
  })
})

describe('errors are events; the socket stays open', () => {
  test('bad frames, unknown events, invalid bodies, a response in flight, unknown and foreign ids, an oversized frame', async () => {
    const c = await funded()
    const other = await funded()
    const sdk = new OpenAI({ apiKey: other.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
    const foreign = await sdk.responses.create({ model: 'openai/gpt-4o-mini', input: 'чужой' })
    const s = await connect(gw, c.key)
    const error = async () => (await s.next((f) => f.type === 'error')) as Json

    s.send('{not json')
    expect(await error()).toMatchObject({ type: 'error', status: 400, error: { code: 'invalid_json' } })
    s.ws.send(new Uint8Array([1, 2, 3]))
    expect((await error()).error.code).toBe('invalid_frame')
    s.send({ type: 'response.cancel' })
    expect((await error()).error.code).toBe('unknown_event')
    s.send('[1,2]')
    expect((await error()).error.code).toBe('invalid_event')
    s.send(create({ input: 'x', temperature: 5 }))
    expect((await error()).error).toMatchObject({ code: 'invalid_request', message: 'temperature должен быть числом от 0 до 2', param: 'temperature' })
    s.send(create({ input: 'x', model: 'nope/nothing' }))
    expect((await error()).error.code).toBe('model_not_found')
    s.send(create({ input: 'x', previous_response_id: 'resp_unknown' }))
    expect(await error()).toMatchObject({ status: 404, error: { code: 'previous_response_not_found', param: 'previous_response_id' } })
    s.send(create({ input: 'x', previous_response_id: foreign.id }))
    expect((await error()).error.code).toBe('previous_response_not_found')
    s.send(`{"type":"response.create","input":"${'я'.repeat(17 * 1024 * 1024)}"}`)
    expect(await error()).toMatchObject({ status: 413, error: { code: 'request_too_large' } })
    // A chain stops growing past 16 MB: a 9 MB start is fine, 9 MB more is refused (warm-ups: nothing billed).
    const nine = 'я'.repeat(4.5 * 1024 * 1024)
    s.send(create({ input: nine, generate: false }))
    const big = (await s.next((f) => f.type === 'response.completed' || f.type === 'error')).response
    s.send(create({ input: nine, generate: false, previous_response_id: big.id }))
    expect(await error()).toMatchObject({ status: 400, error: { code: 'chain_too_large', param: 'previous_response_id' } })

    // One response at a time: a second create while the first streams is refused, the first goes on.
    s.send(create({ input: '[[fault:slow]] медленно', max_output_tokens: 4 }))
    await s.next((f) => f.type === 'response.created')
    s.send(create({ input: 'и ещё' }))
    expect((await error()).error.code).toBe('response_already_in_flight')
    const slow = await s.next(finalOrError)
    expect(slow.type).toBe('response.incomplete')
    s.send(create({ input: 'Всё ещё здесь?', previous_response_id: slow.response.id }))
    expect((await s.next(finalOrError)).type).toBe('response.completed')
    expect(s.ws.readyState).toBe(WebSocket.OPEN)
    s.ws.close()
    // Nothing stays held: on PostgreSQL a well-funded account's reserve goes back once idle (money/reserves.ts).
    await eventually(async () => (await gw.books(c.user.id)).held === 0, 5000)
    const books = await gw.books(c.user.id)
    expect(books.ledgerSum).toBe(books.balance)
  })

  test('out of money: an insufficient_balance event, the socket stays open, and after a top-up the chain continues', async () => {
    const c = await gw.customer() // no balance at all
    const s = await connect(gw, c.key)
    s.send(create({ input: 'Контекст разговора', generate: false }))
    const warm = (await s.next((f) => f.type === 'response.completed')).response
    s.send(create({ input: 'Ответь', previous_response_id: warm.id }))
    expect(await s.next()).toMatchObject({
      type: 'error',
      status: 402,
      error: { type: 'insufficient_balance', code: 'insufficient_balance', action: { label: 'Пополнить баланс', url: '/app/billing' } },
    })
    await topUp(c, 100)
    s.send(create({ input: 'Ответь', previous_response_id: warm.id }))
    const answer = await s.next(finalOrError)
    expect(answer.type).toBe('response.completed')
    expect(lastUpstreamBody(gw).input.map((i: Json) => i.content)).toEqual(['Контекст разговора', 'Ответь'])
    s.ws.close()
    const books = await gw.books(c.user.id)
    expect(books.balance).toBe(100_000_000 - books.usage.reduce((n, u) => n + u.cost_micros, 0))
    expect(books.held).toBe(0)
  })
})

describe('a dropped connection', () => {
  test('stops its turn at once: nothing stays held, the partial answer is settled as cancelled', async () => {
    const c = await funded()
    const s = await connect(gw, c.key)
    s.send(create({ input: '[[fault:slow]] долгий ответ', max_output_tokens: 100 }))
    await s.next((f) => f.type === 'response.output_text.delta')
    expect((await gw.books(c.user.id)).held).toBeGreaterThan(0)
    s.ws.close()
    await eventually(async () => (await gw.books(c.user.id)).held === 0)
    const books = await gw.books(c.user.id)
    expect(books.usage.map((u) => u.status)).toEqual(['cancelled'])
    expect(books.ledgerSum).toBe(books.balance)

    // Dropped while the upstream has not answered yet: the hold is released, nothing charged.
    const t = await connect(gw, c.key)
    const calls = gw.upstream.log.length
    t.send(create({ input: '[[fault:timeout]] молчание' }))
    await eventually(() => gw.upstream.log.length > calls)
    t.ws.close()
    await eventually(async () => (await gw.books(c.user.id)).held === 0, 3000)
    expect((await gw.books(c.user.id)).usage.map((u) => [u.status, u.cost_micros])).toEqual([
      ['cancelled', books.usage[0]!.cost_micros],
      ['cancelled', 0],
    ])
  })
})

describe('a slow reader', () => {
  test('pauses the upstream instead of queueing its events: the turn ends only once the client reads', async () => {
    const c = await funded()
    // A raw client that stops reading: three lifecycle events of 16 MB each (they repeat the
    // instructions). The paused receiver's buffer autotunes up to tcp_rmem's maximum (32 MB here) and
    // once took in two 8 MB events: two of these never fit, so the server must wait before the last.
    const sock = connectTcp(Number(new URL(gw.url).port), '127.0.0.1')
    await new Promise((resolve) => sock.once('connect', resolve))
    let received = 0
    try {
      sock.on('data', (d: Buffer) => (received += d.length))
      sock.write(
        `GET /v1/responses HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${c.key}\r\n\r\n`,
      )
      await eventually(() => received > 0)
      sock.pause()
      const calls = gw.upstream.generations.size
      sock.write(maskedFrame(JSON.stringify(create({ input: 'Привет', instructions: 'и'.repeat(8 * 1024 * 1024), max_output_tokens: 8 }))))
      await eventually(() => gw.upstream.generations.size > calls) // the upstream has written its whole answer
      // Without the pause the turn settles about 0.3 s after the upstream's end here; with it, never while the client waits.
      await Bun.sleep(1500)
      const paused = await gw.books(c.user.id)
      expect(paused.usage).toEqual([]) // its final event not read yet, so not settled
      expect(paused.held).toBeGreaterThan(0)
      sock.resume()
      await eventually(async () => (await gw.books(c.user.id)).usage.length === 1)
      await eventually(() => received > 3 * 16 * 1024 * 1024) // then all three reach it
      expect((await gw.books(c.user.id)).held).toBe(0)
    } finally {
      // a paused connection left open would hold up the graceful stop at the end of this file
      sock.destroy()
    }
  })
})

describe('limits', () => {
  test('connections per key and per account: an error event and close 1008 past the limit', async () => {
    const c = await limited.customer()
    const second = await c.api.post('/api/auth/api-keys', { name: 'второй' }, c.accessToken)
    const key2 = second.body.data.key as string
    const open = [await connect(limited, c.key), await connect(limited, c.key)]
    const third = await connect(limited, c.key)
    expect((await third.next()).error).toMatchObject({ code: 'too_many_connections', type: 'rate_limit_error' })
    expect((await third.closed).code).toBe(1008)
    open.push(await connect(limited, key2)) // the account's third
    const fourth = await connect(limited, key2)
    expect((await fourth.next()).error.message).toContain('аккаунта (3)')
    expect((await fourth.closed).code).toBe(1008)
    open[0]!.ws.close()
    await open[0]!.closed
    await Bun.sleep(50)
    const again = await connect(limited, c.key)
    again.send(create({ input: 'Привет', max_output_tokens: 5 }))
    expect((await again.next(finalOrError)).type).toBe('response.incomplete')
    for (const s of [...open, again]) s.ws.close()
  })

  test('a connection lives RESPONSES_WS_MAX_AGE_SEC at most: then a clean close with the reason', async () => {
    const c = await limited.customer()
    const s = await connect(limited, c.key)
    const { code, reason } = await s.closed
    expect(code).toBe(1000)
    expect(reason).toContain('переподключитесь')
    expect(s.frames.at(-1)).toMatchObject({ type: 'error', error: { code: 'websocket_connection_limit_reached' } })
  })
})

describe('a graceful stop', () => {
  test('idle connections close at once with 1001; a turn in flight finishes first (runs last: it stops the server)', async () => {
    const c = await funded()
    const idle = await connect(gw, c.key)
    const busy = await connect(gw, c.key)
    busy.send(create({ input: '[[fault:slow]] договори', max_output_tokens: 6 }))
    await busy.next((f) => f.type === 'response.output_text.delta')
    const started = Date.now()
    const exited = gw.server.stop()
    expect((await idle.closed).code).toBe(1001)
    expect((await busy.next(finalOrError)).type).toBe('response.incomplete')
    expect((await busy.closed).code).toBe(1001)
    expect(await exited).toBe(0)
    expect(Date.now() - started).toBeLessThan(8000) // not the 10 s of the forced stop
  })
})
