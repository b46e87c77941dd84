// The Playground's own request path: the web session's access token on /v1/chat/completions, the
// exact body the page sends (stream + include_usage, temperature, max_tokens), and its Stop button.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eventually, expectedCharge, startGateway } from '../test-support/gateway'
import { registerUser } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

const playgroundBody = (content: string, model = 'openai/gpt-3.5-turbo') => ({
  model,
  messages: [{ role: 'user', content }],
  temperature: 0.7,
  max_tokens: 500,
  stream: true,
  stream_options: { include_usage: true },
})

const send = (token: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  })

describe('streamed replies for the Playground', () => {
  test('token by token, and the final chunk carries usage.cost_rub equal to the charge', async () => {
    const u = await registerUser(gw.url)
    const res = await send(u.accessToken, playgroundBody('Привет, расскажи о себе'))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const text = await res.text()
    const data = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: ') && !e.includes('[DONE]'))
      .map((e) => JSON.parse(e.slice(6)))
    const pieces = data.flatMap((d) => (d.choices?.[0]?.delta?.content ? [d.choices[0].delta.content] : []))
    expect(pieces.length).toBeGreaterThan(5)
    const usage = data.at(-1).usage
    expect(data.at(-1).choices).toEqual([])
    expect(usage.cost_rub).toMatch(/^\d+\.\d{6}$/)
    const books = await gw.books(u.user.id)
    expect(books.usage).toHaveLength(1)
    expect(books.usage[0]!.cost_micros).toBe(Math.round(Number(usage.cost_rub) * 1e6))
    expect(books.usage[0]!.completion_tokens).toBe(pieces.length)
  })

  test('Stop (the browser aborts the fetch) charges only what was generated before it, and releases the hold', async () => {
    const u = await registerUser(gw.url)
    const before = (await gw.books(u.user.id)).balance
    const ac = new AbortController()
    // `slow`: 200 ms per token and at least 60 tokens, so the stop lands early in the reply.
    const res = await send(u.accessToken, playgroundBody('[[fault:slow]] длинный ответ, пожалуйста'), ac.signal)
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let received = ''
    let pieces = 0
    while (pieces < 3) {
      const { value, done } = await reader.read()
      if (done) break
      const chunk = decoder.decode(value, { stream: true })
      received += chunk
      pieces += chunk.split('\n\n').filter((e) => e.includes('"content"')).length
    }
    ac.abort()
    expect(received).not.toContain('cost_rub') // no final usage chunk: the reply was cut

    const row = (await eventually(async () => (await gw.books(u.user.id)).usage.find((r) => r.status === 'cancelled')))!
    const gen = gw.upstream.generations.get(row.upstream_id!)!
    expect(gen.cancelled).toBe(true)
    expect(gen.tokens_completion).toBeGreaterThanOrEqual(pieces)
    expect(gen.tokens_completion).toBeLessThan(15) // a few tokens, not the 60+ of the whole reply
    expect(row.completion_tokens).toBe(gen.tokens_completion)
    // Charged exactly the upstream's cost of the generated part, once.
    expect(row.cost_micros).toBe(expectedCharge(gen.total_cost))
    const books = await gw.books(u.user.id)
    expect(before - books.balance).toBe(row.cost_micros)
    expect(books.held).toBe(0)
    expect(books.ledgerSum).toBe(books.balance)
  })
})
