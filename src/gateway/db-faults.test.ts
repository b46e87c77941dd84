// The database stumbling under load, on either store (issue 26): stopped (PostgreSQL shut down; on
// SQLite another process holding the write lock), frozen (PostgreSQL under SIGSTOP), and the gateway
// killed with -9 under a fixed INSTANCE_ID while holds were open. The books stay exact throughout.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventually, expectedCharge, startGateway, TEST_RATE, UPSTREAM_KEY } from '../test-support/gateway'
import { startPostgres, type TestPostgres } from '../test-support/postgres'
import { startServer } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>

const onPostgres = Boolean(process.env.TEST_PG_ADMIN_URL)
const STORE = onPostgres ? 'PostgreSQL' : 'SQLite'
/** DATABASE_TIMEOUT_MS of the servers under test: short, so a frozen database costs the suite little. */
const QUERY_TIMEOUT_MS = 1000

const say = (text: string) => [{ role: 'user', content: text }]
const post = (gw: Gateway, key: string, path: string, body: Record<string, unknown>) =>
  fetch(`${gw.url}/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const chat = (gw: Gateway, key: string, body: Record<string, unknown>) => post(gw, key, '/chat/completions', { model: 'openai/gpt-3.5-turbo', ...body })
const count = async (gw: Gateway, where: string, ...params: string[]) => (await gw.read<{ n: number }>(`select count(*) as n from holds where ${where}`, ...params))[0]!.n
const lines = (logs: string, text: string) => logs.split('\n').filter((l) => l.includes(text)).length

/**
 * The outage of this run's store. PostgreSQL: a cluster of this file's own, halted (connections
 * closed, nothing listening) or frozen (every process stopped, connections open and silent).
 * SQLite: a connection of the test holding the write lock, so every unit waits out busy_timeout.
 */
async function outages() {
  const pg: TestPostgres | null = onPostgres ? await startPostgres() : null
  let lock: Database | null = null
  return {
    env: async (): Promise<Record<string, string>> => (pg ? { DATABASE_URL: await pg.createDatabase() } : {}),
    async stop(gw: Gateway) {
      if (pg) return pg.halt()
      lock = new Database(gw.server.databaseUrl)
      lock.exec('PRAGMA busy_timeout = 10000')
      lock.exec('BEGIN IMMEDIATE')
    },
    async start() {
      if (pg) return pg.resume()
      lock?.exec('ROLLBACK')
      lock?.close()
      lock = null
    },
    async freeze(gw: Gateway) {
      if (pg) return pg.freeze()
      await this.stop(gw)
    },
    async thaw() {
      if (pg) return pg.thaw()
      await this.start()
    },
    async close() {
      pg?.thaw()
      await pg?.stop()
    },
  }
}

describe(`${STORE} unavailable under load`, () => {
  let gw: Gateway
  let outage: Awaited<ReturnType<typeof outages>>
  beforeAll(async () => {
    outage = await outages()
    gw = await startGateway({ ...(await outage.env()), DATABASE_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), UPSTREAM_TIMEOUT_MS: '2000', HOLD_LEASE_MS: '3000' })
  })
  afterAll(async () => {
    await outage.thaw()
    await gw.stop()
    await outage.close()
  })

  test('stopped mid-load: 503 in each protocol’s shape, logged once, health names it; back without a restart, nothing held, every answer charged once', async () => {
    const c = await gw.customer()
    const start = (await gw.books(c.user.id)).balance
    // Under way when the database goes: two streams (their settlements fail, then are retried) and
    // a call the router never answers (its release fails: still a 504, the hold given back later).
    const streams = [0, 1].map(async (i) => (await chat(gw, c.key, { stream: true, max_tokens: 8, messages: say(`[[fault:slow]] поток ${i}`) })).text())
    await eventually(async () => (await count(gw, 'user_id = ? and generation_id is not null', c.user.id)) === 2)
    const hung = chat(gw, c.key, { messages: say('[[fault:timeout]] жду') })
    await eventually(async () => (await count(gw, 'user_id = ?', c.user.id)) === 3)
    await outage.stop(gw)

    const openai = await chat(gw, c.key, { messages: say('привет') })
    expect(openai.status).toBe(503)
    expect(openai.headers.get('retry-after')).toBe('5')
    expect((await openai.json()).error).toMatchObject({ type: 'server_error', code: 'database_unavailable', message: expect.stringContaining(STORE) })
    const anthropic = await post(gw, c.key, '/messages', { model: 'anthropic/claude-3-haiku', max_tokens: 20, messages: say('привет') })
    expect(anthropic.status).toBe(503)
    expect(await anthropic.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining(STORE) } })
    const responses = await post(gw, c.key, '/responses', { model: 'openai/gpt-3.5-turbo', input: 'привет' })
    expect(responses.status).toBe(503)
    expect((await responses.json()).error).toMatchObject({ code: 'database_unavailable' })
    const health = await fetch(`${gw.url}/api/health`)
    expect(health.status).toBe(503)
    expect(await health.json()).toEqual({ success: false, error: `База данных (${STORE}) недоступна` })
    expect((await hung).status).toBe(504)
    // The streams end while the database is away: the answers reach the client with their charge.
    for (const text of await Promise.all(streams)) expect(text).toContain('data: [DONE]')

    await outage.start()
    await eventually(async () => (await fetch(`${gw.url}/api/health`)).status === 200, 15_000)
    expect((await chat(gw, c.key, { messages: say('снова работает') })).status).toBe(200)
    await eventually(async () => (await count(gw, 'user_id = ?', c.user.id)) === 0, 15_000)

    const books = await gw.books(c.user.id)
    expect(books.held).toBe(0)
    expect(books.ledgerSum).toBe(books.balance)
    const served = books.usage.filter((u) => u.status === 'success')
    expect(served).toHaveLength(3)
    for (const u of served) expect(u.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost))
    expect(books.usage.filter((u) => u.status === 'error')).toHaveLength(1) // the hung call, released for free
    expect(start - books.balance).toBe(served.reduce((s, u) => s + u.cost_micros, 0))
    const logs = gw.server.logs()
    expect(lines(logs, `[db] ${STORE} unavailable`)).toBe(1)
    expect(lines(logs, `[db] ${STORE} available again`)).toBe(1)
  })

  test('frozen: requests and the health check fail within the query timeout, and go on once it thaws', async () => {
    const c = await gw.customer()
    await outage.freeze(gw)
    try {
      let t0 = performance.now()
      const res = await chat(gw, c.key, { messages: say('привет') })
      expect(res.status).toBe(503)
      expect((await res.json()).error.code).toBe('database_unavailable')
      expect(performance.now() - t0).toBeLessThan(QUERY_TIMEOUT_MS * 3)
      t0 = performance.now()
      expect((await fetch(`${gw.url}/api/health`)).status).toBe(503)
      expect(performance.now() - t0).toBeLessThan(QUERY_TIMEOUT_MS * 3)
    } finally {
      await outage.thaw()
    }
    await eventually(async () => (await fetch(`${gw.url}/api/health`)).status === 200, 15_000)
    expect((await chat(gw, c.key, { messages: say('снова') })).status).toBe(200)
    await eventually(async () => (await gw.books(c.user.id)).held === 0)
  })
})

describe('kill -9 under a fixed INSTANCE_ID', () => {
  test('the restart gives its predecessor’s holds back once their lease lapsed, and charges the answers the router made from /generation', async () => {
    const LEASE = 3000
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-kill-')), HOLD_LEASE_MS: String(LEASE), INSTANCE_ID: 'gateway-1' }
    const gw = await startGateway(env)
    try {
      const waiting = await gw.customer()
      const served = await gw.customer()
      // A call the router never answers (its hold knows no generation), and three answers under way.
      void chat(gw, waiting.key, { messages: say('[[fault:timeout]] жду') }).catch(() => null)
      const streams = [0, 1, 2].map((i) =>
        chat(gw, served.key, { stream: true, max_tokens: 30, messages: say(`[[fault:slow]] ответ ${i}`) })
          .then((r) => r.text())
          .catch(() => null),
      )
      await eventually(async () => (await count(gw, 'user_id = ? and generation_id is not null', served.user.id)) === 3 && (await count(gw, 'user_id = ?', waiting.user.id)) === 1)
      const before = { waiting: await gw.books(waiting.user.id), served: await gw.books(served.user.id) }
      await gw.server.kill()
      await Promise.all(streams)
      const [lease] = await gw.read<{ until: number }>('select max(lease_until) as until from holds')
      const again = await startServer({ ...env, OPENROUTER_API_KEY: UPSTREAM_KEY, OPENROUTER_BASE_URL: gw.upstream.url, USD_RUB_RATE: TEST_RATE })
      try {
        await eventually(async () => (await count(gw, '1 = 1')) === 0, 20_000)
        // Not before the lease lapsed: the same INSTANCE_ID is another start, which never renewed them.
        expect(Date.now()).toBeGreaterThanOrEqual(lease!.until)
        // Logged per sweep (a generation the router had not published yet waits for the next one).
        const total = (re: RegExp) => [...again.logs().matchAll(re)].reduce((s, m) => s + Number(m[1]), 0)
        expect(total(/released (\d+) hold\(s\) of stopped instances/g)).toBe(1)
        expect(total(/settled (\d+) hold\(s\) of stopped instances/g)).toBe(3)
        // The unanswered call: given back, nothing charged.
        expect(await gw.books(waiting.user.id)).toMatchObject({ held: 0, balance: before.waiting.balance, ledgerSum: before.waiting.balance })
        // The answers: each charged once, at what the router reports for it.
        const books = await gw.books(served.user.id)
        expect(books.usage).toHaveLength(3)
        for (const u of books.usage) expect(u.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost))
        expect(books.usage.every((u) => u.cost_micros > 0)).toBe(true)
        expect(books).toMatchObject({ held: 0, ledgerSum: books.balance, balance: before.served.balance - books.usage.reduce((s, u) => s + u.cost_micros, 0) })
        const [loss] = await gw.read<{ n: number }>('select count(*) as n from uncovered_costs where user_id = ?', served.user.id)
        expect(loss!.n).toBe(0)
      } finally {
        await again.stop()
      }
    } finally {
      await gw.upstream.stop()
    }
  })
})
