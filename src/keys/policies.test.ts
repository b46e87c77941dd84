// Keys a company can govern (issue 36), against the real server, the fake router and the real
// database (both stores): a key's policy set and shown through /api/auth/api-keys; each refusal on
// /v1 with its code and headers — expired, outside the address list, a model outside the list, over
// the requests or tokens per minute (50 parallel requests against rpmLimit 5 serve exactly 5), a
// management key; the same on the WebSocket; the activity log naming the policy; management keys on
// /api; the team's policy, and a member who cannot loosen what an admin set.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eventually, startGateway } from '../test-support/gateway'
import { freshIp, readResult } from '../test-support/server'
import { teamsOn } from '../test-support/teams'
import { EMBEDDING_MODELS } from '../upstream/demo'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

type Res = { status: number; body: any; headers: Headers }
const KEYS = '/api/auth/api-keys'

async function call(method: string, path: string, opts: { body?: unknown; token?: string; ip?: string; team?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? freshIp() }
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  if (opts.team) headers['x-team-id'] = opts.team
  return readResult(await fetch(gw.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }))
}

const HI = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 }
const chat = (key: string, body: Record<string, unknown> = HI, ip?: string) => call('POST', '/v1/chat/completions', { body, token: key, ip })

/** A fresh account and a key made with `policy`. */
async function keyWith(policy: Record<string, unknown>) {
  const u = await gw.customer()
  const res = await call('POST', KEYS, { token: u.accessToken, body: { name: 'с политикой', ...policy } })
  expect(res.status).toBe(201)
  return { u, key: res.body.data.key as string, row: res.body.data }
}

const errorOf = (r: Res) => ({ status: r.status, code: r.body?.error?.code })

describe('a key’s policy through /api/auth/api-keys', () => {
  test('set at creation, listed, tightened, cleared; IPs and patterns normalised', async () => {
    const { u, row } = await keyWith({
      rpmLimit: 60,
      tpmLimit: 100_000,
      allowedModels: ['OpenAI/*', 'anthropic/claude-3-haiku'],
      allowedIps: ['10.1.2.3/8', '2001:DB8:0:0::1/32', '203.0.113.7'],
      expiresAt: '2099-01-31T23:59:59+03:00',
    })
    expect(row).toMatchObject({
      kind: 'inference',
      rpmLimit: 60,
      tpmLimit: 100_000,
      allowedModels: ['openai/*', 'anthropic/claude-3-haiku'],
      allowedIps: ['10.0.0.0/8', '2001:db8::/32', '203.0.113.7'],
      expiresAt: '2099-01-31T20:59:59.000Z',
      expired: false,
      appOrigin: null,
    })
    const patched = await call('PATCH', `${KEYS}/${row.id}`, { token: u.accessToken, body: { rpmLimit: 30, allowedIps: null, expiresAt: null } })
    expect(patched.status).toBe(200)
    expect(patched.body.data).toMatchObject({ rpmLimit: 30, tpmLimit: 100_000, allowedIps: null, expiresAt: null })
    const listed = (await call('GET', KEYS, { token: u.accessToken })).body.data.find((k: { id: string }) => k.id === row.id)
    expect(listed).toMatchObject({ rpmLimit: 30, allowedModels: ['openai/*', 'anthropic/claude-3-haiku'], allowedIps: null })
  })

  test.each([
    [{ rpmLimit: 0 }, 'Лимит'],
    [{ rpmLimit: 2.5 }, 'Лимит'],
    [{ tpmLimit: -1 }, 'Лимит'],
    [{ allowedModels: ['openai/*/x*y'] }, 'Некорректный шаблон модели'],
    [{ allowedModels: [] }, 'пуст'],
    [{ allowedIps: ['10.0.0.0/33'] }, 'Некорректный IP-адрес или сеть «10.0.0.0/33»'],
    [{ allowedIps: ['example.ru'] }, 'Некорректный IP-адрес'],
    [{ expiresAt: '2020-01-01T00:00:00Z' }, 'в будущем'],
    [{ expiresAt: 'завтра' }, 'ISO 8601'],
    [{ kind: 'root' }, 'kind'],
  ])('%j → 400 with a Russian message', async (policy, message) => {
    const u = await gw.customer()
    const res = await call('POST', KEYS, { token: u.accessToken, body: { name: 'плохой', ...policy } })
    expect(res.status).toBe(400)
    expect(res.body.error).toContain(message)
  })
})

describe('refusals on /v1, each in its shape', () => {
  test('an expired key: 401 key_expired (and in Anthropic’s shape on /v1/messages)', async () => {
    const { key } = await keyWith({ expiresAt: new Date(Date.now() + 1500).toISOString() })
    expect((await chat(key)).status).toBe(200)
    await Bun.sleep(1600)
    const res = await chat(key)
    expect(errorOf(res)).toEqual({ status: 401, code: 'key_expired' })
    expect(res.body.error.message).toContain('истёк')
    const messages = await call('POST', '/v1/messages', { token: key, body: { model: 'openai/gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } })
    expect(messages.status).toBe(401)
    expect(messages.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    expect((await call('GET', '/v1/models', { token: key })).status).toBe(401)
  })

  test('an address outside the list: 403 ip_not_allowed; inside it (IPv4 and IPv6 networks) it works', async () => {
    const { key } = await keyWith({ allowedIps: ['10.0.0.0/8', '2001:db8::/32'] })
    expect((await chat(key, HI, '10.200.3.4')).status).toBe(200)
    expect((await chat(key, HI, '2001:db8:1::7')).status).toBe(200)
    expect((await chat(key, HI, '::ffff:10.9.9.9')).status).toBe(200)
    for (const ip of ['192.0.2.1', '2001:db9::1']) {
      const res = await chat(key, HI, ip)
      expect(errorOf(res)).toEqual({ status: 403, code: 'ip_not_allowed' })
      expect(res.body.error.message).toContain(ip)
    }
  })

  test('a model outside the list: 403 model_not_allowed, fallbacks included; /v1/models lists only what the key may call', async () => {
    const { key } = await keyWith({ allowedModels: ['openai/*'] })
    expect((await chat(key)).status).toBe(200)
    const other = await chat(key, { ...HI, model: 'anthropic/claude-3-haiku' })
    expect(errorOf(other)).toEqual({ status: 403, code: 'model_not_allowed' })
    expect(other.body.error.param).toBe('model')
    const fallback = await chat(key, { ...HI, models: ['anthropic/claude-3-haiku'] })
    expect(errorOf(fallback)).toEqual({ status: 403, code: 'model_not_allowed' })
    // Every route whose request names a model: embeddings of a key narrowed to the chat models.
    const chatOnly = (await keyWith({ allowedModels: ['openai/gpt-*'] })).key
    const embeddings = await call('POST', '/v1/embeddings', { token: chatOnly, body: { model: EMBEDDING_MODELS[0]!.id, input: 'x' } })
    expect(errorOf(embeddings)).toEqual({ status: 403, code: 'model_not_allowed' })
    const models = (await call('GET', '/v1/models', { token: key })).body.data as { id: string }[]
    expect(models.length).toBeGreaterThan(0)
    expect(models.every((m) => m.id.startsWith('openai/'))).toBe(true)
    const all = (await call('GET', '/v1/models')).body.data as { id: string }[]
    expect(all.length).toBeGreaterThan(models.length)
  })

  test('rpmLimit 5: of 50 parallel requests exactly 5 are served; the rest 429 with Retry-After and the x-ratelimit headers', async () => {
    const { u, key, row } = await keyWith({ rpmLimit: 5 })
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(key)))
    const served = answers.filter((r) => r.status === 200)
    const refused = answers.filter((r) => r.status === 429)
    expect(served).toHaveLength(5)
    expect(refused).toHaveLength(45)
    for (const r of served) {
      expect(r.headers.get('x-ratelimit-limit-requests')).toBe('5')
      expect(Number(r.headers.get('x-ratelimit-remaining-requests'))).toBeLessThan(5)
      expect(r.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(\.\d+)?(ms|s)$|^\d+m[\d.]+s$/)
    }
    expect(served.map((r) => r.headers.get('x-ratelimit-remaining-requests')).sort()).toEqual(['0', '1', '2', '3', '4'])
    for (const r of refused) {
      expect(r.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests' })
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(r.headers.get('x-ratelimit-remaining-requests')).toBe('0')
    }
    // Exactly five were charged; the refusals are in the activity log, naming the policy.
    await eventually(async () => (await gw.books(u.user.id)).usage.filter((x) => x.status === 'success').length === 5)
    const log = await eventually(async () => {
      const items = (await call('GET', `/api/activity?keyId=${row.id}`, { token: u.accessToken })).body.data.items as { status: string; error: string | null }[]
      return items.find((i) => i.error?.includes('rate_limit_exceeded'))
    })
    expect(log.status).toBe('error')
    expect(log.error).toContain('Отклонено политикой ключа')
  })

  test('a streamed answer of a limited key carries the headers too', async () => {
    const { key } = await keyWith({ rpmLimit: 100, tpmLimit: 1_000_000 })
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ ...HI, stream: true }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('100')
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('1000000')
    await res.text()
  })

  test('tpmLimit counts the tokens the upstream reported: once they are spent, 429 with the tokens headers', async () => {
    const { key } = await keyWith({ tpmLimit: 10 })
    const first = await chat(key)
    expect(first.status).toBe(200)
    expect(first.body.usage.total_tokens).toBeGreaterThan(10)
    const second = await eventually(async () => {
      const r = await chat(key)
      return r.status === 429 ? r : null
    })
    expect(second.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'tokens' })
    expect(second.headers.get('x-ratelimit-limit-tokens')).toBe('10')
    expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe('0')
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  })

  test('the WebSocket honours the policy on every turn: past the handshake, a turn of an rpmLimit 1 key is refused', async () => {
    const { key } = await keyWith({ rpmLimit: 1 })
    const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } } as unknown as string[])
    const frames: any[] = []
    ws.onmessage = (e) => frames.push(JSON.parse(String(e.data)))
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve()
      ws.onerror = () => reject(new Error('the connection did not open'))
    })
    const turn = { type: 'response.create', model: 'openai/gpt-4o-mini', input: 'hi', max_output_tokens: 16 }
    // The handshake was the key's one request of this minute.
    ws.send(JSON.stringify(turn))
    const refused = await eventually(() => frames.find((f) => f.type === 'error'))
    expect(refused.error.code).toBe('rate_limit_exceeded')
    ws.close()
  })
})

describe('management keys', () => {
  test('manage the account’s keys, read the balance and the activity — and nothing else; /v1 refuses them', async () => {
    const u = await gw.customer()
    const made = await call('POST', KEYS, { token: u.accessToken, body: { name: 'CI', kind: 'management' } })
    expect(made.status).toBe(201)
    expect(made.body.data.kind).toBe('management')
    const mk = made.body.data.key as string
    expect(mk.startsWith('sk-gw-')).toBe(true)

    const created = await call('POST', KEYS, { token: mk, body: { name: 'сделан управляющим', rpmLimit: 10 } })
    expect(created.status).toBe(201)
    const listed = await call('GET', KEYS, { token: mk })
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((k: { name: string }) => k.name)).toContain('сделан управляющим')
    expect(listed.body.data.find((k: { name: string }) => k.name === 'CI').kind).toBe('management')
    expect((await call('PATCH', `${KEYS}/${created.body.data.id}`, { token: mk, body: { rpmLimit: 5 } })).body.data.rpmLimit).toBe(5)
    expect((await chat(created.body.data.key)).status).toBe(200)
    expect((await call('DELETE', `${KEYS}/${created.body.data.id}`, { token: mk })).status).toBe(200)
    expect((await chat(created.body.data.key)).status).toBe(401)

    expect((await call('GET', '/api/billing/balance', { token: mk })).status).toBe(200)
    expect((await call('GET', '/api/activity', { token: mk })).status).toBe(200)
    // Nothing else: not the profile, not payments, not another management key.
    expect((await call('GET', '/api/auth/profile', { token: mk })).status).toBe(403)
    expect((await call('POST', '/api/payments/create', { token: mk, body: { amount: 500 } })).status).toBe(403)
    expect((await call('POST', KEYS, { token: mk, body: { name: 'ещё один', kind: 'management' } })).status).toBe(403)

    const v1 = await chat(mk)
    expect(errorOf(v1)).toEqual({ status: 403, code: 'management_key_not_allowed' })
    // An ordinary key is no credential of /api.
    expect((await call('GET', KEYS, { token: u.key })).status).toBe(401)
  })
})

describe('a team’s policy', () => {
  test('the team’s models bind every key and session; defaults shape new keys; a member cannot loosen what an admin set (audited)', async () => {
    const teams = teamsOn(gw.url, gw.server.dataDir)
    const f = await teams.withRoles('Политики')
    await teams.topUp(f.owner, f.team.id, 500)
    const policy = await teams.api('PATCH', `/api/teams/${f.team.id}/policy`, f.admin.accessToken, {
      allowedModels: ['openai/*'],
      keyDefaults: { rpmLimit: 10, tpmLimit: null, allowedModels: null, allowedIps: null, expiresInDays: 30 },
    })
    expect(policy.status).toBe(200)
    expect(policy.body.data).toEqual({
      allowedModels: ['openai/*'],
      keyDefaults: { rpmLimit: 10, tpmLimit: null, allowedModels: null, allowedIps: null, expiresInDays: 30 },
      fitToBalance: false,
    })
    expect((await teams.api('PATCH', `/api/teams/${f.team.id}/policy`, f.member.accessToken, { allowedModels: null })).status).toBe(403)
    expect((await teams.api('GET', `/api/teams/${f.team.id}`, f.member.accessToken)).body.data.policy.allowedModels).toEqual(['openai/*'])

    // The member's new key starts from the defaults, set by the admin: tightening is allowed, loosening is not.
    const made = await teams.api('POST', KEYS, f.member.accessToken, { name: 'бот' }, f.team.id)
    expect(made.status).toBe(201)
    const k = made.body.data
    expect(k.rpmLimit).toBe(10)
    expect(new Date(k.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000)
    expect(k.locked.policy).toContain('администратор команды')
    const path = `${KEYS}/${k.id}`
    for (const body of [{ rpmLimit: 20 }, { rpmLimit: null }, { expiresAt: null }, { allowedModels: ['anthropic/*'] }]) {
      const res = await teams.api('PATCH', path, f.member.accessToken, body, f.team.id)
      expect(res.status).toBe(body.allowedModels ? 400 : 403)
    }
    expect((await teams.api('PATCH', path, f.member.accessToken, { rpmLimit: 5, allowedModels: ['openai/gpt-4o-mini'] }, f.team.id)).body.data.rpmLimit).toBe(5)
    expect((await teams.api('POST', KEYS, f.member.accessToken, { name: 'шире', rpmLimit: 100 }, f.team.id)).status).toBe(403)
    // The admin may loosen it.
    expect((await teams.api('PATCH', path, f.admin.accessToken, { rpmLimit: 50 }, f.team.id)).body.data.rpmLimit).toBe(50)

    // The team's list binds the key (and the web session) on /v1.
    const key = k.key as string
    expect((await chat(key)).status).toBe(200)
    expect(errorOf(await chat(key, { ...HI, model: 'openai/gpt-4o' }))).toEqual({ status: 403, code: 'model_not_allowed' })
    const session = await call('POST', '/v1/chat/completions', { token: f.owner.accessToken, team: f.team.id, body: { ...HI, model: 'anthropic/claude-3-haiku' } })
    expect(errorOf(session)).toEqual({ status: 403, code: 'model_not_allowed' })

    const audit = (await teams.api('GET', `/api/teams/${f.team.id}/audit`, f.owner.accessToken)).body.data
    const actions = (audit.items ?? audit).map((e: { action: string }) => e.action)
    expect(actions).toContain('team.policy_changed')
    expect(actions).toContain('key.policy_changed')
  })
})
