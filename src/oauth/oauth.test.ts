// «Войти через AI Gateway» (OAuth 2.0 + PKCE, OpenRouter's wire shape) against the real server: the
// approval page's routes, the code exchange POST /api/v1/auth/keys and the key it makes. Codes expire
// on the server's clock, moved here through TEST_CLOCK_FILE.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGateway } from '../test-support/gateway'
import { freshIp, readResult, registerUser } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
const clockDir = mkdtempSync(join(tmpdir(), 'oauth-clock-'))
const clockFile = join(clockDir, 'now')
/** Moves the server's clock to `at` (epoch ms); null = the real time. */
const setClock = (at: number | null) => writeFileSync(clockFile, at === null ? '' : String(at))

beforeAll(async () => {
  setClock(null)
  gw = await startGateway({ TEST_CLOCK_FILE: clockFile })
})
afterAll(async () => {
  await gw.stop()
  rmSync(clockDir, { recursive: true, force: true })
})

const EXCHANGE = '/api/v1/auth/keys'
const APP = 'https://app.example.ru'
const CALLBACK = `${APP}/auth/callback?state=st-42&lang=ru`

type Res = { status: number; body: any; headers: Headers }
type User = Awaited<ReturnType<typeof registerUser>>

async function call(method: string, path: string, opts: { body?: unknown; raw?: string; token?: string; ip?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? freshIp() }
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json'
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  return readResult(await fetch(gw.url + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) }))
}

/** A verifier (43 base64url characters from 32 random bytes, as apps make it) and its S256 challenge. */
function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

const check = (u: User, body: Record<string, unknown>) => call('POST', '/api/auth/authorize/check', { token: u.accessToken, body })
const approve = (u: User, body: Record<string, unknown>) => call('POST', '/api/auth/authorize', { token: u.accessToken, body })
const exchange = (body: unknown, ip?: string) => call('POST', EXCHANGE, { body, ip })

/** The user approves CALLBACK (or `callbackUrl`) with `budgetRub`: the code the browser would carry back. */
async function issue(u: User, { callbackUrl = CALLBACK, budgetRub = null as number | null } = {}) {
  const p = pkce()
  const res = await approve(u, { callbackUrl, codeChallenge: p.challenge, codeChallengeMethod: 'S256', budgetRub })
  expect(res.status).toBe(200)
  const redirect = new URL(res.body.data.redirectUrl)
  return { ...p, code: redirect.searchParams.get('code')!, redirect }
}

const keysOf = async (u: User) => {
  const res = await call('GET', '/api/auth/api-keys', { token: u.accessToken })
  expect(res.status).toBe(200)
  return res.body.data as any[]
}
const codesOf = (userId: string) => gw.read<{ code_hash: string; used_at: number | null }>('select code_hash, used_at from auth_codes where user_id = ?', userId)
const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex')

/** OpenAI's error shape with our code and a Russian message. */
const refused = (res: Res, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code })
  expect(res.body.error).toMatchObject({ type: expect.any(String), message: expect.stringMatching(/[а-яё]/i) })
  expect(res.body.success).toBeUndefined()
}

describe('the whole flow', () => {
  test('check → approve → callback_url?code=… → exchange: a key of the user, named after the app, with the budget; revocable', async () => {
    const u = await registerUser(gw.url)
    const p = pkce()
    const request = { callbackUrl: CALLBACK, codeChallenge: p.challenge, codeChallengeMethod: 'S256' }

    const checked = await check(u, request)
    expect(checked.status).toBe(200)
    expect(checked.body.data).toEqual({ origin: APP, declineUrl: `${APP}/auth/callback?state=st-42&lang=ru&error=access_denied` })

    const approved = await approve(u, { ...request, budgetRub: 150 })
    expect(approved.status).toBe(200)
    const redirect = new URL(approved.body.data.redirectUrl)
    // The app's own parameters stay; the code is added.
    expect(redirect.origin + redirect.pathname).toBe(`${APP}/auth/callback`)
    expect(redirect.searchParams.get('state')).toBe('st-42')
    expect(redirect.searchParams.get('lang')).toBe('ru')
    const code = redirect.searchParams.get('code')!
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Only the code's hash is stored.
    const rows = await codesOf(u.user.id)
    expect(rows).toEqual([{ code_hash: sha256Hex(code), used_at: null }])
    // Nothing is made before the app exchanges the code.
    expect(await keysOf(u)).toEqual([])

    const res = await exchange({ code, code_verifier: p.verifier, code_challenge_method: 'S256' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    // Plain JSON, as OpenRouter answers: no {success, data} envelope.
    expect(res.body).toEqual({ key: expect.stringMatching(/^sk-gw-[A-Za-z0-9_-]+$/), user_id: u.user.id })

    const [key, ...others] = await keysOf(u)
    expect(others).toEqual([])
    expect(key).toMatchObject({
      name: APP,
      appOrigin: APP,
      kind: 'inference',
      teamId: null,
      isActive: true,
      budget: { limitRub: 150, period: 'month', spent: 0, remaining: 150 },
      monthlyLimit: 150,
    })
    expect(res.body.key.startsWith(key.keyPrefix)).toBe(true)
    expect((await codesOf(u.user.id))[0]!.used_at).toEqual(expect.any(Number))

    // The key works on /v1 and pays from the user's balance.
    const info = await call('GET', '/v1/key', { token: res.body.key })
    expect(info.status).toBe(200)
    expect(info.body.data).toMatchObject({ label: APP, limit: 150, team: null })
    const chat = await call('POST', '/v1/chat/completions', {
      token: res.body.key,
      body: { model: 'openai/gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'Привет' }] },
    })
    expect(chat.status).toBe(200)

    // Revoked on the keys page: the app's key stops at once.
    expect((await call('DELETE', `/api/auth/api-keys/${key.id}`, { token: u.accessToken })).status).toBe(200)
    expect((await call('GET', '/v1/key', { token: res.body.key })).status).toBe(401)
  })

  test('no budget (null or absent): a key without a limit; http on localhost, 127.0.0.1 and [::1] is allowed', async () => {
    const u = await registerUser(gw.url)
    for (const callbackUrl of ['http://localhost:3000/cb', 'http://127.0.0.1:8080/', 'http://[::1]:5173/oauth']) {
      const { code, verifier } = await issue(u, { callbackUrl })
      expect((await exchange({ code, code_verifier: verifier })).status).toBe(200)
    }
    const keys = await keysOf(u)
    expect(keys.map((k) => k.appOrigin).sort()).toEqual(['http://127.0.0.1:8080', 'http://[::1]:5173', 'http://localhost:3000'])
    for (const k of keys) expect(k.budget.limitRub).toBeNull()
  })

  test('the key is personal even when the approving session acts in a team (X-Team-Id is not read)', async () => {
    const u = await registerUser(gw.url)
    const p = pkce()
    const res = await fetch(`${gw.url}/api/auth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${u.accessToken}`, 'x-team-id': 'some-team', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ callbackUrl: CALLBACK, codeChallenge: p.challenge, codeChallengeMethod: 'S256', budgetRub: null }),
    })
    expect(res.status).toBe(200)
    const code = new URL(((await res.json()) as any).data.redirectUrl).searchParams.get('code')!
    expect((await exchange({ code, code_verifier: p.verifier })).status).toBe(200)
    expect((await keysOf(u)).map((k) => k.teamId)).toEqual([null])
  })
})

describe('codes are single-use, expire in 10 minutes and are bound to the challenge', () => {
  test('a wrong verifier: 400 invalid_code_verifier, and the code is not spent by it', async () => {
    const u = await registerUser(gw.url)
    const { code, verifier } = await issue(u)
    refused(await exchange({ code, code_verifier: pkce().verifier }), 400, 'invalid_code_verifier')
    // The challenge itself is not the verifier.
    refused(await exchange({ code, code_verifier: createHash('sha256').update(verifier).digest('base64url') }), 400, 'invalid_code_verifier')
    refused(await exchange({ code, code_verifier: 'short' }), 400, 'invalid_code_verifier')
    expect(await keysOf(u)).toEqual([])
    expect((await exchange({ code, code_verifier: verifier })).status).toBe(200)
  })

  test('a reused code: 400 code_already_used, one key only', async () => {
    const u = await registerUser(gw.url)
    const { code, verifier } = await issue(u)
    expect((await exchange({ code, code_verifier: verifier })).status).toBe(200)
    refused(await exchange({ code, code_verifier: verifier }), 400, 'code_already_used')
    expect(await keysOf(u)).toHaveLength(1)
  })

  test('20 parallel exchanges of one code: exactly one key', async () => {
    const u = await registerUser(gw.url)
    const { code, verifier } = await issue(u)
    const results = await Promise.all(Array.from({ length: 20 }, () => exchange({ code, code_verifier: verifier })))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    for (const r of results.filter((r) => r.status !== 200)) refused(r, 400, 'code_already_used')
    expect(await keysOf(u)).toHaveLength(1)
  })

  test('an expired code: 400 code_expired (a code exchanged just before 10 minutes still works)', async () => {
    const u = await registerUser(gw.url)
    const start = Date.now()
    setClock(start)
    try {
      const early = await issue(u)
      const late = await issue(u)
      setClock(start + 10 * 60_000 - 1000)
      expect((await exchange({ code: early.code, code_verifier: early.verifier })).status).toBe(200)
      setClock(start + 10 * 60_000)
      refused(await exchange({ code: late.code, code_verifier: late.verifier }), 400, 'code_expired')
      setClock(start + 3600_000)
      refused(await exchange({ code: late.code, code_verifier: late.verifier }), 400, 'code_expired')
    } finally {
      setClock(null)
    }
    expect(await keysOf(u)).toHaveLength(1)
  })

  test('an unknown code, a malformed body, method plain: refused in OpenAI’s shape', async () => {
    const { verifier } = pkce()
    refused(await exchange({ code: 'no-such-code-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', code_verifier: verifier }), 400, 'invalid_code')
    refused(await exchange({ code: '', code_verifier: verifier }), 400, 'invalid_code')
    refused(await exchange({ code_verifier: verifier }), 400, 'invalid_request')
    refused(await exchange({ code: 123, code_verifier: verifier }), 400, 'invalid_request')
    refused(await exchange({ code: 'x', code_verifier: verifier, code_challenge_method: 'plain' }), 400, 'invalid_code_challenge_method')
  })

  test('a code of a deleted account is worth nothing', async () => {
    const u = await registerUser(gw.url)
    const { code, verifier } = await issue(u)
    const gone = await call('DELETE', '/api/auth/account', { token: u.accessToken, body: { email: u.email } })
    expect(gone.status).toBe(200)
    refused(await exchange({ code, code_verifier: verifier }), 400, 'invalid_code')
  })
})

describe('the approval page’s checks', () => {
  const BAD_CALLBACKS = [
    'http://app.example.ru/cb', // plain http off loopback
    'ftp://app.example.ru/cb',
    'javascript:alert(1)',
    'https://user:secret@app.example.ru/cb',
    'https://app.example.ru/cb#frag',
    'not a url',
    '',
    `https://app.example.ru/${'a'.repeat(2000)}`,
    'http://localhost.example.ru/cb',
    42,
  ]

  test('a bad callback_url: 400 with the reason on check and approve, no code issued', async () => {
    const u = await registerUser(gw.url)
    const { challenge } = pkce()
    for (const callbackUrl of BAD_CALLBACKS) {
      const c = await check(u, { callbackUrl, codeChallenge: challenge, codeChallengeMethod: 'S256' })
      expect({ callbackUrl, status: c.status }).toEqual({ callbackUrl, status: 400 })
      expect(c.body).toEqual({ success: false, error: expect.stringContaining('callback_url') })
      const a = await approve(u, { callbackUrl, codeChallenge: challenge, codeChallengeMethod: 'S256', budgetRub: null })
      expect(a.status).toBe(400)
    }
    expect(await codesOf(u.user.id)).toEqual([])
  })

  test('only S256, and a 43–128 character base64url challenge', async () => {
    const u = await registerUser(gw.url)
    const { challenge } = pkce()
    for (const codeChallengeMethod of ['plain', undefined, 's256']) {
      const c = await check(u, { callbackUrl: CALLBACK, codeChallenge: challenge, codeChallengeMethod })
      expect(c.status).toBe(400)
      expect(c.body.error).toContain('S256')
      expect((await approve(u, { callbackUrl: CALLBACK, codeChallenge: challenge, codeChallengeMethod, budgetRub: null })).status).toBe(400)
    }
    for (const codeChallenge of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}+`, `${'a'.repeat(42)}/`, null]) {
      const c = await check(u, { callbackUrl: CALLBACK, codeChallenge, codeChallengeMethod: 'S256' })
      expect(c.status).toBe(400)
      expect(c.body.error).toContain('code_challenge')
    }
    expect((await check(u, { callbackUrl: CALLBACK, codeChallenge: 'a'.repeat(128), codeChallengeMethod: 'S256' })).status).toBe(200)
    expect(await codesOf(u.user.id)).toEqual([])
  })

  test('a bad budget is refused with the budgets’ message', async () => {
    const u = await registerUser(gw.url)
    const { challenge } = pkce()
    for (const budgetRub of [-5, 0, 'сто', 1e12]) {
      const a = await approve(u, { callbackUrl: CALLBACK, codeChallenge: challenge, codeChallengeMethod: 'S256', budgetRub })
      expect(a.status).toBe(400)
      expect(a.body.error).toMatch(/[Лл]имит/)
    }
    expect(await codesOf(u.user.id)).toEqual([])
  })

  test('decline needs no call: check answers where «Отклонить» goes, and nothing is stored or made', async () => {
    const u = await registerUser(gw.url)
    const { challenge } = pkce()
    const c = await check(u, { callbackUrl: 'https://bot.example.ru/done', codeChallenge: challenge, codeChallengeMethod: 'S256' })
    expect(c.body.data).toEqual({ origin: 'https://bot.example.ru', declineUrl: 'https://bot.example.ru/done?error=access_denied' })
    expect(await codesOf(u.user.id)).toEqual([])
    expect(await keysOf(u)).toEqual([])
  })

  test('only the web session approves: signed out 401, an API key 401, a management key 403', async () => {
    const { challenge } = pkce()
    const body = { callbackUrl: CALLBACK, codeChallenge: challenge, codeChallengeMethod: 'S256', budgetRub: null }
    expect((await call('POST', '/api/auth/authorize/check', { body })).status).toBe(401)
    expect((await call('POST', '/api/auth/authorize', { body })).status).toBe(401)
    const u = await registerUser(gw.url)
    const made = async (kind: string) => (await call('POST', '/api/auth/api-keys', { token: u.accessToken, body: { name: kind, kind } })).body.data.key as string
    expect((await call('POST', '/api/auth/authorize', { body, token: await made('inference') })).status).toBe(401)
    expect((await call('POST', '/api/auth/authorize', { body, token: await made('management') })).status).toBe(403)
    expect(await codesOf(u.user.id)).toEqual([])
  })

  test('an account at its key limit hears it before approving', async () => {
    const u = await registerUser(gw.url)
    for (let i = 0; i < 20; i++) expect((await call('POST', '/api/auth/api-keys', { token: u.accessToken, body: { name: `k${i}` } })).status).toBe(201)
    const { challenge } = pkce()
    const a = await approve(u, { callbackUrl: CALLBACK, codeChallenge: challenge, codeChallengeMethod: 'S256', budgetRub: null })
    expect(a.status).toBe(400)
    expect(a.body.error).toContain('API ключи')
    expect(await codesOf(u.user.id)).toEqual([])
  })
})

describe('the exchange endpoint', () => {
  test('a browser app may call it: the preflight allows any origin', async () => {
    const res = await fetch(gw.url + EXCHANGE, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.ru', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type')
    // Refusals carry it too, so the app can read them.
    expect((await exchange({ code: 'x', code_verifier: 'y' })).headers.get('access-control-allow-origin')).toBe('*')
  })

  test('rate-limited per client address: 429 rate_limit_exceeded with Retry-After', async () => {
    const ip = freshIp()
    const { verifier } = pkce()
    const results: Res[] = []
    for (let i = 0; i < 31; i++) results.push(await exchange({ code: `unknown-${i}`, code_verifier: verifier }, ip))
    for (const r of results.slice(0, 30)) refused(r, 400, 'invalid_code')
    refused(results[30]!, 429, 'rate_limit_exceeded')
    expect(Number(results[30]!.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another address is not affected.
    refused(await exchange({ code: 'unknown', code_verifier: verifier }), 400, 'invalid_code')
  })

  test('the approval page is served (200, never indexed, never framed)', async () => {
    const { challenge } = pkce()
    const res = await fetch(`${gw.url}/auth/authorize?${new URLSearchParams({ callback_url: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256' })}`)
    const html = await res.text()
    expect(res.status).toBe(200)
    expect(html).toContain('<meta name="robots" content="noindex')
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(await (await fetch(`${gw.url}/robots.txt`)).text()).toContain('Disallow: /auth/')
  })

  test('listed in the OpenAPI document', async () => {
    const doc = (await call('GET', '/api/openapi.json')).body
    expect(doc.paths[EXCHANGE].post.summary).toContain('PKCE')
    expect(doc.paths['/api/auth/authorize'].post).toBeDefined()
    expect(doc.paths['/api/auth/authorize/check'].post).toBeDefined()
  })
})
