// Several upstreams, one catalogue (issue 35): the router (the demo upstream as a fake), GigaChat,
// Yandex AI Studio and an OpenAI-compatible aggregator billing in rubles, each a local server speaking
// its own protocol, configured through UPSTREAMS_FILE. The official openai client gets answers from
// the Russia-hosted models; charges are cost × markup (rubles) or cost × rate × markup (dollars) to the
// micro-ruble; a model the router shares with the aggregator keeps answering with the router stopped;
// keys and teams bound to Russia are sent only there.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { add, ceilUnits, dec, mul, toDecimalString } from '../lib/decimal'
import { eventually, expectedCharge, startGateway } from '../test-support/gateway'
import { type FakeGigachat, startFakeGigachat } from '../upstream/kinds/gigachat-fake'
import { type FakeAggregator, startFakeAggregator } from '../upstream/kinds/openai-fake'
import { type FakeYandex, startFakeYandex } from '../upstream/kinds/yandex-fake'

type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>

const GIGA = 'sber/gigachat-2-max'
const GIGA_EMBEDDINGS = 'sber/embeddings'
const YANDEX = 'yandex/yandexgpt-pro'
const SHARED = 'openai/gpt-4o-mini'
const FOREIGN_ONLY = 'anthropic/claude-3-haiku'
/** Rubles per 1M tokens, as the file writes them. */
const GIGA_PRICE = { prompt: '150', completion: '300', cachedPrompt: '0' }
const YANDEX_PRICE = { prompt: '400', completion: '400' }
const ADMIN = 'boss@upstreams.example.ru'

let gw: Gateway
let giga: FakeGigachat
let yandex: FakeYandex
let agg: FakeAggregator
let c: Customer
let sdk: (key: string) => OpenAI

beforeAll(async () => {
  giga = await startFakeGigachat()
  yandex = await startFakeYandex({ apiKey: 'ya-key', folderId: 'b1gfolder' })
  agg = await startFakeAggregator({ apiKey: 'sk-aitunnel-test' })
  const dir = mkdtempSync(join(tmpdir(), 'upstreams-'))
  const file = join(dir, 'upstreams.json')
  const upstreams = [
    giga.entry('giga', [
      { id: GIGA, upstreamModel: 'GigaChat-2-Max', name: 'GigaChat 2 Max', context: 131072, ...GIGA_PRICE },
      { id: GIGA_EMBEDDINGS, upstreamModel: 'Embeddings', name: 'GigaChat Embeddings', context: 512, prompt: '40', completion: '0', type: 'embeddings' },
    ]),
    {
      id: 'yandex',
      kind: 'yandex',
      baseUrl: yandex.baseUrl,
      apiKey: 'ya-key',
      folderId: 'b1gfolder',
      residency: 'ru',
      currency: 'RUB',
      models: [{ id: YANDEX, upstreamModel: 'yandexgpt/rc', name: 'YandexGPT Pro 5.1', context: 32768, ...YANDEX_PRICE }],
    },
    agg.entry('ruagg', [{ id: SHARED, upstreamModel: 'gpt-4o-mini', name: 'GPT-4o mini (агрегатор)', context: 128000, prompt: '20', completion: '80' }]),
  ]
  writeFileSync(file, JSON.stringify({ upstreams }))
  gw = await startGateway({ UPSTREAMS_FILE: file, ADMIN_EMAILS: ADMIN })
  // The router's catalogue is synced right after the start: the tests need its models beside the file's.
  await eventually(async () => ((await (await fetch(`${gw.url}/v1/models`)).json()) as { data: Array<{ id: string }> }).data.some((m) => m.id === FOREIGN_ONLY))
  c = await gw.customer()
  sdk = (key) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 })
})

afterAll(async () => {
  await gw?.stop()
  await Promise.all([giga?.stop(), yandex?.stop(), agg?.stop()])
})

/** The usage row of a request, by the x-request-id the client saw. */
async function row(requestId: string) {
  const rows = await gw.read<{
    id: string
    cost_micros: number
    upstream: string
    status: string
    prompt_tokens: number
    completion_tokens: number
    model: string
    upstream_cost_rub: string | null
    upstream_cost_usd: string | null
  }>('select id, cost_micros, upstream, status, prompt_tokens, completion_tokens, model, upstream_cost_rub, upstream_cost_usd from usage_logs where request_id = ?', requestId)
  expect(rows).toHaveLength(1)
  return rows[0]!
}

/** tokens × the file's ruble price per 1M (cached prompt tokens at their own price): what the upstream charged us. */
function rubCost(price: { prompt: string; completion: string; cachedPrompt?: string }, prompt: number, completion: number, cached = 0) {
  const perM = (p: string, n: number) => mul(dec(p), dec(n), dec('0.000001'))
  const rub = add(perM(price.prompt, prompt - cached), perM(price.completion, completion))
  return cached ? add(rub, perM(price.cachedPrompt ?? price.prompt, cached)) : rub
}
/** …× 1.3, rounded up to the micro-ruble: the customer's charge. */
const rubCharge = (...args: Parameters<typeof rubCost>) => ceilUnits(mul(rubCost(...args), dec('1.3')), 6)

async function booksBalanced(userId: string) {
  const books = await gw.books(userId)
  expect(books.held).toBe(0)
  expect(books.ledgerSum).toBe(books.balance)
  return books
}

describe('one catalogue', () => {
  test('/v1/models lists each public id once, with ruble prices from the route’s currency and data_residency', async () => {
    const { data } = (await (await fetch(`${gw.url}/v1/models`)).json()) as { data: Array<Record<string, any>> }
    const ids = data.map((m) => m.id)
    expect(new Set(ids).size).toBe(ids.length)
    const gigaModel = data.find((m) => m.id === GIGA)!
    expect(gigaModel).toMatchObject({ name: 'GigaChat 2 Max', context_length: 131072, data_residency: ['ru'], type: 'chat' })
    // 150 ₽ per 1M × 1.3 = 0.000195 ₽ a token: RUB × markup, no exchange rate.
    expect(gigaModel.pricing.prompt).toBe('0.000195')
    expect(gigaModel.pricing.completion).toBe('0.00039')
    expect(data.find((m) => m.id === SHARED)!.data_residency).toEqual(['foreign', 'ru'])
    expect(data.find((m) => m.id === FOREIGN_ONLY)!.data_residency).toEqual(['foreign'])
  })
})

describe('GigaChat and YandexGPT through the official openai client', () => {
  test('plain: the answer, and the charge = tokens × the ruble price × 1.3 (GigaChat’s precached tokens free)', async () => {
    for (const [model, price] of [
      [GIGA, GIGA_PRICE],
      [YANDEX, YANDEX_PRICE],
    ] as const) {
      const { data, response } = await sdk(c.key)
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'Привет! Расскажи о себе.' }] })
        .withResponse()
      expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0)
      const u = data.usage!
      const r = await row(response.headers.get('x-request-id')!)
      expect(r).toMatchObject({ status: 'success', model, prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens })
      expect(r.upstream).toBe(model === GIGA ? 'giga' : 'yandex')
      const cached = u.prompt_tokens_details?.cached_tokens ?? 0
      expect(r.cost_micros).toBe(rubCharge(price, u.prompt_tokens, u.completion_tokens, cached))
      // What the upstream charged us, in its rubles, for the admin's provider cost.
      expect(r.upstream_cost_rub).toBe(toDecimalString(rubCost(price, u.prompt_tokens, u.completion_tokens, cached)))
      expect(r.upstream_cost_usd).toBeNull()
      // The activity detail shows that arithmetic: its rubles × markup = the charge.
      const detail = (await c.api.get(`/api/activity/${r.id}`, c.accessToken)).body.data
      expect(detail).toMatchObject({ upstream: r.upstream, upstreamCostRub: r.upstream_cost_rub, formulaMicros: r.cost_micros, uncoveredMicros: 0 })
      expect((u as unknown as { cost_rub: string }).cost_rub).toBeDefined()
    }
    await booksBalanced(c.user.id)
  })

  test('streamed: the pieces arrive, the last chunk carries the usage, the charge is exact', async () => {
    for (const [model, price] of [
      [GIGA, GIGA_PRICE],
      [YANDEX, YANDEX_PRICE],
    ] as const) {
      const { data: stream, response } = await sdk(c.key)
        .chat.completions.create({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Напиши короткое стихотворение' }] })
        .withResponse()
      let text = ''
      let usage: OpenAI.CompletionUsage | undefined
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? ''
        if (chunk.usage) usage = chunk.usage
      }
      expect(text.length).toBeGreaterThan(0)
      expect(usage).toBeDefined()
      const r = await row(response.headers.get('x-request-id')!)
      expect(r.cost_micros).toBe(rubCharge(price, usage!.prompt_tokens, usage!.completion_tokens, usage!.prompt_tokens_details?.cached_tokens ?? 0))
    }
    await booksBalanced(c.user.id)
  })

  test('a tool-call round trip: tool_calls with arguments as a JSON string, the result back, the final answer', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'weather', description: 'Погода в городе', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    ]
    for (const model of [GIGA, YANDEX]) {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Какая погода в Москве?' }]
      const first = await sdk(c.key).chat.completions.create({ model, messages, tools })
      const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall
      expect(first.choices[0]!.finish_reason).toBe('tool_calls')
      expect(call.function.name).toBe('weather')
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Москва' })
      messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temperature":-3}' })
      const second = await sdk(c.key).chat.completions.create({ model, messages, tools })
      expect(second.choices[0]!.message.content).toContain('-3')
    }
    await booksBalanced(c.user.id)
  })

  test('one GigaChat token serves many requests; an expired one is renewed once', async () => {
    const before = giga.tokensIssued()
    // max_tokens: without it each hold would take what the welcome bonus affords of a 131 072-token answer.
    await Promise.all(Array.from({ length: 5 }, () => sdk(c.key).chat.completions.create({ model: GIGA, max_tokens: 50, messages: [{ role: 'user', content: 'Раз' }] })))
    expect(giga.tokensIssued()).toBe(before)
    giga.expireTokens()
    const res = await sdk(c.key).chat.completions.create({ model: GIGA, messages: [{ role: 'user', content: 'Два' }] })
    expect(res.choices[0]!.message.content).toBeTruthy()
    expect(giga.tokensIssued()).toBe(before + 1)
  })

  test('Codex’s protocol: Responses (plain, streamed, a function-call round trip) from GigaChat and YandexGPT, charged exactly', async () => {
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'weather',
        description: 'Погода в городе',
        strict: false,
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]
    for (const [model, price] of [
      [GIGA, GIGA_PRICE],
      [YANDEX, YANDEX_PRICE],
    ] as const) {
      const { data, response } = await sdk(c.key).responses.create({ model, input: 'Привет! Кто ты?' }).withResponse()
      expect(data.output_text.length).toBeGreaterThan(0)
      const r = await row(response.headers.get('x-request-id')!)
      expect(r).toMatchObject({ status: 'success', prompt_tokens: data.usage!.input_tokens, completion_tokens: data.usage!.output_tokens })
      expect(r.cost_micros).toBe(rubCharge(price, data.usage!.input_tokens, data.usage!.output_tokens, data.usage!.input_tokens_details?.cached_tokens ?? 0))

      const { data: stream, response: streamed } = await sdk(c.key).responses.create({ model, input: 'Напиши короткое стихотворение', stream: true }).withResponse()
      let text = ''
      let done: OpenAI.Responses.Response | undefined
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta
        if (event.type === 'response.completed') done = event.response
      }
      expect(text.length).toBeGreaterThan(0)
      const u = done!.usage!
      expect((await row(streamed.headers.get('x-request-id')!)).cost_micros).toBe(rubCharge(price, u.input_tokens, u.output_tokens, u.input_tokens_details?.cached_tokens ?? 0))

      const first = await sdk(c.key).responses.create({ model, input: 'Какая погода в Москве?', tools })
      const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!
      expect(call.name).toBe('weather')
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Москва' })
      const second = await sdk(c.key).responses.create({
        model,
        tools,
        input: [{ role: 'user', content: 'Какая погода в Москве?' }, call, { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":-3}' }],
      })
      expect(second.output_text).toContain('-3')
    }
    await booksBalanced(c.user.id)
  })

  test('Claude Code’s protocol: Messages through @anthropic-ai/sdk (plain, streamed, a tool_use round trip), charged exactly', async () => {
    const claude = new Anthropic({ baseURL: gw.url, apiKey: c.key, maxRetries: 0 })
    const tools: Anthropic.Tool[] = [
      { name: 'weather', description: 'Погода в городе', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    ]
    for (const [model, price] of [
      [GIGA, GIGA_PRICE],
      [YANDEX, YANDEX_PRICE],
    ] as const) {
      const { data, response } = await claude.messages.create({ model, max_tokens: 200, messages: [{ role: 'user', content: 'Привет! Кто ты?' }] }).withResponse()
      expect(data.content[0]!.type).toBe('text')
      const inputOf = (u: Anthropic.Usage) => u.input_tokens + (u.cache_read_input_tokens ?? 0)
      expect((await row(response.headers.get('x-request-id')!)).cost_micros).toBe(
        rubCharge(price, inputOf(data.usage), data.usage.output_tokens, data.usage.cache_read_input_tokens ?? 0),
      )

      const final = await claude.messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'Напиши короткое стихотворение' }] }).finalMessage()
      expect(final.content[0]!.type).toBe('text')
      expect(final.stop_reason).toBe('end_turn')

      const first = await claude.messages.create({ model, max_tokens: 200, tools, messages: [{ role: 'user', content: 'Какая погода в Москве?' }] })
      expect(first.stop_reason).toBe('tool_use')
      const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!
      expect(use.input).toEqual({ city: 'Москва' })
      const second = await claude.messages.create({
        model,
        max_tokens: 200,
        tools,
        messages: [
          { role: 'user', content: 'Какая погода в Москве?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temperature":-3}' }] },
        ],
      })
      expect(second.content.find((b) => b.type === 'text')).toMatchObject({ text: expect.stringContaining('-3') })
    }
    await booksBalanced(c.user.id)
  })
})

describe('embeddings where the upstream offers them', () => {
  test('GigaChat’s embeddings through the official client: vectors in order, charged its tokens × 40 ₽ per 1M × 1.3', async () => {
    const { data, response } = await sdk(c.key)
      .embeddings.create({ model: GIGA_EMBEDDINGS, input: ['первый текст', 'второй текст'], encoding_format: 'float' })
      .withResponse()
    expect(data.data.map((d) => d.index)).toEqual([0, 1])
    expect(data.data[0]!.embedding.length).toBeGreaterThan(0)
    const r = await row(response.headers.get('x-request-id')!)
    expect(r).toMatchObject({ upstream: 'giga', status: 'success', prompt_tokens: data.usage.prompt_tokens })
    expect(r.cost_micros).toBe(rubCharge({ prompt: '40', completion: '0' }, data.usage.prompt_tokens, 0))
    const listed = (await (await fetch(`${gw.url}/v1/models/${encodeURIComponent(GIGA_EMBEDDINGS)}`)).json()) as { type: string; data_residency: string[] }
    expect(listed).toMatchObject({ type: 'embeddings', data_residency: ['ru'] })
    // Not a chat model.
    const chat = await sdk(c.key)
      .chat.completions.create({ model: GIGA_EMBEDDINGS, messages: [{ role: 'user', content: 'Привет' }] })
      .catch((e) => e)
    expect(chat.status).toBe(400)
    await booksBalanced(c.user.id)
  })
})

describe('a key or a team bound to Russia', () => {
  test('a ru key: 403 for a foreign-only model, answers from ru routes only, /v1/models lists only ru models', async () => {
    const made = await c.api.post('/api/auth/api-keys', { name: 'только РФ', residency: 'ru' }, c.accessToken)
    expect(made.status).toBe(201)
    expect(made.body.data.residency).toBe('ru')
    const ruKey = made.body.data.key as string
    const refused = await sdk(ruKey)
      .chat.completions.create({ model: FOREIGN_ONLY, messages: [{ role: 'user', content: 'Привет' }] })
      .catch((e) => e)
    expect(refused).toBeInstanceOf(OpenAI.APIError)
    expect(refused.status).toBe(403)
    expect(refused.code).toBe('data_residency_violation')
    expect(refused.message).toContain(FOREIGN_ONLY)
    // The shared model goes to the aggregator in Russia, not to the router (which is up).
    const { response } = await sdk(ruKey)
      .chat.completions.create({ model: SHARED, messages: [{ role: 'user', content: 'Привет' }] })
      .withResponse()
    expect((await row(response.headers.get('x-request-id')!)).upstream).toBe('ruagg')
    const listed = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${ruKey}` } })).json()) as {
      data: Array<{ id: string; data_residency: string[] }>
    }
    expect(listed.data.map((m) => m.id).sort()).toEqual([SHARED, GIGA, GIGA_EMBEDDINGS, YANDEX].sort())
    // Loosened again by its owner: everything.
    const patched = await c.api.patch(`/api/auth/api-keys/${made.body.data.id}`, { residency: 'any' }, c.accessToken)
    expect(patched.body.data.residency).toBe('any')
    const again = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${ruKey}` } })).json()) as { data: unknown[] }
    expect(again.data.length).toBeGreaterThan(3)
    await booksBalanced(c.user.id)
  })

  test('a team set to ru binds its keys: 403 for a foreign-only model; a bad value is 400', async () => {
    const owner = await gw.customer()
    const team = await owner.api.post('/api/teams', { name: 'Только РФ' }, owner.accessToken)
    const teamId = team.body.data.id as string
    const key = await fetch(`${gw.url}/api/auth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.accessToken}`, 'x-team-id': teamId, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ключ команды' }),
    }).then((r) => r.json() as Promise<{ data: { key: string } }>)
    expect((await owner.api.patch(`/api/teams/${teamId}`, { residency: 'everywhere' }, owner.accessToken)).status).toBe(400)
    const set = await owner.api.patch(`/api/teams/${teamId}`, { residency: 'ru' }, owner.accessToken)
    expect(set.status).toBe(200)
    expect(set.body.data.residency).toBe('ru')
    expect((await owner.api.get(`/api/teams/${teamId}`, owner.accessToken)).body.data.residency).toBe('ru')
    const refused = await sdk(key.data.key)
      .chat.completions.create({ model: FOREIGN_ONLY, messages: [{ role: 'user', content: 'Привет' }] })
      .catch((e) => e)
    expect(refused.status).toBe(403)
    expect(refused.code).toBe('data_residency_violation')
  })
})

describe('failover across upstreams', () => {
  test('with the router up the shared model is the router’s (dollars); with it stopped, the aggregator answers (rubles reported)', async () => {
    const up = await sdk(c.key)
      .chat.completions.create({ model: SHARED, messages: [{ role: 'user', content: 'Привет' }] })
      .withResponse()
    const viaRouter = await row(up.response.headers.get('x-request-id')!)
    expect(viaRouter.upstream).toBe('primary')
    const generation = await eventually(() => gw.upstream.generations.get(up.data.id))
    expect(viaRouter.cost_micros).toBe(expectedCharge(generation.total_cost))

    await gw.upstream.stop()
    const charged = agg.charges.length
    for (let i = 0; i < 3; i++) {
      const { data, response } = await sdk(c.key)
        .chat.completions.create({ model: SHARED, messages: [{ role: 'user', content: `Вопрос ${i}` }] })
        .withResponse()
      expect(data.choices[0]!.message.content).toContain('агрегатора')
      // Our balance at the aggregator is never shown to the customer.
      expect((data.usage as unknown as Record<string, unknown>).balance).toBeUndefined()
      const r = await row(response.headers.get('x-request-id')!)
      expect(r.upstream).toBe('ruagg')
      // The aggregator's reported cost_rub × 1.3.
      expect(r.cost_micros).toBe(ceilUnits(mul(dec(agg.charges[charged + i]!), dec('1.3')), 6))
      expect(Number(r.upstream_cost_rub)).toBe(agg.charges[charged + i]!)
    }
    // Responses too: translated to the aggregator's chat, charged its cost_rub × 1.3.
    const before = agg.charges.length
    const { response: viaResponses } = await sdk(c.key).responses.create({ model: SHARED, input: 'Вопрос по Responses' }).withResponse()
    const rr = await row(viaResponses.headers.get('x-request-id')!)
    expect(rr.upstream).toBe('ruagg')
    expect(rr.cost_micros).toBe(ceilUnits(mul(dec(agg.charges[before]!), dec('1.3')), 6))
    // A model only the router serves fails as before: the router is down.
    const down = await sdk(c.key)
      .chat.completions.create({ model: FOREIGN_ONLY, messages: [{ role: 'user', content: 'Привет' }] })
      .catch((e) => e)
    expect(down).toBeInstanceOf(OpenAI.APIError)
    expect(down.status).toBeGreaterThanOrEqual(500)
    await booksBalanced(c.user.id)
  })
})

describe('the operators', () => {
  test('the admin sees each upstream (kind, residency, GigaChat’s token) and this month’s spend split per upstream and currency', async () => {
    const admin = await gw.customer(ADMIN)
    const ups = await admin.api.get('/api/admin/upstreams', admin.accessToken)
    expect(ups.status).toBe(200)
    const byName = new Map((ups.body.data.upstreams as Array<Record<string, any>>).map((u) => [u.name, u]))
    expect([...byName.keys()]).toEqual(['primary', 'giga', 'yandex', 'ruagg'])
    expect(byName.get('giga')).toMatchObject({ kind: 'gigachat', residency: 'ru', models: 2 })
    expect(Date.parse(byName.get('giga')!.tokenExpiresAt)).toBeGreaterThan(Date.now())
    expect(byName.get('yandex')).toMatchObject({ kind: 'yandex', residency: 'ru', tokenExpiresAt: null })
    const stats = await admin.api.get('/api/admin/stats', admin.accessToken)
    expect(stats.status).toBe(200)
    const finance = stats.body.data.finance
    const rows = await gw.read<{ upstream: string; revenue: number; rub: number }>(
      'select upstream, sum(cost_micros) as revenue, sum(cast(upstream_cost_rub as real)) as rub from usage_logs group by upstream',
    )
    for (const r of rows) {
      const split = finance.byUpstream.find((u: { upstream: string }) => u.upstream === r.upstream)
      expect(split.revenue).toBe(r.revenue / 1e6)
      expect(split.costRub).toBeCloseTo(r.rub ?? 0, 5)
    }
    expect(finance.byUpstream.find((u: { upstream: string }) => u.upstream === 'giga').costUsd).toBe(0)
    expect(finance.providerCostRub).toBeGreaterThan(0)
  })
})
