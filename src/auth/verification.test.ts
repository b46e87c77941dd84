// The welcome bonus waits for a confirmed address (REQUIRE_EMAIL_VERIFICATION, default true):
// letters go through a real SMTP server, links are followed, the ledger is read from the database.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { and, count, eq } from 'drizzle-orm'
import { openDatabase } from '../db/client'
import { write } from '../db/tx'
import { ledgerEntries } from '../money'
import { startGateway } from '../test-support/gateway'
import { client, registerUser, startServer, type TestServer, uniqueEmail } from '../test-support/server'
import { type ReceivedLetter, startSmtp } from '../test-support/smtp'
import { emailVerifications } from './schema'

// These tests start servers and processes; on a busy machine that outlasts bun's 5 s default
// (bunfig.toml cannot set it: only --timeout or this call can).
setDefaultTimeout(20_000)

/** The server's database (PostgreSQL in the pg run, else its SQLite file), opened by the test itself. */
const serverDatabase = (s: TestServer) => openDatabase(s.databaseUrl)

let gw: Awaited<ReturnType<typeof startGateway>>
let smtp: Awaited<ReturnType<typeof startSmtp>>
const PUBLIC_URL_RE = (url: string) => new RegExp(`${url.replace(/[.:/]/g, '\\$&')}/verify-email/([A-Za-z0-9_-]{40,})`)

beforeAll(async () => {
  smtp = await startSmtp()
  gw = await startGateway({ SMTP_URL: smtp.url, REQUIRE_EMAIL_VERIFICATION: 'true' })
})
afterAll(async () => {
  await gw.stop()
  await smtp.close()
})

const bonusRows = (userId: string) =>
  gw.read<{ amount_micros: number; reference: string; description: string }>(
    "select amount_micros, reference, description from ledger_entries where user_id = ? and type = 'bonus'",
    userId,
  )

/** Letters to `to`, oldest first, waiting until there are `count`. */
async function lettersTo(to: string, count = 1): Promise<ReceivedLetter[]> {
  const deadline = Date.now() + 5000
  for (;;) {
    const found = smtp.inbox.filter((m) => m.to.includes(to))
    if (found.length >= count) return found
    if (Date.now() > deadline) throw new Error(`expected ${count} letters to ${to}, got ${found.length}`)
    await Bun.sleep(25)
  }
}
const tokenOf = (letter: ReceivedLetter) => letter.text.match(PUBLIC_URL_RE(gw.url))![1]!

describe('registration with confirmation required', () => {
  test('no bonus yet; a letter with a one-time link on PUBLIC_URL; the token is stored hashed', async () => {
    const u = await registerUser(gw.url, uniqueEmail('Confirm.Me'))
    expect(u.user).toMatchObject({ balance: 0, emailVerified: false })
    expect(await bonusRows(u.user.id)).toEqual([])
    const [letter] = await lettersTo(u.email)
    expect(letter!.subject).toBe('Подтвердите e-mail — AI Gateway')
    expect(letter!.text).toContain('приветственный бонус 50 ₽')
    expect(letter!.text).toContain('действительна 24 часа')
    const token = tokenOf(letter!)
    const stored = await gw.read<{ token_hash: string }>('select token_hash from email_verifications where user_id = ?', u.user.id)
    expect(stored).toHaveLength(1)
    expect(stored[0]!.token_hash).not.toBe(token)
    expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/)
    const health = await client(gw.url).get('/api/health')
    expect(health.body.data.emailVerification).toBe(true)
  })

  test('following the link credits the bonus and its ledger row once; a second click credits nothing', async () => {
    const u = await registerUser(gw.url)
    const token = tokenOf((await lettersTo(u.email))[0]!)
    const page = await fetch(`${gw.url}/verify-email/${token}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')

    const first = await client(gw.url).post('/api/auth/verify-email', { token })
    expect(first.body).toEqual({ success: true, data: { message: 'E-mail подтверждён', bonusCredited: true } })
    const profile = (await u.api.get('/api/auth/profile', u.accessToken)).body.data.user
    expect(profile).toMatchObject({ balance: 50, emailVerified: true })
    expect(await bonusRows(u.user.id)).toEqual([{ amount_micros: 50_000_000, reference: `welcome:${u.user.id}`, description: 'Приветственный бонус' }])

    const second = await client(gw.url).post('/api/auth/verify-email', { token })
    expect(second.body).toEqual({ success: true, data: { message: 'E-mail уже подтверждён', bonusCredited: false } })
    expect(await bonusRows(u.user.id)).toHaveLength(1)
    const books = await gw.books(u.user.id)
    expect(books.balance).toBe(50_000_000)
    expect(books.ledgerSum).toBe(books.balance)
    const tx = await u.api.get('/api/billing/transactions?limit=50', u.accessToken)
    expect(tx.body.data).toEqual([expect.objectContaining({ type: 'bonus', amount: '+50.00', balanceAfter: 50 })])
  })

  test('ten simultaneous clicks, on this link and a resent one: exactly one bonus', async () => {
    const u = await registerUser(gw.url)
    const first = tokenOf((await lettersTo(u.email))[0]!)
    expect((await u.api.post('/api/auth/resend-verification', undefined, u.accessToken)).status).toBe(200)
    const second = tokenOf((await lettersTo(u.email, 2))[1]!)
    expect(second).not.toBe(first)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client(gw.url).post('/api/auth/verify-email', { token: i % 2 ? first : second })))
    expect(results.every((r) => r.status === 200)).toBe(true)
    expect(results.filter((r) => r.body.data.bonusCredited)).toHaveLength(1)
    expect(await bonusRows(u.user.id)).toHaveLength(1)
    expect((await gw.books(u.user.id)).balance).toBe(50_000_000)
  })

  test('resend: a new letter, limited to 3 an hour; refused once confirmed', async () => {
    const u = await registerUser(gw.url)
    await lettersTo(u.email)
    for (let i = 0; i < 3; i++) {
      const res = await u.api.post('/api/auth/resend-verification', undefined, u.accessToken)
      expect(res.body).toEqual({ success: true, data: { message: `Письмо со ссылкой для подтверждения отправлено на ${u.email}` } })
    }
    const letters = await lettersTo(u.email, 4)
    const limited = await u.api.post('/api/auth/resend-verification', undefined, u.accessToken)
    expect(limited.status).toBe(429)
    expect(limited.body.error).toMatch(/^Слишком много попыток\. Повторите через \d+ (сек|мин)\.$/)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)

    // Any of the links confirms; the others are then spent.
    await client(gw.url).post('/api/auth/verify-email', { token: tokenOf(letters[2]!) })
    const done = await u.api.post('/api/auth/resend-verification', undefined, u.accessToken)
    expect([done.status, done.body.error]).toEqual([400, 'E-mail уже подтверждён'])
    expect((await client(gw.url).post('/api/auth/resend-verification')).status).toBe(401)
  })

  test('expired, unknown and malformed links are refused and credit nothing', async () => {
    const u = await registerUser(gw.url)
    const token = tokenOf((await lettersTo(u.email))[0]!)
    const { db, close } = serverDatabase(gw.server)
    await write(db, (q) =>
      q
        .update(emailVerifications)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(emailVerifications.userId, u.user.id)),
    )
    await close()
    const api = client(gw.url)
    for (const body of [{ token }, { token: 'x'.repeat(43) }, { token: '' }, {}, { token: 42 }]) {
      const res = await api.post('/api/auth/verify-email', body)
      expect([res.status, res.body.error]).toEqual([400, 'Ссылка для подтверждения e-mail недействительна или устарела'])
    }
    expect(await bonusRows(u.user.id)).toEqual([])
    expect((await u.api.get('/api/auth/profile', u.accessToken)).body.data.user.emailVerified).toBe(false)
  })

  test('spending never waits for confirmation: a top-up is credited and spent on /v1 while unconfirmed', async () => {
    const u = await registerUser(gw.url)
    const created = await u.api.post('/api/payments/create', { amount: 100, returnUrl: '/app/billing' }, u.accessToken)
    const providerId = new URL(created.body.data.confirmationUrl).pathname.split('/').pop()!
    expect((await client(gw.url).post(`/api/payments/test/${providerId}/pay`)).body.data.status).toBe('succeeded')
    expect((await u.api.get('/api/billing/balance', u.accessToken)).body.data.balance).toBe(100)
    const chat = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 20 }),
    })
    expect(chat.status).toBe(200)
    expect((await gw.books(u.user.id)).balance).toBeLessThan(100_000_000)
    expect((await u.api.get('/api/auth/profile', u.accessToken)).body.data.user.emailVerified).toBe(false)
  })
})

describe('REQUIRE_EMAIL_VERIFICATION=false', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ SMTP_URL: smtp.url, REQUIRE_EMAIL_VERIFICATION: 'false' })
  })
  afterAll(() => server.stop())

  test('the bonus is credited at registration, no letter is sent; confirming later adds no second bonus', async () => {
    const u = await registerUser(server.url)
    expect(u.user).toMatchObject({ balance: 50, emailVerified: false })
    expect((await client(server.url).get('/api/health')).body.data.emailVerification).toBe(false)
    await Bun.sleep(300)
    expect(smtp.inbox.some((m) => m.to.includes(u.email))).toBe(false)

    // Confirming is still possible (and harmless).
    expect((await u.api.post('/api/auth/resend-verification', undefined, u.accessToken)).status).toBe(200)
    const token = (await smtp.waitFor(u.email)).text.match(PUBLIC_URL_RE(server.url))![1]
    const res = await client(server.url).post('/api/auth/verify-email', { token })
    expect(res.body.data).toEqual({ message: 'E-mail подтверждён', bonusCredited: false })
    const { db, close } = serverDatabase(server)
    const [rows] = await db
      .select({ n: count() })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, u.user.id), eq(ledgerEntries.type, 'bonus')))
    await close()
    expect(rows!.n).toBe(1)
    expect((await u.api.get('/api/auth/profile', u.accessToken)).body.data.user).toMatchObject({ balance: 50, emailVerified: true })
  })
})
