// Answers that fit the balance (issue 37): with `fitToBalance` on a key (or its team), a request whose
// max_tokens the money cannot cover is sent with the max_tokens it can — at least 16 tokens — instead
// of 402, says so in x-max-tokens-clamped, and is charged within the balance; off, the same request is
// refused as before. Against the real server, the fake router and the real database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { registerUser } from '../test-support/server'
import { teamsOn } from '../test-support/teams'

const ADMIN = 'boss@fit.test'
let gw: Awaited<ReturnType<typeof startGateway>>
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN })
  admin = await registerUser(gw.url, ADMIN)
})
afterAll(() => gw.stop())

// gpt-4 writes at about 0.0072 ₽ a token: 1 ₽ covers some 130 tokens, not 4000.
const DEAR = { model: 'openai/gpt-4', max_tokens: 4000, messages: [{ role: 'user', content: 'привет' }] }

async function post(key: string, path: string, body: unknown) {
  const res = await fetch(gw.url + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }
}

const patchKey = (c: { accessToken: string; keyId: string }, body: unknown) =>
  fetch(`${gw.url}/api/auth/api-keys/${c.keyId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${c.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const sentMaxTokens = (since: number) =>
  gw.upstream.log.slice(since).map((e) => (e.body as Record<string, unknown> | undefined)?.max_tokens ?? (e.body as Record<string, unknown> | undefined)?.max_output_tokens)

describe('fitToBalance', () => {
  test('off: 402 as before; on: the answer fits the balance, the header names the max_tokens sent, the charge stays within the balance', async () => {
    const c = await gw.customerWith(admin, 1)
    const refused = await post(c.key, '/v1/chat/completions', DEAR)
    expect(refused.status).toBe(402)
    expect(refused.headers.get('x-max-tokens-clamped')).toBeNull()

    expect((await patchKey(c, { fitToBalance: true })).status).toBe(200)
    const since = gw.upstream.log.length
    const fitted = await post(c.key, '/v1/chat/completions', DEAR)
    expect(fitted.status).toBe(200)
    const clamped = Number(fitted.headers.get('x-max-tokens-clamped'))
    expect(clamped).toBeGreaterThanOrEqual(16)
    expect(clamped).toBeLessThan(4000)
    expect(sentMaxTokens(since)).toContain(clamped)
    const books = await gw.books(c.user.id)
    expect(books.balance).toBeGreaterThanOrEqual(0)
    expect(books.held).toBe(0)
    expect(books.usage.at(-1)!.completion_tokens).toBeLessThanOrEqual(clamped)

    // Responses and Messages clamp their own fields.
    const r = await post(c.key, '/v1/responses', { model: 'openai/gpt-4', input: 'привет', max_output_tokens: 4000 })
    expect(r.status).toBe(200)
    expect(Number(r.headers.get('x-max-tokens-clamped'))).toBeGreaterThanOrEqual(16)
  })

  test('under 16 affordable tokens it is still 402; a request that fits is not clamped', async () => {
    const poor = await gw.customerWith(admin, 0.05)
    expect((await patchKey(poor, { fitToBalance: true })).status).toBe(200)
    expect((await post(poor.key, '/v1/chat/completions', DEAR)).status).toBe(402)
    const rich = await gw.customer()
    await patchKey(rich, { fitToBalance: true })
    const ok = await post(rich.key, '/v1/chat/completions', { ...DEAR, max_tokens: 16 })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('x-max-tokens-clamped')).toBeNull()
  })

  test('the team’s setting covers its keys (owner and admin set it with the team policy)', async () => {
    const teams = teamsOn(gw.url, gw.server.dataDir)
    const { owner, team } = await teams.create('По средствам')
    await teams.topUp(owner, team.id, 500)
    const key = await teams.key(owner, team.id)
    // A budget of 1 ₽ on the key binds the request like a small balance.
    await teams.api('PATCH', `/api/auth/api-keys/${key.id}`, owner.accessToken, { budget: { limitRub: 1, period: 'month' } }, team.id)
    expect((await post(key.key, '/v1/chat/completions', DEAR)).status).toBe(402)
    const set = await teams.api('PATCH', `/api/teams/${team.id}/policy`, owner.accessToken, { fitToBalance: true })
    expect(set.body.data.fitToBalance).toBe(true)
    const fitted = await post(key.key, '/v1/chat/completions', DEAR)
    expect(fitted.status).toBe(200)
    expect(Number(fitted.headers.get('x-max-tokens-clamped'))).toBeGreaterThanOrEqual(16)
  })
})
