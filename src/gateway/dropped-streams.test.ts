// Issue 33, points 2 and 13: a stream the client drops (Responses or Messages over HTTP, a WebSocket
// turn) is charged what the router recorded for its generation — found by the X-Generation-Id header
// or, without it, by the id its events carry — and when the router has no record, the guess counts the
// prompt once and never exceeds the hold. A WebSocket client may send its next response.create the
// moment response.completed arrives. After each scenario the books are exact and nothing is uncovered.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eventually, expectedCharge, startGateway } from '../test-support/gateway'

type Json = Record<string, any>
type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>
type UsageRow = { cost_micros: number; hold_micros: number; prompt_tokens: number; completion_tokens: number; status: string; upstream_id: string | null }

let gw: Gateway
beforeAll(async () => {
  // 20 ms a token: a stream is still running when the test drops it after its first pieces.
  gw = await startGateway({}, { tokenDelayMs: 20 })
})
afterAll(() => gw.stop())

/** About 3 000 prompt tokens as the router counts them (4 characters a token), more by our estimate. */
const PROMPT = `${'Длинный контекст разговора, смешанный с English words. '.repeat(220)}`
const MAX_TOKENS = 100

const post = (c: Customer, path: string, body: Json, signal?: AbortSignal) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal })

/** Reads an SSE answer until `pieces` events of type `piece` came (and whatever came with them), then drops the connection. */
async function dropAfter(res: Response, ac: AbortController, piece: string, pieces: number) {
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (text.split(`event: ${piece}`).length - 1 < pieces) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the stream ended before ${pieces} ${piece} events`)
    text += decoder.decode(value, { stream: true })
  }
  ac.abort()
  return text
}

/** The request's one usage row, once its hold is closed. */
async function settledRow(c: Customer): Promise<UsageRow> {
  await eventually(async () => (await gw.books(c.user.id)).held === 0, 15_000)
  const rows = await gw.read<UsageRow>('select cost_micros, hold_micros, prompt_tokens, completion_tokens, status, upstream_id from usage_logs where user_id = ?', c.user.id)
  expect(rows).toHaveLength(1)
  return rows[0]!
}

/** The row is charged exactly the router's record of its generation, with the router's token counts. */
function chargedAsRecorded(row: UsageRow) {
  expect(row.upstream_id).toStartWith('gen-')
  const record = gw.upstream.generations.get(row.upstream_id!)!
  expect(record.cancelled).toBe(true)
  expect(record.tokens_completion).toBeLessThan(MAX_TOKENS) // stopped early
  expect(row).toMatchObject({
    status: 'cancelled',
    cost_micros: expectedCharge(record.total_cost),
    prompt_tokens: record.tokens_prompt,
    completion_tokens: record.tokens_completion,
  })
  expect(record.tokens_prompt).toBeGreaterThan(2900)
  expect(record.tokens_prompt).toBeLessThan(3100)
  expect(row.cost_micros).toBeLessThanOrEqual(row.hold_micros)
}

/** Balance = ledger sum = bonus − usage, nothing held, nothing uncovered. */
async function booksExact(c: Customer) {
  const books = await gw.books(c.user.id)
  expect(books.held).toBe(0)
  expect(books.ledgerSum).toBe(books.balance)
  expect(books.balance).toBe(50_000_000 - books.usage.reduce((s, u) => s + u.cost_micros, 0))
  const [uncovered] = await gw.read<{ s: number }>('select coalesce(sum(uncovered_micros), 0) as s from uncovered_costs where user_id = ?', c.user.id)
  expect(Number(uncovered!.s)).toBe(0)
}

/** A WebSocket on /v1/responses; `onFrame` sees each frame as it arrives. */
async function socket(c: Customer, onFrame: (frame: Json) => void) {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${c.key}` } } as unknown as string[])
  ws.onmessage = (e) => onFrame(JSON.parse(String(e.data)))
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('the connection did not open'))
  })
  return ws
}

describe('a dropped stream is charged what the router recorded', () => {
  test('Responses over HTTP, the generation named only by its resp_ id (no X-Generation-Id)', async () => {
    const c = await gw.customer()
    const ac = new AbortController()
    const body = { model: 'openai/gpt-4o-mini', stream: true, max_output_tokens: MAX_TOKENS, input: `${PROMPT} [[fault:noheader]] [[fault:long]]` }
    const res = await post(c, '/v1/responses', body, ac.signal)
    expect(res.headers.get('x-generation-id')).toBeNull()
    await dropAfter(res, ac, 'response.output_text.delta', 3)
    chargedAsRecorded(await settledRow(c))
    await booksExact(c)
  })

  test('Messages over HTTP', async () => {
    const c = await gw.customer()
    const ac = new AbortController()
    const body = { model: 'anthropic/claude-3-haiku', stream: true, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: `${PROMPT} [[fault:long]]` }] }
    await dropAfter(await post(c, '/v1/messages', body, ac.signal), ac, 'content_block_delta', 3)
    chargedAsRecorded(await settledRow(c))
    await booksExact(c)
  })

  test('a WebSocket turn whose connection drops (its stream named only by its resp_ id)', async () => {
    const c = await gw.customer()
    let deltas = 0
    let third = () => {}
    const thirdDelta = new Promise<void>((resolve) => (third = resolve))
    const ws = await socket(c, (f) => {
      if (f.type === 'response.output_text.delta' && ++deltas === 3) third()
    })
    ws.send(JSON.stringify({ type: 'response.create', model: 'openai/gpt-4o-mini', max_output_tokens: MAX_TOKENS, input: `${PROMPT} [[fault:noheader]] [[fault:long]]` }))
    await thirdDelta
    ws.close()
    chargedAsRecorded(await settledRow(c))
    await booksExact(c)
  })
})

describe('the router has no record after the retries', () => {
  test('the guess counts the prompt once (the router’s own count when the stream gave it), what was streamed, and never more than the hold', async () => {
    const messages = async () => {
      const c = await gw.customer()
      const ac = new AbortController()
      const body = { model: 'anthropic/claude-3-haiku', stream: true, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: `${PROMPT} [[fault:nostats]] [[fault:long]]` }] }
      const text = await dropAfter(await post(c, '/v1/messages', body, ac.signal), ac, 'content_block_delta', 3)
      const start = JSON.parse(text.split('event: message_start\ndata: ')[1]!.split('\n')[0]!)
      const row = await settledRow(c)
      expect(row.prompt_tokens).toBe(start.message.usage.input_tokens) // the router's count, once
      return { c, row }
    }
    const responses = async () => {
      const c = await gw.customer()
      const ac = new AbortController()
      const body = { model: 'openai/gpt-4o-mini', stream: true, max_output_tokens: MAX_TOKENS, input: `${PROMPT} [[fault:nostats]] [[fault:noheader]] [[fault:long]]` }
      await dropAfter(await post(c, '/v1/responses', body, ac.signal), ac, 'response.output_text.delta', 3)
      return { c, row: await settledRow(c) }
    }
    for (const { c, row } of await Promise.all([messages(), responses()])) {
      expect(row.status).toBe('cancelled')
      expect(row.completion_tokens).toBeGreaterThanOrEqual(3)
      expect(row.completion_tokens).toBeLessThan(MAX_TOKENS)
      expect(row.cost_micros).toBeGreaterThan(0)
      expect(row.cost_micros).toBeLessThanOrEqual(row.hold_micros)
      await booksExact(c)
    }
  })
})

describe('the Responses WebSocket is free when response.completed arrives', () => {
  test('100 turns, each sent the moment the last one completed: all accepted, each charged its record', async () => {
    const c = await gw.customer()
    const TURNS = 100
    const completed: Json[] = []
    const errors: Json[] = []
    let finish = () => {}
    const finished = new Promise<void>((resolve) => (finish = resolve))
    const create = (n: number) => JSON.stringify({ type: 'response.create', model: 'openai/gpt-4o-mini', max_output_tokens: 3, store: false, input: `Ход ${n} [[fault:linger]]` })
    const ws: WebSocket = await socket(c, (f) => {
      if (f.type === 'error') errors.push(f)
      if (f.type !== 'response.completed' && f.type !== 'response.incomplete' && f.type !== 'error') return
      if (f.type !== 'error') completed.push(f.response)
      if (completed.length + errors.length === TURNS) return finish()
      ws.send(create(completed.length + errors.length)) // at once, in the same task as the event
    })
    ws.send(create(0))
    await finished
    ws.close()
    expect(errors).toEqual([])
    expect(completed).toHaveLength(TURNS)
    await eventually(async () => (await gw.books(c.user.id)).held === 0, 15_000)
    const rows = await gw.read<UsageRow>('select cost_micros, status, upstream_id from usage_logs where user_id = ?', c.user.id)
    expect(rows).toHaveLength(TURNS)
    const byGeneration = new Map(rows.map((r) => [r.upstream_id, r]))
    for (const response of completed) {
      const id = `gen-${String(response.id).slice('resp_'.length)}`
      const row = byGeneration.get(id)!
      expect(row.status).toBe('success')
      expect(row.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(id)!.total_cost))
      expect(response.usage.cost).toBe(row.cost_micros / 1e6)
    }
    await booksExact(c)
  })
})
