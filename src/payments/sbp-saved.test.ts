// SBP and saved cards (issue 37) against the fake YooKassa over HTTP and the real app: what is sent
// (payment_method_data, save_payment_method), the hour an SBP payment waits, a card saved by a
// successful payment (once, for the account that paid), listed and deleted.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eventually } from '../test-support/gateway'
import { startPayments } from '../test-support/payments'
import { registerUser } from '../test-support/server'
import { call, teamsOn } from '../test-support/teams'
import { createFakeYooKassa, SBP_PAY_WINDOW_MS } from './fake'
import { createYooKassaClient, YooKassaError } from './yookassa'

let env: Awaited<ReturnType<typeof startPayments>>

beforeAll(async () => {
  env = await startPayments()
})
afterAll(() => env.stop())

type User = Awaited<ReturnType<typeof registerUser>>

const sentFor = (paymentId: string) => env.yookassa.log.filter((l) => l.method === 'POST' && l.idempotenceKey === paymentId).map((l) => l.body as any)
const posts = () => env.yookassa.log.filter((l) => l.method === 'POST').length

async function create(u: User, body: Record<string, unknown>, team?: string) {
  return call(env.url, 'POST', '/api/payments/create', { token: u.accessToken, body, team })
}

/** A payment made with «save the card», paid on the provider's page with the card ending `last4`, and its notification delivered. */
async function paidAndSaved(u: User, amount: number, last4: string, team?: string) {
  const res = await create(u, { amount, savePaymentMethod: true }, team)
  expect(res.status).toBe(200)
  const providerId = await env.providerIdOf(res.body.data.id)
  env.yookassa.pay(providerId, { last4, card_type: 'Mir', expiry_month: '07', expiry_year: '2029' })
  expect(await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', env.yookassa.get(providerId)!)).toBe(200)
  await eventually(async () => (await call(env.url, 'GET', `/api/payments/${res.body.data.id}`, { token: u.accessToken, team })).body.data.status === 'succeeded')
  return { paymentId: res.body.data.id as string, providerId }
}

const methodsOf = async (u: User, team?: string) => call(env.url, 'GET', '/api/payments/methods', { token: u.accessToken, team })

describe('SBP', () => {
  test('method sbp sends payment_method_data {type: "sbp"}, one-stage, a redirect and a receipt; the payment says sbp', async () => {
    const u = await registerUser(env.url)
    const res = await create(u, { amount: 700, method: 'sbp', returnUrl: '/app/billing' })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ status: 'pending', amount: 700, method: 'sbp' })
    const [body] = sentFor(res.body.data.id)
    expect(body).toMatchObject({
      amount: { value: '700.00', currency: 'RUB' },
      capture: true,
      payment_method_data: { type: 'sbp' },
      confirmation: { type: 'redirect', return_url: `${env.url}/app/billing?payment=${res.body.data.id}` },
      save_payment_method: false,
      receipt: { customer: { email: u.email }, items: [{ amount: { value: '700.00', currency: 'RUB' }, vat_code: 1 }] },
    })
    // The fake recorded the method: the payment names SBP and lapses an hour after it was made.
    const providerId = await env.providerIdOf(res.body.data.id)
    const remote = env.yookassa.get(providerId)!
    expect(remote.payment_method).toMatchObject({ type: 'sbp', saved: false })
    expect(Date.parse(remote.expires_at!) - Date.parse(remote.created_at!)).toBe(SBP_PAY_WINDOW_MS)
    const list = await u.api.get('/api/payments/list', u.accessToken)
    expect(list.body.data[0]).toMatchObject({ id: res.body.data.id, method: 'sbp', auto: false })

    // Paid in the bank's app: credited through the same path as a card.
    env.yookassa.pay(providerId)
    expect(await env.yookassa.notify(env.webhookUrl, 'payment.succeeded', env.yookassa.get(providerId)!)).toBe(200)
    await eventually(async () => (await env.books(u.user.id)).balance === 750_000_000)
    expect((await u.api.get(`/api/payments/${res.body.data.id}`, u.accessToken)).body.data).toMatchObject({ status: 'succeeded', method: 'sbp' })
  })

  test('a card payment is the default and sends no payment_method_data', async () => {
    const u = await registerUser(env.url)
    const res = await create(u, { amount: 500 })
    expect(res.body.data.method).toBe('card')
    const [body] = sentFor(res.body.data.id)
    expect(body.payment_method_data).toBeUndefined()
    expect(body.save_payment_method).toBe(false)
  })

  test('an SBP payment not paid within the hour is canceled: «Время на оплату истекло»', async () => {
    const u = await registerUser(env.url)
    const res = await create(u, { amount: 300, method: 'sbp' })
    env.yookassa.clock.skewMs = SBP_PAY_WINDOW_MS + 1000
    try {
      const got = await u.api.get(`/api/payments/${res.body.data.id}`, u.accessToken)
      expect(got.body.data).toMatchObject({ status: 'canceled', cancelReason: 'Время на оплату истекло', method: 'sbp' })
    } finally {
      env.yookassa.clock.skewMs = 0
    }
    expect((await env.books(u.user.id)).balance).toBe(50_000_000)
  })

  test.each([
    [{ amount: 700_000.01, method: 'sbp' }, 'Максимальная сумма оплаты через СБП: 700 000 ₽'],
    [{ amount: 500, method: 'cash' }, 'method — «card» (банковская карта) или «sbp» (СБП)'],
    [{ amount: 500, method: 42 }, 'method — «card» (банковская карта) или «sbp» (СБП)'],
    [{ amount: 500, method: 'sbp', savePaymentMethod: true }, 'Сохранить для следующих платежей можно только банковскую карту'],
    [{ amount: 500, savePaymentMethod: 'yes' }, 'savePaymentMethod — true или false'],
    [{ amount: 50, method: 'sbp' }, 'Минимальная сумма пополнения: 100 RUB'],
  ])('%p → 400 "%s", nothing sent', async (body, message) => {
    const u = await registerUser(env.url)
    const before = posts()
    const res = await create(u, body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ success: false, error: message })
    expect(posts()).toBe(before)
  })

  test('the SBP limit itself is allowed', async () => {
    const u = await registerUser(env.url)
    const res = await create(u, { amount: 700_000, method: 'sbp' })
    expect(res.status).toBe(200)
  })
})

describe('saved cards', () => {
  test('«save the card» sends save_payment_method; the succeeded payment’s saved method is kept once: title, last four, expiry, brand — no card number', async () => {
    const u = await registerUser(env.url)
    const { paymentId, providerId } = await paidAndSaved(u, 500, '4242')
    expect(sentFor(paymentId)[0]).toMatchObject({ save_payment_method: true })
    expect(sentFor(paymentId)[0].payment_method_data).toBeUndefined()
    // Redelivered notifications (and the lookup of the return page) keep nothing twice.
    const object = env.yookassa.get(providerId)!
    await Promise.all(Array.from({ length: 10 }, () => env.yookassa.notify(env.webhookUrl, 'payment.succeeded', object)))
    await Bun.sleep(300)
    const list = await methodsOf(u)
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([
      {
        id: expect.any(String),
        type: 'bank_card',
        title: 'Bank card *4242',
        label: 'Mir •••• 4242',
        last4: '4242',
        expiryMonth: '07',
        expiryYear: '2029',
        cardType: 'Mir',
        createdAt: expect.any(String),
      },
    ])
    const rows = await env.read<Record<string, unknown>>('select * from payment_methods where user_id = ?', u.user.id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ provider_method_id: providerId, team_id: null, deleted_at: null })
    // The first six digits YooKassa sent are not kept anywhere.
    expect(JSON.stringify(rows)).not.toContain('555555')
    expect((await env.books(u.user.id)).balance).toBe(550_000_000)
    const [ledger] = await env.read<{ description: string }>("select description from ledger_entries where user_id = ? and type = 'topup'", u.user.id)
    expect(ledger!.description).toBe('Пополнение баланса картой')
  })

  test('without the box nothing is saved, even when the payment succeeds', async () => {
    const u = await registerUser(env.url)
    const res = await create(u, { amount: 300 })
    const providerId = await env.providerIdOf(res.body.data.id)
    env.yookassa.pay(providerId)
    expect(env.yookassa.get(providerId)!.payment_method).toMatchObject({ saved: false })
    await u.api.get(`/api/payments/${res.body.data.id}`, u.accessToken)
    expect((await methodsOf(u)).body.data).toEqual([])
  })

  test('a card saved in team context belongs to the team: its money roles see it, a member does not, the payer’s personal list stays empty', async () => {
    const teams = teamsOn(env.url, env.server.dataDir)
    const { team, owner, billing, member } = await teams.withRoles('Карты')
    await paidAndSaved(billing, 1000, '7777', team.id)
    for (const who of [owner, billing]) expect((await methodsOf(who, team.id)).body.data.map((m: { last4: string }) => m.last4)).toEqual(['7777'])
    expect((await methodsOf(billing)).body.data).toEqual([])
    const refused = await methodsOf(member, team.id)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toStartWith('Недостаточно прав')
    const audit = await call(env.url, 'GET', `/api/teams/${team.id}/audit`, { token: owner.accessToken })
    expect(JSON.stringify(audit.body)).toContain('payment_method.saved')
  })

  test('DELETE forgets the card (soft), switches off the auto top-up charging it; twice, or someone else’s, is 404', async () => {
    const u = await registerUser(env.url)
    await paidAndSaved(u, 500, '1234')
    const [method] = (await methodsOf(u)).body.data
    const on = await call(env.url, 'PUT', '/api/billing/auto-topup', {
      token: u.accessToken,
      body: { enabled: true, thresholdRub: 10, amountRub: 500, paymentMethodId: method.id, dailyLimitRub: 1000 },
    })
    expect(on.status).toBe(200)
    expect(on.body.data).toMatchObject({ enabled: true, paymentMethodId: method.id })

    const other = await registerUser(env.url)
    expect((await call(env.url, 'DELETE', `/api/payments/methods/${method.id}`, { token: other.accessToken })).status).toBe(404)
    const gone = await call(env.url, 'DELETE', `/api/payments/methods/${method.id}`, { token: u.accessToken })
    expect(gone.status).toBe(200)
    expect(gone.body.data).toEqual({ id: method.id, deleted: true })
    expect((await methodsOf(u)).body.data).toEqual([])
    const again = await call(env.url, 'DELETE', `/api/payments/methods/${method.id}`, { token: u.accessToken })
    expect(again.status).toBe(404)
    expect(again.body.error).toBe('Способ оплаты не найден')
    const auto = await call(env.url, 'GET', '/api/billing/auto-topup', { token: u.accessToken })
    expect(auto.body.data).toMatchObject({ enabled: false, paymentMethodId: null, disabledReason: 'Карта для автопополнения удалена' })
    const [row] = await env.read<{ deleted_at: number | null }>('select deleted_at from payment_methods where id = ?', method.id)
    expect(row!.deleted_at).not.toBeNull()
    // A deleted card cannot be chosen again.
    const reuse = await call(env.url, 'PUT', '/api/billing/auto-topup', { token: u.accessToken, body: { enabled: true, paymentMethodId: method.id } })
    expect(reuse.status).toBe(400)
    expect(reuse.body.error).toBe('Выберите сохранённую карту этого счёта')
  })

  test('the methods need a session; a long or odd id is 404/400, never 500', async () => {
    expect((await call(env.url, 'GET', '/api/payments/methods')).status).toBe(401)
    const u = await registerUser(env.url)
    expect((await call(env.url, 'DELETE', '/api/payments/methods/nope', { token: u.accessToken })).status).toBe(404)
    expect((await call(env.url, 'DELETE', `/api/payments/methods/${'x'.repeat(65)}`, { token: u.accessToken })).status).toBe(400)
  })
})

describe('the fake YooKassa as the reference describes it', () => {
  const fake = createFakeYooKassa({ shopId: 's', secretKey: 'k', sbpMaxRub: 1_000_000 })
  const yk = createYooKassaClient({ apiUrl: 'http://fake.local/v3', shopId: 's', secretKey: 'k', fetch: (url, init) => fake.fetch(new Request(url, init)) })
  const base = {
    amount: { value: '500.00', currency: 'RUB' },
    capture: true,
    description: 'x',
    metadata: {},
    receipt: {
      customer: { email: 'a@b.ru' },
      items: [{ description: 'x', quantity: '1.00', amount: { value: '500.00', currency: 'RUB' }, vat_code: 1, payment_subject: 'service', payment_mode: 'full_prepayment' }],
    },
  }
  const refused = async (req: object) => {
    try {
      await yk.createPayment(req as never, crypto.randomUUID())
      return null
    } catch (e) {
      return e instanceof YooKassaError ? { status: e.status, message: e.message } : null
    }
  }

  test('SBP: no two-stage payments; the limit is the shop’s; a QR confirmation carries confirmation_data', async () => {
    expect(await refused({ ...base, capture: false, payment_method_data: { type: 'sbp' }, confirmation: { type: 'redirect', return_url: 'https://x' } })).toMatchObject({
      status: 400,
    })
    const qr = await yk.createPayment({ ...base, payment_method_data: { type: 'sbp' }, confirmation: { type: 'qr' } }, crypto.randomUUID())
    expect(qr.confirmation?.type).toBe('qr')
    expect(qr.confirmation?.confirmation_data).toStartWith('https://')
    expect(await refused({ ...base, payment_method_data: { type: 'cash' }, confirmation: { type: 'redirect', return_url: 'https://x' } })).toMatchObject({ status: 400 })
  })

  test('saving: the method is saved only when asked, under the payment’s id; a saved id is charged without confirmation; an unknown one is 400', async () => {
    const asked = await yk.createPayment({ ...base, save_payment_method: true, confirmation: { type: 'redirect', return_url: 'https://x' } }, crypto.randomUUID())
    const notAsked = await yk.createPayment({ ...base, confirmation: { type: 'redirect', return_url: 'https://x' } }, crypto.randomUUID())
    fake.pay(asked.id, { last4: '1111' })
    fake.pay(notAsked.id)
    expect(fake.get(asked.id)!.payment_method).toMatchObject({ id: asked.id, saved: true, type: 'bank_card', title: 'Bank card *1111', card: { last4: '1111' } })
    expect(fake.get(notAsked.id)!.payment_method).toMatchObject({ saved: false })
    const charged = await yk.createPayment({ ...base, payment_method_id: asked.id }, crypto.randomUUID())
    expect(charged).toMatchObject({ status: 'succeeded', paid: true, payment_method: { id: asked.id, saved: true } })
    expect(charged.confirmation).toBeUndefined()
    expect(await refused({ ...base, payment_method_id: notAsked.id })).toMatchObject({ status: 400 })
    // A declined charge: the next one ends canceled with the reason; card_expired kills the id for good.
    fake.savedCharges.push({ cancel: 'card_expired' })
    expect(await yk.createPayment({ ...base, payment_method_id: asked.id }, crypto.randomUUID())).toMatchObject({
      status: 'canceled',
      cancellation_details: { reason: 'card_expired' },
    })
    expect(await yk.createPayment({ ...base, payment_method_id: asked.id }, crypto.randomUUID())).toMatchObject({
      status: 'canceled',
      cancellation_details: { reason: 'card_expired' },
    })
  })
})
