// API keys: /api/auth/api-keys (create once-shown keys, list, rename, disable, limit, delete) and
// how a key behaves on /v1 — against the real server, the fake upstream and the real database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { estimatePrompt } from '../gateway/estimate'
import { add, ceilUnits, dec, mul } from '../lib/decimal'
import { startGateway, TEST_RATE } from '../test-support/gateway'
import { freshIp, readResult, registerUser, signJwt } from '../test-support/server'
import { CATALOGUE } from '../upstream/demo'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

const KEYS = '/api/auth/api-keys'
const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex')

type Res = { status: number; body: any; headers: Headers }

/** Any method, JSON or raw body, optional Bearer token; one client IP per call is fine here. */
async function call(method: string, path: string, opts: { body?: unknown; raw?: string; token?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { 'x-forwarded-for': freshIp() }
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json'
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  return readResult(await fetch(gw.url + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) }))
}

const createKey = (token: string, name: unknown) => call('POST', KEYS, { body: { name }, token })
const listKeys = async (token: string) => {
  const res = await call('GET', KEYS, { token })
  expect(res.status).toBe(200)
  expect(res.body.success).toBe(true)
  return res.body.data as any[]
}
const patchKey = (token: string, id: string, body: unknown) => call('PATCH', `${KEYS}/${id}`, { body, token })

const HI = { model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }
const chat = (credential: string | undefined, body: unknown = HI) => call('POST', '/v1/chat/completions', { body, token: credential })

const usageRowsOfKey = (keyId: string) =>
  gw.read<{ cost_micros: number; status: string; api_key_id: string | null }>(
    'select cost_micros, status, api_key_id from usage_logs where api_key_id = ? order by created_at',
    keyId,
  )

/** A key without a policy, as the API states it. */
const NO_POLICY = { rpmLimit: null, tpmLimit: null, allowedModels: null, allowedIps: null, expiresAt: null }

const err = (status: number, error: string) => ({ status, body: { success: false, error } })
const pick = (r: Res) => ({ status: r.status, body: r.body })

describe('creating a key', () => {
  test('201 with the full key once: long, prefixed sk-gw-, and an unlimited fresh record', async () => {
    const u = await registerUser(gw.url)
    const before = Date.now()
    const res = await createKey(u.accessToken, 'Мой бот')
    expect(res.status).toBe(201)
    expect(res.body.success).toBe(true)
    const k = res.body.data
    expect(k).toEqual({
      id: expect.any(String),
      name: 'Мой бот',
      keyPrefix: expect.any(String),
      kind: 'inference',
      isActive: true,
      ...NO_POLICY,
      expired: false,
      appOrigin: null,
      fitToBalance: false,
      locked: { isActive: null, budget: null, policy: null },
      teamId: null,
      owner: null,
      budget: { limitRub: null, period: 'month', spent: 0, remaining: null, resetsAt: expect.any(String) },
      residency: 'any',
      monthlyLimit: null,
      monthSpent: 0,
      createdAt: expect.any(String),
      lastUsedAt: null,
      key: expect.any(String),
    })
    expect(k.key.startsWith('sk-gw-')).toBe(true)
    expect(k.key.length).toBeGreaterThanOrEqual(40)
    expect(k.key).toMatch(/^sk-gw-[A-Za-z0-9_-]+$/)
    // The prefix identifies the key in lists: its beginning, longer than the bare "sk-gw-".
    expect(k.key.startsWith(k.keyPrefix)).toBe(true)
    expect(k.keyPrefix.startsWith('sk-gw-')).toBe(true)
    expect(k.keyPrefix.length).toBeGreaterThan('sk-gw-'.length)
    expect(k.keyPrefix.length).toBeLessThan(k.key.length - 16)
    const created = Date.parse(k.createdAt)
    expect(created).toBeGreaterThanOrEqual(before - 1000)
    expect(created).toBeLessThanOrEqual(Date.now() + 1000)

    // Two keys never collide.
    const other = await createKey(u.accessToken, 'второй')
    expect(other.body.data.key).not.toBe(k.key)
    expect(other.body.data.keyPrefix).not.toBe(k.keyPrefix)
  })

  test('the database keeps only the SHA-256 of the key; lists never show the key again', async () => {
    const u = await registerUser(gw.url)
    const { key, id } = (await createKey(u.accessToken, 'секрет')).body.data

    const [row] = await gw.read<Record<string, unknown>>('select * from api_keys where id = ?', id)
    expect(row).toBeDefined()
    expect(row!.key_hash).toBe(sha256Hex(key))
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(row!.user_id).toBe(u.user.id)
    // The key itself is nowhere in the table, in any column of any row.
    const everything = await gw.read<Record<string, unknown>>('select * from api_keys')
    expect(JSON.stringify(everything)).not.toContain(key)
    const secretPart = key.slice('sk-gw-'.length + 10) // the part past the shown prefix
    expect(JSON.stringify(everything)).not.toContain(secretPart)

    const list = await listKeys(u.accessToken)
    expect(list).toHaveLength(1)
    expect(list[0]).not.toHaveProperty('key')
    expect(JSON.stringify(list)).not.toContain(secretPart)
    expect(list[0]).toEqual({
      id,
      name: 'секрет',
      keyPrefix: key.slice(0, list[0].keyPrefix.length),
      kind: 'inference',
      isActive: true,
      ...NO_POLICY,
      expired: false,
      appOrigin: null,
      fitToBalance: false,
      locked: { isActive: null, budget: null, policy: null },
      teamId: null,
      owner: null,
      budget: { limitRub: null, period: 'month', spent: 0, remaining: null, resetsAt: expect.any(String) },
      residency: 'any',
      monthlyLimit: null,
      monthSpent: 0,
      createdAt: expect.any(String),
      lastUsedAt: null,
    })
  })

  test.each([
    ['no name', {}],
    ['empty name', { name: '' }],
    ['whitespace name', { name: '  \t \n ' }],
    ['null name', { name: null }],
    ['number name', { name: 42 }],
    ['array name', { name: ['ключ'] }],
  ])('%s → 400 "Введите название ключа"', async (_label, body) => {
    const u = await registerUser(gw.url)
    const res = await call('POST', KEYS, { body, token: u.accessToken })
    expect(pick(res)).toEqual(err(400, 'Введите название ключа'))
    expect(await listKeys(u.accessToken)).toEqual([])
  })

  test('no body at all → 400 "Введите название ключа"; malformed JSON → 400, not 500', async () => {
    const u = await registerUser(gw.url)
    expect(pick(await call('POST', KEYS, { token: u.accessToken }))).toEqual(err(400, 'Введите название ключа'))
    for (const raw of ['{"name":', '{name: "x"}', 'not json']) {
      const res = await call('POST', KEYS, { raw, token: u.accessToken })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ success: false, error: 'Некорректный JSON в теле запроса' })
    }
    expect(await listKeys(u.accessToken)).toEqual([])
  })

  test('the name is trimmed and may be up to 100 characters; 101 is refused', async () => {
    const u = await registerUser(gw.url)
    const trimmed = await createKey(u.accessToken, '   Продакшн   ')
    expect(trimmed.status).toBe(201)
    expect(trimmed.body.data.name).toBe('Продакшн')

    const hundred = 'я'.repeat(100)
    const atLimit = await createKey(u.accessToken, `  ${hundred}  `) // 104 raw, 100 after trimming
    expect(atLimit.status).toBe(201)
    expect(atLimit.body.data.name).toBe(hundred)

    expect(pick(await createKey(u.accessToken, 'я'.repeat(101)))).toEqual(err(400, 'Название ключа не длиннее 100 символов'))
    expect((await listKeys(u.accessToken)).map((k) => k.name)).toEqual([hundred, 'Продакшн'])
  })

  test('at most 20 keys per user: the 21st is refused until one is deleted', async () => {
    const u = await registerUser(gw.url)
    const ids: string[] = []
    for (let i = 1; i <= 20; i++) {
      const res = await createKey(u.accessToken, `ключ ${i}`)
      expect(res.status).toBe(201)
      ids.push(res.body.data.id)
    }
    expect(pick(await createKey(u.accessToken, 'ключ 21'))).toEqual(err(400, 'Можно создать не более 20 ключей'))
    expect(await listKeys(u.accessToken)).toHaveLength(20)

    // Another user is not affected by this user's count.
    const other = await registerUser(gw.url)
    expect((await createKey(other.accessToken, 'свой')).status).toBe(201)

    expect((await call('DELETE', `${KEYS}/${ids[0]}`, { token: u.accessToken })).status).toBe(200)
    expect((await createKey(u.accessToken, 'ключ 21')).status).toBe(201)
    expect(pick(await createKey(u.accessToken, 'ключ 22'))).toEqual(err(400, 'Можно создать не более 20 ключей'))
  })
})

describe('listing keys', () => {
  test('newest first, only the caller’s own keys', async () => {
    const a = await registerUser(gw.url)
    const b = await registerUser(gw.url)
    const created: string[] = []
    for (const name of ['первый', 'второй', 'третий']) {
      created.push((await createKey(a.accessToken, name)).body.data.id)
      await Bun.sleep(3) // distinct creation times, so "newest first" is observable by timestamp too
    }
    const bKey = (await createKey(b.accessToken, 'чужой')).body.data.id

    const listA = await listKeys(a.accessToken)
    expect(listA.map((k) => k.id)).toEqual([...created].reverse())
    expect(listA.map((k) => k.name)).toEqual(['третий', 'второй', 'первый'])
    const times = listA.map((k) => Date.parse(k.createdAt))
    expect(times).toEqual([...times].sort((x, y) => y - x))

    const listB = await listKeys(b.accessToken)
    expect(listB.map((k) => k.id)).toEqual([bKey])
  })

  test('a new account has no keys', async () => {
    const u = await registerUser(gw.url)
    expect(await call('GET', KEYS, { token: u.accessToken }).then(pick)).toEqual({ status: 200, body: { success: true, data: [] } })
  })
})

describe('changing a key', () => {
  test('rename (trimmed), disable and enable, each answered with the updated key', async () => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'старое')).body.data

    const renamed = await patchKey(u.accessToken, k.id, { name: '  новое имя  ' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toEqual({
      success: true,
      data: { ...k, key: undefined, name: 'новое имя' },
    })

    const off = await patchKey(u.accessToken, k.id, { isActive: false })
    expect(off.status).toBe(200)
    expect(off.body.data).toMatchObject({ name: 'новое имя', isActive: false })
    expect((await listKeys(u.accessToken))[0]).toMatchObject({ id: k.id, isActive: false })

    const on = await patchKey(u.accessToken, k.id, { isActive: true, name: 'снова' })
    expect(on.body.data).toMatchObject({ name: 'снова', isActive: true })

    // An empty patch changes nothing and returns the key as it is.
    const nothing = await patchKey(u.accessToken, k.id, {})
    expect(nothing.status).toBe(200)
    expect(nothing.body.data).toEqual(on.body.data)
  })

  test('name rules apply to renames too', async () => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'имя')).body.data
    expect(pick(await patchKey(u.accessToken, k.id, { name: '' }))).toEqual(err(400, 'Введите название ключа'))
    expect(pick(await patchKey(u.accessToken, k.id, { name: '    ' }))).toEqual(err(400, 'Введите название ключа'))
    expect(pick(await patchKey(u.accessToken, k.id, { name: 7 }))).toEqual(err(400, 'Введите название ключа'))
    expect(pick(await patchKey(u.accessToken, k.id, { name: 'x'.repeat(101) }))).toEqual(err(400, 'Название ключа не длиннее 100 символов'))
    expect(pick(await patchKey(u.accessToken, k.id, { isActive: 'no' }))).toEqual(err(400, 'isActive должен быть true или false'))
    const res = await call('PATCH', `${KEYS}/${k.id}`, { raw: '{"name": ', token: u.accessToken })
    expect(pick(res)).toEqual(err(400, 'Некорректный JSON в теле запроса'))
    // A refused patch changes nothing, not even the valid fields next to the invalid one.
    expect(pick(await patchKey(u.accessToken, k.id, { isActive: false, name: '' }))).toEqual(err(400, 'Введите название ключа'))
    expect((await listKeys(u.accessToken))[0]).toMatchObject({ name: 'имя', isActive: true })
  })

  test('monthly limit in rubles: set exactly, changed, cleared with null', async () => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'лимит')).body.data

    const set = await patchKey(u.accessToken, k.id, { monthlyLimit: 12.345678 })
    expect(set.status).toBe(200)
    expect(set.body.data).toMatchObject({ monthlyLimit: 12.345678, monthSpent: 0, budget: { limitRub: 12.345678, period: 'month', spent: 0, remaining: 12.345678 } })
    // The old field is a budget with period month.
    expect(await gw.read('select budget_limit_micros as m, budget_period as p from api_keys where id = ?', k.id)).toEqual([{ m: 12_345_678, p: 'month' }])

    const whole = await patchKey(u.accessToken, k.id, { monthlyLimit: 500 })
    expect(whole.body.data.monthlyLimit).toBe(500)
    expect((await listKeys(u.accessToken))[0].monthlyLimit).toBe(500)

    // Other fields leave the limit alone.
    expect((await patchKey(u.accessToken, k.id, { name: 'лимит 2' })).body.data.monthlyLimit).toBe(500)

    const cleared = await patchKey(u.accessToken, k.id, { monthlyLimit: null })
    expect(cleared.status).toBe(200)
    expect(cleared.body.data.monthlyLimit).toBeNull()
    expect(await gw.read('select budget_limit_micros as m from api_keys where id = ?', k.id)).toEqual([{ m: null }])
  })

  test.each([
    ['zero', '{"monthlyLimit": 0}'],
    ['negative', '{"monthlyLimit": -5}'],
    ['hugely negative (was a 500 RangeError)', '{"monthlyLimit": -1e10}'],
    ['negative beyond any range', '{"monthlyLimit": -1e300}'],
    ['a tiny positive that rounds to no micro-ruble', '{"monthlyLimit": 1e-9}'],
    ['a numeric string', '{"monthlyLimit": "5"}'],
    ['a word', '{"monthlyLimit": "abc"}'],
    ['NaN as a string', '{"monthlyLimit": "NaN"}'],
    ['infinite (1e999 parses to Infinity)', '{"monthlyLimit": 1e999}'],
    ['a boolean', '{"monthlyLimit": true}'],
    ['an object', '{"monthlyLimit": {"rub": 5}}'],
  ])('monthly limit %s → 400 "Лимит должен быть положительным числом"', async (_label, raw) => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'лимит')).body.data
    await patchKey(u.accessToken, k.id, { monthlyLimit: 3 })
    const res = await call('PATCH', `${KEYS}/${k.id}`, { raw, token: u.accessToken })
    expect(pick(res)).toEqual(err(400, 'Лимит должен быть положительным числом'))
    expect((await listKeys(u.accessToken))[0].monthlyLimit).toBe(3)
  })

  test.each([
    ['1e300', '{"monthlyLimit": 1e300}'],
    ['10 000 000.01', '{"monthlyLimit": 10000000.01}'],
    ['MAX_VALUE', `{"monthlyLimit": ${Number.MAX_VALUE}}`],
  ])('monthly limit %s → 400 "Лимит не может превышать 10 000 000 ₽"', async (_label, raw) => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'лимит')).body.data
    const res = await call('PATCH', `${KEYS}/${k.id}`, { raw, token: u.accessToken })
    expect(pick(res)).toEqual(err(400, 'Лимит не может превышать 10 000 000 ₽'))
  })

  test('a bare NaN token is not JSON → 400, not 500', async () => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'лимит')).body.data
    const res = await call('PATCH', `${KEYS}/${k.id}`, { raw: '{"monthlyLimit": NaN}', token: u.accessToken })
    expect(pick(res)).toEqual(err(400, 'Некорректный JSON в теле запроса'))
  })

  test('an unknown id or another user’s key → 404 "Ключ не найден" for PATCH and DELETE, and the key is untouched', async () => {
    const owner = await registerUser(gw.url)
    const thief = await registerUser(gw.url)
    const k = (await createKey(owner.accessToken, 'чужое')).body.data

    for (const id of [k.id, '01900000-0000-7000-8000-000000000000', 'nope']) {
      expect(pick(await patchKey(thief.accessToken, id, { name: 'моё', isActive: false, monthlyLimit: 1 }))).toEqual(err(404, 'Ключ не найден'))
      expect(pick(await call('DELETE', `${KEYS}/${id}`, { token: thief.accessToken }))).toEqual(err(404, 'Ключ не найден'))
    }
    const [still] = await listKeys(owner.accessToken)
    expect(still).toMatchObject({ id: k.id, name: 'чужое', isActive: true, monthlyLimit: null })
    expect(await listKeys(thief.accessToken)).toEqual([])
    // And the key still works for its owner.
    expect((await chat(k.key)).status).toBe(200)
  })
})

describe('deleting a key', () => {
  test('removes it from the list and the database; the key stops working on /v1 at once', async () => {
    const u = await registerUser(gw.url)
    const keep = (await createKey(u.accessToken, 'оставить')).body.data
    const gone = (await createKey(u.accessToken, 'удалить')).body.data
    expect((await chat(gone.key)).status).toBe(200)

    const res = await call('DELETE', `${KEYS}/${gone.id}`, { token: u.accessToken })
    expect(pick(res)).toEqual({ status: 200, body: { success: true, data: { ok: true } } })
    expect((await listKeys(u.accessToken)).map((k) => k.id)).toEqual([keep.id])
    expect(await gw.read('select id from api_keys where id = ?', gone.id)).toEqual([])

    const denied = await chat(gone.key)
    expect(denied.status).toBe(401)
    expect(denied.body).toEqual({ error: { message: 'Неверный API-ключ', type: 'invalid_request_error', code: 'invalid_api_key', param: null } })

    // Deleting twice: the second time it is not found.
    expect(pick(await call('DELETE', `${KEYS}/${gone.id}`, { token: u.accessToken }))).toEqual(err(404, 'Ключ не найден'))
    expect((await chat(keep.key)).status).toBe(200)
  })
})

describe('a session is required', () => {
  test('every route answers 401 without a token, with a bad token, with an expired one, or with an API key instead of a session', async () => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'ключ')).body.data
    const expired = signJwt({ sub: u.user.id, exp: Math.floor(Date.now() / 1000) - 60 })
    const foreignSigned = signJwt({ sub: u.user.id, exp: Math.floor(Date.now() / 1000) + 600 }, 'another-secret-0123456789-abcdefghijklmnop')
    const routes: Array<[string, string, unknown]> = [
      ['GET', KEYS, undefined],
      ['POST', KEYS, { name: 'x' }],
      ['PATCH', `${KEYS}/${k.id}`, { isActive: false }],
      ['DELETE', `${KEYS}/${k.id}`, undefined],
    ]
    for (const token of [undefined, 'garbage', expired, foreignSigned, k.key, u.refreshToken]) {
      for (const [method, path, body] of routes) {
        const res = await call(method, path, { body, token })
        expect({ method, token: token?.slice(0, 12), ...pick(res) }).toEqual({ method, token: token?.slice(0, 12), ...err(401, 'Требуется авторизация') })
      }
    }
    // Nothing was changed by the refused calls.
    expect(await listKeys(u.accessToken)).toEqual([expect.objectContaining({ id: k.id, isActive: true })])
  })
})

describe('keys on /v1', () => {
  test('a key authorises chat completions; lastUsedAt is set and monthSpent equals the logged cost', async () => {
    const c = await gw.customer()
    const [fresh] = await listKeys(c.accessToken)
    expect(fresh).toMatchObject({ id: c.keyId, lastUsedAt: null, monthSpent: 0 })

    const before = Date.now()
    const res = await chat(c.key)
    expect(res.status).toBe(200)
    expect(res.body.object).toBe('chat.completion')
    expect(res.body.choices[0].message.content).toContain('Демо-ответ')

    const rows = await usageRowsOfKey(c.keyId)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.status).toBe('success')
    expect(rows[0]!.cost_micros).toBeGreaterThan(0)
    expect(Number(res.body.usage.cost_rub)).toBe(rows[0]!.cost_micros / 1e6)

    const [used] = await listKeys(c.accessToken)
    expect(used.monthSpent).toBe(rows[0]!.cost_micros / 1e6)
    expect(used.lastUsedAt).not.toBeNull()
    const lastUsed = Date.parse(used.lastUsedAt)
    expect(lastUsed).toBeGreaterThanOrEqual(before - 1000)
    expect(lastUsed).toBeLessThanOrEqual(Date.now() + 1000)

    // A second request adds up and moves lastUsedAt forward.
    await Bun.sleep(5)
    expect((await chat(c.key)).status).toBe(200)
    const rows2 = await usageRowsOfKey(c.keyId)
    expect(rows2).toHaveLength(2)
    const [again] = await listKeys(c.accessToken)
    expect(again.monthSpent).toBe((rows2[0]!.cost_micros + rows2[1]!.cost_micros) / 1e6)
    expect(Date.parse(again.lastUsedAt)).toBeGreaterThan(lastUsed)

    const books = await gw.books(c.user.id)
    expect(books.balance).toBe(50_000_000 - rows2[0]!.cost_micros - rows2[1]!.cost_micros)
    expect(books.ledgerSum).toBe(books.balance)
    expect(books.held).toBe(0)
  })

  test('a disabled key gets 401 api_key_disabled naming the key, costs nothing, and works again when re-enabled', async () => {
    const c = await gw.customer()
    await patchKey(c.accessToken, c.keyId, { name: 'Бот поддержки', isActive: false })
    const booksBefore = await gw.books(c.user.id)

    const res = await chat(c.key)
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      error: {
        message: 'API-ключ «Бот поддержки» отключён. Включите его на странице API ключей.',
        type: 'invalid_request_error',
        code: 'api_key_disabled',
        param: null,
      },
    })
    const stream = await chat(c.key, { ...HI, stream: true })
    expect(stream.status).toBe(401)
    expect(stream.body.error.code).toBe('api_key_disabled')
    expect(await gw.books(c.user.id)).toEqual(booksBefore)
    expect(await usageRowsOfKey(c.keyId)).toEqual([])
    expect((await listKeys(c.accessToken))[0].lastUsedAt).toBeNull()

    await patchKey(c.accessToken, c.keyId, { isActive: true })
    expect((await chat(c.key)).status).toBe(200)
    expect(await usageRowsOfKey(c.keyId)).toHaveLength(1)
  })

  test('unknown or malformed keys and a missing header get 401 in the OpenAI shape', async () => {
    const c = await gw.customer()
    const wrong = await chat(`${c.key.slice(0, -4)}AAAA`)
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ error: { message: 'Неверный API-ключ', type: 'invalid_request_error', code: 'invalid_api_key', param: null } })

    const missing = await chat(undefined)
    expect(missing.status).toBe(401)
    expect(missing.body).toEqual({
      error: { message: 'Передайте API-ключ в заголовке Authorization: Bearer <ключ> (или x-api-key)', type: 'invalid_request_error', code: 'missing_api_key', param: null },
    })

    for (const token of ['not-a-key', c.refreshToken, signJwt({ sub: c.user.id, exp: Math.floor(Date.now() / 1000) - 5 })]) {
      const res = await chat(token)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: { message: 'Неверный API-ключ или истёкшая сессия', type: 'invalid_request_error', code: 'invalid_api_key', param: null } })
    }
    expect((await gw.books(c.user.id)).usage).toEqual([])
  })

  test('the web session’s access token also works as the /v1 credential, billed to no key', async () => {
    const c = await gw.customer()
    const res = await chat(c.accessToken)
    expect(res.status).toBe(200)
    expect(res.body.object).toBe('chat.completion')
    const usage = await gw.read<{ api_key_id: string | null; cost_micros: number }>('select api_key_id, cost_micros from usage_logs where user_id = ?', c.user.id)
    expect(usage).toHaveLength(1)
    expect(usage[0]!.api_key_id).toBeNull()
    expect(usage[0]!.cost_micros).toBeGreaterThan(0)
    // The customer's key is neither used nor charged by a session request.
    expect((await listKeys(c.accessToken))[0]).toMatchObject({ lastUsedAt: null, monthSpent: 0 })
    expect((await gw.books(c.user.id)).balance).toBe(50_000_000 - usage[0]!.cost_micros)
  })
})

describe('a key budget on /v1 (the old monthly limit is a month budget)', () => {
  const upstreamChats = () => gw.upstream.log.filter((r) => r.path.endsWith('/chat/completions')).length
  const GPT4 = { model: 'openai/gpt-4', messages: [{ role: 'user', content: 'hi' }], max_tokens: 200 }

  test('a request that would exceed the key’s budget gets 402 budget_exceeded naming the key, though the balance is positive', async () => {
    const c = await gw.customer()
    await patchKey(c.accessToken, c.keyId, { name: 'Дешёвый', monthlyLimit: 0.01 })
    const chatsBefore = upstreamChats()

    const res = await chat(c.key, GPT4)
    expect(res.status).toBe(402)
    const reset = new Date(res.body.error.metadata.resets_at)
    expect(res.body).toEqual({
      error: {
        message: expect.stringMatching(
          /^Бюджет API-ключа «Дешёвый» не покрывает этот запрос: лимит 0,0100 ₽ в месяц, осталось 0,0100 ₽\. Бюджет обновится 01\.\d\d\.\d{4} 00:00 МСК\. Уменьшите max_tokens или увеличьте бюджет/,
        ),
        type: 'budget_exceeded',
        code: 'budget_exceeded',
        param: null,
        action: { label: 'Настроить ключ', url: '/app/api-keys' },
        metadata: { level: 'key', limit_rub: 0.01, period: 'month', spent_rub: 0, resets_at: expect.any(String) },
      },
    })
    // The 1st of next month, 00:00 Moscow time (21:00 UTC the day before).
    expect(reset.getUTCHours()).toBe(21)
    expect(new Date(+reset + 3 * 3600_000).getUTCDate()).toBe(1)
    expect(res.headers.get('x-should-retry')).toBe('false')

    const streamed = await chat(c.key, { ...GPT4, stream: true })
    expect(streamed.status).toBe(402)
    expect(streamed.body.error.code).toBe('budget_exceeded')

    const books = await gw.books(c.user.id)
    expect(books.balance).toBe(50_000_000) // the account itself still has its 50 ₽
    expect(books.held).toBe(0)
    expect(books.usage).toEqual([])
    // The upstream was never asked.
    expect(upstreamChats()).toBe(chatsBefore)

    // The session (no key) is not bound by the key's limit.
    expect((await chat(c.accessToken, GPT4)).status).toBe(200)
  })

  test('spending up to the limit: requests are served while the worst case fits, then 402; lifting the limit restores access', async () => {
    const c = await gw.customer()
    const limitRub = 0.5
    await patchKey(c.accessToken, c.keyId, { monthlyLimit: limitRub })
    const small = { ...GPT4, max_tokens: 20 }

    const statuses: number[] = []
    let refusal: Res | undefined
    for (let i = 0; i < 12 && !refusal; i++) {
      const res = await chat(c.key, small)
      statuses.push(res.status)
      if (res.status !== 200) refusal = res
    }
    expect(refusal).toBeDefined()
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true)
    expect(statuses.length).toBeGreaterThanOrEqual(3) // at least two requests fitted under 0.50 ₽
    expect(refusal!.status).toBe(402)
    expect(refusal!.body.error).toMatchObject({
      code: 'budget_exceeded',
      type: 'budget_exceeded',
      message: expect.stringMatching(/^Бюджет API-ключа «test» (исчерпан|не покрывает этот запрос): лимит 0,5000 ₽ в месяц/),
      metadata: { level: 'key', limit_rub: 0.5, period: 'month' },
    })

    const rows = await usageRowsOfKey(c.keyId)
    expect(rows).toHaveLength(statuses.length - 1)
    const spentMicros = rows.reduce((s, r) => s + r.cost_micros, 0)
    expect(spentMicros).toBeLessThanOrEqual(limitRub * 1e6)
    // Each request first holds its worst case (prompt estimate + max_tokens at the model's price):
    // served while that fits into what the limit leaves, refused as soon as it does not.
    const gpt4 = CATALOGUE.find((m) => m.id === 'openai/gpt-4')!
    const worstUsd = add(mul(dec(gpt4.pricing.prompt), dec(estimatePrompt(small.messages).tokens)), mul(dec(gpt4.pricing.completion), dec(small.max_tokens)))
    const holdMicros = ceilUnits(mul(worstUsd, dec(TEST_RATE), dec('1.3')), 6)
    let spentBefore = 0
    for (const r of rows) {
      expect(spentBefore + holdMicros).toBeLessThanOrEqual(limitRub * 1e6)
      spentBefore += r.cost_micros
    }
    expect(spentMicros + holdMicros).toBeGreaterThan(limitRub * 1e6)
    const [key] = await listKeys(c.accessToken)
    expect(key.monthSpent).toBe(spentMicros / 1e6)
    expect(key.monthlyLimit).toBe(limitRub)

    const books = await gw.books(c.user.id)
    expect(books.balance).toBe(50_000_000 - spentMicros)
    expect(books.balance).toBeGreaterThan(0)
    expect(books.held).toBe(0)
    expect(books.ledgerSum).toBe(books.balance)
    // Still refused on retry; nothing else was logged for the refused attempts.
    expect((await chat(c.key, small)).status).toBe(402)
    expect(await usageRowsOfKey(c.keyId)).toHaveLength(rows.length)

    // Raising the limit lets the next request through; clearing it too.
    await patchKey(c.accessToken, c.keyId, { monthlyLimit: 100 })
    expect((await chat(c.key, small)).status).toBe(200)
    await patchKey(c.accessToken, c.keyId, { monthlyLimit: null })
    expect((await chat(c.key, GPT4)).status).toBe(200)
    expect((await gw.books(c.user.id)).held).toBe(0)
  })
})

describe('limit edge cases', () => {
  test('a limit that rounds to zero micro-rubles, or one above 10 000 000 ₽, is refused', async () => {
    const u = await registerUser(gw.url)
    const k = (await createKey(u.accessToken, 'крошечный')).body.data
    expect(pick(await patchKey(u.accessToken, k.id, { monthlyLimit: 0.0000004 }))).toEqual(err(400, 'Лимит должен быть положительным числом'))
    expect(pick(await patchKey(u.accessToken, k.id, { monthlyLimit: 10_000_001 }))).toEqual(err(400, 'Лимит не может превышать 10 000 000 ₽'))
    expect((await patchKey(u.accessToken, k.id, { monthlyLimit: 0.000001 })).body.data.monthlyLimit).toBe(0.000001)
  })

  test('without max_tokens, the answer is capped to what the key’s limit leaves instead of refused', async () => {
    const c = await gw.customer()
    await patchKey(c.accessToken, c.keyId, { monthlyLimit: 0.5 })
    const res = await chat(c.key, { model: 'openai/gpt-4', messages: [{ role: 'user', content: 'hi' }] })
    expect(res.status).toBe(200)
    const sent = gw.upstream.log.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body as { max_tokens: number }
    // 0.50 ₽ at gpt-4's completion price (0.00006 $ × rate × 1.3 per token) is about 69 tokens.
    expect(sent.max_tokens).toBeGreaterThan(60)
    expect(sent.max_tokens).toBeLessThan(70)
    expect((await gw.books(c.user.id)).held).toBe(0)
  })
})
