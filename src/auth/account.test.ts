// /app/account's API: change of password (other sessions end, this one stays), the list of
// sessions, "log out everywhere" and deleting one's own account (the admin's anonymisation).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { client } from '../test-support/server'

setDefaultTimeout(20_000)

let gw: Awaited<ReturnType<typeof startGateway>>
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

/** The `n` of a one-row count query. */
const count = (rows: Array<{ n: number }>) => rows[0]!.n

async function login(email: string, password: string) {
  return client(gw.url).post('/api/auth/login', { email, password })
}
const del = (path: string, body: unknown, token: string) =>
  fetch(gw.url + path, { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: await r.json(),
  }))

async function chat(bearer: string) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 20 }),
  })
}

describe('POST /api/auth/change-password', () => {
  test('other sessions end (access and refresh), the current one keeps working, the new password signs in', async () => {
    const c = await gw.customer()
    const other = (await login(c.email, c.password)).body.data
    const res = await c.api.post('/api/auth/change-password', { currentPassword: c.password, newPassword: 'new-password-77' }, c.accessToken)
    expect(res.status).toBe(200)
    expect(res.body.data.message).toContain('Пароль изменён')
    expect((await c.api.get('/api/auth/profile', c.accessToken)).status).toBe(200)
    expect((await c.api.get('/api/auth/profile', other.accessToken)).status).toBe(401)
    expect((await c.api.post('/api/auth/refresh', { refreshToken: other.refreshToken })).status).toBe(401)
    expect((await c.api.post('/api/auth/refresh', { refreshToken: c.refreshToken })).status).toBe(200)
    expect((await login(c.email, c.password)).status).toBe(401)
    expect((await login(c.email, 'new-password-77')).status).toBe(200)
  })

  test('a wrong current password or a short new one is refused in Russian', async () => {
    const c = await gw.customer()
    const wrong = await c.api.post('/api/auth/change-password', { currentPassword: 'nope-nope-1', newPassword: 'new-password-77' }, c.accessToken)
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toBe('Текущий пароль указан неверно')
    const short = await c.api.post('/api/auth/change-password', { currentPassword: c.password, newPassword: '123' }, c.accessToken)
    expect(short.status).toBe(400)
    expect(short.body.error).toBe('Пароль должен содержать минимум 8 символов')
    const empty = await c.api.post('/api/auth/change-password', {}, c.accessToken)
    expect(empty.status).toBe(400)
    expect((await c.api.post('/api/auth/change-password', { currentPassword: c.password, newPassword: 'x'.repeat(10) })).status).toBe(401)
  })
})

describe('GET /api/auth/sessions and logout-all', () => {
  test('lists open sessions with the current one marked; logout-all ends them all', async () => {
    const c = await gw.customer()
    const other = (await login(c.email, c.password)).body.data
    const list = await c.api.get('/api/auth/sessions', c.accessToken)
    expect(list.status).toBe(200)
    expect(list.body.data).toHaveLength(2)
    expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1)
    for (const s of list.body.data) {
      expect(Date.parse(s.createdAt)).toBeLessThanOrEqual(Date.parse(s.lastUsedAt))
    }
    const fromOther = await c.api.get('/api/auth/sessions', other.accessToken)
    const currentIds = [list.body.data.find((s: any) => s.current).id, fromOther.body.data.find((s: any) => s.current).id]
    expect(currentIds[0]).not.toBe(currentIds[1])

    expect((await c.api.post('/api/auth/logout-all', undefined, c.accessToken)).status).toBe(200)
    expect((await c.api.get('/api/auth/sessions', c.accessToken)).status).toBe(401)
    expect((await c.api.get('/api/auth/profile', other.accessToken)).status).toBe(401)
    expect((await c.api.post('/api/auth/refresh', { refreshToken: other.refreshToken })).status).toBe(401)
  })

  test('each session shows the device and IP stored at sign-in, kept when its tokens are renewed', async () => {
    const c = await gw.customer()
    const ip = '203.0.113.77'
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
    const signIn = await fetch(`${gw.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': chrome, 'x-forwarded-for': ip },
      body: JSON.stringify({ email: c.email, password: c.password }),
    })
    const pair = ((await signIn.json()) as { data: { accessToken: string; refreshToken: string } }).data
    // a renewal from elsewhere does not rewrite where the session began
    const renewed = (await client(gw.url, '198.51.100.9').post('/api/auth/refresh', { refreshToken: pair.refreshToken })).body.data
    const list = (await c.api.get('/api/auth/sessions', renewed.accessToken)).body.data as Array<{ current: boolean; device: string | null; ip: string | null }>
    expect(list).toHaveLength(2)
    expect(list.find((s) => s.current)).toMatchObject({ device: 'Chrome, Windows', ip })
    // the registration's session: the test client's address, Bun's own user agent
    expect(list.find((s) => !s.current)).toMatchObject({ ip: c.api.ip, device: expect.stringMatching(/^Bun\//) })
  })
})

describe('DELETE /api/auth/account', () => {
  test('needs the e-mail typed; then sign-in fails, keys stop, ledger and usage rows stay', async () => {
    const c = await gw.customer()
    expect((await chat(c.key)).status).toBe(200)
    const ledgerBefore = count(await gw.read<{ n: number }>('select count(*) as n from ledger_entries where user_id = ?', c.user.id))
    const usageBefore = count(await gw.read<{ n: number }>('select count(*) as n from usage_logs where user_id = ?', c.user.id))
    expect(usageBefore).toBe(1)

    const mismatch = await del('/api/auth/account', { email: 'someone@else.ru' }, c.accessToken)
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.error).toBe('Введите e-mail аккаунта, чтобы подтвердить удаление')

    const ok = await del('/api/auth/account', { email: ` ${c.email.toUpperCase()} ` }, c.accessToken)
    expect(ok.status).toBe(200)
    expect(ok.body.data.message).toBe('Аккаунт удалён')

    expect((await login(c.email, c.password)).status).toBe(401)
    expect((await c.api.get('/api/auth/profile', c.accessToken)).status).toBe(401)
    expect((await chat(c.key)).status).toBe(401)
    expect((await c.api.post('/api/auth/refresh', { refreshToken: c.refreshToken })).status).toBe(401)
    expect(count(await gw.read<{ n: number }>('select count(*) as n from ledger_entries where user_id = ?', c.user.id))).toBe(ledgerBefore)
    expect(count(await gw.read<{ n: number }>('select count(*) as n from usage_logs where user_id = ?', c.user.id))).toBe(usageBefore)
    const [row] = await gw.read<{ email: string; deleted_at: number | null }>('select email, deleted_at from users where id = ?', c.user.id)
    expect(row!.email).toBe(`deleted-${c.user.id}@deleted.invalid`)
    expect(row!.deleted_at).not.toBeNull()
    // The address is free again.
    expect((await client(gw.url).post('/api/auth/register', { email: c.email, password: 'another-pass-9' })).status).toBe(201)
  })
})
