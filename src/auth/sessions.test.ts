// Logout ends access tokens at once: an access token names its session (the `sid` claim, a
// refresh-token family) and every authenticated request checks that the session is still open.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { client, registerUser, startServer, type TestServer } from '../test-support/server'

// These tests start servers and processes; on a busy machine that outlasts bun's 5 s default
// (bunfig.toml cannot set it: only --timeout or this call can).
setDefaultTimeout(20_000)

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.stop())

const sidOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid as string

/** Every face that takes the web session's access token: the API, /v1 and the uploads. */
async function access(token: string) {
  const api = client(server.url)
  const profile = (await api.get('/api/auth/profile', token)).status
  // /v1 checks the credential before the body: a live session gets 400 for the empty body, an ended one 401.
  const v1 = (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' }))
    .status
  const balance = (await api.get('/api/billing/balance', token)).status
  return { profile, v1, balance }
}
const LIVE = { profile: 200, v1: 400, balance: 200 }
const ENDED = { profile: 401, v1: 401, balance: 401 }

describe('logout', () => {
  test('the access token stops working at once, on /api and /v1 alike', async () => {
    const u = await registerUser(server.url)
    expect(await access(u.accessToken)).toEqual(LIVE)
    const out = await u.api.post('/api/auth/logout', { refreshToken: u.refreshToken })
    expect(out.body).toEqual({ success: true, data: { ok: true } })
    expect(await access(u.accessToken)).toEqual(ENDED)
    expect((await u.api.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
  })

  test('a token renewed by refresh belongs to the same session and ends with it', async () => {
    const u = await registerUser(server.url)
    const renewed = (await u.api.post('/api/auth/refresh', { refreshToken: u.refreshToken })).body.data
    expect(sidOf(renewed.accessToken)).toBe(sidOf(u.accessToken))
    expect(await access(renewed.accessToken)).toEqual(LIVE)
    await u.api.post('/api/auth/logout', { refreshToken: renewed.refreshToken })
    expect(await access(renewed.accessToken)).toEqual(ENDED)
    expect(await access(u.accessToken)).toEqual(ENDED)
  })

  test('with only the access token (no refresh token), its session ends', async () => {
    const u = await registerUser(server.url)
    const out = await u.api.post('/api/auth/logout', {}, u.accessToken)
    expect(out.status).toBe(200)
    expect(await access(u.accessToken)).toEqual(ENDED)
    expect((await u.api.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
  })

  test('ending one session leaves the user’s other sessions working', async () => {
    const u = await registerUser(server.url)
    const second = (await client(server.url).post('/api/auth/login', { email: u.email, password: u.password })).body.data
    expect(sidOf(second.accessToken)).not.toBe(sidOf(u.accessToken))
    await u.api.post('/api/auth/logout', { refreshToken: u.refreshToken })
    expect(await access(u.accessToken)).toEqual(ENDED)
    expect(await access(second.accessToken)).toEqual(LIVE)
  })

  test('a replayed refresh token ends the session’s access tokens too', async () => {
    const u = await registerUser(server.url)
    await u.api.post('/api/auth/refresh', { refreshToken: u.refreshToken })
    expect((await u.api.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
    expect(await access(u.accessToken)).toEqual(ENDED)
  })

  test('someone else’s access token cannot end my session, nor can garbage', async () => {
    const me = await registerUser(server.url)
    const other = await registerUser(server.url)
    expect((await other.api.post('/api/auth/logout', {}, other.accessToken)).status).toBe(200)
    expect((await client(server.url).post('/api/auth/logout', {}, 'garbage')).status).toBe(200)
    expect((await client(server.url).post('/api/auth/logout', { refreshToken: 'unknown' })).status).toBe(200)
    expect(await access(me.accessToken)).toEqual(LIVE)
  })
})

describe('POST /api/auth/logout-all', () => {
  test('ends every session of the user and every access token, and nobody else’s', async () => {
    const u = await registerUser(server.url)
    const sessions = [u]
    for (let i = 0; i < 2; i++) sessions.push({ ...u, ...(await client(server.url).post('/api/auth/login', { email: u.email, password: u.password })).body.data })
    const bystander = await registerUser(server.url)
    for (const s of sessions) expect(await access(s.accessToken)).toEqual(LIVE)

    const res = await u.api.post('/api/auth/logout-all', undefined, sessions[1]!.accessToken)
    expect(res.body).toEqual({ success: true, data: { ok: true } })
    for (const s of sessions) {
      expect(await access(s.accessToken)).toEqual(ENDED)
      expect((await u.api.post('/api/auth/refresh', { refreshToken: s.refreshToken })).status).toBe(401)
    }
    expect(await access(bystander.accessToken)).toEqual(LIVE)

    // Signing in again works and opens a new session.
    const again = await client(server.url).post('/api/auth/login', { email: u.email, password: u.password })
    expect(await access(again.body.data.accessToken)).toEqual(LIVE)
  })

  test('needs a live session', async () => {
    const u = await registerUser(server.url)
    expect((await client(server.url).post('/api/auth/logout-all')).status).toBe(401)
    await u.api.post('/api/auth/logout', { refreshToken: u.refreshToken })
    expect((await u.api.post('/api/auth/logout-all', undefined, u.accessToken)).status).toBe(401)
  })
})

describe('password reset', () => {
  test('ends the access tokens of every session', async () => {
    const u = await registerUser(server.url)
    await u.api.post('/api/auth/forgot-password', { email: u.email })
    // No SMTP here: the letter is in DATA_DIR/outbox.
    const outbox = join(server.dataDir, 'outbox')
    let token: string | undefined
    for (let i = 0; i < 200 && !token; i++) {
      for (const f of existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.json')) : []) {
        const letter = JSON.parse(readFileSync(join(outbox, f), 'utf8'))
        if (letter.to === u.email) token = letter.text.match(/\/reset-password\/([\w-]+)/)?.[1]
      }
      if (!token) await Bun.sleep(25)
    }
    expect((await u.api.post('/api/auth/reset-password', { token, password: 'brand-new-pass' })).status).toBe(200)
    expect(await access(u.accessToken)).toEqual(ENDED)
  })
})
