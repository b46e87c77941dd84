// Money across instances when leases are lost (issue 33, points 5 and 6): three real servers on one
// PostgreSQL of this file's own. An admin's deduction under load never takes what holds and reserves
// keep for running requests; an instance paused longer than its lease finds its holds given back by
// the others and still charges the answers it delivers (once, saying so), and serves nothing from a
// reserve the others have given back; a database outage longer than the lease loses no charge. After
// each: every balance equals its ledger, nothing stays held, nothing is uncovered. PostgreSQL pass only
// (scripts/test-pg.ts): on SQLite one process owns the file.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { onPostgres } from '../db/dialect'
import { closeReader, databaseReader, type Reader } from '../test-support/db-reader'
import { eventually, expectedCharge, TEST_RATE, UPSTREAM_KEY } from '../test-support/gateway'
import { startPostgres, type TestPostgres } from '../test-support/postgres'
import { registerUser, startServer, type TestServer } from '../test-support/server'
import { startFakeUpstream } from '../upstream/demo'

const ADMIN = 'ops@leases.test'
const LEASE_MS = 2000

let pg: TestPostgres
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
let servers: TestServer[] = []
let databaseUrl: string
let read: Reader
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  if (!onPostgres) return
  pg = await startPostgres()
  databaseUrl = await pg.createDatabase()
  read = databaseReader(databaseUrl)
  upstream = await startFakeUpstream({ faults: true, tokenDelayMs: 1, apiKey: UPSTREAM_KEY })
  const env = {
    DATABASE_URL: databaseUrl,
    OPENROUTER_API_KEY: UPSTREAM_KEY,
    OPENROUTER_BASE_URL: upstream.url,
    USD_RUB_RATE: TEST_RATE,
    ADMIN_EMAILS: ADMIN,
    HOLD_LEASE_MS: String(LEASE_MS),
    DATABASE_TIMEOUT_MS: '1000',
  }
  servers = await Promise.all([1, 2, 3].map((n) => startServer({ ...env, INSTANCE_ID: `lease-${n}` })))
  admin = await registerUser(servers[2]!.url, ADMIN)
}, 60_000)

afterAll(async () => {
  if (!onPostgres) return
  for (const s of servers) s.resume()
  pg.thaw()
  await Promise.all(servers.map((s) => s.stop()))
  await upstream.stop()
  await closeReader(databaseUrl)
  await pg.stop()
})

async function books(userId: string) {
  const [u] = await read<{ balance_micros: number; held_micros: number }>('select balance_micros, held_micros from users where id = ?', userId)
  const [l] = await read<{ s: number }>('select coalesce(sum(amount_micros), 0) as s from ledger_entries where user_id = ?', userId)
  const [x] = await read<{ s: number }>('select coalesce(sum(uncovered_micros), 0) as s from uncovered_costs where user_id = ?', userId)
  return { balance: u!.balance_micros, held: u!.held_micros, ledgerSum: l!.s, uncovered: x!.s }
}

/** Once every request has closed (nothing held, no charge pending): the books are exact and nothing is uncovered. */
async function settledBooks(userId: string) {
  await eventually(async () => (await books(userId)).held === 0 && (await read<{ n: number }>('select count(*) as n from pending_charges'))[0]!.n === 0, 30_000)
  const b = await books(userId)
  expect(b).toEqual({ balance: b.ledgerSum, held: 0, ledgerSum: b.ledgerSum, uncovered: 0 })
  expect(b.balance).toBeGreaterThanOrEqual(0)
  return b
}

/** A fresh account with an API key and `rub` added by the admin (a well-funded account gets reserves). */
async function customer(fundRub = 0) {
  const u = await registerUser(servers[0]!.url)
  const key = await u.api.post('/api/auth/api-keys', { name: 'load' }, u.accessToken)
  expect(key.status).toBe(201)
  if (fundRub) expect((await admin.api.post(`/api/admin/users/${u.user.id}/balance`, { amount: fundRub }, admin.accessToken)).status).toBe(200)
  return { ...u, key: key.body.data.key as string }
}

const chat = (server: TestServer, key: string, body: Record<string, unknown>) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o', max_tokens: 40, messages: [{ role: 'user', content: 'привет' }], ...body }),
  })

/** The charge a streamed answer reported in its last usage chunk (usage.cost is rubles as charged; the router's USD is in the usage row). */
async function streamed(res: Response) {
  const text = await res.text()
  return { status: res.status, done: text.includes('data: [DONE]') }
}

/** Every usage row of the account, each charged exactly what the router reported (cost × rate × markup). */
async function chargedAsReported(userId: string) {
  const usage = await read<{ cost_micros: number; upstream_cost_usd: string | null; status: string }>(
    'select cost_micros, upstream_cost_usd, status from usage_logs where user_id = ?',
    userId,
  )
  for (const u of usage) if (u.upstream_cost_usd) expect(u.cost_micros).toBe(expectedCharge(Number(u.upstream_cost_usd)))
  return usage
}

describe.skipIf(!onPostgres)('leases across three instances on one PostgreSQL', () => {
  test('an admin deduction during load on every instance takes only what is not held: refused past it, and every answer is still charged in full', async () => {
    // 2 000 ₽: well funded, so the instances serve it from reserves as well as from holds of its own.
    const c = await customer(1950)
    let stop = false
    let served = 0
    const load = servers.map(async (s, i) => {
      while (!stop) {
        const slow = i === 0 // one instance keeps slow streams open: holds that last seconds
        const res = await chat(s, c.key, slow ? { stream: true, max_tokens: 8, messages: [{ role: 'user', content: `${'слово '.repeat(400)}[[fault:slow]]` }] } : {})
        if (res.status === 200) served++
        await res.text()
      }
    })
    const adjust = (amount: number) => admin.api.post(`/api/admin/users/${c.user.id}/balance`, { amount }, admin.accessToken)
    const listed = async () => (await admin.api.get(`/api/admin/users?search=${encodeURIComponent(c.email)}`, admin.accessToken)).body.data[0] as { balance: number; held: number }
    // Wait for money to be held, then try to take everything, then what is available.
    const seen = await eventually(async () => {
      const l = await listed()
      return l.held > 0 ? l : null
    }, 10_000)
    const all = await adjust(-seen.balance)
    expect(all.status).toBe(400)
    expect(all.body.error).toContain('зарезервировано под выполняющиеся запросы')
    let taken = 0
    for (let tries = 0; tries < 20 && taken === 0; tries++) {
      const l = await listed()
      const available = Math.floor((l.balance - l.held) * 100) / 100 // what the admin types: kopecks
      const res = await adjust(-available)
      if (res.status === 200) taken = available
      else expect(res.body.error).toContain('Нельзя списать больше')
    }
    expect(taken).toBeGreaterThan(1000)
    await Bun.sleep(1500)
    stop = true
    await Promise.all(load)
    expect(served).toBeGreaterThan(10)
    await settledBooks(c.user.id)
    const usage = await chargedAsReported(c.user.id)
    expect(usage.filter((u) => u.status === 'success').length).toBe(served)
  }, 90_000)

  test('an instance paused past its lease: the others give its holds back; resumed, it charges the answers it delivers, once, and says so', async () => {
    const c = await customer()
    const victim = servers[0]!
    // Slow streams (200 ms a token, 60 tokens): the router has not finished them while the instance stands still.
    const answers = Array.from({ length: 3 }, () =>
      chat(victim, c.key, { stream: true, max_tokens: 60, messages: [{ role: 'user', content: 'долгий ответ [[fault:slow]]' }] }).then(streamed),
    )
    await eventually(async () => (await read<{ n: number }>("select count(*) as n from holds where instance_id = 'lease-1' and generation_id is not null"))[0]!.n === 3, 10_000)
    victim.pause()
    try {
      // The others find its lease lapsed, ask the router for the unfinished generations, and give the holds back.
      await eventually(async () => (await read<{ n: number }>("select count(*) as n from holds where instance_id = 'lease-1'"))[0]!.n === 0, 20_000)
      expect((await books(c.user.id)).held).toBe(0)
    } finally {
      victim.resume()
    }
    expect((await Promise.all(answers)).every((a) => a.status === 200 && a.done)).toBe(true)
    const b = await settledBooks(c.user.id)
    const usage = await chargedAsReported(c.user.id)
    expect(usage.map((u) => u.status)).toEqual(['success', 'success', 'success'])
    expect(b.balance).toBe(50_000_000 - usage.reduce((s, u) => s + u.cost_micros, 0))
    expect(
      victim
        .logs()
        .split('\n')
        .filter((l) => l.includes('its hold was given back by another instance')),
    ).toHaveLength(3)
  }, 90_000)

  test('an instance paused past its lease serves nothing from the reserve the others gave back and spent', async () => {
    const victim = servers[1]!
    const c = await customer(1100) // 1 150 ₽: just above the reserve floor
    for (let i = 0; i < 5; i++) expect((await chat(victim, c.key, {})).status).toBe(200)
    // Stopped at once, before its reserve idles out (a second): the reserve's row is still there.
    victim.pause()
    const LEFT = 300_000 // 0,30 ₽: room for a few answers, not for thirty
    let answers: Array<Promise<number>> = []
    try {
      expect((await read<{ n: number }>("select count(*) as n from holds where instance_id = 'lease-2' and reserve"))[0]!.n).toBe(1)
      await eventually(async () => (await read<{ n: number }>("select count(*) as n from holds where instance_id = 'lease-2'"))[0]!.n === 0, 20_000)
      // The money the reserve kept is the account's again, and elsewhere it is spent: the admin takes all but 0,30 ₽.
      const b = await books(c.user.id)
      expect((await admin.api.post(`/api/admin/users/${c.user.id}/balance`, { amount: -(b.balance - b.held - LEFT) / 1e6 }, admin.accessToken)).status).toBe(200)
      // Requests reach the stopped instance and wait in its queue.
      answers = Array.from({ length: 30 }, () =>
        chat(victim, c.key, {}).then(async (r) => {
          await r.text()
          return r.status
        }),
      )
      await Bun.sleep(300)
    } finally {
      victim.resume()
    }
    // Woken, it holds each on its own against the real balance: what 0,30 ₽ covers is served, the rest refused.
    const statuses = await Promise.all(answers)
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(10)
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true)
    await settledBooks(c.user.id)
    await chargedAsReported(c.user.id)
    expect(victim.logs()).toContain('reserve(s) fenced')
  }, 60_000)

  test('a database outage longer than the lease: the answers delivered around it are all charged, and the webhook worker logs no SQL', async () => {
    const c = await customer()
    const answers = servers.map((s) => chat(s, c.key, { stream: true, max_tokens: 15, messages: [{ role: 'user', content: 'ответ [[fault:slow]]' }] }).then(streamed))
    await eventually(
      async () => (await books(c.user.id)).held > 0 && (await read<{ n: number }>('select count(*) as n from holds where generation_id is not null'))[0]!.n >= 3,
      10_000,
    )
    await closeReader(databaseUrl)
    await pg.halt()
    await Bun.sleep(LEASE_MS + 1500)
    await pg.resume()
    read = databaseReader(databaseUrl)
    expect((await Promise.all(answers)).every((a) => a.status === 200 && a.done)).toBe(true)
    await settledBooks(c.user.id)
    const usage = await chargedAsReported(c.user.id)
    expect(usage.map((u) => u.status)).toEqual(['success', 'success', 'success'])
    for (const s of servers) expect(s.logs()).not.toMatch(/\[webhooks\].*(Failed query|select )/)
  }, 90_000)
})
