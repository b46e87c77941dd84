// The admin API against the real server (child process) and the fake upstream over HTTP.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { users } from '../auth/schema'
import { seedBlogPost } from '../blog/store'
import { openDatabase } from '../db/client'
import { write } from '../db/tx'
import { expectedCharge, startGateway, TEST_RATE } from '../test-support/gateway'
import { client, freshIp, readResult, registerUser, type TestServer, uniqueEmail } from '../test-support/server'

const ADMIN = 'chief@example.ru'
type Gateway = Awaited<ReturnType<typeof startGateway>>

/** The server's database (PostgreSQL in the pg run, else its SQLite file), opened by the test itself. */
const serverDatabase = (s: TestServer) => openDatabase(s.databaseUrl)
/** The `n` of a one-row count query. */
const n = (rows: Array<{ n: number }>) => rows[0]!.n

/** DELETE is not in the shared test client. */
const del = async (base: string, path: string, token?: string) =>
  readResult(await fetch(base + path, { method: 'DELETE', headers: { 'x-forwarded-for': freshIp(), ...(token ? { authorization: `Bearer ${token}` } : {}) } }))

const chat = (g: Gateway, key: string, content = 'Привет') =>
  fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] }),
  })

describe('admin API', () => {
  let g: Gateway
  let admin: Awaited<ReturnType<typeof registerUser>>

  beforeAll(async () => {
    g = await startGateway({ ADMIN_EMAILS: ADMIN })
    admin = await registerUser(g.url, ADMIN)
  })
  afterAll(() => g.stop())

  test('every admin route, enumerated from the OpenAPI document, answers 401 without a token and 403 to a normal user', async () => {
    const doc = await (await fetch(`${g.url}/api/openapi.json`)).json()
    const routes = Object.entries<Record<string, unknown>>(doc.paths)
      .filter(([path]) => path.startsWith('/api/admin') || path.startsWith('/api/blog/admin'))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'some-id') })))
    // The routes this feature promises, so a rename cannot silently shrink the check.
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'GET /api/admin/stats',
        'GET /api/admin/users',
        'GET /api/admin/users/some-id',
        'DELETE /api/admin/users/some-id',
        'POST /api/admin/users/some-id/balance',
        'GET /api/admin/refund-requests',
        'GET /api/blog/admin/autopost/settings',
        'PATCH /api/blog/admin/autopost/settings',
        'GET /api/blog/admin/autopost/stats',
        'POST /api/blog/admin/autopost/run',
        'GET /api/blog/admin/posts',
        'DELETE /api/blog/admin/posts/some-id',
        'POST /api/blog/admin/posts/some-id/regenerate-image',
      ]),
    )
    const user = await registerUser(g.url)
    for (const { method, path } of routes) {
      // A body that would fail validation must not change the answer: the role is checked first.
      const send = (token?: string) =>
        fetch(g.url + path, {
          method,
          headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
        }).then(readResult)
      const anonymous = await send()
      expect({ route: `${method} ${path}`, status: anonymous.status, body: anonymous.body }).toEqual({
        route: `${method} ${path}`,
        status: 401,
        body: { success: false, error: 'Требуется авторизация' },
      })
      const normal = await send(user.accessToken)
      expect({ route: `${method} ${path}`, status: normal.status, body: normal.body }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        body: { success: false, error: 'Недостаточно прав' },
      })
    }
  })

  test('the user list: search by e-mail (case-insensitive, % is literal), counts and total', async () => {
    const tag = `find${Date.now().toString(36)}`
    const a = await g.customer(`${tag}.one@example.ru`)
    await registerUser(g.url, `${tag}.TWO@example.ru`)
    expect((await chat(g, a.key)).status).toBe(200)
    expect((await chat(g, a.key)).status).toBe(200)

    const res = await admin.api.get(`/api/admin/users?search=${tag.toUpperCase()}&limit=100`, admin.accessToken)
    expect(res.status).toBe(200)
    expect(res.body.pagination).toEqual({ total: 2, limit: 100 })
    expect(res.body.data.map((u: { email: string }) => u.email)).toEqual([`${tag}.TWO@example.ru`, `${tag}.one@example.ru`])
    expect(res.body.data[1]).toMatchObject({ id: a.user.id, role: 'user', apiKeys: 1, usageLogs: 2 })
    expect(res.body.data[1].balance).toBeCloseTo((await g.books(a.user.id)).balance / 1e6, 6)

    expect((await admin.api.get('/api/admin/users?search=%25', admin.accessToken)).body.pagination.total).toBe(0)
    const all = await admin.api.get('/api/admin/users', admin.accessToken)
    expect(all.body.data.find((u: { email: string }) => u.email === ADMIN)).toMatchObject({ role: 'admin' })
    expect((await admin.api.get('/api/admin/users?limit=1', admin.accessToken)).body.data).toHaveLength(1)
    expect((await admin.api.get('/api/admin/users?limit=0', admin.accessToken)).status).toBe(400)
  })

  test('balance adjustments are ledger rows of type admin with the admin’s id; the balance always equals the ledger sum', async () => {
    const u = await registerUser(g.url)
    const adjust = (amount: unknown, description: unknown = 'Admin adjustment') =>
      admin.api.post(`/api/admin/users/${u.user.id}/balance`, { amount, description }, admin.accessToken)

    const up = await adjust(150.25)
    expect(up.status).toBe(200)
    expect(up.body.data).toMatchObject({
      userId: u.user.id,
      balance: 200.25,
      transaction: { amount: '+150.25', balanceAfter: 200.25, type: 'admin', description: 'Admin adjustment' },
    })
    const down = await adjust(-0.25)
    expect(down.body.data.balance).toBe(200)

    const rows = await g.read<{ type: string; amount_micros: number; actor_id: string; description: string }>(
      "select type, amount_micros, actor_id, description from ledger_entries where user_id = ? and type = 'admin' order by created_at",
      u.user.id,
    )
    expect(rows).toEqual([
      { type: 'admin', amount_micros: 150_250_000, actor_id: admin.user.id, description: 'Admin adjustment' },
      { type: 'admin', amount_micros: -250_000, actor_id: admin.user.id, description: 'Admin adjustment' },
    ])
    const books = await g.books(u.user.id)
    expect(books.balance).toBe(200_000_000)
    expect(books.ledgerSum).toBe(books.balance)

    // The customer sees the movement in their own history, in Russian.
    const tx = await u.api.get('/api/billing/transactions?limit=50', u.accessToken)
    expect(tx.body.data[0]).toMatchObject({ type: 'admin', amount: '-0.25', balanceAfter: 200, description: 'Корректировка администратора' })
  })

  test('the description is the reason: stored with the ledger row, read by the customer as «Корректировка администратора: …» everywhere', async () => {
    const u = await registerUser(g.url)
    const reason = '  Компенсация   за сбой 12 мая '
    const res = await admin.api.post(`/api/admin/users/${u.user.id}/balance`, { amount: 12.5, description: reason }, admin.accessToken)
    expect(res.status).toBe(200)
    const [row] = await g.read<{ description: string }>("select description from ledger_entries where user_id = ? and type = 'admin'", u.user.id)
    expect(row!.description).toBe('Компенсация за сбой 12 мая')
    const shown = 'Корректировка администратора: Компенсация за сбой 12 мая'
    const history = await u.api.get('/api/billing/transactions?limit=50', u.accessToken)
    expect(history.body.data[0]).toMatchObject({ type: 'admin', amount: '+12.50', description: shown })
    const grouped = await u.api.get('/api/billing/transactions/grouped?limit=20', u.accessToken)
    expect(grouped.body.data.items.find((i: { type: string }) => i.type === 'admin')).toMatchObject({ description: shown })
    // the admin's page of the customer reads the same
    const page = await admin.api.get(`/api/admin/users/${u.user.id}`, admin.accessToken)
    expect(page.body.data.transactions[0]).toMatchObject({ description: shown })
  })

  test('the user list shows confirmation and last activity; a user’s page has their ledger, keys and recent requests; another id is 404', async () => {
    const u = await registerUser(g.url)
    const key = (await u.api.post('/api/auth/api-keys', { name: 'Сервер' }, u.accessToken)).body.data
    expect((await chat(g, key.key)).status).toBe(200)
    const listed = (await admin.api.get(`/api/admin/users?search=${encodeURIComponent(u.user.email)}`, admin.accessToken)).body.data[0]
    expect(listed).toMatchObject({ id: u.user.id, emailVerified: expect.any(Boolean), apiKeys: 1 })
    // the newest of the sign-in and the request
    expect(Date.now() - Date.parse(listed.lastActiveAt)).toBeLessThan(60_000)

    const page = await admin.api.get(`/api/admin/users/${u.user.id}`, admin.accessToken)
    expect(page.status).toBe(200)
    expect(page.body.data.user).toMatchObject({ id: u.user.id, email: u.user.email, lastActiveAt: listed.lastActiveAt })
    expect(page.body.data.keys).toEqual([expect.objectContaining({ id: key.id, name: 'Сервер', keyPrefix: key.keyPrefix, isActive: true })])
    expect(page.body.data.keys[0].key).toBeUndefined() // never the secret
    expect(page.body.data.requests).toEqual([expect.objectContaining({ model: 'openai/gpt-4o-mini', status: 'success', apiKeyName: 'Сервер' })])
    const usage = page.body.data.transactions.find((t: { type: string }) => t.type === 'usage')
    expect(Number(usage.amount)).toBeCloseTo(-page.body.data.requests[0].cost, 6)

    // a user who has done nothing since registering is active as of the sign-in
    const quiet = await registerUser(g.url)
    const quietRow = (await admin.api.get(`/api/admin/users?search=${encodeURIComponent(quiet.user.email)}`, admin.accessToken)).body.data[0]
    expect(quietRow.lastActiveAt).not.toBeNull()
    expect((await admin.api.get('/api/admin/users/nobody', admin.accessToken)).status).toBe(404)
    expect((await u.api.get(`/api/admin/users/${u.user.id}`, u.accessToken)).status).toBe(403)
  })

  test('a deduction below zero and bad amounts are refused with Russian messages, and nothing moves', async () => {
    const u = await registerUser(g.url)
    const adjust = (body: unknown) => admin.api.post(`/api/admin/users/${u.user.id}/balance`, body, admin.accessToken)
    const below = await adjust({ amount: -50.01, description: 'Admin adjustment' })
    expect(below.status).toBe(400)
    expect(below.body.error).toBe('Нельзя списать больше, чем есть на балансе: сейчас на нём 50,00 ₽')
    for (const [body, message] of [
      [{ amount: 0 }, 'Сумма не может быть нулевой'],
      [{ amount: 0.0000001 }, 'Сумма не может быть нулевой'],
      [{ amount: 'сто' }, 'Сумма должна быть числом'],
      [{ amount: null }, 'Сумма должна быть числом'],
      [{}, 'Сумма должна быть числом'],
      [{ amount: 1_000_000.01 }, 'Сумма корректировки — не больше 1 000 000 ₽ за раз'],
      [{ amount: 10, description: 'x'.repeat(201) }, 'Описание — не длиннее 200 символов'],
      [{ amount: 10, description: 42 }, 'Описание должно быть строкой'],
    ] as const) {
      const res = await adjust(body)
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: message })
    }
    const exact = await adjust({ amount: -50 })
    expect(exact.body.data.balance).toBe(0)
    const books = await g.books(u.user.id)
    expect(books.balance).toBe(0)
    expect(books.ledgerSum).toBe(0)
    expect((await admin.api.post('/api/admin/users/nobody/balance', { amount: 5 }, admin.accessToken)).status).toBe(404)
  })

  test('a deduction never takes held money: only the balance less what running requests hold, and the answer they pay for is charged in full', async () => {
    const u = await g.customer()
    const adjust = (amount: number) => admin.api.post(`/api/admin/users/${u.user.id}/balance`, { amount }, admin.accessToken)
    // A slow streamed answer holds its worst case for the seconds it runs.
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ model: 'openai/gpt-4', stream: true, max_tokens: 12, messages: [{ role: 'user', content: `${'слово '.repeat(800)}[[fault:slow]]` }] }),
    })
    expect(res.status).toBe(200)
    const { held, balance } = (await g.books(u.user.id)) as { held: number; balance: number }
    expect(held).toBeGreaterThan(1_000_000)
    const listed = (await admin.api.get(`/api/admin/users?search=${encodeURIComponent(u.user.email)}`, admin.accessToken)).body.data[0]
    expect(listed).toMatchObject({ balance: balance / 1e6, held: held / 1e6 })

    // The whole balance: refused, naming what is held and what may be taken.
    const all = await adjust(-balance / 1e6)
    expect(all.status).toBe(400)
    const rub = (micros: number) => `${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(micros / 1e6)} ₽`
    expect(all.body.error).toBe(
      `Нельзя списать больше, чем доступно: на балансе ${rub(balance)}, из них ${rub(held)} зарезервировано под выполняющиеся запросы — списать можно не больше ${rub(balance - held)}`,
    )
    // Everything available: taken, the hold untouched.
    const available = await adjust(-(balance - held) / 1e6)
    expect(available.status).toBe(200)
    expect(await g.books(u.user.id)).toMatchObject({ balance: held, held })

    // The answer ends and is charged from what was held; nothing is left uncovered.
    await res.text()
    const books = await g.books(u.user.id)
    expect(books.held).toBe(0)
    expect(books.usage).toHaveLength(1)
    expect(books.balance).toBe(held - books.usage[0]!.cost_micros)
    expect(books.ledgerSum).toBe(books.balance)
    expect(n(await g.read<{ n: number }>('select count(*) as n from uncovered_costs where user_id = ?', u.user.id))).toBe(0)
  })

  test('deleting a user ends access at once (access token, refresh token, API key, password) and keeps ledger and usage rows, anonymised', async () => {
    const email = uniqueEmail('gone')
    const u = await g.customer(email)
    expect((await chat(g, u.key)).status).toBe(200)
    const ledgerBefore = n(await g.read<{ n: number }>('select count(*) as n from ledger_entries where user_id = ?', u.user.id))

    const res = await del(g.url, `/api/admin/users/${u.user.id}`, admin.accessToken)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: true, data: { id: u.user.id, deleted: true } })

    expect((await u.api.get('/api/auth/profile', u.accessToken)).status).toBe(401)
    expect((await u.api.get('/api/billing/balance', u.accessToken)).status).toBe(401)
    expect((await u.api.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
    expect((await chat(g, u.key)).status).toBe(401)
    const login = await client(g.url).post('/api/auth/login', { email, password: u.password })
    expect([login.status, login.body.error]).toEqual([401, 'Неверный email или пароль'])

    const [row] = await g.read<{ email: string; deleted_at: number | null; password_hash: string }>('select email, deleted_at, password_hash from users where id = ?', u.user.id)
    expect(row!.email).toBe(`deleted-${u.user.id}@deleted.invalid`)
    expect(row!.deleted_at).toBeNumber()
    expect(row!.password_hash.startsWith('$argon2')).toBe(false)
    expect(n(await g.read<{ n: number }>('select count(*) as n from ledger_entries where user_id = ?', u.user.id))).toBe(ledgerBefore)
    expect((await g.books(u.user.id)).usage).toHaveLength(1)
    expect(n(await g.read<{ n: number }>('select count(*) as n from api_keys where user_id = ?', u.user.id))).toBe(0)

    const list = await admin.api.get(`/api/admin/users?search=${encodeURIComponent(email)}`, admin.accessToken)
    expect(list.body.pagination.total).toBe(0)
    expect((await del(g.url, `/api/admin/users/${u.user.id}`, admin.accessToken)).status).toBe(404)
    expect((await admin.api.post(`/api/admin/users/${u.user.id}/balance`, { amount: 5 }, admin.accessToken)).status).toBe(404)
    // The address is free again: the person may come back as a new customer.
    expect((await client(g.url).post('/api/auth/register', { email, password: 'another-pass-1' })).status).toBe(201)
  })

  test('an admin cannot delete themself', async () => {
    const res = await del(g.url, `/api/admin/users/${admin.user.id}`, admin.accessToken)
    expect([res.status, res.body.error]).toEqual([400, 'Нельзя удалить собственный аккаунт'])
    expect((await admin.api.get('/api/auth/profile', admin.accessToken)).status).toBe(200)
  })
})

describe('admin stats', () => {
  test('match the seeded data: users, finance from the usage ledger, usage, blog, and the upstream key', async () => {
    const g = await startGateway({ ADMIN_EMAILS: ADMIN })
    try {
      const admin = await registerUser(g.url, ADMIN)
      const a = await g.customer()
      const b = await g.customer()
      for (const key of [a.key, a.key, b.key]) expect((await chat(g, key, 'Расскажи о себе')).status).toBe(200)
      await admin.api.post(`/api/admin/users/${b.user.id}/balance`, { amount: 1000, description: 'Admin adjustment' }, admin.accessToken)

      // Seeded straight into the database: an old account, two published articles and a draft.
      const { db, close } = serverDatabase(g.server)
      await write(db, (q) =>
        q
          .update(users)
          .set({ createdAt: new Date(Date.now() - 10 * 86_400_000) })
          .where(eq(users.id, b.user.id)),
      )
      await seedBlogPost(db, { title: 'Первая' })
      await seedBlogPost(db, { title: 'Вторая' })
      await seedBlogPost(db, { title: 'Черновик', publishedAt: null })
      await close()

      const res = await admin.api.get('/api/admin/stats', admin.accessToken)
      expect(res.status).toBe(200)
      const s = res.body.data
      const usage = await g.read<{ cost: number; upstream: string; tokens: number }>(
        'select cost_micros as cost, upstream_cost_usd as upstream, total_tokens as tokens from usage_logs',
      )
      expect(usage).toHaveLength(3)
      const revenueMicros = usage.reduce((n, r) => n + r.cost, 0)
      const upstreamUsd = usage.reduce((n, r) => n + Number(r.upstream), 0)
      expect(revenueMicros).toBe(usage.reduce((n, r) => n + expectedCharge(Number(r.upstream)), 0))
      const balances = (await Promise.all([admin, a, b].map((u) => g.books(u.user.id)))).reduce((sum, books) => sum + books.balance, 0)
      const ledgerRows = n(await g.read<{ n: number }>('select count(*) as n from ledger_entries'))

      expect(s.users).toEqual({ total: 3, newWeek: 2, newToday: 2 })
      expect(ledgerRows).toBe(3 + 3 + 1) // welcome bonuses, three charges, one adjustment
      expect(s.finance.totalTransactions).toBe(ledgerRows)
      expect(s.finance.totalBalance).toBe(balances / 1e6)
      expect(s.finance.totalRevenue).toBe(revenueMicros / 1e6)
      expect(s.finance.openrouterCost).toBeCloseTo(upstreamUsd, 6)
      expect(s.finance.usdRubRate).toBe(Number(TEST_RATE))
      expect(s.finance.totalMargin).toBeCloseTo(revenueMicros / 1e6 / Number(TEST_RATE) - upstreamUsd, 6)
      expect(s.finance.totalMargin).toBeGreaterThan(0) // the 30 % markup
      expect(s.usage).toEqual({ totalApiKeys: 2, totalRequests: 3, totalTokens: usage.reduce((n, r) => n + r.tokens, 0), totalAudioSeconds: 0, totalCharacters: 0 })
      expect(s.blog).toEqual({ total: 3, published: 2 })
      // The fake upstream's key has no cap: the spec's unlimited pay-as-you-go mode.
      expect(s.openrouter).toEqual({ mode: 'openrouter', usage: expect.any(Number), limit: null, remaining: null, unlimited: true, error: null })
      expect(s.openrouter.usage).toBeCloseTo(g.upstream.keyUsageUsd(), 6)
    } finally {
      await g.stop()
    }
  })
})
