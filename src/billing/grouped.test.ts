// The money history as people read it: usage charges one line per Moscow day, the rest line by line.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { moscowDay } from '../money'
import { startGateway } from '../test-support/gateway'

setDefaultTimeout(20_000)

let gw: Awaited<ReturnType<typeof startGateway>>
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

async function chat(bearer: string) {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 20 }),
  })
  expect(res.status).toBe(200)
  await res.text()
}
const micros = (signed: string) => Math.round(Number(signed) * 1e6)

describe('GET /api/billing/transactions/grouped', () => {
  test('usage charges of today are one line whose count and sum equal the ledger; the bonus stays its own line', async () => {
    const c = await gw.customer()
    for (let i = 0; i < 3; i++) await chat(c.key)
    const res = await c.api.get('/api/billing/transactions/grouped', c.accessToken)
    expect(res.status).toBe(200)
    const { items, hasMore } = res.body.data
    expect(hasMore).toBe(false)
    const days = items.filter((i: any) => i.kind === 'usageDay')
    expect(days).toHaveLength(1)
    const day = days[0]
    expect(day.day).toBe(moscowDay(new Date()))
    expect(day.requests).toBe(3)
    expect(day.description).toBe('Оплата запросов к API')
    const usage = await gw.read<{ amount_micros: number }>("select amount_micros from ledger_entries where user_id = ? and type = 'usage'", c.user.id)
    expect(usage).toHaveLength(3)
    expect(micros(day.amount)).toBe(usage.reduce((s, r) => s + r.amount_micros, 0))
    expect(items.filter((i: any) => i.kind === 'entry').map((i: any) => i.type)).toEqual(['bonus'])
    // Every line together is the whole ledger, and the newest balance is the balance.
    const books = await gw.books(c.user.id)
    expect(items.reduce((s: number, i: any) => s + micros(i.amount), 0)).toBe(books.ledgerSum)
    expect(Math.round(items[0].balanceAfter * 1e6)).toBe(books.balance)

    // The line opens to the day's charges.
    const open = await c.api.get(`/api/billing/transactions/usage-day/${day.day}`, c.accessToken)
    expect(open.status).toBe(200)
    expect(open.body.data).toHaveLength(3)
    expect(open.body.data.every((t: any) => t.type === 'usage')).toBe(true)
    expect(open.body.data.reduce((s: number, t: any) => s + micros(t.amount), 0)).toBe(micros(day.amount))
  })

  test('pages by limit/offset; bad parameters are refused in Russian; other users see nothing of it', async () => {
    const c = await gw.customer()
    await chat(c.key)
    const first = await c.api.get('/api/billing/transactions/grouped?limit=1', c.accessToken)
    expect(first.body.data.items).toHaveLength(1)
    expect(first.body.data.items[0].kind).toBe('usageDay')
    expect(first.body.data.hasMore).toBe(true)
    const second = await c.api.get('/api/billing/transactions/grouped?limit=1&offset=1', c.accessToken)
    expect(second.body.data.items.map((i: any) => i.type)).toEqual(['bonus'])
    expect(second.body.data.hasMore).toBe(false)

    const bad = await c.api.get('/api/billing/transactions/grouped?limit=0', c.accessToken)
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain('limit')
    expect((await c.api.get('/api/billing/transactions/usage-day/yesterday', c.accessToken)).status).toBe(400)
    expect((await c.api.get('/api/billing/transactions/grouped')).status).toBe(401)

    const other = await gw.customer()
    const theirs = await other.api.get(`/api/billing/transactions/usage-day/${moscowDay(new Date())}`, other.accessToken)
    expect(theirs.body.data).toEqual([])
  })
})
