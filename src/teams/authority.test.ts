// Who may undo whom in a team (issue 33, points 7 and 8), over HTTP against the real server: a
// member cannot re-enable a key an admin disabled nor lift, raise or remove a budget an admin or the
// owner set; an admin cannot lift the budget set on them, nor demote or remove another admin; and an
// invitation revoked and accepted in the same instant ends one way only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { registerUser } from '../test-support/server'
import { call, type Person, teamsOn } from '../test-support/teams'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let teams: ReturnType<typeof teamsOn>

beforeAll(async () => {
  gw = await startGateway()
  teams = teamsOn(gw.url, gw.server.dataDir)
})
afterAll(() => gw.stop())

const api = (method: string, path: string, who: Person, body?: unknown, team?: string | null) => call(gw.url, method, path, { token: who.accessToken, body, team })
const HI = { model: 'openai/gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'привет' }] }

/** The team's books: its balance equals its ledger, nothing stays held. */
async function expectTeamBooks(teamId: string) {
  const [t] = await gw.read<{ b: number; h: number }>('select balance_micros as b, held_micros as h from teams where id = ?', teamId)
  const [l] = await gw.read<{ s: number }>('select coalesce(sum(amount_micros), 0) as s from ledger_entries where team_id = ?', teamId)
  expect(l!.s).toBe(t!.b)
  expect(t!.h).toBe(0)
  expect(t!.b).toBeGreaterThanOrEqual(0)
}

describe('a team key: what an admin or the owner decided, its member cannot undo', () => {
  test('a key an admin disabled stays disabled for its member; the owner or an admin re-enables it', async () => {
    const f = await teams.withRoles('Отключение')
    await teams.topUp(f.owner, f.team.id, 100)
    const key = await teams.key(f.member, f.team.id, 'участник')
    const path = `/api/auth/api-keys/${key.id}`
    expect((await api('PATCH', path, f.admin, { isActive: false }, f.team.id)).body.data.isActive).toBe(false)

    // The member sees why and cannot re-enable it — alone or with a rename in the same call.
    const [listed] = (await api('GET', '/api/auth/api-keys', f.member, undefined, f.team.id)).body.data
    expect(listed.locked).toEqual({ isActive: 'Ключ отключил администратор команды — включить его снова может владелец или администратор.', budget: null, policy: null })
    for (const body of [{ isActive: true }, { isActive: true, name: 'снова мой' }]) {
      const res = await api('PATCH', path, f.member, body, f.team.id)
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: { success: false, error: 'Недостаточно прав: ключ отключил администратор команды — включить его снова может владелец или администратор.' },
      })
    }
    const [row] = await gw.read<{ is_active: number; name: string; disabled_by: string; disabled_by_role: string }>(
      'select is_active, name, disabled_by, disabled_by_role from api_keys where id = ?',
      key.id,
    )
    expect(row).toEqual({ is_active: 0, name: 'участник', disabled_by: f.admin.user.id, disabled_by_role: 'admin' })
    const refused = await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: HI })
    expect([refused.status, refused.body.error.code]).toEqual([401, 'api_key_disabled'])
    // Disabling it again or renaming it is not undoing anything; the lock stays the admin's.
    expect((await api('PATCH', path, f.member, { isActive: false, name: 'переименован' }, f.team.id)).status).toBe(200)
    expect((await api('PATCH', path, f.member, { isActive: true }, f.team.id)).status).toBe(403)

    // The managers see no lock; the owner re-enables it.
    const [asAdmin] = (await api('GET', '/api/auth/api-keys', f.admin, undefined, f.team.id)).body.data
    expect(asAdmin.locked).toEqual({ isActive: null, budget: null, policy: null })
    expect((await api('PATCH', path, f.owner, { isActive: true }, f.team.id)).body.data).toMatchObject({ isActive: true, locked: { isActive: null } })
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: HI })).status).toBe(200)

    // What the member disabled themselves is theirs to re-enable.
    expect((await api('PATCH', path, f.member, { isActive: false }, f.team.id)).body.data.locked).toEqual({ isActive: null, budget: null, policy: null })
    expect((await api('PATCH', path, f.member, { isActive: true }, f.team.id)).body.data.isActive).toBe(true)

    // What the owner disabled on an admin's key, that admin cannot re-enable.
    const adminKey = await teams.key(f.admin, f.team.id, 'админ')
    await api('PATCH', `/api/auth/api-keys/${adminKey.id}`, f.owner, { isActive: false }, f.team.id)
    const own = await api('PATCH', `/api/auth/api-keys/${adminKey.id}`, f.admin, { isActive: true }, f.team.id)
    expect([own.status, own.body.error]).toEqual([403, 'Недостаточно прав: ключ отключил владелец команды — включить его снова может только владелец.'])
    await expectTeamBooks(f.team.id)
  })

  test('a budget an admin or the owner set on a key: its member cannot lift, raise, remove or re-period it', async () => {
    const f = await teams.withRoles('Бюджет ключа')
    await teams.topUp(f.owner, f.team.id, 100)
    const key = await teams.key(f.member, f.team.id, 'участник')
    const path = `/api/auth/api-keys/${key.id}`
    // The smallest budget there is: one request already exceeds it.
    expect((await api('PATCH', path, f.admin, { budget: { limitRub: 0.000001, period: 'day' } }, f.team.id)).status).toBe(200)
    const message = 'Недостаточно прав: бюджет ключа задал администратор команды — изменить или снять его может владелец или администратор.'
    for (const body of [
      { budget: { limitRub: null } },
      { budget: { limitRub: 1000, period: 'day' } },
      { budget: { limitRub: 0.000001, period: 'total' } },
      { monthlyLimit: null },
      { monthlyLimit: 5 },
    ]) {
      const res = await api('PATCH', path, f.member, body, f.team.id)
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 403, error: message })
    }
    const [row] = await gw.read<{ l: number; p: string; by: string; role: string }>(
      'select budget_limit_micros as l, budget_period as p, budget_set_by as by, budget_set_by_role as role from api_keys where id = ?',
      key.id,
    )
    expect(row).toEqual({ l: 1, p: 'day', by: f.admin.user.id, role: 'admin' })
    // The same budget sent back changes nothing and is fine; the member's list says why the rest is not.
    expect((await api('PATCH', path, f.member, { budget: { limitRub: 0.000001, period: 'day' } }, f.team.id)).status).toBe(200)
    expect((await api('GET', '/api/auth/api-keys', f.member, undefined, f.team.id)).body.data[0].locked.budget).toBe(
      'Бюджет ключа задал администратор команды — изменить или снять его может владелец или администратор.',
    )
    // The budget holds: the key's request is refused, nothing charged.
    const over = await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: HI })
    expect([over.status, over.body.error.code]).toEqual([402, 'budget_exceeded'])
    expect((await gw.read('select id from usage_logs where api_key_id = ?', key.id)).length).toBe(0)

    // Another admin may change what an admin set on someone else's key; what the owner set, only the owner.
    const admin2 = await teams.join(f.owner, f.team.id, 'admin')
    expect((await api('PATCH', path, admin2, { budget: { limitRub: 2, period: 'month' } }, f.team.id)).status).toBe(200)
    expect((await api('PATCH', path, f.owner, { budget: { limitRub: 1, period: 'month' } }, f.team.id)).status).toBe(200)
    const byOwner = await api('PATCH', path, f.admin, { budget: { limitRub: 3, period: 'month' } }, f.team.id)
    expect([byOwner.status, byOwner.body.error]).toEqual([403, 'Недостаточно прав: бюджет ключа задал владелец команды — изменить или снять его может только владелец.'])
    // A budget the member set themselves is theirs to lift.
    expect((await api('PATCH', path, f.owner, { budget: { limitRub: null } }, f.team.id)).status).toBe(200)
    expect((await api('PATCH', path, f.member, { budget: { limitRub: 4, period: 'week' } }, f.team.id)).status).toBe(200)
    expect((await api('PATCH', path, f.member, { budget: { limitRub: null } }, f.team.id)).body.data.budget.limitRub).toBeNull()
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: HI })).status).toBe(200)
    await expectTeamBooks(f.team.id)
  })

  test('an admin disabling a key while its member re-enables it: the key ends disabled, every round', async () => {
    const f = await teams.withRoles('Гонка ключа')
    const key = await teams.key(f.member, f.team.id, 'участник')
    const path = `/api/auth/api-keys/${key.id}`
    for (let round = 0; round < 12; round++) {
      expect((await api('PATCH', path, f.owner, { isActive: true }, f.team.id)).status).toBe(200)
      const [disable, enable] = await Promise.all([
        api('PATCH', path, f.admin, { isActive: false }, f.team.id),
        Bun.sleep(round % 4).then(() => api('PATCH', path, f.member, { isActive: true }, f.team.id)),
      ])
      expect(disable.status).toBe(200)
      // The member's call either came first (the key was active: nothing to undo) or was refused.
      expect([200, 403]).toContain(enable.status)
      const [row] = await gw.read<{ a: number; by: string }>('select is_active as a, disabled_by as by from api_keys where id = ?', key.id)
      expect({ round, ...row }).toEqual({ round, a: 0, by: f.admin.user.id })
    }
  })
})

describe('members: an admin’s own budget and another admin are the owner’s to decide', () => {
  test('an admin cannot lift, raise or remove the budget the owner or another admin set on them', async () => {
    const f = await teams.withRoles('Свой бюджет')
    const admin2 = await teams.join(f.owner, f.team.id, 'admin')
    const own = `/api/teams/${f.team.id}/members/${f.admin.user.id}`
    expect((await api('PATCH', own, f.owner, { budget: { limitRub: 5, period: 'day' } })).status).toBe(200)
    const byOwner = 'Недостаточно прав: ваш бюджет в команде задал владелец команды — изменить или снять его может только владелец.'
    for (const budget of [{ limitRub: null }, { limitRub: 50, period: 'day' }, { limitRub: 5, period: 'month' }, { limitRub: 1, period: 'day' }]) {
      const res = await api('PATCH', own, f.admin, { budget })
      expect({ budget, status: res.status, error: res.body.error }).toEqual({ budget, status: 403, error: byOwner })
    }
    // Another admin cannot change what the owner set either.
    const peer = await api('PATCH', own, admin2, { budget: { limitRub: null } })
    expect([peer.status, peer.body.error]).toEqual([403, 'Недостаточно прав: бюджет участника задал владелец команды — изменить или снять его может только владелец.'])
    const [row] = await gw.read<{ l: number; by: string; role: string }>(
      'select budget_limit_micros as l, budget_set_by as by, budget_set_by_role as role from team_members where team_id = ? and user_id = ?',
      f.team.id,
      f.admin.user.id,
    )
    expect(row).toEqual({ l: 5_000_000, by: f.owner.user.id, role: 'owner' })

    // The team page tells the admin why, and offers the owner the change.
    const me = (await api('GET', `/api/teams/${f.team.id}`, f.admin)).body.data.members.find((m: { userId: string }) => m.userId === f.admin.user.id)
    expect(me.access).toEqual({ manage: false, budget: true, budgetLock: 'Ваш бюджет в команде задал владелец команды — изменить или снять его может только владелец.' })
    const forOwner = (await api('GET', `/api/teams/${f.team.id}`, f.owner)).body.data.members.find((m: { userId: string }) => m.userId === f.admin.user.id)
    expect(forOwner.access).toEqual({ manage: true, budget: true, budgetLock: null })

    // A budget another admin set: its admin cannot lift it, a third admin or the owner can.
    expect((await api('PATCH', own, f.owner, { budget: { limitRub: null } })).status).toBe(200)
    expect((await api('PATCH', own, admin2, { budget: { limitRub: 3, period: 'week' } })).status).toBe(200)
    const byPeer = await api('PATCH', own, f.admin, { budget: { limitRub: null } })
    expect([byPeer.status, byPeer.body.error]).toEqual([
      403,
      'Недостаточно прав: ваш бюджет в команде задал администратор команды — изменить или снять его может владелец или другой администратор.',
    ])
    const admin3 = await teams.join(f.owner, f.team.id, 'admin')
    expect((await api('PATCH', own, admin3, { budget: { limitRub: null } })).body.data.budget.limitRub).toBeNull()
    // A budget the admin set on themselves is theirs to change.
    expect((await api('PATCH', own, f.admin, { budget: { limitRub: 2, period: 'day' } })).status).toBe(200)
    expect((await api('PATCH', own, f.admin, { budget: { limitRub: null } })).status).toBe(200)
  })

  test('a member’s budget set by an admin stays: the member has no way to it, the admin’s peers and the owner do', async () => {
    const f = await teams.withRoles('Бюджет участника')
    await teams.topUp(f.owner, f.team.id, 100)
    const path = `/api/teams/${f.team.id}/members/${f.member.user.id}`
    expect((await api('PATCH', path, f.admin, { budget: { limitRub: 0.000001, period: 'total' } })).status).toBe(200)
    expect((await api('PATCH', path, f.member, { budget: { limitRub: null } })).status).toBe(403)
    const over = await api('POST', '/v1/chat/completions', f.member, HI, f.team.id)
    expect([over.status, over.body.error.code]).toEqual([402, 'budget_exceeded'])
    const seen = (await api('GET', `/api/teams/${f.team.id}`, f.member)).body.data.members.find((m: { userId: string }) => m.userId === f.member.user.id)
    expect(seen.access).toEqual({ manage: false, budget: false, budgetLock: null })
    expect((await api('PATCH', path, f.owner, { budget: { limitRub: null } })).status).toBe(200)
    expect((await api('POST', '/v1/chat/completions', f.member, HI, f.team.id)).status).toBe(200)
    await expectTeamBooks(f.team.id)
  })

  test('one admin cannot demote or remove another; the owner can; an admin may still step down', async () => {
    const f = await teams.withRoles('Администраторы')
    const admin2 = await teams.join(f.owner, f.team.id, 'admin')
    const path = `/api/teams/${f.team.id}/members/${admin2.user.id}`
    const message = 'Недостаточно прав: сменить роль другого администратора или исключить его может только владелец команды'
    for (const role of ['member', 'billing']) {
      const res = await api('PATCH', path, f.admin, { role })
      expect([res.status, res.body.error]).toEqual([403, message])
    }
    const removed = await api('DELETE', path, f.admin)
    expect([removed.status, removed.body.error]).toEqual([403, message])
    const members = (await api('GET', `/api/teams/${f.team.id}`, f.admin)).body.data.members as { userId: string; role: string; access: Record<string, unknown> }[]
    expect(members.find((m) => m.userId === admin2.user.id)).toMatchObject({ role: 'admin', access: { manage: false, budget: true } })
    expect(members.find((m) => m.userId === f.member.user.id)!.access).toMatchObject({ manage: true, budget: true })
    expect(members.find((m) => m.userId === f.owner.user.id)!.access).toMatchObject({ manage: false, budget: false })

    // An admin may make a member an admin, and then cannot take it back.
    expect((await api('PATCH', `/api/teams/${f.team.id}/members/${f.member.user.id}`, f.admin, { role: 'admin' })).status).toBe(200)
    expect((await api('PATCH', `/api/teams/${f.team.id}/members/${f.member.user.id}`, f.admin, { role: 'member' })).status).toBe(403)
    // The owner can; an admin may step down on their own.
    expect((await api('PATCH', `/api/teams/${f.team.id}/members/${f.member.user.id}`, f.owner, { role: 'member' })).body.data.role).toBe('member')
    expect((await api('PATCH', `/api/teams/${f.team.id}/members/${f.admin.user.id}`, f.admin, { role: 'member' })).body.data.role).toBe('member')
    expect((await api('DELETE', path, f.owner)).status).toBe(200)
    const audit = (await api('GET', `/api/teams/${f.team.id}/audit`, f.owner)).body.data as { action: string; actor: string; target: string }[]
    expect(audit.filter((e) => e.action === 'member.removed').map((e) => [e.actor, e.target])).toEqual([[f.owner.email, admin2.email]])
  })
})

describe('an invitation revoked and accepted at once', () => {
  test('20 rounds: exactly one side wins each, the loser gets a Russian 4xx, and membership says the same', async () => {
    const { owner, team } = await teams.create('Гонка приглашений')
    const tally = { accepted: 0, revoked: 0 }
    for (let round = 0; round < 20; round++) {
      const { email, token, invitation } = await teams.invite(owner, team.id, 'member')
      const person = await registerUser(gw.url, email)
      // Which one leaves first varies; both are in flight together.
      const accept = () => api('POST', '/api/teams/invitations/accept', person, { token })
      const revoke = () => api('DELETE', `/api/teams/${team.id}/invitations/${invitation.id}`, owner)
      const [acc, rev] = round % 2 ? await Promise.all([accept(), Bun.sleep(round % 3).then(revoke)]) : await Promise.all([Bun.sleep(round % 3).then(accept), revoke()])
      const won = acc.status === 200
      expect({ round, accept: acc.status, revoke: rev.status }).toEqual({ round, accept: won ? 200 : 400, revoke: won ? 409 : 200 })
      if (won) expect(rev.body.error).toBe('Приглашение уже принято: участник в команде. Если доступ ему не нужен, исключите его')
      else expect(acc.body.error).toBe('Приглашение отозвано: попросите администратора команды прислать новое')
      tally[won ? 'accepted' : 'revoked']++

      const [row] = await gw.read<{ used: number | null; revoked: number | null }>(
        'select used_at as used, revoked_at as revoked from team_invitations where id = ?',
        invitation.id,
      )
      expect({ used: row!.used !== null, revoked: row!.revoked !== null }).toEqual({ used: won, revoked: !won })
      const members = (await api('GET', `/api/teams/${team.id}`, owner)).body.data.members as { email: string }[]
      expect(members.some((m) => m.email === email)).toBe(won)
      expect((await api('GET', '/api/teams', person)).body.data.map((t: { id: string }) => t.id)).toEqual(won ? [team.id] : [])
      expect((await api('GET', `/api/teams/${team.id}`, person)).status).toBe(won ? 200 : 404)
      const audit = await gw.read<{ action: string }>(
        "select action from team_audit where team_id = ? and target = ? and action in ('member.joined', 'invitation.revoked')",
        team.id,
        email,
      )
      expect(audit.map((a) => a.action)).toEqual([won ? 'member.joined' : 'invitation.revoked'])
    }
    console.log(`[invitation race] accepted ${tally.accepted}, revoked ${tally.revoked} of 20`)
    // An invitation that is gone is 404 to revoke; a used link does not work twice.
    const { token, invitation } = await teams.invite(owner, team.id, 'member')
    expect((await api('DELETE', `/api/teams/${team.id}/invitations/${invitation.id}`, owner)).status).toBe(200)
    expect((await api('DELETE', `/api/teams/${team.id}/invitations/${invitation.id}`, owner)).status).toBe(404)
    expect((await call(gw.url, 'POST', '/api/teams/invitations/lookup', { body: { token } })).status).toBe(400)
  })
})
