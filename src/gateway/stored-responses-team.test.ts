// Stored Responses in a team (issue 33, point 9), over HTTP and the Responses WebSocket against the
// running gateway: a member's responses are theirs — another member gets the 404 of a response that
// is not there on retrieve, input_items, delete and previous_response_id — while the owner and the
// admins reach every member's, as the activity log does. Nothing is charged for a refused chain.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { call, type Person, teamsOn } from '../test-support/teams'

type Json = Record<string, any>
type Gateway = Awaited<ReturnType<typeof startGateway>>

let gw: Gateway
let teams: ReturnType<typeof teamsOn>

beforeAll(async () => {
  gw = await startGateway()
  teams = teamsOn(gw.url, gw.server.dataDir)
})
afterAll(() => gw.stop())

const v1 = (method: string, path: string, token: string, body?: unknown, team?: string) => call(gw.url, method, `/v1${path}`, { token, body, team })
const turn = (input: string, previous?: string) => ({ model: 'openai/gpt-4o-mini', input, max_output_tokens: 50, ...(previous ? { previous_response_id: previous } : {}) })

/** The team's books: balance = ledger, nothing held; and how many usage rows a person has in it. */
async function teamBooks(teamId: string) {
  const [t] = await gw.read<{ b: number; h: number }>('select balance_micros as b, held_micros as h from teams where id = ?', teamId)
  const [l] = await gw.read<{ s: number }>('select coalesce(sum(amount_micros), 0) as s from ledger_entries where team_id = ?', teamId)
  return { balance: t!.b, held: t!.h, ledgerSum: l!.s }
}
const usageOf = async (userId: string) => (await gw.read<{ n: number }>('select count(*) as n from usage_logs where user_id = ?', userId))[0]!.n

/** A Responses WebSocket with a key: send one response.create, answer its final or error frame. */
async function wsTurn(key: string, body: Json): Promise<Json> {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } } as unknown as string[])
  try {
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve()
      ws.onerror = () => reject(new Error('the connection did not open'))
    })
    const done = new Promise<Json>((resolve, reject) => {
      ws.onmessage = (e) => {
        const f = JSON.parse(String(e.data)) as Json
        if (f.type === 'response.completed' || f.type === 'response.incomplete' || f.type === 'error') resolve(f)
      }
      ws.onclose = () => reject(new Error('closed before the turn ended'))
    })
    ws.send(JSON.stringify({ type: 'response.create', ...body }))
    return await done
  } finally {
    ws.close()
  }
}

describe('a team member’s stored responses are theirs', () => {
  let f: Awaited<ReturnType<typeof teams.withRoles>>
  let other: Person
  let keys: Record<'member' | 'other' | 'admin' | 'owner', string>
  /** The member's chain: a first response and its continuation. */
  let first: string
  let second: string

  beforeAll(async () => {
    f = await teams.withRoles('Ответы')
    other = await teams.join(f.owner, f.team.id, 'member')
    await teams.topUp(f.owner, f.team.id, 300)
    keys = {
      member: (await teams.key(f.member, f.team.id)).key,
      other: (await teams.key(other, f.team.id)).key,
      admin: (await teams.key(f.admin, f.team.id)).key,
      owner: (await teams.key(f.owner, f.team.id)).key,
    }
    const a = await v1('POST', '/responses', keys.member, turn('Запомни: пароль от склада — 4711'))
    expect(a.status).toBe(200)
    first = a.body.id
    const b = await v1('POST', '/responses', keys.member, turn('Повтори', first))
    expect(b.status).toBe(200)
    second = b.body.id
  })

  test('another member gets 404 on retrieve, input_items, delete and previous_response_id — with a key or in the Playground — and pays nothing', async () => {
    const before = await teamBooks(f.team.id)
    const usage = await usageOf(other.user.id)
    for (const [who, token, team] of [
      ['key', keys.other, undefined],
      ['session', other.accessToken, f.team.id],
    ] as const) {
      for (const [method, path] of [
        ['GET', `/responses/${second}`],
        ['GET', `/responses/${second}/input_items`],
        ['GET', `/responses/${first}/input_items?order=asc`],
        ['DELETE', `/responses/${second}`],
      ] as const) {
        const res = await v1(method, path, token, undefined, team)
        expect({ who, method, path, status: res.status, code: res.body.error?.code }).toEqual({ who, method, path, status: 404, code: 'response_not_found' })
      }
      const chained = await v1('POST', '/responses', token, turn('Какой пароль?', second), team)
      expect({ who, status: chained.status, error: chained.body.error }).toMatchObject({
        who,
        status: 404,
        error: { code: 'previous_response_not_found', param: 'previous_response_id' },
      })
    }
    // Nothing was deleted, nothing charged, nothing held.
    expect((await v1('GET', `/responses/${second}`, keys.member)).status).toBe(200)
    expect(await usageOf(other.user.id)).toBe(usage)
    expect(await teamBooks(f.team.id)).toEqual(before)
    expect(before.ledgerSum).toBe(before.balance)
  })

  test('the same over the Responses WebSocket: previous_response_id of another member is not found', async () => {
    const usage = await usageOf(other.user.id)
    const refused = await wsTurn(keys.other, turn('Какой пароль?', second))
    expect(refused).toMatchObject({ type: 'error', status: 404, error: { code: 'previous_response_not_found', param: 'previous_response_id' } })
    expect(JSON.stringify(refused)).not.toContain('4711')
    expect(await usageOf(other.user.id)).toBe(usage)
    // The member continues their own chain on the socket.
    const own = await wsTurn(keys.member, turn('Ещё раз', second))
    expect(own.type).toBe('response.completed')
    expect(own.response.previous_response_id).toBe(second)
    const books = await teamBooks(f.team.id)
    expect(books.ledgerSum).toBe(books.balance)
  })

  test('the owner and an admin read every member’s, as the activity log does, and may continue them', async () => {
    for (const [who, token, team] of [
      ['admin key', keys.admin, undefined],
      ['owner key', keys.owner, undefined],
      ['owner session', f.owner.accessToken, f.team.id],
    ] as const) {
      const got = await v1('GET', `/responses/${second}`, token, undefined, team)
      expect({ who, status: got.status, id: got.body.id, previous: got.body.previous_response_id }).toEqual({ who, status: 200, id: second, previous: first })
      const items = await v1('GET', `/responses/${second}/input_items?order=asc`, token, undefined, team)
      expect({ who, status: items.status }).toEqual({ who, status: 200 })
      expect(JSON.stringify(items.body.data)).toContain('4711')
    }
    const continued = await v1('POST', '/responses', keys.admin, turn('Итог', second))
    expect([continued.status, continued.body.previous_response_id]).toEqual([200, second])
    const overWs = await wsTurn(keys.owner, turn('Итог', second))
    expect(overWs.type).toBe('response.completed')
    // What the admin made is the admin's: the member does not read it.
    expect((await v1('GET', `/responses/${continued.body.id}`, keys.member)).status).toBe(404)
    // An outsider's key never reaches the team's responses.
    const outsider = await gw.customer()
    expect((await v1('GET', `/responses/${second}`, outsider.key)).status).toBe(404)
    const books = await teamBooks(f.team.id)
    expect(books.ledgerSum).toBe(books.balance)
    expect(books.held).toBe(0)
  })

  test('the member deletes their own; the others’ 404 stays a 404', async () => {
    const mine = await v1('POST', '/responses', keys.other, turn('Моё'))
    expect(mine.status).toBe(200)
    expect((await v1('GET', `/responses/${mine.body.id}`, keys.member)).status).toBe(404)
    expect((await v1('DELETE', `/responses/${mine.body.id}`, keys.member)).status).toBe(404)
    expect((await v1('DELETE', `/responses/${mine.body.id}`, keys.other)).body).toEqual({ id: mine.body.id, object: 'response', deleted: true })
    expect((await v1('GET', `/responses/${mine.body.id}`, keys.other)).status).toBe(404)
  })
})
