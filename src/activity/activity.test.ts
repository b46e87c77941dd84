// The activity log against the real server and the fake router: keyset pages, filters, the detail
// down to the ledger row, team roles, the CSV; and the query plan that serves a page on each store.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { onPostgres } from '../db/dialect'
import { selectRows } from '../db/sql'
import type { Db } from '../db/types'
import { openTestDatabase } from '../test-support/database'
import { expectedCharge, startGateway, TEST_RATE } from '../test-support/gateway'
import { call, teamsOn } from '../test-support/teams'
import { decodeCursor, encodeCursor } from './service'
import { activityStore } from './store'

let gw: Awaited<ReturnType<typeof startGateway>>
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

type Customer = Awaited<ReturnType<typeof gw.customer>>

/** One /v1 request; answers the x-request-id the client saw and the parsed body (the stream's text for streams). */
async function ask(bearer: string, body: Record<string, unknown>, headers: Record<string, string> = {}, path = '/v1/chat/completions') {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, requestId: res.headers.get('x-request-id')!, text, json: () => JSON.parse(text) }
}
const chat = (bearer: string, content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  ask(bearer, { model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content }], max_tokens: 30, ...extra }, headers)

const get = (c: { accessToken: string }, path: string, team?: string) => call(gw.url, 'GET', path, { token: c.accessToken, team })

/** Every item of the log through pages of `limit`. */
async function walk(c: { accessToken: string }, query: string, limit: number, team?: string) {
  const seen: Array<{ id: string; at: string }> = []
  let cursor: string | null = null
  let pages = 0
  do {
    const res = await get(c, `/api/activity?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, team)
    expect(res.status).toBe(200)
    seen.push(...res.body.data.items)
    cursor = res.body.data.nextCursor
    pages++
  } while (cursor)
  return { seen, pages }
}

describe('GET /api/activity', () => {
  let c: Customer
  let second: { id: string; key: string }
  let streamed: { requestId: string }

  beforeAll(async () => {
    c = await gw.customer()
    const k = await c.api.post('/api/auth/api-keys', { name: 'второй' }, c.accessToken)
    second = k.body.data
    for (let i = 0; i < 4; i++) expect((await chat(c.key, `запрос ${i}`)).status).toBe(200)
    expect((await chat(second.key, 'вторым ключом', { model: 'anthropic/claude-3-haiku' })).status).toBe(200)
    expect((await chat(c.accessToken, 'из Playground')).status).toBe(200) // the web session: no key
    expect((await chat(c.key, 'сломается [[fault:http400]]')).status).toBe(400)
    streamed = await chat(c.key, 'поток', { stream: true }, { 'x-request-id': 'my-trace-42' })
    expect(streamed.requestId).toBe('my-trace-42')
  })

  test('pages newest first with a cursor, nothing twice or lost, also when requests arrive between pages', async () => {
    const all = (await get(c, '/api/activity?limit=200')).body.data
    expect(all.items).toHaveLength(8)
    expect(all.nextCursor).toBeNull()
    const order = all.items.map((i: { at: string; id: string }) => `${i.at}|${i.id}`)
    expect(order).toEqual([...order].sort().reverse())
    expect(all.items[0]).toMatchObject({ requestedModel: 'openai/gpt-3.5-turbo', protocol: 'chat', status: 'success', stream: true, keyId: c.keyId, keyName: 'test' })

    const first = (await get(c, '/api/activity?limit=3')).body.data
    expect(first.items.map((i: { id: string }) => i.id)).toEqual(all.items.slice(0, 3).map((i: { id: string }) => i.id))
    // Two new requests land before the next page is asked for: the page continues below the cursor.
    await chat(c.key, 'новый 1')
    await chat(c.key, 'новый 2')
    const rest: string[] = []
    let cursor = first.nextCursor
    while (cursor) {
      const page = (await get(c, `/api/activity?limit=3&cursor=${cursor}`)).body.data
      rest.push(...page.items.map((i: { id: string }) => i.id))
      cursor = page.nextCursor
    }
    expect(rest).toEqual(all.items.slice(3).map((i: { id: string }) => i.id))
    // From the top again: the new ones first, every row once.
    const again = await walk(c, '', 4)
    expect(again.seen).toHaveLength(10)
    expect(new Set(again.seen.map((i) => i.id)).size).toBe(10)
    expect(again.pages).toBe(3)
  })

  test('120 requests, many in the same millisecond, page through in 50s: newest first, each once', async () => {
    const busy = await gw.customer()
    // Ten at a time, so rows share created_at and the id decides their order.
    for (let i = 0; i < 12; i++) await Promise.all(Array.from({ length: 10 }, (_, j) => chat(busy.key, `пачка ${i}.${j}`)))
    const { seen, pages } = await walk(busy, '', 50)
    expect(pages).toBe(3)
    expect(seen).toHaveLength(120)
    expect(new Set(seen.map((i) => i.id)).size).toBe(120)
    const order = seen.map((i) => `${i.at}|${i.id}`)
    expect(order).toEqual([...order].sort().reverse())
  })

  test('the filter choices: the keys by name, the models used', async () => {
    const res = await get(c, '/api/activity/filters')
    expect(res.status).toBe(200)
    const f = res.body.data
    expect(f.keys.map((k: { name: string }) => k.name)).toEqual(expect.arrayContaining(['test', 'второй']))
    expect(f.keys.find((k: { name: string }) => k.name === 'второй').id).toBe(second.id)
    expect(f.models).toEqual(expect.arrayContaining(['anthropic/claude-3-haiku', 'openai/gpt-3.5-turbo']))
    expect(f.models).toEqual([...f.models].sort())
    expect(f.members).toEqual([])
    expect((await get(await gw.customer(), '/api/activity/filters')).body.data).toMatchObject({ models: [], members: [] })
  })

  test('filters: key, the web session, model, status, protocol, dates, request id', async () => {
    const ids = async (q: string) => (await get(c, `/api/activity?limit=200${q}`)).body.data.items as Array<Record<string, unknown>>
    expect((await ids(`&keyId=${second.id}`)).map((i) => i.model)).toEqual(['anthropic/claude-3-haiku'])
    const web = await ids('&keyId=web')
    expect(web).toHaveLength(1)
    expect(web[0]).toMatchObject({ keyId: null, keyName: null })
    expect((await ids('&model=anthropic%2Fclaude-3-haiku')).every((i) => i.model === 'anthropic/claude-3-haiku')).toBe(true)
    const failed = await ids('&status=error')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ status: 'error', costRub: 0, costMicros: 0 })
    expect(failed[0]!.error).toBeTruthy()
    expect(await ids('&protocol=embeddings')).toEqual([])
    expect((await ids('&protocol=chat')).length).toBeGreaterThan(8)
    expect(await ids(`&from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([])
    expect((await ids(`&to=${new Date(Date.now() + 60_000).toISOString()}&from=2020-01-01T00:00:00Z`)).length).toBeGreaterThan(8)
    const traced = await ids('&requestId=my-trace-42')
    expect(traced).toHaveLength(1)
    expect(traced[0]).toMatchObject({ stream: true })
  })

  test('the detail: the charge equals its ledger row, the formula its factors, the hold and the ids', async () => {
    const [item] = (await get(c, '/api/activity?requestId=my-trace-42')).body.data.items
    const res = await get(c, `/api/activity/${item.id}`)
    expect(res.status).toBe(200)
    const d = res.body.data
    const [row] = await gw.read<{ cost_micros: number; upstream_cost_usd: string; upstream_id: string; hold_micros: number; hold_id: string }>(
      'select cost_micros, upstream_cost_usd, upstream_id, hold_micros, hold_id from usage_logs where id = ?',
      item.id,
    )
    const [ledger] = await gw.read<{ id: string; amount_micros: number; balance_after_micros: number }>(
      'select id, amount_micros, balance_after_micros from ledger_entries where reference = ?',
      `usage:${row!.hold_id}`,
    )
    expect(d).toMatchObject({
      id: item.id,
      requestId: 'my-trace-42',
      generationId: row!.upstream_id,
      model: 'openai/gpt-3.5-turbo',
      requestedModel: 'openai/gpt-3.5-turbo',
      protocol: 'chat',
      status: 'success',
      upstream: 'primary',
      upstreamCostUsd: row!.upstream_cost_usd,
      rate: TEST_RATE,
      markup: '1.3',
      costMicros: row!.cost_micros,
      costRub: row!.cost_micros / 1e6,
      formulaMicros: expectedCharge(Number(row!.upstream_cost_usd)),
      holdMicros: row!.hold_micros,
      releasedMicros: row!.hold_micros - row!.cost_micros,
      uncoveredMicros: 0,
      ledger: { id: ledger!.id, amountMicros: ledger!.amount_micros, balanceAfterMicros: ledger!.balance_after_micros },
    })
    expect(d.ledger.amountMicros).toBe(-d.costMicros)
    expect(d.costMicros).toBe(d.formulaMicros)
    expect(d.holdMicros).toBeGreaterThanOrEqual(d.costMicros)
    expect(d.promptTokens).toBeGreaterThan(0)
    expect(d.completionTokens).toBeGreaterThan(0)
    expect(d.latencyMs).toBeGreaterThan(0)
    // A stream has a time to first token within its duration; a whole answer has none.
    expect(d.ttftMs).toBeGreaterThanOrEqual(0)
    expect(d.ttftMs).toBeLessThanOrEqual(d.latencyMs)
    const whole = (await get(c, `/api/activity?keyId=${second.id}`)).body.data.items[0]
    expect((await get(c, `/api/activity/${whole.id}`)).body.data).toMatchObject({ ttftMs: null, stream: false })

    // A failed request: the hold went back whole, nothing was charged.
    const [failed] = (await get(c, '/api/activity?status=error')).body.data.items
    const f = (await get(c, `/api/activity/${failed.id}`)).body.data
    expect(f).toMatchObject({ costMicros: 0, ledger: null, uncoveredMicros: 0 })
    expect(f.releasedMicros).toBe(f.holdMicros)
  })

  test('the model asked for and the one that answered (a fallback); the request id we made up', async () => {
    const r = await chat(c.key, 'кто ответит? [[fault:fallback]]', { models: ['openai/gpt-3.5-turbo', 'anthropic/claude-3-haiku'] })
    expect(r.status).toBe(200)
    expect(r.requestId).toMatch(/^req_/)
    const [item] = (await get(c, `/api/activity?requestId=${r.requestId}`)).body.data.items
    expect(item).toMatchObject({ requestedModel: 'openai/gpt-3.5-turbo', model: 'anthropic/claude-3-haiku' })
  })

  test("a deleted key's requests keep its name, marked; they are not the web session's", async () => {
    const gone = await gw.customer()
    const k = await gone.api.post('/api/auth/api-keys', { name: 'временный' }, gone.accessToken)
    expect((await chat(k.body.data.key, 'последний запрос')).status).toBe(200)
    expect((await chat(gone.accessToken, 'из Playground')).status).toBe(200)
    expect((await call(gw.url, 'DELETE', `/api/auth/api-keys/${k.body.data.id}`, { token: gone.accessToken })).status).toBe(200)
    const items = (await get(gone, '/api/activity')).body.data.items
    expect(items.map((i: { keyId: string | null; keyName: string | null }) => [i.keyId, i.keyName])).toEqual([
      [null, null],
      [null, 'временный (удалён)'],
    ])
    expect((await get(gone, '/api/activity?keyId=web')).body.data.items).toHaveLength(1)
  })

  test('pictures are counted: images drawn instead of tokens', async () => {
    const r = await ask(c.key, { model: 'black-forest-labs/flux.2-pro', prompt: 'маяк', n: 2, response_format: 'b64_json' }, {}, '/v1/images')
    expect(r.status).toBe(200)
    const [item] = (await get(c, '/api/activity?protocol=images')).body.data.items
    expect(item).toMatchObject({ protocol: 'images', images: 2, status: 'success', requestedModel: 'black-forest-labs/flux.2-pro' })
    expect(item.costMicros).toBeGreaterThan(0)
  })

  test("another account's request is 404; bad input is a Russian 400", async () => {
    const stranger = await gw.customer()
    const [item] = (await get(c, '/api/activity?limit=1')).body.data.items
    expect(await get(stranger, `/api/activity/${item.id}`)).toMatchObject({ status: 404, body: { success: false, error: 'Запрос не найден' } })
    expect((await get(stranger, '/api/activity')).body.data).toEqual({ items: [], nextCursor: null })
    expect(await get(c, '/api/activity?cursor=bm9wZQ')).toMatchObject({ status: 400, body: { error: 'Некорректный курсор страницы: начните список заново' } })
    expect(await get(c, '/api/activity?status=done')).toMatchObject({ status: 400, body: { error: 'status должен быть success, error или cancelled' } })
    expect(await get(c, '/api/activity?limit=0')).toMatchObject({ status: 400, body: { error: 'limit должен быть целым числом от 1 до 200' } })
    expect(await get(c, '/api/activity?from=вчера')).toMatchObject({ status: 400, body: { error: 'from должен быть датой в формате ISO 8601' } })
    expect((await call(gw.url, 'GET', '/api/activity')).status).toBe(401)
    expect(decodeCursor(encodeCursor({ at: 1_700_000_000_123, id: 'a-b_c' }))).toEqual({ at: 1_700_000_000_123, id: 'a-b_c' })
  })

  test('CSV of the filtered set: BOM, RFC 4180, formula-safe, the same rows as the list', async () => {
    const named = await c.api.post('/api/auth/api-keys', { name: '=HYPERLINK("x"), плохой' }, c.accessToken)
    await chat(named.body.data.key, 'через ключ-формулу')
    const res = await fetch(`${gw.url}/api/activity/export?status=success`, { headers: { authorization: `Bearer ${c.accessToken}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="activity-\d{4}-\d{2}-\d{2}\.csv"$/)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = new TextDecoder().decode(bytes.slice(3))
    const lines = text.split('\r\n')
    expect(lines.at(-1)).toBe('')
    expect(lines[0]).toStartWith('Время (МСК),Модель в запросе,Модель ответила,Протокол,API-ключ,Статус,')
    const listed = (await get(c, '/api/activity?status=success&limit=200')).body.data.items
    expect(lines.length - 2).toBe(listed.length)
    expect(lines[1]).toContain(`"'=HYPERLINK(""x""), плохой"`)
    expect(lines[1]).toContain(',Успешно,')
    expect(lines[1]!.endsWith(`,${listed[0].id}`)).toBe(true)
    expect(text).not.toContain('ошибка')
    const traced = lines.find((l) => l.includes('my-trace-42'))!
    expect(traced).toContain(`,${TEST_RATE},1.3,`)
    expect(traced).toContain(',основной,')
  })
})

describe('in a team', () => {
  test('owner, admins and billing see every member; a member only their own; detail follows the same rule', async () => {
    const teams = teamsOn(gw.url, gw.server.dataDir)
    const { team, owner, admin, billing, member } = await teams.withRoles('Журнал')
    await teams.topUp(owner, team.id, 100)
    const ownerKey = await teams.key(owner, team.id, 'владельца')
    const memberKey = await teams.key(member, team.id, 'участника')
    expect((await chat(ownerKey.key, 'от владельца')).status).toBe(200)
    expect((await chat(memberKey.key, 'от участника')).status).toBe(200)
    expect((await chat(memberKey.key, 'ещё от участника')).status).toBe(200)

    for (const who of [owner, admin, billing]) {
      const page = await get(who, '/api/activity', team.id)
      expect(page.status).toBe(200)
      expect(page.body.data.items).toHaveLength(3)
    }
    const all = (await get(owner, '/api/activity', team.id)).body.data.items
    expect(all.map((i: { email: string }) => i.email).sort()).toEqual([member.email, member.email, owner.email].sort())
    expect((await get(owner, `/api/activity?userId=${member.user.id}`, team.id)).body.data.items).toHaveLength(2)

    const mine = (await get(member, '/api/activity', team.id)).body.data.items
    expect(mine).toHaveLength(2)
    expect(mine.every((i: { userId: string }) => i.userId === member.user.id)).toBe(true)
    const ownersRequest = all.find((i: { userId: string }) => i.userId === owner.user.id)
    expect((await get(member, `/api/activity/${ownersRequest.id}`, team.id)).status).toBe(404)
    // A member sees the charge but not the team's balance after it (that is the money history's).
    const detail = (await get(member, `/api/activity/${mine[0].id}`, team.id)).body.data
    expect(detail.ledger).toMatchObject({ amountMicros: -detail.costMicros, balanceAfterMicros: null })
    expect((await get(billing, `/api/activity/${mine[0].id}`, team.id)).body.data.ledger.balanceAfterMicros).toBeGreaterThan(0)
    // The team's requests are not in the personal log, nor the other way round.
    expect((await get(owner, '/api/activity')).body.data.items).toEqual([])
    expect((await get(owner, `/api/activity/${ownersRequest.id}`)).status).toBe(404)
    // The filter choices: the whole team's members for the owner, none for a member (only their own).
    const choices = (await get(owner, '/api/activity/filters', team.id)).body.data
    expect(choices.members.map((m: { email: string }) => m.email).sort()).toEqual([member.email, owner.email].sort())
    expect(choices.keys.map((k: { name: string }) => k.name).sort()).toEqual(['владельца', 'участника'].sort())
    const own = (await get(member, '/api/activity/filters', team.id)).body.data
    expect(own).toMatchObject({ members: [], keys: [{ id: memberKey.id, name: 'участника' }] })
    // The CSV of the whole team names the member.
    const csv = await (await fetch(`${gw.url}/api/activity/export`, { headers: { authorization: `Bearer ${owner.accessToken}`, 'x-team-id': team.id } })).text()
    expect(csv).toContain(',Участник,')
    expect(csv.split('\r\n').filter((l) => l.includes(member.email))).toHaveLength(2)
  })
})

describe('the query plan', () => {
  /** The plan of a page's query as text (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN). */
  async function plan(db: Db, query: unknown) {
    const q = (query as { getSQL(): ReturnType<typeof sql> }).getSQL()
    if (!onPostgres) return (await selectRows<{ detail: string }>(db, sql`explain query plan ${q}`)).map((r) => r.detail).join('\n')
    // An empty table is cheapest to read whole: ask PostgreSQL for the plan it would use on a large one.
    return (db as unknown as { transaction<T>(f: (tx: Db) => Promise<T>): Promise<T> }).transaction(async (tx) => {
      await selectRows(tx, sql`set local enable_seqscan = off`)
      return (await selectRows<Record<string, string>>(tx, sql`explain ${q}`)).map((r) => r['QUERY PLAN']).join('\n')
    })
  }

  test('a page below the cursor is an index walk, newest first, with no sort — on both stores', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const store = activityStore(db)
      const cursor = { at: Date.now(), id: '0190' }
      const personal = await plan(db, store.page({ userId: 'u', teamId: null }, {}, cursor, 51))
      const team = await plan(db, store.page({ userId: null, teamId: 't' }, { status: 'success' }, cursor, 51))
      if (onPostgres) {
        expect(personal).toContain('Index Scan Backward using usage_user_created_id_idx')
        expect(team).toContain('Index Scan Backward using usage_team_created_id_idx')
        expect(`${personal}\n${team}`).not.toMatch(/\bSort\b/)
      } else {
        expect(personal).toContain('USING INDEX usage_user_created_id_idx (user_id=? AND (created_at,id)<(?,?))')
        expect(team).toContain('USING INDEX usage_team_created_id_idx (team_id=? AND (created_at,id)<(?,?))')
        expect(`${personal}\n${team}`).not.toContain('TEMP B-TREE')
      }
    } finally {
      await close()
    }
  })
})
