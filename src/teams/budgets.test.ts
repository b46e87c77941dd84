// Budgets on keys and team members, on the real server with the fake upstream: concurrent requests
// never exceed a budget (every level is reserved in the one hold unit), charges are the reported
// cost × rate × markup, 402 names the level and its next reset, and budgets reset at Moscow
// calendar boundaries — the server's clock for budgets is moved through TEST_CLOCK_FILE.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expectedCharge, startGateway } from '../test-support/gateway'
import { call, teamsOn } from '../test-support/teams'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let teams: ReturnType<typeof teamsOn>
const clockDir = mkdtempSync(join(tmpdir(), 'budget-clock-'))
const clockFile = join(clockDir, 'now')
/** Sets the server's budget clock to a Moscow wall time ('' = the real time). */
const setClock = (moscow: string) => writeFileSync(clockFile, moscow ? `${moscow}+03:00` : '')

beforeAll(async () => {
  setClock('')
  gw = await startGateway({ TEST_CLOCK_FILE: clockFile })
  teams = teamsOn(gw.url, gw.server.dataDir)
})
afterAll(async () => {
  await gw.stop()
  rmSync(clockDir, { recursive: true, force: true })
})

const MINI = (maxTokens = 400) => ({ model: 'openai/gpt-4o-mini', max_tokens: maxTokens, messages: [{ role: 'user', content: 'Расскажи коротко про бюджеты' }] })
/** A dear model with a short answer: a few of these spend 1 ₽ for real, so refusals come whatever the timing. */
const DEAR = { model: 'openai/gpt-4', max_tokens: 40, messages: [{ role: 'user', content: 'Расскажи коротко про бюджеты' }] }
const v1 = (token: string, body: unknown, team?: string) => call(gw.url, 'POST', '/v1/chat/completions', { token, body, team })

/** The usage rows of an account with what the upstream reported, to check every charge against the reported cost. */
async function usage(where: string, id: string) {
  return gw.read<{ cost_micros: number; upstream_cost_usd: string | null; status: string; user_id: string }>(
    `select cost_micros, upstream_cost_usd, status, user_id from usage_logs where ${where} = ?`,
    id,
  )
}

describe('50 concurrent requests never exceed a 1 ₽ budget', () => {
  test('a member budget: the team pays, the member’s spend stops below 1 ₽', async () => {
    const { owner, team } = await teams.create('Параллельные')
    const member = await teams.join(owner, team.id, 'member')
    await teams.topUp(owner, team.id, 500)
    const set = await teams.api('PATCH', `/api/teams/${team.id}/members/${member.user.id}`, owner.accessToken, { budget: { limitRub: 1, period: 'month' } })
    expect(set.status).toBe(200)
    expect(set.body.data.budget).toMatchObject({ limitRub: 1, period: 'month', spent: 0, remaining: 1 })
    const key = await teams.key(member, team.id)

    const results = await Promise.all(Array.from({ length: 50 }, () => v1(key.key, DEAR)))
    const ok = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status === 402)
    expect(ok.length + refused.length).toBe(50)
    expect(ok.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) expect(r.body.error).toMatchObject({ code: 'budget_exceeded', metadata: { level: 'member', limit_rub: 1, period: 'month' } })

    const rows = (await usage('team_id', team.id)).filter((r) => r.status === 'success')
    expect(rows).toHaveLength(ok.length)
    const charged = rows.reduce((s, r) => s + r.cost_micros, 0)
    expect(charged).toBeLessThanOrEqual(1_000_000)
    // Charges are the reported cost × rate × markup, to the micro-ruble.
    for (const r of rows) expect(r.cost_micros).toBe(expectedCharge(Number(r.upstream_cost_usd)))

    const [m] = await gw.read<{ spent: number; held: number }>(
      'select budget_spent_micros as spent, budget_held_micros as held from team_members where team_id = ? and user_id = ?',
      team.id,
      member.user.id,
    )
    expect(m).toEqual({ spent: charged, held: 0 })
    const [t] = await gw.read<{ balance: number; held: number }>('select balance_micros as balance, held_micros as held from teams where id = ?', team.id)
    const [l] = await gw.read<{ s: number }>('select coalesce(sum(amount_micros), 0) as s from ledger_entries where team_id = ?', team.id)
    expect(t).toEqual({ balance: 500_000_000 - charged, held: 0 })
    expect(l!.s).toBe(t!.balance)
    // Personal money never moved: the member's personal balance is the welcome bonus.
    expect((await gw.books(member.user.id)).balance).toBe(50_000_000)
  })

  test('a key budget: a personal key stops below 1 ₽ though the balance has 50 ₽', async () => {
    const c = await gw.customer()
    expect((await call(gw.url, 'PATCH', `/api/auth/api-keys/${c.keyId}`, { token: c.accessToken, body: { budget: { limitRub: 1, period: 'day' } } })).status).toBe(200)
    const results = await Promise.all(Array.from({ length: 50 }, () => v1(c.key, DEAR)))
    const ok = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status === 402)
    expect(ok.length + refused.length).toBe(50)
    expect(ok.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) expect(r.body.error).toMatchObject({ code: 'budget_exceeded', metadata: { level: 'key', limit_rub: 1, period: 'day' } })
    const rows = (await usage('api_key_id', c.keyId)).filter((r) => r.status === 'success')
    const charged = rows.reduce((s, r) => s + r.cost_micros, 0)
    expect(charged).toBeLessThanOrEqual(1_000_000)
    for (const r of rows) expect(r.cost_micros).toBe(expectedCharge(Number(r.upstream_cost_usd)))
    const [k] = await gw.read<{ spent: number; held: number }>('select budget_spent_micros as spent, budget_held_micros as held from api_keys where id = ?', c.keyId)
    expect(k).toEqual({ spent: charged, held: 0 })
    const books = await gw.books(c.user.id)
    expect(books).toMatchObject({ balance: 50_000_000 - charged, held: 0, ledgerSum: 50_000_000 - charged })
  })
})

describe('the 402 names the level and when it resets', () => {
  test('a member over their budget, a key over its own, and the team’s empty balance', async () => {
    setClock('2028-02-29T12:00:00')
    try {
      const { owner, team } = await teams.create('Отказы')
      const member = await teams.join(owner, team.id, 'member')
      await teams.topUp(owner, team.id, 100)
      await teams.api('PATCH', `/api/teams/${team.id}/members/${member.user.id}`, owner.accessToken, { budget: { limitRub: 0.001, period: 'week' } })
      const key = await teams.key(member, team.id)
      const res = await v1(key.key, MINI())
      expect(res.status).toBe(402)
      expect(res.body.error).toMatchObject({
        code: 'budget_exceeded',
        type: 'budget_exceeded',
        param: null,
        action: { label: 'Бюджеты команды', url: '/app/team' },
        // 2028-02-29 is a Tuesday: the week resets on Monday 6 March, 00:00 MSK.
        metadata: { level: 'member', limit_rub: 0.001, period: 'week', spent_rub: 0, resets_at: '2028-03-05T21:00:00.000Z' },
      })
      expect(res.body.error.message).toStartWith('Ваш бюджет в команде «Отказы» не покрывает этот запрос: лимит 0,001000 ₽ в неделю, осталось 0,001000 ₽.')
      expect(res.body.error.message).toContain('06.03.2028 00:00 МСК')
      expect(res.headers.get('x-should-retry')).toBe('false')

      // The key's own budget binds when it is the smaller; a total budget has no reset.
      await teams.api('PATCH', `/api/teams/${team.id}/members/${member.user.id}`, owner.accessToken, { budget: { limitRub: null } })
      await call(gw.url, 'PATCH', `/api/auth/api-keys/${key.id}`, { token: member.accessToken, team: team.id, body: { budget: { limitRub: 0.0005, period: 'total' } } })
      const byKey = await v1(key.key, MINI())
      expect(byKey.status).toBe(402)
      expect(byKey.body.error.metadata).toEqual({ level: 'key', limit_rub: 0.0005, period: 'total', spent_rub: 0 })
      expect(byKey.body.error.message).toContain('Бюджет без периода не обновляется')

      // The web session (the Playground) in team context is bound by the member budget too.
      await teams.api('PATCH', `/api/teams/${team.id}/members/${member.user.id}`, owner.accessToken, { budget: { limitRub: 0.001, period: 'month' } })
      const session = await v1(member.accessToken, MINI(), team.id)
      expect(session.status).toBe(402)
      expect(session.body.error.metadata).toMatchObject({ level: 'member', period: 'month', resets_at: '2028-02-29T21:00:00.000Z' })

      // A team with no money: insufficient_balance naming the team level, with the top-up action.
      const { owner: poor, team: empty } = await teams.create('Пустая')
      const broke = await v1(poor.accessToken, MINI(), empty.id)
      expect(broke.status).toBe(402)
      expect(broke.body.error).toMatchObject({
        code: 'insufficient_balance',
        action: { label: 'Пополнить баланс', url: '/app/billing' },
        metadata: { level: 'team', limit_rub: null, period: null },
      })
      expect(broke.body.error.metadata.resets_at).toBeUndefined()
      expect(broke.body.error.message).toContain('команды «Пустая»')
    } finally {
      setClock('')
    }
  })
})

describe('a member budget caps what the router may bill, as a key budget does (price caps, issue 22)', () => {
  test('a variable-price model: max_price and max_tokens from the hold go out, the charge stays within the budget; web search is refused', async () => {
    const { owner, team } = await teams.create('Потолок цены')
    const member = await teams.join(owner, team.id, 'member')
    await teams.topUp(owner, team.id, 100)
    await teams.api('PATCH', `/api/teams/${team.id}/members/${member.user.id}`, owner.accessToken, { budget: { limitRub: 5, period: 'day' } })
    const key = await teams.key(member, team.id)
    const since = gw.upstream.log.length
    const res = await v1(key.key, { model: 'openrouter/auto', messages: [{ role: 'user', content: 'Привет' }] })
    expect(res.status).toBe(200)
    const forwarded = gw.upstream.log.slice(since).find((r) => r.path.endsWith('/chat/completions'))!.body as Record<string, any>
    expect(forwarded.provider.max_price).toEqual({ prompt: expect.any(String), completion: expect.any(String), request: '0' })
    expect(forwarded.max_tokens).toBeGreaterThan(0)
    const [row] = await usage('team_id', team.id)
    expect(row!.cost_micros).toBeLessThanOrEqual(5_000_000)

    // Web search on a variable-price model cannot be capped: 402 limit_uncappable, pointing at the team's budgets; nothing sent.
    const before = gw.upstream.log.length
    const web = await v1(key.key, { model: 'openrouter/auto', messages: [{ role: 'user', content: 'Новости' }], plugins: [{ id: 'web' }] })
    expect([web.status, web.body.error]).toMatchObject([402, { code: 'limit_uncappable', action: { url: '/app/team' } }])
    expect(gw.upstream.log.length).toBe(before)
    // The owner has no budget in the team: the balance's rules apply, no cap is sent.
    const mark = gw.upstream.log.length
    expect((await v1(owner.accessToken, { model: 'openrouter/auto', messages: [{ role: 'user', content: 'Привет' }] }, team.id)).status).toBe(200)
    const free = gw.upstream.log.slice(mark).find((r) => r.path.endsWith('/chat/completions'))!.body as Record<string, any>
    expect(free.provider?.max_price).toBeUndefined()
  })
})

describe('budgets reset at Moscow calendar boundaries', () => {
  /** Spends with the key until the budget refuses; answers the refusal. */
  async function exhaust(key: string) {
    for (let i = 0; i < 30; i++) {
      const res = await v1(key, MINI(200))
      if (res.status === 402) return res
      expect(res.status).toBe(200)
    }
    throw new Error('the budget never refused')
  }

  test.each([
    // [period, the last second of a period (MSK), the first second of the next, resets_at (UTC)]
    ['day', '2028-02-29T23:59:59', '2028-03-01T00:00:00', '2028-02-29T21:00:00.000Z'],
    ['week', '2028-03-05T23:59:59', '2028-03-06T00:00:00', '2028-03-05T21:00:00.000Z'],
    ['month', '2028-02-29T23:59:59', '2028-03-01T00:00:00', '2028-02-29T21:00:00.000Z'],
    ['month', '2028-12-31T23:59:59', '2029-01-01T00:00:00', '2028-12-31T21:00:00.000Z'],
  ] as const)('a %s budget exhausted at %s MSK works again at %s', async (period, last, first, resetsAt) => {
    setClock(last)
    try {
      const c = await gw.customer()
      await call(gw.url, 'PATCH', `/api/auth/api-keys/${c.keyId}`, { token: c.accessToken, body: { budget: { limitRub: 0.05, period } } })
      const refused = await exhaust(c.key)
      expect(refused.body.error.metadata).toMatchObject({ level: 'key', period, resets_at: resetsAt })
      // Still the same second of the old period: still refused.
      expect((await v1(c.key, MINI(200))).status).toBe(402)
      setClock(first)
      const again = await v1(c.key, MINI(200))
      expect(again.status).toBe(200)
      const key = (await call(gw.url, 'GET', '/api/auth/api-keys', { token: c.accessToken })).body.data[0]
      expect(key.budget.spent).toBe(Number(again.body.usage.cost_rub))
      expect(key.budget.resetsAt).not.toBe(resetsAt)
    } finally {
      setClock('')
    }
  })
})
