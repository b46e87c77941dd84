// Card top-ups against a fake YooKassa speaking the real API over HTTP, and the real app.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eventually } from '../test-support/gateway'
import { SHOP_ID, startPayments } from '../test-support/payments'
import { client, registerUser, startServer, type TestServer } from '../test-support/server'
import { inRange, isYooKassaAddress } from './ip-ranges'
import { valueToMicros } from './service'

let env: Awaited<ReturnType<typeof startPayments>>

beforeAll(async () => {
  env = await startPayments({ ADMIN_EMAILS: 'refund-admin@example.ru' })
})
afterAll(() => env.stop())

async function topUpCreated(amount = 500) {
  const u = await registerUser(env.url)
  const res = await u.api.post('/api/payments/create', { amount, returnUrl: `${env.url}/app/billing` }, u.accessToken)
  expect(res.status).toBe(200)
  const payment = res.body.data as { id: string; confirmationUrl: string; status: string; amount: number }
  return { u, payment, providerId: await env.providerIdOf(payment.id) }
}

const balanceOf = async (userId: string) => await env.books(userId)
/** The status column of one payment, read from the server's database. */
const statusOf = async (where: 'id' | 'provider_payment_id', value: string) =>
  (await env.read<{ status: string }>(`select status from payments where ${where} = ?`, value))[0]!.status

describe('creating a payment', () => {
  test('sends YooKassa a one-stage redirect payment with metadata, a 54-FZ receipt and our id as the Idempotence-Key', async () => {
    const { u, payment, providerId } = await topUpCreated(1234.5)
    expect(payment).toMatchObject({ status: 'pending', amount: 1234.5 })
    expect(payment.confirmationUrl).toBe(env.yookassa.get(providerId)!.confirmation!.confirmation_url!)

    const sent = env.yookassa.log.filter((l) => l.method === 'POST' && l.idempotenceKey === payment.id)
    expect(sent).toHaveLength(1)
    const body = sent[0]!.body as any
    expect(body).toMatchObject({
      amount: { value: '1234.50', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', locale: 'ru_RU' },
      metadata: { payment_id: payment.id, user_id: u.user.id },
      receipt: {
        customer: { email: u.email },
        items: [
          { description: 'Пополнение баланса', quantity: '1.00', amount: { value: '1234.50', currency: 'RUB' }, payment_subject: 'service', payment_mode: 'full_prepayment' },
        ],
      },
    })
    expect(body.description.length).toBeLessThanOrEqual(128)
    // The customer comes back to our billing page, which knows which payment to show.
    expect(body.confirmation.return_url).toBe(`${env.url}/app/billing?payment=${payment.id}`)

    const list = await u.api.get('/api/payments/list?limit=20', u.accessToken)
    expect(list.body.data).toEqual([expect.objectContaining({ id: payment.id, amount: 1234.5, status: 'pending', paidAt: null, cancelReason: null, test: false })])
  })

  test.each([
    [99.99, 'Минимальная сумма пополнения: 100 RUB'],
    [0, 'Минимальная сумма пополнения: 100 RUB'],
    [-500, 'Минимальная сумма пополнения: 100 RUB'],
    ['500', 'Минимальная сумма пополнения: 100 RUB'],
    [null, 'Минимальная сумма пополнения: 100 RUB'],
    [1_000_000.01, 'Максимальная сумма пополнения: 1,000,000 RUB'],
    [100.005, 'Сумма указывается в рублях с точностью до копейки'],
  ])('amount %p → 400 "%s", nothing sent to the provider', async (amount, message) => {
    const u = await registerUser(env.url)
    const posts = () => env.yookassa.log.filter((l) => l.method === 'POST').length // reconciliation GETs run meanwhile
    const before = posts()
    const res = await u.api.post('/api/payments/create', { amount, returnUrl: '/app/billing' }, u.accessToken)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ success: false, error: message })
    expect(posts()).toBe(before)
  })

  test('the limits themselves are allowed: 100 and 1 000 000', async () => {
    const u = await registerUser(env.url)
    for (const amount of [100, 1_000_000]) {
      const res = await u.api.post('/api/payments/create', { amount }, u.accessToken)
      expect(res.status).toBe(200)
      expect(res.body.data.amount).toBe(amount)
    }
  })

  test('a return URL on another site is refused (no open redirect through our payments)', async () => {
    const u = await registerUser(env.url)
    const res = await u.api.post('/api/payments/create', { amount: 500, returnUrl: 'https://evil.example/steal' }, u.accessToken)
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('Адрес возврата должен вести на этот сайт')
  })

  test('a 500 from YooKassa is repeated with the same Idempotence-Key: one payment exists', async () => {
    const u = await registerUser(env.url)
    const before = env.yookassa.payments.size
    Object.assign(env.yookassa.faults, { createFailures: 1, failAfterCreate: true })
    const res = await u.api.post('/api/payments/create', { amount: 700 }, u.accessToken)
    expect(res.status).toBe(200)
    expect(env.yookassa.payments.size).toBe(before + 1)
    const attempts = env.yookassa.log.filter((l) => l.idempotenceKey === res.body.data.id)
    expect(attempts).toHaveLength(2)
  })

  test('when YooKassa keeps failing the customer gets 502 "Ошибка создания платежа" and the row is closed', async () => {
    const u = await registerUser(env.url)
    Object.assign(env.yookassa.faults, { createFailures: 10, failAfterCreate: false })
    try {
      const res = await u.api.post('/api/payments/create', { amount: 300 }, u.accessToken)
      expect(res.status).toBe(502)
      expect(res.body.error).toBe('Ошибка создания платежа')
    } finally {
      env.yookassa.faults.createFailures = 0
    }
    const list = await u.api.get('/api/payments/list', u.accessToken)
    expect(list.body.data[0]).toMatchObject({ status: 'canceled', cancelReason: 'Платёж не был создан' })
  }, 15_000)

  test('payments need a session; others’ payments are 404', async () => {
    const anon = client(env.url)
    expect((await anon.post('/api/payments/create', { amount: 500 })).status).toBe(401)
    expect((await anon.get('/api/payments/list')).status).toBe(401)
    const { payment } = await topUpCreated()
    const other = await registerUser(env.url)
    const res = await other.api.get(`/api/payments/${payment.id}`, other.accessToken)
    expect(res.status).toBe(404)
    expect(res.body.error).toBe('Платёж не найден')
  })
})

describe('webhook', () => {
  test('a paid payment credits once under 20 duplicate and concurrent notifications; the ledger sums to the balance', async () => {
    const { u, payment, providerId } = await topUpCreated(500)
    env.yookassa.pay(providerId)
    const object = env.yookassa.get(providerId)!
    const statuses = await Promise.all(Array.from({ length: 20 }, () => env.yookassa.notify(env.webhookUrl, 'payment.succeeded', object)))
    expect(statuses.every((s) => s === 200)).toBe(true)
    await eventually(async () => (await balanceOf(u.user.id)).balance === 550_000_000)
    // Redeliveries later, and a "canceled" after "succeeded", change nothing.
    await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', object)
    await env.yookassa.notify(env.webhookUrl, 'payment.canceled', { ...object, status: 'canceled' })
    await Bun.sleep(300)
    const books = await balanceOf(u.user.id)
    expect(books.balance).toBe(550_000_000)
    expect(books.ledgerSum).toBe(books.balance)
    const topups = await env.read<{ n: number | string }>("select count(*) as n from ledger_entries where user_id = ? and type = 'topup'", u.user.id)
    expect(Number(topups[0]!.n)).toBe(1)

    const got = await u.api.get(`/api/payments/${payment.id}`, u.accessToken)
    expect(got.body.data).toMatchObject({ status: 'succeeded', amount: 500, cancelReason: null })
    expect(got.body.data.paidAt).toBeString()
    const tx = await u.api.get('/api/billing/transactions?limit=50', u.accessToken)
    expect(tx.body.data[0]).toMatchObject({ type: 'topup', amount: '+500.00', balanceAfter: 550 })
  })

  test('a forged notification for an unpaid payment credits nothing: the body’s "succeeded" is not believed', async () => {
    const { u, providerId } = await topUpCreated(500)
    const forged = { ...env.yookassa.get(providerId)!, status: 'succeeded' as const, paid: true }
    expect(await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', forged)).toBe(200)
    await Bun.sleep(500)
    expect((await balanceOf(u.user.id)).balance).toBe(50_000_000)
    expect(await statusOf('provider_payment_id', providerId)).toBe('pending')
  })

  test('a notification for an unknown payment is answered 200 and ignored, without asking the provider', async () => {
    const unknownId = '2ffffff0-000f-5000-8000-000000000000'
    const status = await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', {
      id: unknownId,
      status: 'succeeded',
      amount: { value: '100000.00', currency: 'RUB' },
    })
    expect(status).toBe(200)
    await Bun.sleep(200)
    // Only lookups of this id count: the every-second reconciliation may meanwhile ask about
    // other tests' pending payments.
    expect(env.yookassa.log.filter((l) => l.method === 'GET' && l.path.includes(unknownId))).toHaveLength(0)
  })

  test('malformed notifications get 4xx, never 500', async () => {
    const api = client(env.url)
    expect((await api.postRaw('/api/payments/webhook', '{not json')).status).toBe(400)
    expect((await api.post('/api/payments/webhook', { event: 'payment.succeeded', object: { id: 42 } })).status).toBe(400)
  })

  test('an amount mismatch at the provider credits nothing, is logged, and holds the payment for review', async () => {
    const { u, payment, providerId } = await topUpCreated(500)
    const remote = env.yookassa.get(providerId)!
    remote.amount = { value: '5.00', currency: 'RUB' }
    env.yookassa.pay(providerId)
    await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', remote)
    await eventually(async () => (await statusOf('id', payment.id)) === 'review')
    expect((await balanceOf(u.user.id)).balance).toBe(50_000_000)
    await eventually(() => env.server.logs().includes(`ALERT payment ${payment.id}`)) // stderr arrives a moment later
    expect(env.server.logs()).toContain('amount 5.00 ≠ 500.00')
    const got = await u.api.get(`/api/payments/${payment.id}`, u.accessToken)
    expect(got.body.data.status).toBe('review')
  })

  test('a payment to another shop (or in another currency) credits nothing', async () => {
    const { u, payment, providerId } = await topUpCreated(500)
    env.yookassa.get(providerId)!.recipient = { account_id: '999999' }
    env.yookassa.pay(providerId)
    await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', env.yookassa.get(providerId)!)
    await eventually(async () => (await statusOf('id', payment.id)) === 'review')
    await eventually(() => env.server.logs().includes(`shop 999999 ≠ ${SHOP_ID}`))
    expect((await balanceOf(u.user.id)).balance).toBe(50_000_000)
  })

  test('a canceled payment is recorded with a Russian reason and credits nothing', async () => {
    const { u, payment, providerId } = await topUpCreated(500)
    env.yookassa.cancel(providerId, 'insufficient_funds')
    await env.yookassa.notify(env.webhookUrl, 'payment.canceled', env.yookassa.get(providerId)!)
    await eventually(async () => (await u.api.get(`/api/payments/${payment.id}`, u.accessToken)).body.data.status === 'canceled')
    const got = await u.api.get(`/api/payments/${payment.id}`, u.accessToken)
    expect(got.body.data.cancelReason).toBe('Недостаточно средств на карте')
    expect((await balanceOf(u.user.id)).balance).toBe(50_000_000)
  })

  test('a lost notification is recovered by reconciliation; GET /api/payments/{id} also asks the provider while pending', async () => {
    const lost = await topUpCreated(800)
    env.yookassa.pay(lost.providerId) // paid, but no notification ever arrives
    await eventually(async () => (await balanceOf(lost.u.user.id)).balance === 850_000_000, 10_000)
    await eventually(() => env.server.logs().includes('reconciliation settled'))

    const polled = await topUpCreated(200)
    env.yookassa.pay(polled.providerId)
    const got = await polled.u.api.get(`/api/payments/${polled.payment.id}`, polled.u.accessToken)
    expect(got.body.data.status).toBe('succeeded')
    const books = await balanceOf(polled.u.user.id)
    expect(books.balance).toBe(250_000_000)
    expect(books.ledgerSum).toBe(books.balance)
  }, 15_000)
})

describe('webhook sender check', () => {
  let server: TestServer
  let yk: ReturnType<typeof import('./fake').startFakeYooKassa>
  beforeAll(async () => {
    const { startFakeYooKassa } = await import('./fake')
    yk = startFakeYooKassa({ shopId: SHOP_ID, secretKey: 'k' })
    server = await startServer({ YOOKASSA_SHOP_ID: SHOP_ID, YOOKASSA_SECRET_KEY: 'k', YOOKASSA_API_URL: yk.url, YOOKASSA_WEBHOOK_IP_CHECK: 'true' })
  })
  afterAll(async () => {
    await server.stop()
    yk.stop()
  })

  test('with the check on, notifications from outside YooKassa’s ranges get 403; from inside they are processed', async () => {
    const u = await registerUser(server.url)
    const created = await u.api.post('/api/payments/create', { amount: 500 }, u.accessToken)
    const id = [...yk.payments.values()].find((p) => p.metadata?.payment_id === created.body.data.id)!.id
    yk.pay(id)
    const hook = `${server.url}/api/payments/webhook`
    expect(await yk.notify(hook, 'payment.succeeded', yk.get(id)!, { 'x-forwarded-for': '203.0.113.7' })).toBe(403)
    await Bun.sleep(200)
    expect((await u.api.get('/api/billing/balance', u.accessToken)).body.data.balance).toBe(50)
    expect(await yk.notify(hook, 'payment.succeeded', yk.get(id)!, { 'x-forwarded-for': '185.71.76.5' })).toBe(200)
    await eventually(async () => (await u.api.get('/api/billing/balance', u.accessToken)).body.data.balance === 550)
  })
})

describe('refund requests', () => {
  test('eligible only with a card top-up in the last 14 days, over 100 ₽ left and no active keys; one at a time; the admin sees it', async () => {
    const u = await registerUser(env.url)
    const first = await u.api.get('/api/payments/refund-request', u.accessToken)
    expect(first.body.data).toMatchObject({ eligible: false, remainder: 0, lastTopUpAt: null, request: null })
    expect(first.body.data.reasons).toContain('Возвращаются только средства, внесённые картой, а пополнений картой не было')
    expect(first.body.data.reasons).toContain('Остаток на балансе должен превышать 100 ₽')
    const refused = await u.api.post('/api/payments/refund-request', {}, u.accessToken)
    expect(refused.status).toBe(400)

    const created = await u.api.post('/api/payments/create', { amount: 300 }, u.accessToken)
    const providerId = await env.providerIdOf(created.body.data.id)
    env.yookassa.pay(providerId)
    await u.api.get(`/api/payments/${created.body.data.id}`, u.accessToken)

    const key = await u.api.post('/api/auth/api-keys', { name: 'prod' }, u.accessToken)
    const withKey = await u.api.get('/api/payments/refund-request', u.accessToken)
    expect(withKey.body.data.reasons).toEqual(['Отключите или удалите все активные API-ключи'])
    await u.api.patch(`/api/auth/api-keys/${key.body.data.id}`, { isActive: false }, u.accessToken)

    const ok = await u.api.get('/api/payments/refund-request', u.accessToken)
    // 350 ₽ on the balance, but the 50 ₽ welcome bonus is not refundable money.
    expect(ok.body.data).toMatchObject({ eligible: true, remainder: 300, reasons: [] })
    const req = await u.api.post('/api/payments/refund-request', { reason: 'Проект закрыт' }, u.accessToken)
    expect(req.status).toBe(201)
    expect(req.body.data).toMatchObject({ amount: 300, status: 'pending', reason: 'Проект закрыт' })
    const again = await u.api.post('/api/payments/refund-request', {}, u.accessToken)
    expect(again.status).toBe(409)
    expect(again.body.error).toBe('Заявка на возврат уже рассматривается')
    // No money moved.
    expect((await balanceOf(u.user.id)).balance).toBe(350_000_000)

    expect((await u.api.get('/api/admin/refund-requests', u.accessToken)).status).toBe(403)
    const admin = await registerUser(env.url, 'refund-admin@example.ru')
    const list = await admin.api.get('/api/admin/refund-requests', admin.accessToken)
    expect(list.status).toBe(200)
    expect(list.body.data).toContainEqual(expect.objectContaining({ id: req.body.data.id, email: u.email, amount: 300, status: 'pending', balance: 350 }))
  })
})

describe('test payment page (no YOOKASSA_SHOP_ID)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.stop())

  test('pay: the same crediting path; the page answers the return URL; a second click is 409', async () => {
    const u = await registerUser(server.url)
    const created = await u.api.post('/api/payments/create', { amount: 1000, returnUrl: `${server.url}/app/billing` }, u.accessToken)
    expect(created.status).toBe(200)
    const url = new URL(created.body.data.confirmationUrl)
    expect(url.origin).toBe(server.url)
    expect(url.pathname).toMatch(/^\/pay\/test\/[\w-]+$/)
    const providerId = url.pathname.split('/').pop()!

    const anon = client(server.url)
    const view = await anon.get(`/api/payments/test/${providerId}`)
    expect(view.body.data).toMatchObject({ id: providerId, amount: 1000, status: 'pending', returnUrl: `${server.url}/app/billing?payment=${created.body.data.id}` })
    const paid = await anon.post(`/api/payments/test/${providerId}/pay`)
    expect(paid.body.data).toEqual({ status: 'succeeded', returnUrl: view.body.data.returnUrl })
    expect((await u.api.get('/api/billing/balance', u.accessToken)).body.data.balance).toBe(1050)
    const again = await anon.post(`/api/payments/test/${providerId}/pay`)
    expect(again.status).toBe(409)
    expect(again.body.error).toBe('Платёж уже завершён')
    const list = await u.api.get('/api/payments/list', u.accessToken)
    expect(list.body.data[0]).toMatchObject({ status: 'succeeded', test: true })
  })

  test('cancel: recorded as canceled, nothing credited; unknown ids are 404', async () => {
    const u = await registerUser(server.url)
    const created = await u.api.post('/api/payments/create', { amount: 500 }, u.accessToken)
    const providerId = new URL(created.body.data.confirmationUrl).pathname.split('/').pop()!
    const anon = client(server.url)
    const canceled = await anon.post(`/api/payments/test/${providerId}/cancel`)
    expect(canceled.body.data.status).toBe('canceled')
    const got = await u.api.get(`/api/payments/${created.body.data.id}`, u.accessToken)
    expect(got.body.data).toMatchObject({ status: 'canceled', cancelReason: 'Оплата отменена на тестовой странице' })
    expect((await u.api.get('/api/billing/balance', u.accessToken)).body.data.balance).toBe(50)
    expect((await anon.get('/api/payments/test/nope')).status).toBe(404)
  })

  test('with real YooKassa configured, the test page endpoints do not exist', async () => {
    const res = await client(env.url).post('/api/payments/test/anything/pay')
    expect(res.status).toBe(404)
    expect(res.body.error).toBe('Тестовая оплата отключена: подключена ЮKassa')
  })
})

describe('units', () => {
  test('YooKassa address ranges, v4 and v6, including v4-mapped', () => {
    expect(isYooKassaAddress('185.71.76.0')).toBe(true)
    expect(isYooKassaAddress('185.71.76.31')).toBe(true)
    expect(isYooKassaAddress('185.71.76.32')).toBe(false)
    expect(isYooKassaAddress('77.75.156.11')).toBe(true)
    expect(isYooKassaAddress('77.75.156.12')).toBe(false)
    expect(isYooKassaAddress('::ffff:77.75.153.100')).toBe(true)
    expect(isYooKassaAddress('2a02:5180:0:1::10')).toBe(true)
    expect(isYooKassaAddress('2a02:5181::1')).toBe(false)
    expect(isYooKassaAddress('127.0.0.1')).toBe(false)
    expect(isYooKassaAddress('unknown')).toBe(false)
    expect(inRange('10.0.0.1', '2a02:5180::/32')).toBe(false)
  })

  test('provider amounts convert exactly', () => {
    expect(valueToMicros('500.00')).toBe(500_000_000)
    expect(valueToMicros('1234.5')).toBe(1_234_500_000)
    expect(valueToMicros('0.01')).toBe(10_000)
    expect(valueToMicros('1e3')).toBeNull()
    expect(valueToMicros('-5.00')).toBeNull()
  })
})
