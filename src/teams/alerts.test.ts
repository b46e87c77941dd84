// Budget and low-balance alerts through the real SMTP test server, and team webhooks to a receiver
// that checks every signature: one letter per threshold per period to owners, admins and the member,
// a signed JSON POST per alert with a delivery id, and a failed delivery retried with the same id.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { eventually, startGateway } from '../test-support/gateway'
import { startServer } from '../test-support/server'
import { startSmtp } from '../test-support/smtp'
import { call, teamsOn } from '../test-support/teams'
import { checkWebhookUrl, isPrivateAddress, refusal } from './webhooks'

type Delivery = { id: string; event: string; body: any; signatureOk: boolean; status: number }

/** A webhook receiver: verifies X-Signature with the team's secret; answers 500 to the first delivery it sees. */
function startReceiver() {
  const deliveries: Delivery[] = []
  let secret = ''
  let failFirst = true
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const raw = await req.text()
      const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`
      const status = failFirst ? 500 : 200
      failFirst = false
      deliveries.push({
        id: req.headers.get('x-webhook-id') ?? '',
        event: req.headers.get('x-webhook-event') ?? '',
        body: JSON.parse(raw),
        signatureOk: req.headers.get('x-signature') === expected,
        status,
      })
      return new Response(status === 200 ? 'ok' : 'down', { status })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hooks/gateway`,
    deliveries,
    setSecret: (s: string) => {
      secret = s
    },
    stop: () => server.stop(true),
  }
}

let smtp: Awaited<ReturnType<typeof startSmtp>>
let receiver: ReturnType<typeof startReceiver>
let gw: Awaited<ReturnType<typeof startGateway>>
let teams: ReturnType<typeof teamsOn>

beforeAll(async () => {
  smtp = await startSmtp()
  receiver = startReceiver()
  gw = await startGateway({ SMTP_URL: smtp.url, ALLOW_PRIVATE_WEBHOOKS: 'true' })
  teams = teamsOn(gw.url, gw.server.dataDir)
})
afterAll(async () => {
  await gw.stop()
  receiver.stop()
  await smtp.close()
})

const DEAR = { model: 'openai/gpt-4', max_tokens: 40, messages: [{ role: 'user', content: 'Коротко о погоде' }] }
/** Small steps (a few kopecks each), so the spend passes 50 and 80 % before the budget refuses. */
const STEP = { ...DEAR, max_tokens: 8 }
const lettersTo = (email: string) => smtp.inbox.filter((m) => m.to.some((t) => t.toLowerCase() === email.toLowerCase()))

/** Invitations go by SMTP here: the token comes from the received letter. */
async function join(owner: Awaited<ReturnType<typeof teams.create>>['owner'], teamId: string, role: 'admin' | 'member') {
  const email = `${role}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 7)}@example.ru`
  await call(gw.url, 'POST', `/api/teams/${teamId}/invitations`, { token: owner.accessToken, body: { email, role } })
  const letter = await smtp.waitFor(email)
  const token = letter.text.match(/\/invite\/([A-Za-z0-9_-]+)/)![1]
  const { registerUser } = await import('../test-support/server')
  const person = await registerUser(gw.url, email)
  expect((await call(gw.url, 'POST', '/api/teams/invitations/accept', { token: person.accessToken, body: { token } })).status).toBe(200)
  return person
}

describe('team alerts', () => {
  test('a member budget at 50, 80 and 100 %: one letter each to owner, admin and member, and a signed webhook, retried once', async () => {
    const { owner, team } = await teams.create('Оповещения')
    const admin = await join(owner, team.id, 'admin')
    const member = await join(owner, team.id, 'member')
    const hook = await call(gw.url, 'PUT', `/api/teams/${team.id}/webhook`, { token: admin.accessToken, body: { url: receiver.url } })
    expect(hook.status).toBe(200)
    expect(hook.body.data).toEqual({ url: receiver.url, secret: expect.stringMatching(/^whsec_/) })
    receiver.setSecret(hook.body.data.secret)
    await teams.topUp(owner, team.id, 200)
    await call(gw.url, 'PATCH', `/api/teams/${team.id}/members/${member.user.id}`, { token: owner.accessToken, body: { budget: { limitRub: 1, period: 'day' } } })
    const key = await teams.key(member, team.id)

    let refused = 0
    for (let i = 0; i < 80 && refused < 3; i++) {
      const res = await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: STEP })
      if (res.status === 402) refused++
      else expect(res.status).toBe(200)
    }
    expect(refused).toBe(3)
    const [{ spent }] = await gw.read<{ spent: number }>('select budget_spent_micros as spent from team_members where user_id = ?', member.user.id)
    expect(spent).toBeGreaterThanOrEqual(800_000)
    expect(spent).toBeLessThanOrEqual(1_000_000)

    // One letter per threshold, to each of the three: sent in the background after each settlement.
    for (const to of [owner.email, admin.email, member.email]) {
      const subjects = await eventually(() => {
        const s = lettersTo(to)
          .map((l) => l.subject)
          .filter((x) => x.includes('Бюджет'))
        return s.length >= 3 ? s : null
      })
      expect(subjects.sort()).toEqual(
        [
          `Бюджет израсходован на 50 %: Участник ${member.email} команды «Оповещения» — AI Gateway`,
          `Бюджет израсходован на 80 %: Участник ${member.email} команды «Оповещения» — AI Gateway`,
          `Бюджет исчерпан: Участник ${member.email} команды «Оповещения» — AI Gateway`,
        ].sort(),
      )
    }
    const letter = lettersTo(member.email).find((l) => l.subject.startsWith('Бюджет израсходован на 50 %'))!
    expect(letter.text).toContain('из 1.00 ₽ в день')
    expect(letter.text).toContain('Бюджет обновится')

    // Three budget events delivered, each signed; the first delivery failed and was retried with its id.
    const delivered = await eventually(() => {
      const ok = receiver.deliveries.filter((d) => d.status === 200 && d.event === 'budget.threshold')
      return ok.length >= 3 ? ok : null
    }, 20_000)
    expect(delivered.map((d) => d.body.data.threshold).sort()).toEqual([100, 50, 80])
    for (const d of receiver.deliveries) {
      expect(d.signatureOk).toBe(true)
      expect(d.body.id).toBe(d.id)
    }
    const failed = receiver.deliveries[0]!
    expect(failed.status).toBe(500)
    const retries = receiver.deliveries.filter((d) => d.id === failed.id)
    expect(retries.map((d) => d.status)).toEqual([500, 200])
    expect(delivered[0]!.body).toMatchObject({
      event: 'budget.threshold',
      created_at: expect.any(String),
      data: { team: { id: team.id, name: 'Оповещения' }, level: 'member', limit_rub: 1, period: 'day', member: { user_id: member.user.id, email: member.email } },
    })
    // The outbox says so too.
    // (The worker records the answer after the receiver has it: asked until it has.)
    const outbox = await eventually(async () => {
      const state = await call(gw.url, 'GET', `/api/teams/${team.id}/webhook`, { token: owner.accessToken })
      const row = state.body.data.deliveries.find((d: { id: string }) => d.id === failed.id)
      return row?.status === 'delivered' ? row : null
    })
    expect(outbox).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 200 })

    // More refusals in the same period send nothing more.
    const before = lettersTo(owner.email).length
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: key.key, body: STEP })).status).toBe(402)
    await Bun.sleep(500)
    expect(lettersTo(owner.email)).toHaveLength(before)
  })

  test('a team’s low balance: a letter to owners and admins, not members, and a webhook', async () => {
    const { owner, team } = await teams.create('Низкий баланс')
    const admin = await join(owner, team.id, 'admin')
    const member = await join(owner, team.id, 'member')
    const hook = await call(gw.url, 'PUT', `/api/teams/${team.id}/webhook`, { token: owner.accessToken, body: { url: receiver.url } })
    receiver.setSecret(hook.body.data.secret)
    await teams.topUp(owner, team.id, 100)
    await call(gw.url, 'PATCH', '/api/billing/alerts', { token: admin.accessToken, team: team.id, body: { threshold: 99.99 } })
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: member.accessToken, team: team.id, body: DEAR })).status).toBe(200)
    // The admin already has the invitation: wait for the alert itself, not for any letter.
    for (const to of [owner.email, admin.email])
      expect(await eventually(() => lettersTo(to).some((l) => l.subject === 'Баланс команды «Низкий баланс» заканчивается — AI Gateway'))).toBe(true)
    await eventually(() => receiver.deliveries.find((d) => d.event === 'team.low_balance' && d.body.data.team.id === team.id && d.status === 200))
    expect(lettersTo(member.email).filter((l) => l.subject.includes('Баланс'))).toEqual([])
  })

  test('a personal key’s budget alerts its owner only', async () => {
    const c = await gw.customer()
    await call(gw.url, 'PATCH', `/api/auth/api-keys/${c.keyId}`, { token: c.accessToken, body: { budget: { limitRub: 0.5, period: 'total' } } })
    for (let i = 0; i < 10; i++) if ((await call(gw.url, 'POST', '/v1/chat/completions', { token: c.key, body: DEAR })).status === 402) break
    const subjects = await eventually(() => {
      const s = lettersTo(c.email).map((l) => l.subject)
      return s.some((x) => x.startsWith('Бюджет исчерпан')) ? s : null
    })
    expect(subjects).toContain('Бюджет исчерпан: API-ключ «test» — AI Gateway')
    expect(lettersTo(c.email).find((l) => l.subject.startsWith('Бюджет исчерпан'))!.text).toContain('Бюджет без периода')
  })
})

describe('webhook addresses', () => {
  test('private, loopback, link-local and reserved targets are refused unless allowed', async () => {
    for (const url of [
      'http://127.0.0.1/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.20.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://localhost:8080/hook',
      'http://100.64.0.1/hook',
    ])
      await expect(checkWebhookUrl(url, false)).rejects.toMatchObject({
        status: 400,
        message: 'Адрес вебхука ведёт в частную, локальную или служебную сеть: такие адреса запрещены',
      })
    for (const url of ['ftp://example.ru/x', 'https://user:pw@example.ru/hook', 'не адрес', '', 42])
      await expect(checkWebhookUrl(url, false)).rejects.toMatchObject({ status: 400, message: 'Укажите адрес вебхука: http(s)://…' })
    expect(await checkWebhookUrl('https://93.184.216.34/hook', false)).toBe('https://93.184.216.34/hook')
    expect(await checkWebhookUrl('http://127.0.0.1:9/hook', true)).toBe('http://127.0.0.1:9/hook')
    expect(isPrivateAddress('8.8.8.8')).toBe(false)
    expect(isPrivateAddress('2a00:1450:4010::64')).toBe(false)
  })
})

/** Addresses that lead back inside, or nowhere, in the forms that dodge a plain list (issue 33, point 15). */
const DISGUISED = [
  'http://[::7f00:1]/hook', // IPv4-compatible ::127.0.0.1
  'http://[::ffff:0:7f00:1]/hook', // IPv4-translated 127.0.0.1
  'http://[::ffff:127.0.0.1]/hook',
  'http://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
  'http://[2002:a00:1::1]/hook', // 6to4 of 10.0.0.1
  'http://[2002:c0a8:1::1]/hook', // 6to4 of 192.168.0.1
  'http://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
  'http://[64:ff9b::a9fe:a9fe]/latest/meta-data', // NAT64 of 169.254.169.254
  'http://[64:ff9b::192.168.1.1]/hook',
  'http://[64:ff9b:1::a00:1]/hook', // local-use NAT64
  'http://[64:ff9b:1:ab::808:808]/hook',
  'http://[fec0::1]/hook', // site-local
  'http://192.0.2.10/hook', // documentation
  'http://198.51.100.7/hook',
  'http://203.0.113.200/hook',
  'http://[2001:db8::1]/hook',
  'http://[3fff::1]/hook',
  'http://[3fff:fff:ffff::1]/hook',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', // Teredo
]
const PRIVATE_MESSAGE = 'Адрес вебхука ведёт в частную, локальную или служебную сеть: такие адреса запрещены'

describe('webhook addresses in disguise (ALLOW_PRIVATE_WEBHOOKS=false)', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  beforeAll(async () => {
    server = await startServer({ ALLOW_PRIVATE_WEBHOOKS: 'false' })
  })
  afterAll(() => server.stop())

  test('each is refused when saved, with the same message as the forms already blocked; public ones in the same forms pass', async () => {
    const { owner, team } = await teamsOn(server.url, server.dataDir).create('Вебхуки')
    for (const url of DISGUISED) {
      const res = await call(server.url, 'PUT', `/api/teams/${team.id}/webhook`, { token: owner.accessToken, body: { url } })
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: { success: false, error: PRIVATE_MESSAGE } })
    }
    const state = await call(server.url, 'GET', `/api/teams/${team.id}/webhook`, { token: owner.accessToken })
    expect(state.body.data.url ?? null).toBeNull() // none of them was kept
    // The same forms of public addresses are not refused: 6to4 and NAT64 of 8.8.8.8, a public IPv6.
    for (const ip of ['2002:808:808::1', '64:ff9b::808:808', '2a00:1450:4010::64', '3fff:1000::1']) expect({ ip, refused: isPrivateAddress(ip) }).toEqual({ ip, refused: false })
  })

  test('a name that resolves to any of them is refused too (the same check runs before every delivery)', async () => {
    for (const url of DISGUISED) {
      const address = new URL(url).hostname.replace(/^\[|\]$/g, '')
      // One public and one disguised address: a single inside address is enough to refuse.
      const resolve = async () => [{ address: '93.184.216.34' }, { address }]
      expect({ address, why: await refusal(new URL('https://hooks.example.ru/x'), false, resolve) }).toEqual({ address, why: PRIVATE_MESSAGE })
      expect(await refusal(new URL('https://hooks.example.ru/x'), true, resolve)).toBeNull() // ALLOW_PRIVATE_WEBHOOKS=true lets it through
    }
    expect(await refusal(new URL('https://hooks.example.ru/x'), false, async () => [{ address: '93.184.216.34' }, { address: '2002:808:808::1' }])).toBeNull()
  })
})
