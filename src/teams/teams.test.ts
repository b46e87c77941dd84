// Teams over HTTP against the real server: the wire contract, invitations (the letter's one-time
// link), the role matrix on every team route and on the existing routes in team context, the
// shared balance (top-ups credit the team, personal money never mixes), keys revoked with their
// member, usage per member, the audit log and the site admin's view.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { registerUser, uniqueEmail } from '../test-support/server'
import { call, type Person, type Res, type Role, teamsOn } from '../test-support/teams'

const ADMIN_EMAIL = 'site-admin@example.ru'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let teams: ReturnType<typeof teamsOn>
let siteAdmin: Person

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN_EMAIL, ALLOW_PRIVATE_WEBHOOKS: 'true' })
  teams = teamsOn(gw.url, gw.server.dataDir)
  siteAdmin = await registerUser(gw.url, ADMIN_EMAIL)
})
afterAll(() => gw.stop())

const api = (method: string, path: string, who: Person, body?: unknown, team?: string | null) => call(gw.url, method, path, { token: who.accessToken, body, team })
const HI = { model: 'openai/gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'привет' }] }

describe('the wire contract', () => {
  test('create, list with the caller’s role, read with members and budgets', async () => {
    const owner = await registerUser(gw.url)
    const created = await api('POST', '/api/teams', owner, { name: '  Лаборатория   ИИ ' })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({ success: true, data: { id: expect.any(String), name: 'Лаборатория ИИ', role: 'owner', balance: 0, residency: 'any' } })
    const id = created.body.data.id
    expect((await api('GET', '/api/teams', owner)).body.data).toEqual([
      { id, name: 'Лаборатория ИИ', role: 'owner', balance: 0, residency: 'any', memberCount: 1, permissions: expect.arrayContaining(['team.own', 'keys.all']) },
    ])
    const one = await api('GET', `/api/teams/${id}`, owner)
    expect(one.status).toBe(200)
    expect(one.body.data).toMatchObject({
      id,
      name: 'Лаборатория ИИ',
      role: 'owner',
      balance: 0,
      members: [{ userId: owner.user.id, email: owner.email, role: 'owner', budget: { limitRub: null, period: 'month', spent: 0, remaining: null } }],
    })
    expect(one.body.data.permissions).toContain('team.own')

    for (const [body, message] of [
      [{ name: '' }, 'Введите название команды'],
      [{ name: '   ' }, 'Введите название команды'],
      [{ name: 42 }, 'Введите название команды'],
      [{}, 'Введите название команды'],
      [{ name: 'x'.repeat(101) }, 'Название команды не длиннее 100 символов'],
    ] as const) {
      const res = await api('POST', '/api/teams', owner, body)
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { success: false, error: message } })
    }
    expect((await call(gw.url, 'POST', '/api/teams', { body: { name: 'x' } })).status).toBe(401)
  })

  test('an invitation: a letter with /invite/<token>, accepted once by the invited address only', async () => {
    const { owner, team } = await teams.create('Приглашения')
    const { email, token, letter, invitation } = await teams.invite(owner, team.id, 'billing')
    expect(invitation).toMatchObject({ email, role: 'billing' })
    expect(Date.parse(invitation.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000)
    expect(letter.subject).toBe('Приглашение в команду «Приглашения» — AI Gateway')
    expect(letter.text).toContain(`${gw.url}/invite/${token}`)
    expect(letter.text).toContain('«Бухгалтер»')
    // Only the token's hash is stored.
    const rows = await gw.read<Record<string, unknown>>('select * from team_invitations where team_id = ?', team.id)
    expect(JSON.stringify(rows)).not.toContain(token)

    expect((await call(gw.url, 'POST', '/api/teams/invitations/lookup', { body: { token } })).body.data).toEqual({
      teamName: 'Приглашения',
      email,
      role: 'billing',
      expiresAt: invitation.expiresAt,
    })
    // Someone else's account cannot accept it; a signed-out caller neither.
    const stranger = await registerUser(gw.url)
    const wrong = await api('POST', '/api/teams/invitations/accept', stranger, { token })
    expect(wrong.status).toBe(403)
    expect(wrong.body.error).toContain(email)
    expect((await call(gw.url, 'POST', '/api/teams/invitations/accept', { body: { token } })).status).toBe(401)

    const invitee = await registerUser(gw.url, email.toUpperCase())
    const accepted = await api('POST', '/api/teams/invitations/accept', invitee, { token })
    expect(accepted.status).toBe(200)
    expect(accepted.body.data).toEqual({ team: { id: team.id, name: 'Приглашения', role: 'billing', balance: 0, residency: 'any' } })
    // Single use: the link is spent.
    expect((await api('POST', '/api/teams/invitations/accept', invitee, { token })).status).toBe(400)
    expect((await call(gw.url, 'POST', '/api/teams/invitations/lookup', { body: { token } })).status).toBe(400)
    expect((await api('GET', '/api/teams', invitee)).body.data).toEqual([
      {
        id: team.id,
        name: 'Приглашения',
        role: 'billing',
        balance: 0,
        residency: 'any',
        memberCount: 2,
        permissions: ['team.view', 'topup', 'company.manage', 'history', 'usage.all', 'usage.own'],
      },
    ])
    // Inviting a member again is refused; revoking an open invitation kills its link.
    expect((await api('POST', `/api/teams/${team.id}/invitations`, owner, { email, role: 'member' })).status).toBe(409)
    const second = await teams.invite(owner, team.id, 'member')
    expect((await api('GET', `/api/teams/${team.id}/invitations`, owner)).body.data.map((i: { email: string }) => i.email)).toEqual([second.email])
    expect((await api('DELETE', `/api/teams/${team.id}/invitations/${second.invitation.id}`, owner)).status).toBe(200)
    const late = await registerUser(gw.url, second.email)
    expect((await api('POST', '/api/teams/invitations/accept', late, { token: second.token })).body).toEqual({
      success: false,
      error: 'Приглашение отозвано: попросите администратора команды прислать новое',
    })
    for (const [body, message] of [
      [{ email: 'нет', role: 'member' }, 'Некорректный email'],
      [{ email: uniqueEmail(), role: 'owner' }, 'Сделать участника владельцем можно только передачей владения'],
      [{ email: uniqueEmail(), role: 'boss' }, 'Роль: admin, billing или member'],
    ] as const)
      expect((await api('POST', `/api/teams/${team.id}/invitations`, owner, body)).body).toEqual({ success: false, error: message })
  })
})

/** One route of the matrix: which roles may call it; `fresh` gives each allowed actor its own subject (destructive calls). */
type Route = {
  name: string
  allowed: Role[]
  run: (f: Fixture, who: Person) => Promise<Res>
  /** Prepares what an allowed actor's call consumes (a member to remove, an invitation to revoke). */
  fresh?: (f: Fixture) => Promise<Fixture>
  v1?: boolean
}
type Fixture = Awaited<ReturnType<ReturnType<typeof teamsOn>['withRoles']>> & { target: Person; invitationId: string }

const ALL: Role[] = ['owner', 'admin', 'billing', 'member']
const MANAGERS: Role[] = ['owner', 'admin']
const MONEY: Role[] = ['owner', 'admin', 'billing']
const USERS: Role[] = ['owner', 'admin', 'member']

const inTeam = (method: string, path: string, body?: unknown) => (f: Fixture, who: Person) => api(method, path, who, body, f.team.id)
const onTeam = (method: string, path: (f: Fixture) => string, body?: unknown) => (f: Fixture, who: Person) => api(method, path(f), who, body)

const ROUTES: Route[] = [
  { name: 'GET /api/teams/:id', allowed: ALL, run: onTeam('GET', (f) => `/api/teams/${f.team.id}`) },
  { name: 'PATCH /api/teams/:id', allowed: MANAGERS, run: onTeam('PATCH', (f) => `/api/teams/${f.team.id}`, { name: 'Матрица' }) },
  { name: 'GET /api/teams/:id/invitations', allowed: MANAGERS, run: onTeam('GET', (f) => `/api/teams/${f.team.id}/invitations`) },
  {
    name: 'POST /api/teams/:id/invitations',
    allowed: MANAGERS,
    run: (f, who) => api('POST', `/api/teams/${f.team.id}/invitations`, who, { email: uniqueEmail('m'), role: 'member' }),
  },
  {
    name: 'DELETE /api/teams/:id/invitations/:invitationId',
    allowed: MANAGERS,
    run: onTeam('DELETE', (f) => `/api/teams/${f.team.id}/invitations/${f.invitationId}`),
    fresh: async (f) => ({ ...f, invitationId: (await teams.invite(f.owner, f.team.id, 'member')).invitation.id }),
  },
  {
    name: 'PATCH /api/teams/:id/members/:userId',
    allowed: MANAGERS,
    run: onTeam('PATCH', (f) => `/api/teams/${f.team.id}/members/${f.target.user.id}`, { role: 'member', budget: { limitRub: 5, period: 'day' } }),
  },
  {
    name: 'DELETE /api/teams/:id/members/:userId',
    allowed: MANAGERS,
    run: onTeam('DELETE', (f) => `/api/teams/${f.team.id}/members/${f.target.user.id}`),
    fresh: async (f) => ({ ...f, target: await teams.join(f.owner, f.team.id, 'member') }),
  },
  { name: 'GET /api/teams/:id/audit', allowed: MANAGERS, run: onTeam('GET', (f) => `/api/teams/${f.team.id}/audit`) },
  { name: 'PUT /api/teams/:id/webhook', allowed: MANAGERS, run: onTeam('PUT', (f) => `/api/teams/${f.team.id}/webhook`, { url: 'http://127.0.0.1:9/hook' }) },
  { name: 'GET /api/teams/:id/webhook', allowed: MANAGERS, run: onTeam('GET', (f) => `/api/teams/${f.team.id}/webhook`) },
  { name: 'POST /api/teams/:id/webhook/test', allowed: MANAGERS, run: onTeam('POST', (f) => `/api/teams/${f.team.id}/webhook/test`) },
  { name: 'DELETE /api/teams/:id/webhook', allowed: MANAGERS, run: onTeam('DELETE', (f) => `/api/teams/${f.team.id}/webhook`) },
  {
    name: 'POST /api/teams/:id/transfer',
    allowed: ['owner'],
    run: (f, who) => api('POST', `/api/teams/${f.team.id}/transfer`, who, { userId: f.admin.user.id }),
    fresh: () => fixture(),
  },
  { name: 'DELETE /api/teams/:id', allowed: ['owner'], run: onTeam('DELETE', (f) => `/api/teams/${f.team.id}`), fresh: () => fixture() },
  // The existing routes, in team context (X-Team-Id).
  { name: 'GET /api/auth/api-keys', allowed: USERS, run: inTeam('GET', '/api/auth/api-keys') },
  { name: 'POST /api/auth/api-keys', allowed: USERS, run: inTeam('POST', '/api/auth/api-keys', { name: 'матрица' }) },
  { name: 'GET /api/billing/balance', allowed: ALL, run: inTeam('GET', '/api/billing/balance') },
  { name: 'PATCH /api/billing/alerts', allowed: MANAGERS, run: inTeam('PATCH', '/api/billing/alerts', { threshold: 10 }) },
  { name: 'GET /api/billing/transactions', allowed: MONEY, run: inTeam('GET', '/api/billing/transactions') },
  { name: 'GET /api/billing/transactions/grouped', allowed: MONEY, run: inTeam('GET', '/api/billing/transactions/grouped') },
  { name: 'GET /api/billing/usage', allowed: ALL, run: inTeam('GET', '/api/billing/usage') },
  { name: 'GET /api/billing/usage/export', allowed: ALL, run: inTeam('GET', '/api/billing/usage/export') },
  { name: 'POST /api/payments/create', allowed: MONEY, run: inTeam('POST', '/api/payments/create', { amount: 100 }) },
  { name: 'GET /api/payments/list', allowed: MONEY, run: inTeam('GET', '/api/payments/list') },
  { name: 'GET /api/payments/refund-request', allowed: MONEY, run: inTeam('GET', '/api/payments/refund-request') },
  { name: 'GET /api/chats', allowed: USERS, run: inTeam('GET', '/api/chats') },
  { name: 'POST /api/chats', allowed: USERS, run: inTeam('POST', '/api/chats', { title: 'Чат', model: 'openai/gpt-4o-mini' }) },
  { name: 'POST /api/playground/estimate', allowed: USERS, run: inTeam('POST', '/api/playground/estimate', { chat: HI }) },
  { name: 'POST /v1/chat/completions (session)', allowed: USERS, run: inTeam('POST', '/v1/chat/completions', HI), v1: true },
]

async function fixture(): Promise<Fixture> {
  const f = await teams.withRoles('Матрица')
  const target = await teams.join(f.owner, f.team.id, 'member')
  const { invitation } = await teams.invite(f.owner, f.team.id, 'member')
  return { ...f, target, invitationId: invitation.id }
}

describe('the role matrix: 4 roles × every team route, plus outsiders', () => {
  let f: Fixture
  let outsider: Person
  beforeAll(async () => {
    f = await fixture()
    outsider = await registerUser(gw.url)
    await teams.topUp(f.owner, f.team.id, 200)
  })

  test.each(ROUTES.map((r) => [r.name, r] as const))('%s', async (_name, route) => {
    // Refusals first (they change nothing), then each allowed role on its own subject when the call consumes one.
    const order = [...ALL].sort((a, b) => Number(route.allowed.includes(a)) - Number(route.allowed.includes(b)))
    for (const role of order) {
      const subject = route.allowed.includes(role) && route.fresh ? await route.fresh(f) : f
      const res = await route.run(subject, subject.byRole[role])
      if (route.allowed.includes(role)) {
        expect({ role, status: res.status, ok: ![401, 403, 404].includes(res.status) }).toMatchObject({ role, ok: true })
      } else {
        expect({ role, status: res.status }).toEqual({ role, status: 403 })
        const message = route.v1 ? res.body.error.message : res.body.error
        expect(message).toStartWith('Недостаточно прав:')
        if (route.v1) expect(res.body.error.code).toBe('permission_denied')
        else expect(res.body.success).toBe(false)
      }
    }
    // Outsiders learn nothing about the team: 404 for any of its routes.
    const res = await route.run(f, outsider)
    expect(res.status).toBe(404)
    expect(route.v1 ? res.body.error.message : res.body.error).toBe('Команда не найдена')
  })

  test('an admin never acts on an owner; the last owner cannot leave; roles above admin only by transfer', async () => {
    const path = `/api/teams/${f.team.id}/members/${f.owner.user.id}`
    expect((await api('PATCH', path, f.admin, { role: 'member' })).status).toBe(403)
    expect((await api('DELETE', path, f.admin)).status).toBe(403)
    expect((await api('DELETE', path, f.owner)).body.error).toContain('единственному владельцу')
    expect((await api('PATCH', `/api/teams/${f.team.id}/members/${f.member.user.id}`, f.owner, { role: 'owner' })).status).toBe(400)
    // A member may leave on their own.
    const leaver = await teams.join(f.owner, f.team.id, 'member')
    expect((await api('DELETE', `/api/teams/${f.team.id}/members/${leaver.user.id}`, leaver)).status).toBe(200)
    expect((await api('GET', `/api/teams/${f.team.id}`, leaver)).status).toBe(404)
  })
})

describe('the shared balance and team context', () => {
  test('a team top-up credits the team, personal money never mixes; balances equal their ledgers', async () => {
    const f = await teams.withRoles('Деньги')
    await teams.topUp(f.billing, f.team.id, 300)
    const teamBalance = await api('GET', '/api/billing/balance', f.member, undefined, f.team.id)
    expect(teamBalance.body.data.balance).toBe(300)
    // The payer's personal balance is untouched (the welcome bonus only).
    expect((await api('GET', '/api/billing/balance', f.billing)).body.data.balance).toBe(50)
    const history = (await api('GET', '/api/billing/transactions', f.owner, undefined, f.team.id)).body.data
    expect(history).toMatchObject([{ type: 'topup', amount: '+300.00', balanceAfter: 300 }])
    // The member spends from the team in the Playground (session + X-Team-Id).
    const reply = await api('POST', '/v1/chat/completions', f.member, HI, f.team.id)
    expect(reply.status).toBe(200)
    const cost = Number(reply.body.usage.cost_rub)
    expect((await api('GET', '/api/billing/balance', f.owner, undefined, f.team.id)).body.data.balance).toBeCloseTo(300 - cost, 6)
    expect((await gw.books(f.member.user.id)).balance).toBe(50_000_000)
    const [t] = await gw.read<{ b: number }>('select balance_micros as b from teams where id = ?', f.team.id)
    const [l] = await gw.read<{ s: number }>('select sum(amount_micros) as s from ledger_entries where team_id = ?', f.team.id)
    expect(l!.s).toBe(t!.b)
    // The personal history does not show team rows, and the team's payments are the team's.
    expect((await api('GET', '/api/billing/transactions', f.member)).body.data.map((r: { type: string }) => r.type)).toEqual(['bonus'])
    expect((await api('GET', '/api/payments/list', f.billing)).body.data).toEqual([])
    expect((await api('GET', '/api/payments/list', f.owner, undefined, f.team.id)).body.data).toHaveLength(1)
    // The team's low-balance level is the team's own.
    expect((await api('PATCH', '/api/billing/alerts', f.admin, { threshold: 25 }, f.team.id)).body.data).toEqual({ alertThreshold: 25 })
    expect((await api('GET', '/api/billing/balance', f.admin)).body.data.alertThreshold).toBeNull()
  })

  test('keys: a team key belongs to the team and its maker; admins see all, members their own; /v1/key tells the team and budgets', async () => {
    const f = await teams.withRoles('Ключи')
    await teams.topUp(f.owner, f.team.id, 100)
    const mine = await teams.key(f.member, f.team.id, 'участник')
    const adminKey = await teams.key(f.admin, f.team.id, 'админ')
    const own = (await api('GET', '/api/auth/api-keys', f.member, undefined, f.team.id)).body.data
    expect(own.map((k: { name: string }) => k.name)).toEqual(['участник'])
    expect(own[0]).toMatchObject({ teamId: f.team.id, owner: { id: f.member.user.id, email: f.member.email } })
    const all = (await api('GET', '/api/auth/api-keys', f.owner, undefined, f.team.id)).body.data
    expect(all.map((k: { name: string }) => k.name).sort()).toEqual(['админ', 'участник'])
    // The personal list has none of them.
    expect((await api('GET', '/api/auth/api-keys', f.member)).body.data).toEqual([])
    // A member cannot touch another's key; an admin can, and sets its budget.
    expect((await api('PATCH', `/api/auth/api-keys/${adminKey.id}`, f.member, { isActive: false }, f.team.id)).status).toBe(404)
    const budgeted = await api('PATCH', `/api/auth/api-keys/${mine.id}`, f.admin, { budget: { limitRub: 3, period: 'week' } }, f.team.id)
    expect(budgeted.body.data.budget).toMatchObject({ limitRub: 3, period: 'week', spent: 0, remaining: 3 })
    await api('PATCH', `/api/teams/${f.team.id}/members/${f.member.user.id}`, f.owner, { budget: { limitRub: 7, period: 'month' } })

    const key = await call(gw.url, 'GET', '/v1/key', { token: mine.key })
    expect(key.body.data).toMatchObject({
      label: 'участник',
      limit: 3,
      limit_remaining: 3,
      limit_reset: 'weekly',
      balance: 100,
      team: { id: f.team.id, name: 'Ключи', role: 'member' },
      budgets: {
        key: { limit_rub: 3, period: 'week', spent_rub: 0, remaining_rub: 3, resets_at: expect.any(String) },
        member: { limit_rub: 7, period: 'month', spent_rub: 0, remaining_rub: 7, resets_at: expect.any(String) },
      },
    })
    // A team key acts in its team with no header; a billing member's keys could not exist (403 on create).
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: mine.key, body: HI })).status).toBe(200)
    expect((await api('POST', '/api/auth/api-keys', f.billing, { name: 'x' }, f.team.id)).status).toBe(403)
  })

  test('removing a member revokes their team keys at once: the next request with one is 401', async () => {
    const { owner, team } = await teams.create('Уход')
    const member = await teams.join(owner, team.id, 'member')
    await teams.topUp(owner, team.id, 100)
    const key = await teams.key(member, team.id)
    const personal = await teams.key(member, null, 'личный')
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: HI })).status).toBe(200)
    const removed = await api('DELETE', `/api/teams/${team.id}/members/${member.user.id}`, owner)
    expect(removed.body.data).toEqual({ ok: true, revokedKeys: 1 })
    const after = await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: HI })
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('invalid_api_key')
    // Their personal key is theirs and keeps working; the team is gone from their list.
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: personal.key, body: HI })).status).toBe(200)
    expect((await api('GET', '/api/teams', member)).body.data).toEqual([])
    expect((await api('GET', '/api/billing/balance', member, undefined, team.id)).status).toBe(404)
  })

  test('usage: owners see every member, a member only their own part; the CSV names the member', async () => {
    const f = await teams.withRoles('Статистика')
    await teams.topUp(f.owner, f.team.id, 100)
    await api('POST', '/v1/chat/completions', f.member, HI, f.team.id)
    await api('POST', '/v1/chat/completions', f.admin, HI, f.team.id)
    await api('POST', '/v1/chat/completions', f.admin, HI, f.team.id)
    const all = (await api('GET', '/api/billing/usage', f.billing, undefined, f.team.id)).body.data
    expect(all.totalRequests).toBe(3)
    expect(all.byMember.map((m: { email: string; requests: number }) => [m.email, m.requests])).toEqual([
      [f.admin.email, 2],
      [f.member.email, 1],
    ])
    expect(all.byKey).toEqual([expect.objectContaining({ apiKeyId: null, name: 'Веб-сессия', requests: 3 })])
    const own = (await api('GET', '/api/billing/usage', f.member, undefined, f.team.id)).body.data
    expect(own.totalRequests).toBe(1)
    expect(own.byMember.map((m: { email: string }) => m.email)).toEqual([f.member.email])
    // The member's personal usage is empty: team requests are the team's.
    expect((await api('GET', '/api/billing/usage', f.member)).body.data.totalRequests).toBe(0)
    const csv = await fetch(`${gw.url}/api/billing/usage/export`, { headers: { authorization: `Bearer ${f.owner.accessToken}`, 'x-team-id': f.team.id } })
    const lines = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
    expect(lines[0]).toStartWith('Время (МСК),Модель,API-ключ,Участник,')
    expect(lines).toHaveLength(4)
    expect(lines.filter((l) => l.includes(f.admin.email))).toHaveLength(2)
  })

  test('a billing member may not use the API in the team (403 naming the role)', async () => {
    const f = await teams.withRoles('Бухгалтерия')
    const res = await api('POST', '/v1/chat/completions', f.billing, HI, f.team.id)
    expect(res.status).toBe(403)
    expect(res.body.error).toMatchObject({ code: 'permission_denied', type: 'permission_error' })
    expect(res.body.error.message).toContain('«Бухгалтер»')
  })
})

describe('the audit log and the site admin', () => {
  test('who did what, when and from where — never a key, token or secret', async () => {
    const f = await teams.withRoles('Журнал')
    const key = await teams.key(f.member, f.team.id, 'аудит')
    await api('DELETE', `/api/auth/api-keys/${key.id}`, f.admin, undefined, f.team.id)
    await api('PATCH', `/api/teams/${f.team.id}/members/${f.member.user.id}`, f.admin, { budget: { limitRub: 10, period: 'day' } })
    await teams.topUp(f.billing, f.team.id, 150)
    await api('PATCH', `/api/teams/${f.team.id}/members/${f.billing.user.id}`, f.owner, { role: 'member' })
    const hook = await api('PUT', `/api/teams/${f.team.id}/webhook`, f.owner, { url: 'http://127.0.0.1:9/hook' })
    await call(gw.url, 'POST', `/api/admin/teams/${f.team.id}/balance`, { token: siteAdmin.accessToken, body: { amount: 25, description: 'Компенсация' } })

    const log = await api('GET', `/api/teams/${f.team.id}/audit`, f.admin)
    expect(log.status).toBe(200)
    const entries = log.body.data as { at: string; actor: string; action: string; target: string | null; ip: string | null }[]
    const actions = entries.map((e) => e.action)
    for (const a of [
      'team.created',
      'invitation.created',
      'member.joined',
      'key.created',
      'key.deleted',
      'member.budget_changed',
      'member.role_changed',
      'webhook.updated',
      'payment.succeeded',
      'balance.adjusted',
    ])
      expect(actions).toContain(a)
    expect(entries.find((e) => e.action === 'key.deleted')).toMatchObject({ actor: f.admin.email, target: expect.stringContaining('аудит (sk-gw-'), ip: expect.any(String) })
    expect(entries.find((e) => e.action === 'member.budget_changed')).toMatchObject({ actor: f.admin.email, target: f.member.email })
    expect(entries.find((e) => e.action === 'balance.adjusted')).toMatchObject({ actor: ADMIN_EMAIL, target: '+25.00 ₽' })
    // Newest first, and no secret anywhere in it.
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort().reverse())
    const text = JSON.stringify(entries)
    expect(text).not.toContain(key.key)
    expect(text).not.toContain(key.key.slice(14))
    expect(text).not.toContain(hook.body.data.secret)
    expect(text).not.toContain('correct-horse-42')
  })

  test('the site admin lists teams and adjusts a team balance (a team ledger row with the admin as actor)', async () => {
    const { owner, team } = await teams.create('Для админа')
    await teams.topUp(owner, team.id, 100)
    const list = await call(gw.url, 'GET', `/api/admin/teams?search=${encodeURIComponent('для админа')}`, { token: siteAdmin.accessToken })
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([{ id: team.id, name: 'Для админа', balance: 100, held: 0, members: 1, owner: owner.email, spent: 0, createdAt: expect.any(String) }])
    const adjusted = await call(gw.url, 'POST', `/api/admin/teams/${team.id}/balance`, { token: siteAdmin.accessToken, body: { amount: -40, description: 'Возврат' } })
    expect(adjusted.body.data).toMatchObject({ teamId: team.id, balance: 60, transaction: { amount: '-40.00', type: 'admin', description: 'Возврат' } })
    const [row] = await gw.read<{ user_id: string; actor_id: string; team_id: string }>(
      "select user_id, actor_id, team_id from ledger_entries where team_id = ? and type = 'admin'",
      team.id,
    )
    expect(row).toEqual({ user_id: siteAdmin.user.id, actor_id: siteAdmin.user.id, team_id: team.id })
    // Never below zero; only admins; an unknown team is 404.
    expect((await call(gw.url, 'POST', `/api/admin/teams/${team.id}/balance`, { token: siteAdmin.accessToken, body: { amount: -61 } })).status).toBe(400)
    expect((await call(gw.url, 'POST', `/api/admin/teams/${team.id}/balance`, { token: owner.accessToken, body: { amount: 1 } })).status).toBe(403)
    expect((await call(gw.url, 'POST', '/api/admin/teams/nope/balance', { token: siteAdmin.accessToken, body: { amount: 1 } })).status).toBe(404)
    expect((await api('GET', '/api/billing/balance', owner, undefined, team.id)).body.data.balance).toBe(60)
  })
})
