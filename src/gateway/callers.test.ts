// An instance on PostgreSQL reuses the callers it read for a moment (callers.ts). What another
// instance changes meanwhile — written here straight into the database, past this instance's /api —
// must still count at once: the hold checks the key, the membership and the balance as they are now.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { onPostgres } from '../db/dialect'
import { startGateway } from '../test-support/gateway'
import { registerUser } from '../test-support/server'
import { CALLER_CACHE_MS } from './callers'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let admin: Awaited<ReturnType<typeof registerUser>>

describe.if(onPostgres)('a cached caller never outlives a change made elsewhere', () => {
  beforeAll(async () => {
    gw = await startGateway({ ADMIN_EMAILS: 'root@example.ru' })
    admin = await registerUser(gw.url, 'root@example.ru')
  })
  afterAll(() => gw.stop())

  const chat = (key: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'привет' }], max_tokens: 20 }),
    })

  test('a key disabled by another instance is refused on the next request, and costs nothing', async () => {
    const c = await gw.customer()
    expect((await chat(c.key)).status).toBe(200) // read and cached
    const before = await gw.books(c.user.id)
    await gw.read('update api_keys set is_active = false where id = ?', c.keyId)
    const res = await chat(c.key)
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('api_key_disabled')
    expect(await gw.books(c.user.id)).toEqual(before)
  })

  test('a key given a budget elsewhere is held against it on the next request', async () => {
    const c = await gw.customer()
    expect((await chat(c.key)).status).toBe(200)
    await gw.read("update api_keys set budget_limit_micros = 1, budget_period = 'total' where id = ?", c.keyId)
    const res = await chat(c.key)
    expect(res.status).toBe(402)
    expect(((await res.json()) as { error: { code: string; metadata?: { level?: string } } }).error).toMatchObject({ code: 'budget_exceeded', metadata: { level: 'key' } })
  })

  test('a balance spent elsewhere: the next request is planned from the balance as it is', async () => {
    const c = await gw.customerWith(admin, 50)
    expect((await chat(c.key)).status).toBe(200)
    // Another instance's requests took all but 0.0005 ₽: the cached caller still shows ≈ 50 ₽.
    await gw.read('update users set held_micros = balance_micros - 500 where id = ?', c.user.id)
    const res = await chat(c.key)
    expect(res.status).toBe(402)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('insufficient_balance')
    await gw.read('update users set held_micros = 0 where id = ?', c.user.id)
    // Within the cache's life the caller is read again only when unsure: the refund is seen at once.
    expect((await chat(c.key)).status).toBe(200)
  })

  test('a member removed from the team elsewhere: the team key stops at once', async () => {
    const owner = await gw.customer()
    const member = await gw.customer()
    const team = (await owner.api.post('/api/teams', { name: 'Команда' }, owner.accessToken)).body.data as { id: string }
    await gw.read("insert into team_members (team_id, user_id, role, joined_at) values (?, ?, 'member', ?)", team.id, member.user.id, Date.now())
    await gw.read('update teams set balance_micros = 10000000 where id = ?', team.id)
    await gw.read(
      "insert into ledger_entries (id, user_id, type, amount_micros, balance_after_micros, description, team_id, created_at) values (?, ?, 'adjustment', 10000000, 10000000, 'тест', ?, ?)",
      `t-${team.id}`,
      owner.user.id,
      team.id,
      Date.now(),
    )
    const made = await fetch(`${gw.url}/api/auth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.accessToken}`, 'x-team-id': team.id, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'команда' }),
    })
    const key = ((await made.json()) as { data: { key: string } }).data.key
    expect((await chat(key)).status).toBe(200)
    await gw.read('delete from team_members where team_id = ? and user_id = ?', team.id, member.user.id)
    expect((await chat(key)).status).toBe(401)
  })

  test('what only shows (the key’s name on its usage rows) is the cached one for at most a second', async () => {
    const c = await gw.customer()
    const lastName = async () => (await gw.read<{ key_name: string }>('select key_name from usage_logs where user_id = ? order by created_at desc limit 1', c.user.id))[0]?.key_name
    expect((await chat(c.key)).status).toBe(200)
    await gw.read("update api_keys set name = 'переименован' where id = ?", c.keyId)
    expect((await chat(c.key)).status).toBe(200)
    expect(await lastName()).toBe('test') // served from this instance's cache
    await Bun.sleep(CALLER_CACHE_MS + 50)
    expect((await chat(c.key)).status).toBe(200)
    expect(await lastName()).toBe('переименован')
  })
})
