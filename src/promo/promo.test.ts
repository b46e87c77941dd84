// Promo codes and referrals over HTTP against the real server (issue 37): the admin's codes, a
// redemption crediting once with its `promo` ledger row, maxUses under concurrent redemptions, the
// refusals, the confirmed-address rule, promo money outside refunds; the referral link, the cookie
// of /r/{code}, the bonus after the first real payment of at least 500 ₽ (a YooKassa payment through
// the fake, an invoice marked paid) — never after a test payment or a smaller one — and the
// referrer's monthly limit across a Moscow month boundary (the test clock).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { COMPANY_BUYER, freshCompanyInn, NPD_SELLER_ENV } from '../invoices/test-fixtures'
import { eventually } from '../test-support/gateway'
import { startPayments } from '../test-support/payments'
import { client, freshIp, readResult, registerUser, startServer, type TestServer, uniqueEmail } from '../test-support/server'
import { call, outboxLetters, type Person, teamsOn } from '../test-support/teams'

setDefaultTimeout(30_000)

const ADMIN_EMAIL = 'promo-admin@example.ru'
const BONUS = 100
const clockDir = mkdtempSync(join(tmpdir(), 'promo-clock-'))
const CLOCK = join(clockDir, 'now')
writeFileSync(CLOCK, '')

let env: Awaited<ReturnType<typeof startPayments>>
let admin: Person

beforeAll(async () => {
  env = await startPayments({ ADMIN_EMAILS: ADMIN_EMAIL, REFERRAL_BONUS_RUB: String(BONUS), TEST_CLOCK_FILE: CLOCK, ...NPD_SELLER_ENV })
  admin = await registerUser(env.url, ADMIN_EMAIL)
})
afterAll(async () => {
  await env.stop()
  rmSync(clockDir, { recursive: true, force: true })
})

const api = (method: string, path: string, who: Person | null, body?: unknown, team?: string | null, base = env.url) =>
  call(base, method, path, { token: who?.accessToken, body, team })

let codeSerial = 0
const freshCode = (tag = 'CODE') => `${tag}-${Date.now().toString(36)}-${++codeSerial}`.toUpperCase()

async function createCode(fields: { code?: string; amountRub?: number; maxUses?: number; expiresAt?: string | null } = {}) {
  const res = await api('POST', '/api/admin/promo-codes', admin, { code: freshCode(), amountRub: 250, maxUses: 100, expiresAt: null, ...fields })
  if (res.status !== 201) throw new Error(`promo create failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data as { id: string; code: string; amountRub: number; maxUses: number; uses: number; state: string }
}

const redeem = (who: Person, code: unknown, team?: string | null) => api('POST', '/api/billing/promo', who, { code }, team)

const ledgerRows = (userId: string, type: string) =>
  env.read<{ amount_micros: number; reference: string; description: string; team_id: string | null }>(
    'select amount_micros, reference, description, team_id from ledger_entries where user_id = ? and type = ? order by created_at',
    userId,
    type,
  )

/** A real card payment through the YooKassa fake, looked up at once (the return page's GET). */
async function pay(who: Person, amount: number, team?: string | null) {
  const created = await api('POST', '/api/payments/create', who, { amount, returnUrl: '/app/billing' }, team)
  expect(created.status).toBe(200)
  const id = created.body.data.id as string
  env.yookassa.pay(await env.providerIdOf(id))
  await eventually(async () => (await api('GET', `/api/payments/${id}`, who, undefined, team)).body.data.status === 'succeeded')
  return id
}

describe('admin: promo codes', () => {
  test('create (stored upper-case), list with uses, disable; only admins', async () => {
    const customer = await registerUser(env.url)
    const body = { code: 'spring_sale-25', amountRub: 250.5, maxUses: 5, expiresAt: null }
    expect((await api('POST', '/api/admin/promo-codes', null, body)).status).toBe(401)
    expect((await api('POST', '/api/admin/promo-codes', customer, body)).status).toBe(403)
    expect((await api('GET', '/api/admin/promo-codes', customer)).status).toBe(403)

    const created = await api('POST', '/api/admin/promo-codes', admin, body)
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ code: 'SPRING_SALE-25', amountRub: 250.5, maxUses: 5, uses: 0, expiresAt: null, disabledAt: null, state: 'active' })
    const again = await api('POST', '/api/admin/promo-codes', admin, { ...body, code: 'Spring_Sale-25' })
    expect([again.status, again.body.error]).toEqual([409, 'Промокод с таким кодом уже есть'])

    const until = new Date(Date.now() + 7 * 86_400_000).toISOString()
    const dated = await api('POST', '/api/admin/promo-codes', admin, { code: freshCode('DATED'), amountRub: 10, maxUses: 1, expiresAt: until })
    expect(dated.body.data.expiresAt).toBe(until)

    expect((await redeem(customer, 'spring_sale-25')).status).toBe(200)
    const list = await api('GET', '/api/admin/promo-codes', admin)
    expect(list.status).toBe(200)
    expect(list.body.data[0].id).toBe(dated.body.data.id) // newest first
    expect(list.body.data).toContainEqual(expect.objectContaining({ id: created.body.data.id, code: 'SPRING_SALE-25', uses: 1, maxUses: 5, state: 'active' }))

    const path = `/api/admin/promo-codes/${created.body.data.id}/disable`
    expect((await api('POST', path, customer)).status).toBe(403)
    const disabled = await api('POST', path, admin)
    expect(disabled.status).toBe(200)
    expect(disabled.body.data).toMatchObject({ state: 'disabled', uses: 1 })
    expect(disabled.body.data.disabledAt).toBeString()
    // Disabling twice changes nothing.
    expect((await api('POST', path, admin)).body.data.disabledAt).toBe(disabled.body.data.disabledAt)
    expect((await api('POST', '/api/admin/promo-codes/nope/disable', admin)).status).toBe(404)
    const refused = await redeem(await registerUser(env.url), 'SPRING_SALE-25')
    expect([refused.status, refused.body.error]).toEqual([400, 'Промокод больше не действует'])
  })

  test.each([
    [{ code: 'ab' }, 'Код промокода — от 3 до 32 символов: латинские буквы, цифры, «-» и «_»'],
    [{ code: 'пром' }, 'Код промокода — от 3 до 32 символов: латинские буквы, цифры, «-» и «_»'],
    [{ code: 'with space' }, 'Код промокода — от 3 до 32 символов: латинские буквы, цифры, «-» и «_»'],
    [{ code: 'X'.repeat(33) }, 'Код промокода — от 3 до 32 символов: латинские буквы, цифры, «-» и «_»'],
    [{ code: 42 }, 'Код промокода — от 3 до 32 символов: латинские буквы, цифры, «-» и «_»'],
    [{ amountRub: 0 }, 'Сумма — число от 1 до 100 000 ₽, с точностью до копейки'],
    [{ amountRub: -5 }, 'Сумма — число от 1 до 100 000 ₽, с точностью до копейки'],
    [{ amountRub: '100' }, 'Сумма — число от 1 до 100 000 ₽, с точностью до копейки'],
    [{ amountRub: 100.005 }, 'Сумма — число от 1 до 100 000 ₽, с точностью до копейки'],
    [{ amountRub: 100_001 }, 'Сумма — число от 1 до 100 000 ₽, с точностью до копейки'],
    [{ maxUses: 0 }, 'Число активаций — целое число от 1 до 1 000 000'],
    [{ maxUses: 1.5 }, 'Число активаций — целое число от 1 до 1 000 000'],
    [{ maxUses: null }, 'Число активаций — целое число от 1 до 1 000 000'],
    [{ expiresAt: 'завтра' }, 'Срок действия — дата и время в формате ISO 8601 (например, 2026-12-31T23:59:59+03:00) или null'],
    [{ expiresAt: '2026-13-45T00:00:00Z' }, 'Срок действия — дата и время в формате ISO 8601 (например, 2026-12-31T23:59:59+03:00) или null'],
    [{ expiresAt: 1_900_000_000_000 }, 'Срок действия — дата и время в формате ISO 8601 (например, 2026-12-31T23:59:59+03:00) или null'],
    [{ expiresAt: '2020-01-01T00:00:00Z' }, 'Срок действия уже прошёл: укажите дату в будущем'],
  ])('%p → 400 in Russian', async (fields, error) => {
    const res = await api('POST', '/api/admin/promo-codes', admin, { code: freshCode(), amountRub: 100, maxUses: 10, expiresAt: null, ...fields })
    expect(res.body).toEqual({ success: false, error })
    expect(res.status).toBe(400)
  })

  test('a body that is no object, or no JSON, is a 400, never a 500', async () => {
    expect((await call(env.url, 'POST', '/api/admin/promo-codes', { token: admin.accessToken, raw: '{not json' })).status).toBe(400)
    expect((await call(env.url, 'POST', '/api/admin/promo-codes', { token: admin.accessToken, raw: '[1,2]' })).status).toBe(400)
    expect((await api('POST', '/api/admin/promo-codes', admin, {})).status).toBe(400)
  })
})

describe('redeeming', () => {
  test('credits once: a `promo` ledger row through the kernel, the balance and the history agree; a second try is refused', async () => {
    const { code } = await createCode({ amountRub: 250 })
    const u = await registerUser(env.url)
    const res = await redeem(u, `  ${code.toLowerCase()} `)
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual({ code, amountRub: 250, balance: 300, message: `Промокод ${code} активирован: 250,00\u00a0₽ зачислено на баланс` })
    const rows = await ledgerRows(u.user.id, 'promo')
    expect(rows).toEqual([{ amount_micros: 250_000_000, reference: expect.stringMatching(/^promo:/), description: `Промокод ${code}`, team_id: null }])

    const twice = await redeem(u, code)
    expect([twice.status, twice.body.error]).toEqual([409, 'Вы уже активировали этот промокод'])
    // Five at once from the same account: still one.
    const burst = await Promise.all(Array.from({ length: 5 }, () => redeem(u, code)))
    expect(burst.every((r) => r.status === 409)).toBe(true)
    const books = await env.books(u.user.id)
    expect(books.balance).toBe(300_000_000)
    expect(books.ledgerSum).toBe(books.balance)
    expect(await ledgerRows(u.user.id, 'promo')).toHaveLength(1)
    const history = await api('GET', '/api/billing/transactions?limit=10', u)
    expect(history.body.data[0]).toMatchObject({ type: 'promo', amount: '+250.00', balanceAfter: 300, description: `Промокод ${code}` })
  })

  test('maxUses 3 with 10 concurrent redemptions from 10 accounts credits exactly 3', async () => {
    const promo = await createCode({ amountRub: 77, maxUses: 3 })
    const people = await Promise.all(Array.from({ length: 10 }, () => registerUser(env.url)))
    const results = await Promise.all(people.map((p) => redeem(p, promo.code)))
    expect(results.filter((r) => r.status === 200)).toHaveLength(3)
    const refused = results.filter((r) => r.status !== 200)
    expect(refused.map((r) => [r.status, r.body.error])).toEqual(Array(7).fill([409, 'Промокод больше не действует: все активации уже использованы']))
    const [row] = await env.read<{ uses: number }>('select uses from promo_codes where id = ?', promo.id)
    expect(row!.uses).toBe(3)
    const [redemptions] = await env.read<{ n: number }>('select count(*) as n from promo_redemptions where promo_id = ?', promo.id)
    expect(Number(redemptions!.n)).toBe(3)
    const [credits] = await env.read<{ n: number; s: number }>(
      "select count(*) as n, sum(amount_micros) as s from ledger_entries where type = 'promo' and description = ?",
      `Промокод ${promo.code}`,
    )
    expect([Number(credits!.n), Number(credits!.s)]).toEqual([3, 231_000_000])
    for (const p of people) {
      const books = await env.books(p.user.id)
      expect(books.ledgerSum).toBe(books.balance)
    }
    const listed = (await api('GET', '/api/admin/promo-codes', admin)).body.data.find((c: { id: string }) => c.id === promo.id)
    expect(listed).toMatchObject({ uses: 3, state: 'used_up' })
  })

  test('unknown, empty, expired and disabled codes are refused in Russian; nothing is credited', async () => {
    const u = await registerUser(env.url)
    for (const [code, status, error] of [
      ['NO-SUCH-CODE', 404, 'Промокод не найден. Проверьте, правильно ли он введён'],
      ['ab', 404, 'Промокод не найден. Проверьте, правильно ли он введён'],
      ['<script>', 404, 'Промокод не найден. Проверьте, правильно ли он введён'],
      ['', 400, 'Введите промокод'],
      ['   ', 400, 'Введите промокод'],
      [null, 400, 'Введите промокод'],
      [123, 400, 'Введите промокод'],
    ] as const) {
      const res = await redeem(u, code)
      expect({ code, status: res.status, body: res.body }).toEqual({ code, status, body: { success: false, error } })
    }
    const soon = await createCode({ expiresAt: new Date(Date.now() + 1500).toISOString() })
    await Bun.sleep(1600)
    const expired = await redeem(u, soon.code)
    expect([expired.status, expired.body.error]).toEqual([400, 'Срок действия промокода истёк'])
    expect((await api('GET', '/api/admin/promo-codes', admin)).body.data.find((c: { id: string }) => c.id === soon.id).state).toBe('expired')
    const off = await createCode()
    await api('POST', `/api/admin/promo-codes/${off.id}/disable`, admin)
    const disabled = await redeem(u, off.code)
    expect([disabled.status, disabled.body.error]).toEqual([400, 'Промокод больше не действует'])
    expect(await ledgerRows(u.user.id, 'promo')).toEqual([])
    expect((await env.books(u.user.id)).balance).toBe(50_000_000)
    expect((await call(env.url, 'POST', '/api/billing/promo', { token: u.accessToken, raw: '{"code":' })).status).toBe(400)
  })

  test('guessing is limited: the 21st attempt of an hour is 429', async () => {
    const u = await registerUser(env.url)
    for (let i = 0; i < 20; i++) expect((await redeem(u, `GUESS-${i}`)).status).toBe(404)
    const res = await redeem(u, 'GUESS-21')
    expect(res.status).toBe(429)
    expect(res.body.error).toStartWith('Слишком много попыток')
  })

  test('in a team: credits the team’s balance once, with an audit entry; members without «topup» are refused; the personal account has its own use', async () => {
    const teams = teamsOn(env.url, env.server.dataDir)
    const { team, owner, billing, member } = await teams.withRoles('Промо')
    const promo = await createCode({ amountRub: 400 })
    const denied = await redeem(member, promo.code, team.id)
    expect(denied.status).toBe(403)
    const res = await redeem(billing, promo.code, team.id)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ amountRub: 400, balance: 400, message: `Промокод ${promo.code} активирован: 400,00\u00a0₽ зачислено на баланс команды «Промо»` })
    const again = await redeem(owner, promo.code, team.id)
    expect([again.status, again.body.error]).toEqual([409, 'Этот промокод уже активирован для команды «Промо»'])
    const rows = await env.read<{ user_id: string; team_id: string }>("select user_id, team_id from ledger_entries where type = 'promo' and team_id = ?", team.id)
    expect(rows).toEqual([{ user_id: billing.user.id, team_id: team.id }])
    expect((await api('GET', `/api/teams/${team.id}`, owner)).body.data.balance).toBe(400)
    const audit = (await api('GET', `/api/teams/${team.id}/audit`, owner)).body.data
    expect(JSON.stringify(audit)).toContain('promo.redeemed')
    // The owner's personal account is another account.
    expect((await redeem(owner, promo.code)).status).toBe(200)
  })

  test('a management key cannot redeem', async () => {
    const u = await registerUser(env.url)
    const key = await api('POST', '/api/auth/api-keys', u, { name: 'mgmt', kind: 'management' })
    expect(key.status).toBe(201)
    const promo = await createCode()
    const res = await call(env.url, 'POST', '/api/billing/promo', { token: key.body.data.key, body: { code: promo.code } })
    expect(res.status).toBe(403)
  })

  test('promo money is not refundable: the remainder is capped by what was paid, and bonus money is spent first', async () => {
    const u = await registerUser(env.url)
    await pay(u, 600)
    const promo = await createCode({ amountRub: 300 })
    expect((await redeem(u, promo.code)).status).toBe(200)
    expect((await env.books(u.user.id)).balance).toBe(950_000_000)
    const status = await api('GET', '/api/payments/refund-request', u)
    expect(status.body.data).toMatchObject({ eligible: true, remainder: 600 })
    // 500 ₽ gone (an admin's deduction here): the 350 ₽ of bonuses went first, 450 ₽ of the payment remain.
    const adjusted = await api('POST', `/api/admin/users/${u.user.id}/balance`, admin, { amount: -500, description: 'списание' })
    expect(adjusted.status).toBe(200)
    expect((await api('GET', '/api/payments/refund-request', u)).body.data).toMatchObject({ remainder: 450 })
    const req = await api('POST', '/api/payments/refund-request', u, {})
    expect(req.body.data).toMatchObject({ amount: 450, status: 'pending' })
  })

  test('the offer, the refund policy and the docs say promo and referral money is not refundable', async () => {
    for (const path of ['/public-offer', '/refund-policy']) {
      const html = await (await fetch(env.url + path)).text()
      expect(html).toContain('по промокоду или как реферальный бонус, не являются оплатой')
    }
    const docs = await (await fetch(`${env.url}/docs`)).text()
    expect(docs).toContain('Промокод вводится в поле «Промокод»')
    expect(docs).toContain('Реферальная ссылка вида')
  })
})

describe('confirmed address', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ REQUIRE_EMAIL_VERIFICATION: 'true', ADMIN_EMAILS: ADMIN_EMAIL })
  })
  afterAll(() => server.stop())

  test('an unconfirmed account is refused (403); after following the letter’s link it redeems', async () => {
    const boss = await registerUser(server.url, ADMIN_EMAIL)
    const created = await call(server.url, 'POST', '/api/admin/promo-codes', {
      token: boss.accessToken,
      body: { code: 'CONFIRM-ME', amountRub: 120, maxUses: 10, expiresAt: null },
    })
    expect(created.status).toBe(201)
    const u = await registerUser(server.url)
    expect(u.user.emailVerified).toBe(false)
    const refused = await call(server.url, 'POST', '/api/billing/promo', { token: u.accessToken, body: { code: 'confirm-me' } })
    expect(refused.body).toEqual({ success: false, error: 'Подтвердите e-mail, чтобы активировать промокод: ссылка — в письме, которое мы отправили при регистрации' })
    expect(refused.status).toBe(403)

    const letter = await eventually(() => outboxLetters(server.dataDir, u.email)[0])
    const token = letter.text.match(/\/verify-email\/([A-Za-z0-9_-]+)/)![1]!
    expect((await client(server.url).post('/api/auth/verify-email', { token })).status).toBe(200)
    const ok = await call(server.url, 'POST', '/api/billing/promo', { token: u.accessToken, body: { code: 'confirm-me' } })
    expect(ok.status).toBe(200)
    // 50 ₽ welcome bonus on confirmation + 120 ₽.
    expect(ok.body.data).toMatchObject({ amountRub: 120, balance: 170 })
  })

  test('with REFERRAL_BONUS_RUB unset the programme is off, and says so', async () => {
    const u = await registerUser(server.url)
    const res = await call(server.url, 'GET', '/api/billing/referral', { token: u.accessToken })
    expect(res.body.data).toEqual({ enabled: false, bonusRub: 0, minPaymentRub: 500, monthlyLimit: 10, code: null, link: null, invited: 0, rewarded: 0, earnedRub: 0 })
  })
})

/** Registers through the referral link: /r/{code} sets the cookie, the registration sends it back. */
async function registerByLink(base: string, code: string) {
  const visit = await fetch(`${base}/r/${code}`, { redirect: 'manual', headers: { 'x-forwarded-for': freshIp() } })
  expect(visit.status).toBe(302)
  expect(visit.headers.get('location')).toBe('/register')
  const cookie = visit.headers.get('set-cookie')!.split(';')[0]!
  const email = uniqueEmail('invited')
  const res = await readResult(
    await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ email, password: 'correct-horse-42' }),
    }),
  )
  expect(res.status).toBe(201)
  return { api: client(base), email, password: 'correct-horse-42', ...(res.body.data as { user: any; accessToken: string; refreshToken: string }) } as Person
}

const referredBy = async (userId: string) => (await env.read<{ referred_by: string | null }>('select referred_by from users where id = ?', userId))[0]!.referred_by

async function referralOf(who: Person, base = env.url) {
  const res = await call(base, 'GET', '/api/billing/referral', { token: who.accessToken })
  expect(res.status).toBe(200)
  return res.body.data as { enabled: boolean; bonusRub: number; code: string; link: string; invited: number; rewarded: number; earnedRub: number }
}

describe('referrals', () => {
  test('a code and a link made once per account; /r/{code} remembers it in a cookie; a registration by it or by body records the referrer', async () => {
    const referrer = await registerUser(env.url)
    const first = await referralOf(referrer)
    expect(first).toMatchObject({ enabled: true, bonusRub: BONUS, minPaymentRub: 500, monthlyLimit: 10, invited: 0, rewarded: 0, earnedRub: 0 })
    expect(first.code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/)
    expect(first.link).toBe(`${env.url}/r/${first.code}`)
    expect((await referralOf(referrer)).code).toBe(first.code)

    const visit = await fetch(`${env.url}/r/${first.code.toLowerCase()}`, { redirect: 'manual' })
    expect(visit.headers.get('set-cookie')).toBe(`gw_ref=${first.code}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax`)
    for (const unknown of ['ZZZZZZZZ', 'x', '%3Cscript%3E', 'A'.repeat(200)]) {
      const res = await fetch(`${env.url}/r/${unknown}`, { redirect: 'manual' })
      expect([res.status, res.headers.get('location'), res.headers.get('set-cookie')]).toEqual([302, '/register', null])
    }

    const byLink = await registerByLink(env.url, first.code)
    expect(await referredBy(byLink.user.id)).toBe(referrer.user.id)
    const byBody = await client(env.url).post('/api/auth/register', { email: uniqueEmail('body'), password: 'correct-horse-42', referralCode: first.code.toLowerCase() })
    expect(byBody.status).toBe(201)
    expect(await referredBy(byBody.body.data.user.id)).toBe(referrer.user.id)
    // An unknown code, or one of the wrong type, does not stand in the way of a registration.
    for (const referralCode of ['NOSUCHCODE', 42, { x: 1 }]) {
      const res = await client(env.url).post('/api/auth/register', { email: uniqueEmail('odd'), password: 'correct-horse-42', referralCode })
      expect(res.status).toBe(201)
      expect(await referredBy(res.body.data.user.id)).toBeNull()
    }
    expect(await referralOf(referrer)).toMatchObject({ invited: 2, rewarded: 0, earnedRub: 0 })
  })

  test('the first real payment of at least 500 ₽ gives both the bonus once; a smaller one before it and later ones give nothing', async () => {
    const referrer = await registerUser(env.url)
    const friend = await registerByLink(env.url, (await referralOf(referrer)).code)
    await pay(friend, 499.99)
    expect(await ledgerRows(friend.user.id, 'referral')).toEqual([])
    await pay(friend, 500)
    expect(await ledgerRows(friend.user.id, 'referral')).toEqual([
      { amount_micros: 100_000_000, reference: `referral:${friend.user.id}`, description: 'Реферальный бонус: первое пополнение по приглашению', team_id: null },
    ])
    expect(await ledgerRows(referrer.user.id, 'referral')).toEqual([
      { amount_micros: 100_000_000, reference: `referral:${friend.user.id}:referrer`, description: 'Реферальный бонус: приглашённый друг пополнил баланс', team_id: null },
    ])
    await pay(friend, 2000)
    expect(await ledgerRows(friend.user.id, 'referral')).toHaveLength(1)
    expect(await ledgerRows(referrer.user.id, 'referral')).toHaveLength(1)
    for (const who of [friend, referrer]) {
      const books = await env.books(who.user.id)
      expect(books.ledgerSum).toBe(books.balance)
    }
    expect((await env.books(friend.user.id)).balance).toBe(3_149_990_000) // 50 + 499,99 + 500 + 100 + 2000
    expect((await env.books(referrer.user.id)).balance).toBe(150_000_000)
    expect(await referralOf(referrer)).toMatchObject({ invited: 1, rewarded: 1, earnedRub: 100 })
    const history = await api('GET', '/api/billing/transactions?limit=5', referrer)
    expect(history.body.data[0]).toMatchObject({ type: 'referral', amount: '+100.00' })
    // Referral money is not refundable either: the friend paid 2 999,99 ₽, and that is the cap.
    expect((await api('GET', '/api/payments/refund-request', friend)).body.data.remainder).toBe(2999.99)
  })

  test('a payment for a team counts for the member who paid; the bonuses go to the personal balances', async () => {
    const referrer = await registerUser(env.url)
    const friend = await registerByLink(env.url, (await referralOf(referrer)).code)
    const team = (await api('POST', '/api/teams', friend, { name: 'Друзья' })).body.data
    await pay(friend, 700, team.id)
    expect(await ledgerRows(friend.user.id, 'referral')).toEqual([expect.objectContaining({ amount_micros: 100_000_000, team_id: null })])
    expect(await ledgerRows(referrer.user.id, 'referral')).toHaveLength(1)
  })

  test('an invoice marked paid is a real payment too', async () => {
    const referrer = await registerUser(env.url)
    const friend = await registerByLink(env.url, (await referralOf(referrer)).code)
    const team = (await api('POST', '/api/teams', friend, { name: 'ООО Друг' })).body.data
    const company = { inn: freshCompanyInn(), kpp: COMPANY_BUYER.kpp, name: COMPANY_BUYER.name, address: COMPANY_BUYER.address, email: 'buh@drug.example.ru' }
    expect((await api('PUT', `/api/teams/${team.id}/company`, friend, company)).status).toBe(200)
    const invoice = await api('POST', `/api/teams/${team.id}/invoices`, friend, { amountRub: 1000 })
    expect(invoice.status).toBe(201)
    expect((await api('POST', `/api/admin/invoices/${invoice.body.data.id}/mark-paid`, admin)).status).toBe(200)
    expect(await ledgerRows(friend.user.id, 'referral')).toHaveLength(1)
    expect(await ledgerRows(referrer.user.id, 'referral')).toHaveLength(1)
  })

  test('at most 10 bonuses a Moscow month per referrer, also when the payments come at once; the next month counts afresh', async () => {
    const referrer = await registerUser(env.url)
    const code = (await referralOf(referrer)).code
    const friends = await Promise.all(Array.from({ length: 11 }, () => registerByLink(env.url, code)))
    await Promise.all(friends.map((f) => pay(f, 500)))
    expect(await ledgerRows(referrer.user.id, 'referral')).toHaveLength(10)
    const rewarded = await env.read<{ id: string }>('select id from users where referred_by = ? and referral_rewarded_at is not null', referrer.user.id)
    expect(rewarded).toHaveLength(10)
    const left = friends.find((f) => !rewarded.some((r) => r.id === f.user.id))!
    expect(await ledgerRows(left.user.id, 'referral')).toEqual([])
    expect(await referralOf(referrer)).toMatchObject({ invited: 11, rewarded: 10, earnedRub: 1000 })
    await pay(left, 600)
    expect(await ledgerRows(left.user.id, 'referral')).toEqual([])

    // The first day of the next Moscow month: the eleventh friend's next payment brings the bonus.
    const d = new Date(Date.now() + 3 * 3600_000)
    writeFileSync(CLOCK, new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, 9) - 3 * 3600_000).toISOString())
    try {
      await pay(left, 500)
    } finally {
      writeFileSync(CLOCK, '')
    }
    expect(await ledgerRows(left.user.id, 'referral')).toHaveLength(1)
    expect(await ledgerRows(referrer.user.id, 'referral')).toHaveLength(11)
  })
})

describe('test payments never count', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ REFERRAL_BONUS_RUB: String(BONUS) })
  })
  afterAll(() => server.stop())

  test('a referred account topping up on the built-in test page gets no bonus, nor does its referrer', async () => {
    const referrer = await registerUser(server.url)
    const code = (await referralOf(referrer, server.url)).code
    const friend = await registerByLink(server.url, code)
    const teams = teamsOn(server.url, server.dataDir)
    const created = await call(server.url, 'POST', '/api/payments/create', { token: friend.accessToken, body: { amount: 5000 } })
    const providerId = new URL(created.body.data.confirmationUrl).pathname.split('/').pop()!
    const paid = await call(server.url, 'POST', `/api/payments/test/${providerId}/pay`)
    expect(paid.body.data.status).toBe('succeeded')
    const team = (await teams.api('POST', '/api/teams', friend.accessToken, { name: 'Тест' })).body.data
    await teams.topUp(friend, team.id, 1000)
    expect((await call(server.url, 'GET', '/api/billing/balance', { token: friend.accessToken })).body.data.balance).toBe(5050)
    expect(await referralOf(referrer, server.url)).toMatchObject({ invited: 1, rewarded: 0, earnedRub: 0 })
  })
})
