import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq, inArray, like, sql } from 'drizzle-orm'
import { openDatabase } from '../db/client'
import { write } from '../db/tx'
import { rateLimits } from '../lib/rate-limit'
import { client, registerUser, signJwt, startServer, type TestServer, uniqueEmail } from '../test-support/server'
import { startSmtp } from '../test-support/smtp'
import { passwordResets, refreshTokens, users } from './schema'

// These tests start servers and processes; on a busy machine that outlasts bun's 5 s default
// (bunfig.toml cannot set it: only --timeout or this call can).
setDefaultTimeout(20_000)

let server: TestServer
let smtp: Awaited<ReturnType<typeof startSmtp>>
const ADMIN = 'Boss@Example.ru'

beforeAll(async () => {
  smtp = await startSmtp()
  server = await startServer({ SMTP_URL: smtp.url, ADMIN_EMAILS: ` other@x.ru , ${ADMIN.toLowerCase()} `, PUBLIC_URL: 'https://gw.example.ru' })
})
afterAll(async () => {
  await server.stop()
  await smtp.close()
})

/** The server's database (PostgreSQL in the pg run, else its SQLite file), opened by the test itself. */
const serverDatabase = () => openDatabase(server.databaseUrl)
const resetLinkRe = /https:\/\/gw\.example\.ru\/reset-password\/([A-Za-z0-9_-]{20,})/

describe('register', () => {
  test('creates the account with the welcome bonus and a session', async () => {
    const api = client(server.url)
    const email = uniqueEmail('New.Person')
    const res = await api.post('/api/auth/register', { email, password: 'secret-pass' })
    expect(res.status).toBe(201)
    expect(res.body.success).toBe(true)
    const { user, accessToken, refreshToken } = res.body.data
    expect(user).toMatchObject({ email, role: 'user', balance: 50 })
    expect(new Date(user.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000)
    expect(accessToken.split('.')).toHaveLength(3)
    expect(refreshToken.length).toBeGreaterThanOrEqual(40)

    const profile = await api.get('/api/auth/profile', accessToken)
    expect(profile.status).toBe(200)
    expect(profile.body.data.user).toEqual(user)
  })

  test('stores only an Argon2id password hash and a hashed refresh token', async () => {
    const { user, password, refreshToken } = await registerUser(server.url)
    const { db, close } = serverDatabase()
    const [row] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, user.id))
    expect(row!.passwordHash.startsWith('$argon2id$')).toBe(true)
    expect(row!.passwordHash).not.toContain(password)
    const tokens = await db.select({ tokenHash: refreshTokens.tokenHash }).from(refreshTokens).where(eq(refreshTokens.userId, user.id))
    await close()
    expect(tokens).toHaveLength(1)
    expect(tokens[0]!.tokenHash).not.toBe(refreshToken)
    expect(tokens[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/)
  })

  test.each([
    [{}, 'Заполните все поля'],
    [{ email: 'a@b.ru' }, 'Заполните все поля'],
    [{ email: '', password: '' }, 'Заполните все поля'],
    [{ email: '   ', password: 'longenough' }, 'Заполните все поля'],
    [{ email: 123, password: 'longenough' }, 'Заполните все поля'],
    [{ email: 'a@b.ru', password: ['x'] }, 'Заполните все поля'],
    [{ email: 'a@b.ru', password: '1234567' }, 'Пароль должен содержать минимум 8 символов'],
    [{ email: 'not-an-email', password: 'longenough' }, 'Некорректный email'],
    [{ email: 'a@b', password: 'longenough' }, 'Некорректный email'],
  ])('rejects %j with 400 "%s"', async (body, message) => {
    const res = await client(server.url).post('/api/auth/register', body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ success: false, error: message })
  })

  test.each(['{"email":', 'null', '[]', '"text"', '42'])('answers 400, not 500, to malformed JSON %s', async (raw) => {
    const res = await client(server.url).postRaw('/api/auth/register', raw)
    expect(res.status).toBe(400)
    expect(res.body.success).toBe(false)
    expect(typeof res.body.error).toBe('string')
  })

  test('e-mail is unique case-insensitively', async () => {
    const email = uniqueEmail('Case')
    await registerUser(server.url, email)
    const res = await client(server.url).post('/api/auth/register', { email: `  ${email.toUpperCase()} `, password: 'another-pass' })
    expect(res.status).toBe(409)
    expect(res.body.error).toBe('Пользователь с таким email уже существует')
  })

  test('accounts listed in ADMIN_EMAILS are admins, case-insensitively', async () => {
    const admin = await registerUser(server.url, ADMIN)
    expect(admin.user.role).toBe('admin')
    const profile = await client(server.url).get('/api/auth/profile', admin.accessToken)
    expect(profile.body.data.user.role).toBe('admin')
  })
})

describe('login and profile', () => {
  test('logs in with any letter case of the e-mail', async () => {
    const { email, password, user } = await registerUser(server.url)
    const res = await client(server.url).post('/api/auth/login', { email: email.toUpperCase(), password })
    expect(res.status).toBe(200)
    expect(res.body.data.user.id).toBe(user.id)
    expect(res.body.data.refreshToken).toBeString()
    const profile = await client(server.url).get('/api/auth/profile', res.body.data.accessToken)
    expect(profile.body.data.user.email).toBe(email)
  })

  test('wrong password and unknown e-mail get the same 401', async () => {
    const { email } = await registerUser(server.url)
    const api = client(server.url)
    const wrong = await api.post('/api/auth/login', { email, password: 'wrong-password' })
    const unknown = await api.post('/api/auth/login', { email: uniqueEmail('ghost'), password: 'wrong-password' })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ success: false, error: 'Неверный email или пароль' })
    expect(unknown.status).toBe(401)
    expect(unknown.body).toEqual(wrong.body)
  })

  test('login validation', async () => {
    const api = client(server.url)
    expect((await api.post('/api/auth/login', { email: 'a@b.ru' })).body.error).toBe('Заполните все поля')
    expect((await api.post('/api/auth/login', { email: '', password: 'x' })).body.error).toBe('Заполните все поля')
    expect((await api.postRaw('/api/auth/login', '{oops')).status).toBe(400)
  })

  test('profile needs a valid, unexpired access token naming an open session', async () => {
    const { user, accessToken } = await registerUser(server.url)
    const sid = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid
    expect(sid).toBeString()
    const api = client(server.url)
    const now = Math.floor(Date.now() / 1000)
    expect((await api.get('/api/auth/profile')).status).toBe(401)
    expect((await api.get('/api/auth/profile', 'garbage')).status).toBe(401)
    const expired = signJwt({ sub: user.id, sid, iat: now - 3600, exp: now - 60 })
    const res = await api.get('/api/auth/profile', expired)
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ success: false, error: 'Требуется авторизация' })
    const forged = signJwt({ sub: user.id, sid, iat: now, exp: now + 600 }, 'another-secret-that-is-long-enough-000000')
    expect((await api.get('/api/auth/profile', forged)).status).toBe(401)
    // Without a session id, or with someone else's or an unknown one, the signature alone is not enough.
    expect((await api.get('/api/auth/profile', signJwt({ sub: user.id, iat: now, exp: now + 600 }))).status).toBe(401)
    expect((await api.get('/api/auth/profile', signJwt({ sub: user.id, sid: 'no-such-session', iat: now, exp: now + 600 }))).status).toBe(401)
    const other = await registerUser(server.url)
    const otherSid = JSON.parse(Buffer.from(other.accessToken.split('.')[1]!, 'base64url').toString()).sid
    expect((await api.get('/api/auth/profile', signJwt({ sub: user.id, sid: otherSid, iat: now, exp: now + 600 }))).status).toBe(401)
    const valid = signJwt({ sub: user.id, sid, iat: now, exp: now + 600 })
    expect((await api.get('/api/auth/profile', valid)).status).toBe(200)
  })
})

describe('refresh tokens', () => {
  test('rotate on every refresh; a reused token is refused and revokes the family', async () => {
    const { refreshToken: first, api } = await registerUser(server.url)
    const r1 = await api.post('/api/auth/refresh', { refreshToken: first })
    expect(r1.status).toBe(200)
    const second = r1.body.data.refreshToken
    expect(second).not.toBe(first)
    expect((await api.get('/api/auth/profile', r1.body.data.accessToken)).status).toBe(200)

    const reuse = await api.post('/api/auth/refresh', { refreshToken: first })
    expect(reuse.status).toBe(401)
    expect(reuse.body.error).toBe('Сессия истекла, войдите снова')
    // The thief's replay also kills the legitimate successor.
    expect((await api.post('/api/auth/refresh', { refreshToken: second })).status).toBe(401)
  })

  test('revoking one session leaves the user’s other sessions alive', async () => {
    const { email, password, refreshToken: a, api } = await registerUser(server.url)
    const b = (await api.post('/api/auth/login', { email, password })).body.data.refreshToken
    await api.post('/api/auth/refresh', { refreshToken: a })
    await api.post('/api/auth/refresh', { refreshToken: a }) // reuse: revokes family A only
    expect((await api.post('/api/auth/refresh', { refreshToken: b })).status).toBe(200)
  })

  test('concurrent refreshes with one token: exactly one wins', async () => {
    const { refreshToken, api } = await registerUser(server.url)
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/api/auth/refresh', { refreshToken })))
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1)
    expect(results.every((r) => r.status === 200 || r.status === 401)).toBe(true)
  })

  test('unknown, empty or missing tokens get 401/400', async () => {
    const api = client(server.url)
    expect((await api.post('/api/auth/refresh', { refreshToken: 'nope' })).status).toBe(401)
    expect((await api.post('/api/auth/refresh', { refreshToken: '' })).status).toBe(401)
    expect((await api.post('/api/auth/refresh', {})).status).toBe(400)
  })

  test('logout revokes the refresh token', async () => {
    const { refreshToken, api } = await registerUser(server.url)
    const out = await api.post('/api/auth/logout', { refreshToken })
    expect(out.status).toBe(200)
    expect(out.body).toEqual({ success: true, data: { ok: true } })
    expect((await api.post('/api/auth/refresh', { refreshToken })).status).toBe(401)
  })
})

describe('password reset', () => {
  test('letter arrives over SMTP; its link works exactly once and ends old sessions', async () => {
    const { email, password, refreshToken, api } = await registerUser(server.url, uniqueEmail('Reset.Me'))
    const res = await api.post('/api/auth/forgot-password', { email: email.toUpperCase() })
    expect(res.status).toBe(200)
    const letter = await smtp.waitFor(email)
    expect(letter.subject).toBe('Восстановление пароля — AI Gateway')
    expect(letter.text).toContain('Здравствуйте!')
    expect(letter.text).toContain('действительна 1 час')
    const token = letter.text.match(resetLinkRe)?.[1]
    expect(token).toBeString()
    // Only the hash is stored.
    const { db, close } = serverDatabase()
    const stored = await db.select({ tokenHash: passwordResets.tokenHash }).from(passwordResets)
    await close()
    expect(stored.length).toBeGreaterThan(0)
    expect(stored.some((r) => r.tokenHash === token)).toBe(false)

    const short = await api.post('/api/auth/reset-password', { token, password: '12345' })
    expect(short.status).toBe(400)
    expect(short.body.error).toBe('Пароль должен быть не менее 6 символов')

    const done = await api.post('/api/auth/reset-password', { token, password: 'brand-new' })
    expect(done.status).toBe(200)
    expect(done.body.success).toBe(true)

    const again = await api.post('/api/auth/reset-password', { token, password: 'third-one' })
    expect(again.status).toBe(400)
    expect(again.body.error).toBe('Ссылка для сброса пароля недействительна или устарела')

    expect((await api.post('/api/auth/login', { email, password })).status).toBe(401)
    expect((await api.post('/api/auth/login', { email, password: 'brand-new' })).status).toBe(200)
    expect((await api.post('/api/auth/refresh', { refreshToken })).status).toBe(401)

    // The owner is told, in case the reset was not theirs.
    const deadline = Date.now() + 5000
    while (!smtp.inbox.some((m) => m.to.includes(email) && m.subject === 'Пароль изменён — AI Gateway') && Date.now() < deadline) await Bun.sleep(25)
    const notice = smtp.inbox.find((m) => m.to.includes(email) && m.subject === 'Пароль изменён — AI Gateway')
    expect(notice?.text).toContain('https://gw.example.ru/forgot-password')
  })

  test('a successful reset voids the user’s other outstanding links', async () => {
    const { email, api } = await registerUser(server.url, uniqueEmail('Two.Links'))
    await api.post('/api/auth/forgot-password', { email })
    await smtp.waitFor(email)
    await api.post('/api/auth/forgot-password', { email })
    const deadline = Date.now() + 5000
    let letters: string[] = []
    while ((letters = smtp.inbox.filter((m) => m.to.includes(email)).map((m) => m.text.match(resetLinkRe)![1]!)).length < 2 && Date.now() < deadline) await Bun.sleep(25)
    const [first, second] = letters
    expect((await api.post('/api/auth/reset-password', { token: second, password: 'new-pass-1' })).status).toBe(200)
    expect((await api.post('/api/auth/reset-password', { token: first, password: 'new-pass-2' })).status).toBe(400)
  })

  test('the reset page is served with Referrer-Policy: no-referrer', async () => {
    const res = await fetch(`${server.url}/reset-password/some-token`)
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
  })

  test('same answer whether or not the account exists, and no letter for strangers', async () => {
    const { email } = await registerUser(server.url)
    const api = client(server.url)
    const known = await api.post('/api/auth/forgot-password', { email })
    const ghost = uniqueEmail('ghost')
    const unknown = await api.post('/api/auth/forgot-password', { email: ghost })
    expect(known.status).toBe(200)
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual(known.body)
    await smtp.waitFor(email)
    await Bun.sleep(200)
    expect(smtp.inbox.some((m) => m.to.includes(ghost))).toBe(false)
  })

  test('an expired link is refused', async () => {
    const { email, api } = await registerUser(server.url, uniqueEmail('Expired'))
    await api.post('/api/auth/forgot-password', { email })
    const token = (await smtp.waitFor(email)).text.match(resetLinkRe)![1]
    const { db, close } = serverDatabase()
    await write(db, (q) =>
      q
        .update(passwordResets)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(inArray(passwordResets.userId, q.select({ id: users.id }).from(users).where(eq(users.email, email)))),
    )
    await close()
    const res = await api.post('/api/auth/reset-password', { token, password: 'whatever-1' })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('Ссылка для сброса пароля недействительна или устарела')
  })

  test('validation', async () => {
    const api = client(server.url)
    expect((await api.post('/api/auth/forgot-password', {})).body.error).toBe('Введите email')
    expect((await api.post('/api/auth/forgot-password', { email: ' ' })).body.error).toBe('Введите email')
    expect((await api.post('/api/auth/forgot-password', { email: 'nope' })).body.error).toBe('Некорректный email')
    expect((await api.post('/api/auth/reset-password', { token: 'x' })).body.error).toBe('Заполните все поля')
    const bogus = await api.post('/api/auth/reset-password', { token: 'x'.repeat(43), password: 'long-enough' })
    expect(bogus.status).toBe(400)
    expect(bogus.body.error).toBe('Ссылка для сброса пароля недействительна или устарела')
  })
})

describe('rate limits', () => {
  const tooMany = (res: { status: number; body: any; headers: Headers }) => {
    expect(res.status).toBe(429)
    expect(res.body.error).toMatch(/^Слишком много попыток\. Повторите через \d+ (сек|мин)\.$/)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
  }

  const throttled = (res: { status: number; body: any; headers: Headers }) => {
    expect(res.status).toBe(429)
    expect(res.body.error).toMatch(/^Слишком много неудачных попыток входа\. Повторите через \d+ (сек|мин)\.$/)
    const wait = Number(res.headers.get('retry-after'))
    expect(wait).toBeGreaterThan(0)
    return wait
  }

  test('login: 5 failures for an address from one IP close that pair only; the owner signs in from another IP', async () => {
    const { email, password } = await registerUser(server.url)
    const attacker = client(server.url)
    for (let i = 0; i < 5; i++) expect((await attacker.post('/api/auth/login', { email, password: `guess-${i}` })).status).toBe(401)
    const wait = throttled(await attacker.post('/api/auth/login', { email, password: 'guess-6' }))
    expect(wait).toBeLessThanOrEqual(30)
    // From the hammering IP even the right password waits (the pair is closed)…
    throttled(await attacker.post('/api/auth/login', { email, password }))
    // …while the owner, elsewhere, is not affected — however long the hammering goes on.
    for (let i = 0; i < 3; i++) throttled(await attacker.post('/api/auth/login', { email, password: 'more' }))
    const owner = await client(server.url).post('/api/auth/login', { email, password })
    expect(owner.status).toBe(200)
    expect((await client(server.url).get('/api/auth/profile', owner.body.data.accessToken)).status).toBe(200)
    // The attacker's other targets from the same IP are still open until the per-IP budget runs out.
    const other = await registerUser(server.url)
    expect((await attacker.post('/api/auth/login', { email: other.email, password: other.password })).status).toBe(200)
  })

  test('login: waits double with each further failure, up to 15 minutes', async () => {
    const { email } = await registerUser(server.url)
    const api = client(server.url)
    for (let i = 0; i < 5; i++) expect((await api.post('/api/auth/login', { email, password: 'wrong' })).status).toBe(401)
    // Time passes (the wait is moved into the past), the next guess fails again and waits twice as long.
    const waits: number[] = [throttled(await api.post('/api/auth/login', { email, password: 'wrong' }))]
    for (let i = 0; i < 6; i++) {
      const { db, close } = serverDatabase()
      await write(db, (q) =>
        q
          .update(rateLimits)
          .set({ windowStart: sql`${rateLimits.windowStart} - 3600000` })
          .where(like(rateLimits.key, `login:pair:%:${api.ip}`)),
      )
      await close()
      expect((await api.post('/api/auth/login', { email, password: 'wrong' })).status).toBe(401)
      waits.push(throttled(await api.post('/api/auth/login', { email, password: 'wrong' })))
    }
    const rounded = waits.map((w) => [30, 60, 120, 240, 480, 900].find((step) => w <= step && w > step / 2 - 1))
    expect(rounded).toEqual([30, 60, 120, 240, 480, 900, 900])
    // Retry-After and the message agree.
    const last = await api.post('/api/auth/login', { email, password: 'wrong' })
    expect(last.body.error).toBe(`Слишком много неудачных попыток входа. Повторите через ${Math.ceil(Number(last.headers.get('retry-after')) / 60)} мин.`)
  })

  test('login: the right password clears its pair’s failures', async () => {
    const { email, password } = await registerUser(server.url)
    const api = client(server.url)
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) expect((await api.post('/api/auth/login', { email, password: 'wrong' })).status).toBe(401)
      expect((await api.post('/api/auth/login', { email, password })).status).toBe(200)
    }
  })

  test('login: 30 failures from one IP, whatever the e-mail, close that IP; another IP is unaffected', async () => {
    const api = client(server.url)
    for (let i = 0; i < 30; i++) expect((await api.post('/api/auth/login', { email: uniqueEmail('spray'), password: 'x' })).status).toBe(401)
    throttled(await api.post('/api/auth/login', { email: uniqueEmail('spray'), password: 'x' }))
    expect((await client(server.url).post('/api/auth/login', { email: uniqueEmail('spray'), password: 'x' })).status).toBe(401)
  })

  test('login: parallel guesses are counted before the password check, so a burst cannot slip past the limit', async () => {
    const { email } = await registerUser(server.url)
    const api = client(server.url)
    const results = await Promise.all(Array.from({ length: 12 }, () => api.post('/api/auth/login', { email, password: 'burst' })))
    expect(results.filter((r) => r.status === 401)).toHaveLength(5)
    expect(results.filter((r) => r.status === 429)).toHaveLength(7)
  })

  test('register: 10 per IP per hour', async () => {
    const api = client(server.url)
    for (let i = 0; i < 10; i++) expect((await api.post('/api/auth/register', { email: uniqueEmail('bulk'), password: 'short' })).status).toBe(400)
    tooMany(await api.post('/api/auth/register', { email: uniqueEmail('bulk'), password: 'long-enough-pass' }))
  })

  test('forgot-password: 3 letters per e-mail per hour', async () => {
    const { email } = await registerUser(server.url)
    for (let i = 0; i < 3; i++) expect((await client(server.url).post('/api/auth/forgot-password', { email })).status).toBe(200)
    tooMany(await client(server.url).post('/api/auth/forgot-password', { email }))
  })
})

describe('client address without TRUST_PROXY', () => {
  let direct: TestServer
  beforeAll(async () => {
    direct = await startServer({ TRUST_PROXY: 'false' })
  })
  afterAll(() => direct.stop())

  test('a forged X-Forwarded-For does not give an attacker fresh sign-in budgets', async () => {
    const { email } = await registerUser(direct.url)
    // Each guess claims another client address; the server only believes the socket's.
    for (let i = 0; i < 5; i++) expect((await client(direct.url).post('/api/auth/login', { email, password: 'guess' })).status).toBe(401)
    const res = await client(direct.url).post('/api/auth/login', { email, password: 'guess' })
    expect(res.status).toBe(429)
    expect(res.body.error).toMatch(/^Слишком много неудачных попыток входа/)
  })
})
