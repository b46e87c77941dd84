// Several instances on one PostgreSQL database (issue 18): three real servers share one database
// and one fake upstream. Requests spread across them never overspend; an instance killed with
// SIGKILL while it holds reservations has them released by the others once its lease lapses; a
// payment notification delivered to all three at once credits once; a session made on one works
// on the others; the autopost slot is published once; a deleted account's files are gone on all
// of them at once (issue 22). Runs in the PostgreSQL pass only
// (scripts/test-pg.ts): on SQLite one process owns the file.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPostgres } from '../db/dialect'
import { startFakeYooKassa } from '../payments/fake'
import { freshDatabaseUrl } from '../test-support/database'
import { closeReader, databaseReader, type Reader } from '../test-support/db-reader'
import { expectedCharge, TEST_RATE, UPSTREAM_KEY } from '../test-support/gateway'
import { client, registerUser, startServer, type TestServer } from '../test-support/server'
import { startFakeUpstream } from '../upstream/demo'

const ADMIN = 'ops@instances.test'
const LEASE_MS = 3000
const SHOP_ID = '200300'
const SHOP_SECRET = 'instances_shop_secret'

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
let yookassa: ReturnType<typeof startFakeYooKassa>
let servers: TestServer[] = []
let databaseUrl: string
let read: Reader
/** The upload folder the instances share (UPLOADS_DIR), as several instances must. */
let sharedUploads: string
/** What every instance is started with. */
let env: Record<string, string>

beforeAll(async () => {
  if (!onPostgres) return
  databaseUrl = await freshDatabaseUrl()
  read = databaseReader(databaseUrl)
  sharedUploads = mkdtempSync(join(tmpdir(), 'gateway-shared-uploads-'))
  upstream = await startFakeUpstream({ faults: true, tokenDelayMs: 1, apiKey: UPSTREAM_KEY })
  yookassa = startFakeYooKassa({ shopId: SHOP_ID, secretKey: SHOP_SECRET })
  env = {
    DATABASE_URL: databaseUrl,
    OPENROUTER_API_KEY: UPSTREAM_KEY,
    OPENROUTER_BASE_URL: upstream.url,
    USD_RUB_RATE: TEST_RATE,
    ADMIN_EMAILS: ADMIN,
    HOLD_LEASE_MS: String(LEASE_MS),
    WELCOME_BONUS_RUB: '2',
    YOOKASSA_SHOP_ID: SHOP_ID,
    YOOKASSA_SECRET_KEY: SHOP_SECRET,
    YOOKASSA_API_URL: yookassa.url,
    AUTOPOST_CRON: '* * * * * *',
    UPLOADS_DIR: sharedUploads,
  }
  // Started together on an empty database: the migrations run once, under the advisory lock.
  servers = await Promise.all([1, 2, 3].map((n) => startServer({ ...env, INSTANCE_ID: `instance-${n}` })))
}, 60_000)

afterAll(async () => {
  if (!onPostgres) return
  await Promise.all(servers.map((s) => s.stop()))
  await upstream.stop()
  yookassa.stop()
  await closeReader(databaseUrl)
  rmSync(sharedUploads, { recursive: true, force: true })
})

type Account = { balance: number; held: number; ledgerSum: number }
async function books(userId: string): Promise<Account> {
  const [u] = await read<{ balance_micros: number; held_micros: number }>('select balance_micros, held_micros from users where id = ?', userId)
  const [l] = await read<{ s: number }>('select coalesce(sum(amount_micros), 0) as s from ledger_entries where user_id = ?', userId)
  return { balance: u!.balance_micros, held: u!.held_micros, ledgerSum: l!.s }
}

async function customer(on: TestServer) {
  const u = await registerUser(on.url)
  const key = await u.api.post('/api/auth/api-keys', { name: 'load' }, u.accessToken)
  expect(key.status).toBe(201)
  return { ...u, key: key.body.data.key as string }
}

const chat = (server: TestServer, key: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o', max_tokens: 40, ...body }),
    signal,
  })

async function eventually<T>(check: () => Promise<T | null | undefined | 0 | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v) return v as T
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(100)
  }
}

describe.skipIf(!onPostgres)('three instances on one PostgreSQL database', () => {
  test('a session made on one instance works on the others; refresh rotates on a third, and a replayed token ends it everywhere', async () => {
    const u = await registerUser(servers[0]!.url)
    for (const s of servers) expect((await client(s.url).get('/api/auth/profile', u.accessToken)).status).toBe(200)
    const refreshed = await client(servers[2]!.url).post('/api/auth/refresh', { refreshToken: u.refreshToken })
    expect(refreshed.status).toBe(200)
    expect((await client(servers[0]!.url).get('/api/auth/profile', refreshed.body.data.accessToken)).status).toBe(200)
    // The rotated-out token replayed on another instance: a leak, so the whole session ends, on every instance.
    expect((await client(servers[1]!.url).post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
    expect((await client(servers[0]!.url).post('/api/auth/refresh', { refreshToken: refreshed.body.data.refreshToken })).status).toBe(401)
    expect((await client(servers[2]!.url).get('/api/auth/profile', refreshed.body.data.accessToken)).status).toBe(401)
  })

  test('a deleted account’s upload and picture stop being served by every instance at once, and leave the shared storage', async () => {
    const c = await customer(servers[0]!)
    const form = new FormData()
    form.append('file', new File(['%PDF-1.4\n%%EOF\n'], 'акт.pdf'))
    const up = await fetch(`${servers[0]!.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${c.accessToken}` }, body: form })
    expect(up.status).toBe(201)
    const gen = await fetch(`${servers[1]!.url}/v1/images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'google/gemini-2.5-flash-image', prompt: 'кот', response_format: 'url' }),
    })
    expect(gen.status).toBe(200)
    // Links are signed by one instance; any instance serves them (path and query on its own origin).
    const links = [((await up.json()) as { data: { url: string } }).data.url, ((await gen.json()) as { data: Array<{ url: string }> }).data[0]!.url].map((u) => new URL(u))
    const files = [join(sharedUploads, 'uploads', links[0]!.pathname.split('/').pop()!), join(sharedUploads, 'generated', links[1]!.pathname.split('/').pop()!)]
    const statuses = () => Promise.all(servers.flatMap((s) => links.map(async (l) => (await fetch(`${s.url}${l.pathname}${l.search}`)).status)))
    expect(await statuses()).toEqual([200, 200, 200, 200, 200, 200])
    const deleted = await fetch(`${servers[2]!.url}/api/auth/account`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${c.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: c.email }),
    })
    expect(deleted.status).toBe(200)
    expect(await statuses()).toEqual([404, 404, 404, 404, 404, 404])
    expect(files.map(existsSync)).toEqual([false, false])
  })

  test('3 000 requests across the instances at concurrency 100 on small balances: served or 402, never below zero, every charge as reported', async () => {
    const customers = await Promise.all(Array.from({ length: 30 }, (_, i) => customer(servers[i % 3]!)))
    const starts = await Promise.all(customers.map((c) => books(c.user.id)))
    const statuses: number[] = []
    let next = 0
    const TOTAL = 3000
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = next++; i < TOTAL; i = next++) {
          const c = customers[i % customers.length]!
          const res = await chat(servers[i % 3]!, c.key, { messages: [{ role: 'user', content: `запрос ${i}` }], stream: i % 2 === 0 })
          await res.text()
          statuses.push(res.status)
        }
      }),
    )
    expect(statuses).toHaveLength(TOTAL)
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([])
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0)
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0) // the balances were small enough to run out

    for (const [i, c] of customers.entries()) {
      const after = await books(c.user.id)
      expect(after.held).toBe(0)
      expect(after.balance).toBeGreaterThanOrEqual(0)
      expect(after.ledgerSum).toBe(after.balance)
      const usage = await read<{ cost_micros: number; upstream_cost_usd: string | null }>(
        "select cost_micros, upstream_cost_usd from usage_logs where user_id = ? and status = 'success'",
        c.user.id,
      )
      let charged = 0
      for (const u of usage) {
        expect(u.cost_micros).toBe(expectedCharge(Number(u.upstream_cost_usd)))
        charged += u.cost_micros
      }
      expect(starts[i]!.balance - after.balance).toBe(charged)
    }
    const [uncovered] = await read<{ n: number }>('select count(*) as n from uncovered_costs')
    expect(uncovered!.n).toBe(0)
  }, 240_000)

  test('an instance killed with SIGKILL while holding reservations: the others close them once its lease lapses, charging what the router generated', async () => {
    const victim = servers[2]!
    const c = await customer(servers[0]!)
    const start = await books(c.user.id)
    // Slow streamed answers (200 ms a token) through the instance about to die.
    const aborts = Array.from({ length: 3 }, () => new AbortController())
    const inFlight = aborts.map((a) =>
      chat(victim, c.key, { messages: [{ role: 'user', content: 'долгий ответ [[fault:slow]]' }], stream: true, max_tokens: 30 }, a.signal).catch(() => null),
    )
    // Killed once each answer has begun and its hold knows the router's generation (noteGeneration).
    const held = await eventually(async () => {
      const b = await books(c.user.id)
      const [noted] = await read<{ n: number }>('select count(*) as n from holds where instance_id = ? and generation_id is not null', 'instance-3')
      return b.held > 0 && noted!.n === 3 ? b.held : 0
    }, 10_000)
    expect(held).toBeGreaterThan(0)
    await victim.kill()
    for (const a of aborts) a.abort()
    await Promise.all(inFlight)
    const killedAt = Date.now()
    // The survivors renew their own leases and sweep lapsed ones every third of the lease.
    await eventually(async () => (await books(c.user.id)).held === 0, LEASE_MS * 3)
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 2000)
    expect(await read('select id from holds where instance_id = ?', 'instance-3')).toEqual([])
    // The router had named each answer's generation: what it generated before the kill is charged
    // from its /generation record, once, at the reported cost (issue 26); nothing else moved.
    const after = await books(c.user.id)
    const usage = await read<{ cost_micros: number; upstream_cost_usd: string | null }>('select cost_micros, upstream_cost_usd from usage_logs where user_id = ?', c.user.id)
    expect(usage).toHaveLength(3)
    for (const u of usage) expect(u.cost_micros).toBe(expectedCharge(Number(u.upstream_cost_usd)))
    expect(after).toEqual({ balance: start.balance - usage.reduce((s, u) => s + u.cost_micros, 0), held: 0, ledgerSum: after.balance })
    // The whole balance is spendable again: a request on a surviving instance is served.
    const res = await chat(servers[1]!, c.key, { messages: [{ role: 'user', content: 'снова' }] })
    expect(res.status).toBe(200)
    servers = servers.slice(0, 2) // the dead one is not stopped again
  }, 60_000)

  test('a well-funded account served from an instance’s reserve: killed with SIGKILL right after its answers, each is charged once and the reserve comes back', async () => {
    const victim = await startServer({ ...env, INSTANCE_ID: 'instance-4' })
    const c = await customer(servers[0]!)
    // 20 000 ₽: well above the floor, so the instance takes a reserve (money/reserves.ts).
    const FUND = 20_000_000_000
    const [u] = await read<{ balance_micros: number }>('update users set balance_micros = balance_micros + ? where id = ? returning balance_micros', FUND, c.user.id)
    await read(
      "insert into ledger_entries (id, user_id, type, amount_micros, balance_after_micros, description, created_at) values (?, ?, 'admin', ?, ?, 'тест', ?)",
      `fund-${c.user.id}`,
      c.user.id,
      FUND,
      u!.balance_micros,
      Date.now(),
    )
    const start = await books(c.user.id)
    const answers = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await chat(victim, c.key, { messages: [{ role: 'user', content: 'быстро' }] })
        return { status: res.status, cost: ((await res.json()) as { usage: { cost: number } }).usage.cost }
      }),
    )
    // Killed as soon as the last answer is in: the last charges were written, maybe not yet applied.
    await victim.kill()
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
    // The survivors apply what it left pending, then give its reserve back, once its lease lapsed.
    await eventually(async () => (await books(c.user.id)).held === 0 && (await read<{ n: number }>('select count(*) as n from pending_charges'))[0]!.n === 0, LEASE_MS * 3)
    expect(await read('select id from holds where instance_id = ?', 'instance-4')).toEqual([])
    const usage = await read<{ cost_micros: number; status: string }>('select cost_micros, status from usage_logs where user_id = ?', c.user.id)
    expect(usage.map((r) => r.status)).toEqual(answers.map(() => 'success'))
    // Every answer is charged exactly what it said it cost, once.
    const charged = usage.reduce((n, r) => n + r.cost_micros, 0)
    expect(charged).toBe(answers.reduce((n, a) => n + Math.round(a.cost * 1e6), 0))
    expect(await books(c.user.id)).toEqual({ balance: start.balance - charged, held: 0, ledgerSum: start.balance - charged })
  }, 60_000)

  test('a payment notification delivered to every instance at once credits once', async () => {
    const u = await registerUser(servers[0]!.url)
    const created = await u.api.post('/api/payments/create', { amount: 700, returnUrl: `${servers[0]!.url}/app/billing` }, u.accessToken)
    expect(created.status).toBe(200)
    const [row] = await read<{ provider_payment_id: string }>('select provider_payment_id from payments where id = ?', created.body.data.id)
    const providerId = row!.provider_payment_id
    yookassa.pay(providerId)
    const object = yookassa.get(providerId)!
    const start = await books(u.user.id)
    const statuses = await Promise.all(servers.flatMap((s) => Array.from({ length: 5 }, () => yookassa.notify(`${s.url}/api/payments/webhook`, 'payment.succeeded', object))))
    expect(statuses.every((s) => s === 200)).toBe(true)
    const after = await eventually(async () => {
      const b = await books(u.user.id)
      return b.balance === start.balance + 700_000_000 ? b : null
    }, 10_000)
    expect(after.ledgerSum).toBe(after.balance)
    const [topups] = await read<{ n: number }>("select count(*) as n from ledger_entries where user_id = ? and type = 'topup'", u.user.id)
    expect(topups!.n).toBe(1)
  }, 30_000)

  test('the autopost slot is published once by the instances ticking every second', async () => {
    // A schedule switched on a while ago whose slot is this very minute (Moscow time): due now.
    const msk = new Date(Date.now() + 3 * 3600_000)
    const startTime = `${String(msk.getUTCHours()).padStart(2, '0')}:${String(msk.getUTCMinutes()).padStart(2, '0')}`
    const admin = await registerUser(servers[0]!.url, ADMIN)
    const set = await admin.api.patch('/api/blog/admin/autopost/settings', { isEnabled: true, startTime, intervalHours: 24 }, admin.accessToken)
    expect(set.status).toBe(200)
    const sql = (await import('bun')).SQL
    const direct = new sql(databaseUrl, { max: 1 })
    await direct`update autopost_settings set active_since = ${Date.now() - 3600_000}`
    await direct.close()
    const [published] = await eventually(async () => {
      const rows = await read<{ n: number }>("select count(*) as n from autopost_runs where kind = 'scheduled' and status = 'succeeded'")
      return rows[0]!.n > 0 ? rows : null
    }, 30_000)
    expect(published!.n).toBe(1)
    await Bun.sleep(3000) // more ticks on every instance: still one run and one article
    expect((await read<{ n: number }>("select count(*) as n from autopost_runs where kind = 'scheduled'"))[0]!.n).toBe(1)
    expect((await read<{ n: number }>('select count(*) as n from blog_posts'))[0]!.n).toBe(1)
  }, 60_000)

  test('Responses: a chain stored through one instance’s WebSocket continues over HTTP on another; a store: false chain stays in its socket (issue 28)', async () => {
    const u = await customer(servers[0]!)
    const ws = new WebSocket(`${servers[0]!.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${u.key}` } } as unknown as string[])
    const frames: Array<Record<string, any>> = []
    ws.onmessage = (e) => frames.push(JSON.parse(String(e.data)))
    await new Promise((resolve) => (ws.onopen = resolve))
    const turn = async (body: Record<string, unknown>) => {
      const from = frames.length
      ws.send(JSON.stringify({ type: 'response.create', model: 'openai/gpt-4o-mini', max_output_tokens: 5, ...body }))
      return eventually(async () => frames.slice(from).find((f) => f.type === 'response.incomplete' || f.type === 'response.completed' || f.type === 'error'), 10_000)
    }
    const stored = (await turn({ input: 'Запомни: 42' })).response
    const memory = (await turn({ input: 'А это не храни', store: false, previous_response_id: stored.id })).response
    ws.close()
    const post = (on: TestServer, body: Record<string, unknown>) =>
      fetch(`${on.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', max_output_tokens: 5, ...body }),
      })
    const next = await post(servers[1]!, { input: 'Что я просил запомнить?', previous_response_id: stored.id })
    expect(next.status).toBe(200)
    expect(((await next.json()) as { previous_response_id: string }).previous_response_id).toBe(stored.id)
    // Another instance than the socket's (the third was killed by an earlier test: the last one standing).
    const gone = await post(servers.at(-1)!, { input: 'дальше', previous_response_id: memory.id })
    expect(gone.status).toBe(404)
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('previous_response_not_found')
  })
})
