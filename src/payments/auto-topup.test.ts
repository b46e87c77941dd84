// Auto top-up (issue 37) against the fake YooKassa over HTTP and the real app with the fake upstream:
// spending that takes the available balance below the threshold charges the saved card once — also
// when 20 requests settle at once, and (PostgreSQL) when they settle on two instances — credited once,
// within the daily limit; a card_expired refusal turns it off, an insufficient_funds one is retried;
// the owner gets a letter either way; owners, admins and billing members manage a team's.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { onPostgres } from '../db/dialect'
import { freshDatabaseUrl } from '../test-support/database'
import { closeReader, databaseReader, type Reader } from '../test-support/db-reader'
import { eventually, TEST_RATE, UPSTREAM_KEY } from '../test-support/gateway'
import { SHOP_ID, SHOP_SECRET, startPayments } from '../test-support/payments'
import { freshIp, registerUser, startServer, type TestServer } from '../test-support/server'
import { call, outboxLetters, teamsOn } from '../test-support/teams'
import { startFakeUpstream } from '../upstream/demo'
import { autoPaymentId } from './auto-topup'
import { startFakeYooKassa } from './fake'

const ADMIN = 'auto-admin@example.ru'
let env: Awaited<ReturnType<typeof startPayments>>
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  env = await startPayments({ ADMIN_EMAILS: ADMIN, AUTO_TOPUP_RETRY_SEC: '1' })
  admin = await registerUser(env.url, ADMIN)
})
afterAll(() => env.stop())

type Customer = Awaited<ReturnType<typeof env.customer>>

const chat = (base: string, key: string) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'привет' }], max_tokens: 16 }),
  }).then(async (r) => {
    await r.text()
    return r.status
  })

/** Pays a top-up with «save the card» (the fake's card ends 4444) and answers the saved method's id. */
async function saveCard(base: string, yk: typeof env.yookassa, webhook: string, who: { accessToken: string }, team?: string, amount = 100) {
  const created = await call(base, 'POST', '/api/payments/create', { token: who.accessToken, body: { amount, savePaymentMethod: true }, team })
  expect(created.status).toBe(200)
  const [row] = await databaseReaderFor(base)<{ provider_payment_id: string }>('select provider_payment_id from payments where id = ?', created.body.data.id)
  yk.pay(row!.provider_payment_id)
  await yk.notify(webhook, 'payment.succeeded', yk.get(row!.provider_payment_id)!)
  const methods = await eventually(async () => {
    const list = await call(base, 'GET', '/api/payments/methods', { token: who.accessToken, team })
    return list.body.data?.length ? list.body.data : null
  })
  return methods[0].id as string
}

const readers = new Map<string, Reader>()
const databaseReaderFor = (base: string) => readers.get(base) ?? env.read

/** The account's balance set to exactly `rub` by the admin (a ledger row). */
async function setBalance(userId: string, rub: number) {
  const { balance } = await env.books(userId)
  const res = await admin.api.post(`/api/admin/users/${userId}/balance`, { amount: rub - balance / 1e6, description: 'test balance' }, admin.accessToken)
  expect(res.status).toBe(200)
}

const put = (who: { accessToken: string }, body: unknown, team?: string, base = env.url) => call(base, 'PUT', '/api/billing/auto-topup', { token: who.accessToken, body, team })
const get = (who: { accessToken: string }, team?: string, base = env.url) => call(base, 'GET', '/api/billing/auto-topup', { token: who.accessToken, team })

type AutoRow = { id: string; status: string; amount_micros: number; cancellation_reason: string | null; payment_method_id: string; method: string }
/** `auto` is a boolean on PostgreSQL, an integer on SQLite. */
const TRUE = onPostgres ? 'true' : '1'
const autoPayments = (userId: string) =>
  env.read<AutoRow>(
    `select id, status, amount_micros, cancellation_reason, payment_method_id, method from payments where user_id = ? and auto = ${TRUE} order by created_at`,
    userId,
  )
const chargesOf = (methodProviderId: string) =>
  env.yookassa.log.filter((l) => l.method === 'POST' && (l.body as { payment_method_id?: string })?.payment_method_id === methodProviderId)

async function providerMethodId(methodId: string) {
  const [row] = await env.read<{ provider_method_id: string }>('select provider_method_id from payment_methods where id = ?', methodId)
  return row!.provider_method_id
}

/** A customer with an API key, a saved card and exactly `rub` on the balance. */
async function customerWithCard(rub: number): Promise<Customer & { methodId: string }> {
  const c = await env.customer()
  const methodId = await saveCard(env.url, env.yookassa, env.webhookUrl, c)
  await setBalance(c.user.id, rub)
  return { ...c, methodId }
}

describe('auto top-up', () => {
  test('20 concurrent requests cross the threshold: one charge of the saved card, no confirmation, a receipt, a derived Idempotence-Key; credited once', async () => {
    const c = await customerWithCard(20)
    // The threshold is the balance itself: the first settled charge crosses it.
    const on = await put(c, { enabled: true, thresholdRub: 20, amountRub: 500, paymentMethodId: c.methodId, dailyLimitRub: 5000 })
    expect(on.status).toBe(200)
    expect(on.body.data).toMatchObject({ enabled: true, thresholdRub: 20, amountRub: 500, dailyLimitRub: 5000, paymentMethodId: c.methodId, disabledReason: null })
    const statuses = await Promise.all(Array.from({ length: 20 }, () => chat(env.url, c.key)))
    expect(statuses.every((s) => s === 200)).toBe(true)
    await eventually(async () => (await autoPayments(c.user.id)).some((p) => p.status === 'succeeded'))
    // The sweeps of the next seconds find the balance above the threshold: nothing more.
    await Bun.sleep(2500)
    const auto = await autoPayments(c.user.id)
    expect(auto).toHaveLength(1)
    expect(auto[0]).toMatchObject({ status: 'succeeded', amount_micros: 500_000_000, method: 'saved', payment_method_id: c.methodId })
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow' }).format(new Date())
    expect(auto[0]!.id).toBe(autoPaymentId(`user:${c.user.id}`, today, 1))

    const sent = chargesOf(await providerMethodId(c.methodId))
    expect(sent).toHaveLength(1)
    expect(sent[0]!.idempotenceKey).toBe(auto[0]!.id)
    const body = sent[0]!.body as any
    expect(body).toMatchObject({
      amount: { value: '500.00', currency: 'RUB' },
      capture: true,
      metadata: { payment_id: auto[0]!.id, user_id: c.user.id },
      receipt: {
        customer: { email: c.email },
        items: [{ amount: { value: '500.00', currency: 'RUB' }, vat_code: 1, payment_subject: 'service', payment_mode: 'full_prepayment' }],
      },
    })
    expect(body.confirmation).toBeUndefined()
    expect(body.description).toStartWith('Автопополнение баланса на 500')

    const books = await env.books(c.user.id)
    expect(books.ledgerSum).toBe(books.balance)
    const topups = await env.read<{ description: string; reference: string }>(
      "select description, reference from ledger_entries where user_id = ? and type = 'topup' and reference = ?",
      c.user.id,
      `payment:${auto[0]!.id}`,
    )
    expect(topups).toEqual([{ description: 'Автопополнение с сохранённой карты', reference: `payment:${auto[0]!.id}` }])
    // The charge of the saved card keeps no second copy of it.
    expect((await call(env.url, 'GET', '/api/payments/methods', { token: c.accessToken })).body.data).toHaveLength(1)
    const state = await get(c)
    expect(state.body.data).toMatchObject({ enabled: true, chargedTodayRub: 500, failuresToday: 0, pendingPaymentId: null })
    const list = await c.api.get('/api/payments/list', c.accessToken)
    expect(list.body.data[0]).toMatchObject({ id: auto[0]!.id, auto: true, method: 'saved', status: 'succeeded' })
    await eventually(() => outboxLetters(env.server.dataDir, c.email).some((l) => l.subject === 'Баланс пополнен автоматически на 500,00 ₽ — AI Gateway'))
  })

  test('the daily limit: 100 ₽ at a time under a 250 ₽ limit charges twice, then waits for the next Moscow day', async () => {
    const c = await customerWithCard(5)
    const on = await put(c, { enabled: true, thresholdRub: 1000, amountRub: 100, paymentMethodId: c.methodId, dailyLimitRub: 250 })
    expect(on.status).toBe(200)
    await eventually(async () => (await autoPayments(c.user.id)).filter((p) => p.status === 'succeeded').length === 2)
    await Bun.sleep(2500) // sweeps every second: the balance is still below 1000 ₽, the limit holds
    const auto = await autoPayments(c.user.id)
    expect(auto.map((p) => p.status)).toEqual(['succeeded', 'succeeded'])
    expect((await env.books(c.user.id)).balance).toBe(205_000_000)
    expect((await get(c)).body.data).toMatchObject({ enabled: true, chargedTodayRub: 200, pendingPaymentId: null })
  })

  test('card_expired turns it off: the reason in Russian, the dead card forgotten, nothing credited, a letter', async () => {
    const c = await customerWithCard(5)
    env.yookassa.savedCharges.push({ cancel: 'card_expired' })
    expect((await put(c, { enabled: true, thresholdRub: 10, amountRub: 300, paymentMethodId: c.methodId, dailyLimitRub: 1000 })).status).toBe(200)
    const state = await eventually(async () => {
      const s = await get(c)
      return s.body.data.enabled === false ? s.body.data : null
    })
    expect(state).toMatchObject({ enabled: false, disabledReason: 'Истёк срок действия карты', chargedTodayRub: 0, pendingPaymentId: null })
    const auto = await autoPayments(c.user.id)
    expect(auto).toHaveLength(1)
    expect(auto[0]).toMatchObject({ status: 'canceled', cancellation_reason: 'card_expired' })
    expect((await env.books(c.user.id)).balance).toBe(5_000_000)
    expect((await call(env.url, 'GET', '/api/payments/methods', { token: c.accessToken })).body.data).toEqual([])
    const letter = await eventually(() => outboxLetters(env.server.dataDir, c.email).find((l) => l.subject === 'Автопополнение отключено — AI Gateway'))
    expect(letter.text).toContain('Истёк срок действия карты')
    expect(letter.text).toContain('удалили её из сохранённых')
    await Bun.sleep(1500)
    expect(await autoPayments(c.user.id)).toHaveLength(1) // never tried again
    const list = await c.api.get('/api/payments/list', c.accessToken)
    expect(list.body.data[0]).toMatchObject({ auto: true, status: 'canceled', cancelReason: 'Истёк срок действия карты' })
  })

  test('insufficient_funds is retried later with a new attempt (a new Idempotence-Key); the next one is credited', async () => {
    const c = await customerWithCard(5)
    env.yookassa.savedCharges.push({ cancel: 'insufficient_funds' })
    expect((await put(c, { enabled: true, thresholdRub: 10, amountRub: 300, paymentMethodId: c.methodId, dailyLimitRub: 1000 })).status).toBe(200)
    const letter = await eventually(() => outboxLetters(env.server.dataDir, c.email).find((l) => l.subject === 'Не удалось пополнить баланс автоматически — AI Gateway'))
    expect(letter.text).toContain('Недостаточно средств на карте')
    expect(letter.text).toContain('следующая попытка')
    // AUTO_TOPUP_RETRY_SEC=1: the sweep tries again a second later.
    await eventually(async () => (await autoPayments(c.user.id)).some((p) => p.status === 'succeeded'))
    const auto = await autoPayments(c.user.id)
    expect(auto.map((p) => [p.status, p.cancellation_reason])).toEqual([
      ['canceled', 'insufficient_funds'],
      ['succeeded', null],
    ])
    const keys = chargesOf(await providerMethodId(c.methodId)).map((l) => l.idempotenceKey)
    expect(new Set(keys).size).toBe(2)
    expect((await env.books(c.user.id)).balance).toBe(305_000_000)
    expect((await get(c)).body.data).toMatchObject({ enabled: true, failuresToday: 1, chargedTodayRub: 300, disabledReason: null })
  })

  test('three refusals in a day: no fourth try until the next Moscow day', async () => {
    const c = await customerWithCard(5)
    env.yookassa.savedCharges.push({ cancel: 'insufficient_funds' }, { cancel: 'issuer_unavailable' }, { cancel: 'insufficient_funds' })
    expect((await put(c, { enabled: true, thresholdRub: 10, amountRub: 300, paymentMethodId: c.methodId, dailyLimitRub: 1000 })).status).toBe(200)
    await eventually(async () => (await autoPayments(c.user.id)).length === 3)
    await Bun.sleep(2500)
    expect((await autoPayments(c.user.id)).map((p) => p.status)).toEqual(['canceled', 'canceled', 'canceled'])
    const state = (await get(c)).body.data
    expect(state).toMatchObject({ enabled: true, failuresToday: 3, chargedTodayRub: 0 })
    // The next try is at the start of the next Moscow day (or later).
    const msk = new Date(Date.now() + 3 * 3600_000)
    const nextMidnight = Date.UTC(msk.getUTCFullYear(), msk.getUTCMonth(), msk.getUTCDate() + 1) - 3 * 3600_000
    expect(Date.parse(state.retryAfter)).toBeGreaterThanOrEqual(nextMidnight)
  })

  test('a charge left pending by the bank (a receipt-first shop) holds the account until it succeeds: still one payment', async () => {
    const c = await customerWithCard(5)
    env.yookassa.savedCharges.push('pending')
    expect((await put(c, { enabled: true, thresholdRub: 10, amountRub: 200, paymentMethodId: c.methodId, dailyLimitRub: 1000 })).status).toBe(200)
    const [pending] = await eventually(async () => {
      const rows = await autoPayments(c.user.id)
      return rows.length ? rows : null
    })
    expect(pending!.status).toBe('pending')
    await Bun.sleep(1500)
    expect(await autoPayments(c.user.id)).toHaveLength(1)
    expect((await get(c)).body.data.pendingPaymentId).toBe(pending!.id)
    const [row] = await env.read<{ provider_payment_id: string }>('select provider_payment_id from payments where id = ?', pending!.id)
    env.yookassa.pay(row!.provider_payment_id)
    await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', env.yookassa.get(row!.provider_payment_id)!)
    await eventually(async () => (await env.books(c.user.id)).balance === 205_000_000)
    expect((await get(c)).body.data.pendingPaymentId).toBeNull()
  })

  test('YooKassa answering 500 until the client gives up: the charge stays pending, reconciliation asks again with the same key — one payment, credited once', async () => {
    const c = await customerWithCard(5)
    const method = await providerMethodId(c.methodId)
    Object.assign(env.yookassa.faults, { createFailures: 4, failAfterCreate: false })
    try {
      expect((await put(c, { enabled: true, thresholdRub: 10, amountRub: 250, paymentMethodId: c.methodId, dailyLimitRub: 1000 })).status).toBe(200)
      await eventually(async () => (await env.books(c.user.id)).balance === 255_000_000, 20_000)
    } finally {
      env.yookassa.faults.createFailures = 0
    }
    const auto = await autoPayments(c.user.id)
    expect(auto.map((p) => p.status)).toEqual(['succeeded'])
    const sent = chargesOf(method)
    expect(sent.length).toBeGreaterThanOrEqual(5) // four 500s, then the repeat that created it
    expect(new Set(sent.map((l) => l.idempotenceKey))).toEqual(new Set([auto[0]!.id]))
    expect([...env.yookassa.payments.values()].filter((p) => p.metadata?.payment_id === auto[0]!.id)).toHaveLength(1)
  }, 30_000)

  test('settings: Russian 400s for bad values, never 500; off by default; turning it off keeps the settings', async () => {
    const u = await registerUser(env.url)
    expect((await get(u)).body.data).toEqual({
      enabled: false,
      thresholdRub: 100,
      amountRub: 1000,
      dailyLimitRub: 3000,
      paymentMethodId: null,
      disabledReason: null,
      chargedTodayRub: 0,
      failuresToday: 0,
      retryAfter: null,
      pendingPaymentId: null,
    })
    const cases: Array<[unknown, string]> = [
      [{ enabled: true }, 'Чтобы включить автопополнение, выберите сохранённую карту'],
      [{ enabled: true, paymentMethodId: 'nope' }, 'Выберите сохранённую карту этого счёта'],
      [{ enabled: false, paymentMethodId: 42 }, 'Выберите сохранённую карту этого счёта'],
      [{ enabled: false, thresholdRub: 0 }, 'Порог — число от 1 до 1 000 000 ₽, до копейки'],
      [{ enabled: false, thresholdRub: 'много' }, 'Порог — число от 1 до 1 000 000 ₽, до копейки'],
      [{ enabled: false, amountRub: 99 }, 'Сумма автопополнения — от 100 до 1 000 000 ₽, до копейки'],
      [{ enabled: false, amountRub: 100.001 }, 'Сумма автопополнения — от 100 до 1 000 000 ₽, до копейки'],
      [{ enabled: false, amountRub: 500, dailyLimitRub: 400 }, 'Дневной лимит — не меньше суммы автопополнения и не больше 10 000 000 ₽'],
      [{ enabled: 'yes' }, 'enabled — true или false'],
    ]
    for (const [body, message] of cases) {
      const res = await put(u, body)
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: message })
    }
    expect((await call(env.url, 'PUT', '/api/billing/auto-topup', { token: u.accessToken, raw: '{oops' })).status).toBe(400)
    expect((await call(env.url, 'PUT', '/api/billing/auto-topup', { body: { enabled: false } })).status).toBe(401)
    // Someone else's card cannot be chosen.
    const other = await customerWithCard(100)
    expect((await put(u, { enabled: true, paymentMethodId: other.methodId })).body.error).toBe('Выберите сохранённую карту этого счёта')

    const on = await put(other, { enabled: true, thresholdRub: 50, amountRub: 700, paymentMethodId: other.methodId, dailyLimitRub: 2100 })
    expect(on.body.data).toMatchObject({ enabled: true, thresholdRub: 50, amountRub: 700, dailyLimitRub: 2100 })
    const off = await put(other, { enabled: false })
    expect(off.body.data).toMatchObject({ enabled: false, thresholdRub: 50, amountRub: 700, dailyLimitRub: 2100, paymentMethodId: other.methodId, disabledReason: null })
  })

  test('a team’s: owners, admins and billing members manage it, a member gets 403; the audit log records it; the team is charged and credited', async () => {
    const teams = teamsOn(env.url, env.server.dataDir)
    const { team, owner, admin: teamAdmin, billing, member } = await teams.withRoles('Автопополнение')
    const methodId = await saveCard(env.url, env.yookassa, env.webhookUrl, billing, team.id, 200)
    for (const who of [owner, teamAdmin, billing]) expect((await get(who, team.id)).status).toBe(200)
    const refused = await put(member, { enabled: false }, team.id)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toStartWith('Недостаточно прав')
    expect((await get(member, team.id)).status).toBe(403)

    const key = await teams.key(owner, team.id, 'команда')
    const balance = (await call(env.url, 'GET', '/api/billing/balance', { token: owner.accessToken, team: team.id })).body.data.balance as number
    expect((await put(billing, { enabled: true, thresholdRub: balance, amountRub: 400, paymentMethodId: methodId, dailyLimitRub: 800 }, team.id)).status).toBe(200)
    expect(await chat(env.url, key.key)).toBe(200)
    const credited = await eventually(async () => {
      const rows = await env.read<{ id: string; status: string; user_id: string }>(
        `select id, status, user_id from payments where team_id = ? and auto = ${TRUE} and status = ?`,
        team.id,
        'succeeded',
      )
      return rows.length ? rows : null
    })
    expect(credited).toHaveLength(1)
    expect(credited[0]!.user_id).toBe(billing.user.id) // the card's holder pays
    const after = (await call(env.url, 'GET', '/api/billing/balance', { token: owner.accessToken, team: team.id })).body.data.balance as number
    expect(after).toBeGreaterThan(balance + 399)
    const audit = await call(env.url, 'GET', `/api/teams/${team.id}/audit`, { token: owner.accessToken })
    expect(audit.status).toBe(200)
    const actions = (audit.body.data as Array<{ action: string }>).map((e) => e.action)
    expect(actions).toContain('autotopup.enabled')
    expect(actions).toContain('payment_method.saved')
    await eventually(() => outboxLetters(env.server.dataDir, owner.email).some((l) => l.subject.startsWith('Баланс пополнен автоматически')))
  })
})

describe.skipIf(!onPostgres)('two instances on one PostgreSQL database', () => {
  let servers: TestServer[] = []
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
  let yk: ReturnType<typeof startFakeYooKassa>
  let read: Reader
  let databaseUrl: string
  beforeAll(async () => {
    databaseUrl = await freshDatabaseUrl()
    read = databaseReader(databaseUrl)
    upstream = await startFakeUpstream({ tokenDelayMs: 1, apiKey: UPSTREAM_KEY })
    yk = startFakeYooKassa({ shopId: SHOP_ID, secretKey: SHOP_SECRET })
    const common = {
      DATABASE_URL: databaseUrl,
      OPENROUTER_API_KEY: UPSTREAM_KEY,
      OPENROUTER_BASE_URL: upstream.url,
      USD_RUB_RATE: TEST_RATE,
      YOOKASSA_SHOP_ID: SHOP_ID,
      YOOKASSA_SECRET_KEY: SHOP_SECRET,
      YOOKASSA_API_URL: yk.url,
      PAYMENT_RECONCILE_CRON: '* * * * * *',
    }
    servers = await Promise.all([1, 2].map((n) => startServer({ ...common, INSTANCE_ID: `auto-${n}` })))
    for (const s of servers) readers.set(s.url, read)
  }, 60_000)
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await upstream?.stop()
    yk?.stop()
    if (databaseUrl) await closeReader(databaseUrl)
  })

  test('20 concurrent requests split across both instances cross the threshold: exactly one charge, credited once', async () => {
    const [a, b] = servers as [TestServer, TestServer]
    const u = await registerUser(a.url)
    const key = (await u.api.post('/api/auth/api-keys', { name: 'два' }, u.accessToken)).body.data.key as string
    const methodId = await saveCard(a.url, yk, `${a.url}/api/payments/webhook`, u)
    const [{ balance_micros: start }] = (await read<{ balance_micros: number }>('select balance_micros from users where id = ?', u.user.id)) as [{ balance_micros: number }]
    const on = await put(u, { enabled: true, thresholdRub: start / 1e6, amountRub: 500, paymentMethodId: methodId, dailyLimitRub: 5000 }, undefined, b.url)
    expect(on.status).toBe(200)
    // Instance a learns of b's change on its next tick (every second here).
    await Bun.sleep(1500)
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(servers[i % 2]!.url, key)))
    expect(statuses.every((s) => s === 200)).toBe(true)
    const rows = () => read<{ id: string; status: string }>(`select id, status from payments where user_id = ? and auto = ${TRUE}`, u.user.id)
    await eventually(async () => (await rows()).some((r) => r.status === 'succeeded'))
    await Bun.sleep(2500)
    expect((await rows()).map((r) => r.status)).toEqual(['succeeded'])
    const [provider] = await read<{ provider_method_id: string }>('select provider_method_id from payment_methods where id = ?', methodId)
    const charges = yk.log.filter((l) => l.method === 'POST' && (l.body as { payment_method_id?: string })?.payment_method_id === provider!.provider_method_id)
    expect(new Set(charges.map((l) => l.idempotenceKey)).size).toBe(1)
    const [ledger] = await read<{ n: number }>(
      "select count(*) as n from ledger_entries where user_id = ? and type = 'topup' and description = 'Автопополнение с сохранённой карты'",
      u.user.id,
    )
    expect(Number(ledger!.n)).toBe(1)
    const [books] = await read<{ balance_micros: number; s: number }>(
      'select u.balance_micros, (select coalesce(sum(amount_micros), 0) from ledger_entries where user_id = u.id) as s from users u where u.id = ?',
      u.user.id,
    )
    expect(books!.s).toBe(books!.balance_micros)
  })
})
