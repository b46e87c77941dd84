// The fake router's router-wide faults, switched in process or over HTTP (/__faults): an outage for N
// requests or a share of them, refused connections, a smaller catalogue, no count_tokens route.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type RunningFakeUpstream, startFakeUpstream } from './index'

let up: RunningFakeUpstream
beforeAll(async () => {
  up = await startFakeUpstream({ faults: true, tokenDelayMs: 0, lacks: ['openai/gpt-4'], noCountTokens: true })
})
afterAll(() => up.stop())

const post = (path: string, body: unknown) => fetch(`${up.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const chat = (model = 'openai/gpt-4o-mini', stream = false) => post('/chat/completions', { model, stream, messages: [{ role: 'user', content: 'привет' }] })

test('an outage over HTTP fails the next N inference requests, whatever they ask, then the router is well again', async () => {
  expect((await post('/__faults', { outage: { fault: 'http503', requests: 2 } })).status).toBe(200)
  const first = await chat()
  expect(first.status).toBe(503)
  expect(first.headers.get('retry-after')).toBe('1')
  expect((await post('/embeddings', { model: 'openai/text-embedding-3-small', input: 'x' })).status).toBe(503)
  expect((await chat()).status).toBe(200)
  expect((await fetch(`${up.url}/models`)).status).toBe(200) // listings are not inference: never failed
})

test('a share of the requests, a hang before the head, a drop mid-answer; null clears it', async () => {
  up.outage({ fault: 'http429', share: 0.5 })
  const statuses = await Promise.all(Array.from({ length: 40 }, async () => (await chat()).status))
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(5)
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(5)

  up.outage({ fault: 'timeout', requests: 1 })
  const hung = await fetch(`${up.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    signal: AbortSignal.timeout(300),
  }).catch((e) => e)
  expect(hung).toBeInstanceOf(Error) // no head came
  const entry = up.log.at(-1)!
  for (let i = 0; i < 50 && !entry.aborted; i++) await Bun.sleep(20) // the router notices the client leaving a moment later
  expect(entry.aborted).toBe(true)

  up.outage({ fault: 'break', requests: 1 })
  const dropped = await chat('openai/gpt-4o-mini', true)
  expect(dropped.status).toBe(200)
  await expect(dropped.text()).rejects.toThrow()

  up.outage({ fault: 'http500' })
  up.outage(null)
  expect((await chat()).status).toBe(200)
})

test('refused connections for a while, then the router listens again on the same port', async () => {
  expect((await post('/__faults', { refuseMs: 300 })).status).toBe(200)
  await Bun.sleep(50)
  await expect(chat()).rejects.toThrow()
  await Bun.sleep(400)
  expect((await chat()).status).toBe(200)
})

test('a smaller catalogue: the lacking model is neither listed nor served; count_tokens is a 404', async () => {
  const models = (await (await fetch(`${up.url}/models`)).json()) as { data: Array<{ id: string }> }
  expect(models.data.map((m) => m.id)).not.toContain('openai/gpt-4')
  expect(models.data.map((m) => m.id)).toContain('openai/gpt-4o-mini')
  expect((await chat('openai/gpt-4')).status).toBe(404)
  expect((await chat('openai/gpt-4:online')).status).toBe(404)
  expect((await post('/messages/count_tokens', { model: 'anthropic/claude-3-haiku', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404)
})
