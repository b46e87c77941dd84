// A key's rate limit is the total of every instance (issue 36): two real servers on one PostgreSQL
// database, 50 parallel requests of an rpmLimit 5 key spread across both serve exactly 5, and the
// tokens one instance counted refuse the key on the other. Runs in the PostgreSQL pass only
// (scripts/test-pg.ts): on SQLite one process owns the file.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { onPostgres } from '../db/dialect'
import { freshDatabaseUrl } from '../test-support/database'
import { TEST_RATE, UPSTREAM_KEY } from '../test-support/gateway'
import { freshIp, readResult, registerUser, startServer, type TestServer } from '../test-support/server'
import { startFakeUpstream } from '../upstream/demo'

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
let servers: TestServer[] = []

beforeAll(async () => {
  if (!onPostgres) return
  const databaseUrl = await freshDatabaseUrl()
  upstream = await startFakeUpstream({ tokenDelayMs: 1, apiKey: UPSTREAM_KEY })
  const env = { DATABASE_URL: databaseUrl, OPENROUTER_API_KEY: UPSTREAM_KEY, OPENROUTER_BASE_URL: upstream.url, USD_RUB_RATE: TEST_RATE }
  servers = await Promise.all([1, 2].map((n) => startServer({ ...env, INSTANCE_ID: `limits-${n}` })))
}, 60_000)

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  await upstream?.stop()
})

const HI = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 }

async function chat(server: TestServer, key: string) {
  return readResult(
    await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify(HI),
    }),
  )
}

async function keyWith(policy: Record<string, unknown>) {
  const u = await registerUser(servers[0]!.url)
  const res = await u.api.post('/api/auth/api-keys', { name: 'общий лимит', ...policy }, u.accessToken)
  expect(res.status).toBe(201)
  return res.body.data.key as string
}

describe.skipIf(!onPostgres)('two instances, one limit', () => {
  test('rpmLimit 5: 50 parallel requests across both instances serve exactly 5', async () => {
    const key = await keyWith({ rpmLimit: 5 })
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => chat(servers[i % 2]!, key)))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5)
    const refused = answers.filter((r) => r.status === 429)
    expect(refused).toHaveLength(45)
    expect(refused.every((r) => r.body.error.code === 'rate_limit_exceeded' && r.headers.get('retry-after'))).toBe(true)
  })

  test('tpmLimit: tokens reported through one instance refuse the key on the other', async () => {
    const key = await keyWith({ tpmLimit: 10 })
    expect((await chat(servers[0]!, key)).status).toBe(200)
    let last = await chat(servers[1]!, key)
    for (let i = 0; i < 20 && last.status === 200; i++) last = await chat(servers[1]!, key)
    expect(last.status).toBe(429)
    expect(last.body.error.type).toBe('tokens')
  })
})
