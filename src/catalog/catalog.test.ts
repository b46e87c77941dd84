// The catalogue in rubles: /v1/models and /v1/models/{id} against the fake upstream, the Central Bank
// rate read from a local fake of XML_daily.asp (windows-1251, comma decimals) and kept across
// restarts, and the catalogue sync itself on an in-memory database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'bun'
import { eq } from 'drizzle-orm'
import { loadConfig } from '../config'
import { claimLease, releaseLease } from '../db/leases'
import { write } from '../db/tx'
import { dec, mul, toDecimalString } from '../lib/decimal'
import { openTestDatabase } from '../test-support/database'
import { encode1251 } from '../test-support/encodings'
import { eventually, startGateway, TEST_RATE } from '../test-support/gateway'
import { readResult } from '../test-support/server'
import { type UpstreamClient, UpstreamError, type UpstreamModel, type VoiceModality } from '../upstream/client'
import { CATALOGUE, EMBEDDING_MODELS, VOICE_MODELS } from '../upstream/demo'
import { createRateProvider, DEMO_FALLBACK_RATE, parseCbrXml, RATE_REFRESH_LEASE } from './rate'
import { exchangeRates, models } from './schema'
import { CATALOG_SYNC_LEASE, createCatalog } from './service'

/** What /v1/models must show for a USD price: × rate × 1.3, rounded up at 10 decimals; "-1" stays "-1". */
const rub = (usd: string, rate: string) => (usd === '-1' ? '-1' : toDecimalString(mul(dec(usd), dec(rate), dec('1.3')), 10))
const NUMERIC = /^-?\d+(\.\d+)?$/

const expectedEntry = (m: (typeof CATALOGUE)[number], rate: string) => ({
  id: m.id,
  object: 'model',
  created: m.created,
  owned_by: m.id.split('/')[0],
  name: m.name,
  description: m.description,
  context_length: m.context_length,
  pricing: {
    prompt: rub(m.pricing.prompt, rate),
    completion: rub(m.pricing.completion, rate),
    image: rub(m.pricing.image, rate),
    request: rub(m.pricing.request, rate),
    image_output: rub(m.pricing.image_output ?? '0', rate),
    web_search: rub(m.pricing.web_search, rate),
    internal_reasoning: rub(m.pricing.internal_reasoning, rate),
  },
  capabilities: expect.objectContaining({ image: m.architecture.output_modalities.includes('image') }),
})

const getJson = async (url: string) => readResult(await fetch(url))

// ---------------------------------------------------------------- a fake Central Bank

const CBR_RATE = '81.2345'
const CBR_DATE = '21.11.2026'

/** XML_daily.asp as the Central Bank writes it; USD sits between currencies with other nominals and values. */
function cbrXml(usd: { value: string; vunit?: string; nominal?: string } = { value: '81,2345', vunit: '81,2345' }) {
  const valute = (id: string, num: string, code: string, nominal: string, name: string, value: string, vunit?: string) =>
    `<Valute ID="${id}"><NumCode>${num}</NumCode><CharCode>${code}</CharCode><Nominal>${nominal}</Nominal><Name>${name}</Name><Value>${value}</Value>${
      vunit ? `<VunitRate>${vunit}</VunitRate>` : ''
    }</Valute>`
  return (
    '<?xml version="1.0" encoding="windows-1251"?>\n' +
    `<ValCurs Date="${CBR_DATE}" name="Foreign Currency Market">` +
    valute('R01010', '036', 'AUD', '1', 'Австралийский доллар', '52,7391', '52,7391') +
    valute('R01060', '051', 'AMD', '100', 'Армянских драмов', '20,9876', '0,209876') +
    valute('R01235', '840', 'USD', usd.nominal ?? '1', 'Доллар США', usd.value, usd.vunit) +
    valute('R01239', '978', 'EUR', '1', 'Евро', '94,1234', '94,1234') +
    valute('R01335', '398', 'KZT', '100', 'Казахстанских тенге', '15,4321', '0,154321') +
    valute('R01820', '392', 'JPY', '100', 'Японских иен', '53,0011', '0,530011') +
    '</ValCurs>'
  )
}

type FakeCbr = { url: string; hits: number; mode: 'ok' | 'error'; stop(): void }

function startFakeCbr(): FakeCbr {
  const state: FakeCbr = {
    url: '',
    hits: 0,
    mode: 'ok',
    stop: () => server.stop(true),
  }
  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname
      if (path !== '/scripts/XML_daily.asp') return new Response('not found', { status: 404 })
      state.hits++
      if (state.mode === 'error') return new Response('Service Unavailable', { status: 503 })
      return new Response(encode1251(cbrXml()), { headers: { 'content-type': 'application/xml; charset=windows-1251' } })
    },
  })
  state.url = `http://127.0.0.1:${server.port}/scripts/XML_daily.asp`
  return state
}

// ---------------------------------------------------------------- /v1/models with USD_RUB_RATE

describe('/v1/models with a fixed USD_RUB_RATE', () => {
  let gw: Awaited<ReturnType<typeof startGateway>>
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.stop())

  test('public list in the OpenAI shape with every upstream model, image-output ones included', async () => {
    const res = await getJson(`${gw.url}/v1/models`) // no Authorization header
    expect(res.status).toBe(200)
    expect(res.body.object).toBe('list')
    expect(Object.keys(res.body).sort()).toEqual(['data', 'object'])
    const ids = res.body.data.map((m: any) => m.id)
    expect([...ids].sort()).toEqual([...CATALOGUE, ...EMBEDDING_MODELS, ...VOICE_MODELS].map((m) => m.id).sort())
    expect(ids).toContain('google/gemini-2.5-flash-image')
    expect(ids).toContain('black-forest-labs/flux.2-pro')

    const image = res.body.data.find((m: any) => m.id === 'google/gemini-2.5-flash-image')
    expect(image.capabilities.image).toBe(true)
    expect(res.body.data.find((m: any) => m.id === 'openai/gpt-4').capabilities.image).toBe(false)

    // The router hides image-output models unless asked for all, and lists voice models by their own
    // modality: every catalogue fetch asked for one of those.
    const modelFetches = gw.upstream.log.filter((r) => r.method === 'GET' && r.path.endsWith('/models') && !r.path.endsWith('/embeddings/models'))
    const asked = modelFetches.map((r) => new URLSearchParams(r.query).get('output_modalities'))
    expect(asked).toContain('all')
    expect(asked).toContain('speech')
    expect(asked).toContain('transcription')
    expect(asked.filter((a) => !['all', 'speech', 'transcription'].includes(a!))).toEqual([])
  })

  test('each entry: id, object, created, owned_by, name, description, context_length and ruble prices = USD × rate × 1.3', async () => {
    const { body } = await getJson(`${gw.url}/v1/models`)
    for (const m of CATALOGUE) {
      const entry = body.data.find((e: any) => e.id === m.id)
      expect(entry).toMatchObject(expectedEntry(m, TEST_RATE))
      expect(Object.keys(entry.pricing).sort()).toEqual([
        'audio',
        'audio_second',
        'character',
        'completion',
        'image',
        'image_output',
        'internal_reasoning',
        'prompt',
        'request',
        'web_search',
      ])
      for (const v of Object.values(entry.pricing)) {
        expect(typeof v).toBe('string')
        expect(v as string).toMatch(NUMERIC)
      }
      expect(typeof entry.created).toBe('number')
      expect(typeof entry.context_length).toBe('number')
    }
  })

  test('worked examples: exact products, rounding up, "-1" kept as variable, "0" kept as free', async () => {
    const { body } = await getJson(`${gw.url}/v1/models`)
    const byId = (id: string) => body.data.find((e: any) => e.id === id)
    // 0.00003 × 92.5431 × 1.3 = 0.0036091809 exactly.
    expect(byId('openai/gpt-4').pricing).toEqual({
      prompt: '0.0036091809',
      completion: '0.0072183618',
      image: '0',
      request: '0',
      image_output: '0',
      web_search: '0',
      internal_reasoning: '0',
      audio: '0',
      character: '0',
      audio_second: '0',
    })
    // 0.0000005 × 92.5431 × 1.3 = 0.000060153015 → rounded UP at 10 decimals, never shown cheaper.
    expect(byId('openai/gpt-3.5-turbo').pricing.prompt).toBe('0.0000601531')
    expect(byId('openrouter/auto').pricing).toMatchObject({ prompt: '-1', completion: '-1', image: '-1', request: '-1' })
    expect(byId('meta-llama/llama-3.1-8b-instruct:free').pricing).toEqual({
      prompt: '0',
      completion: '0',
      image: '0',
      request: '0',
      image_output: '0',
      web_search: '0',
      internal_reasoning: '0',
      audio: '0',
      character: '0',
      audio_second: '0',
    })
    // An image-only model: free tokens, a priced image.
    expect(byId('black-forest-labs/flux.2-pro').pricing).toEqual({
      prompt: '0',
      completion: '0',
      image: rub('0.03', TEST_RATE),
      request: '0',
      image_output: rub('0.03', TEST_RATE),
      web_search: '0',
      internal_reasoning: '0',
      audio: '0',
      character: '0',
      audio_second: '0',
    })
    expect(byId('black-forest-labs/flux.2-pro').capabilities.image).toBe(true)
  })

  test('/v1/models/{id} with an encoded or a raw slash returns the same entry as the list', async () => {
    const { body: list } = await getJson(`${gw.url}/v1/models`)
    for (const id of ['openai/gpt-4', 'google/gemini-2.5-flash-image', 'meta-llama/llama-3.1-8b-instruct:free', 'openrouter/auto']) {
      const fromList = list.data.find((e: any) => e.id === id)
      const encoded = await getJson(`${gw.url}/v1/models/${encodeURIComponent(id)}`)
      expect(encoded.status).toBe(200)
      expect(encoded.body).toEqual(fromList)
      const raw = await getJson(`${gw.url}/v1/models/${id}`)
      expect(raw.status).toBe(200)
      expect(raw.body).toEqual(fromList)
    }
  })

  test('an unknown model → 404 model_not_found in the OpenAI error shape', async () => {
    for (const path of ['openai%2Fgpt-5', 'openai/gpt-5', 'nothing']) {
      const id = decodeURIComponent(path)
      const res = await getJson(`${gw.url}/v1/models/${path}`)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: { message: `Модель ${id} не найдена`, type: 'invalid_request_error', code: 'model_not_found', param: 'model' } })
    }
  })

  test('a malformed percent-encoding in the id is a 400, not a 500', async () => {
    for (const path of ['foo%ZZ', '%E0%A4%A']) {
      const res = await getJson(`${gw.url}/v1/models/${path}`)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'model', message: 'Некорректный идентификатор модели в адресе' })
    }
  })

  test('the catalogue is stored in the database with the upstream’s USD prices', async () => {
    const rows = await gw.read<{
      id: string
      name: string
      prompt_usd: string
      completion_usd: string
      image_usd: string
      request_usd: string
      output_modalities: unknown
      is_active: unknown
    }>('select id, name, prompt_usd, completion_usd, image_usd, request_usd, output_modalities, is_active from models order by id')
    // Byte order, as the database sorts ids (PostgreSQL's collation may differ from JS's order).
    const listed = [...CATALOGUE, ...EMBEDDING_MODELS, ...VOICE_MODELS]
    expect(rows.map((r) => r.id).sort()).toEqual(listed.map((m) => m.id).sort())
    for (const r of rows) {
      const m = listed.find((x) => x.id === r.id)!
      // SQLite keeps JSON as text and booleans as 0/1; PostgreSQL answers json parsed and booleans as booleans.
      const stored = { ...r, output_modalities: typeof r.output_modalities === 'string' ? JSON.parse(r.output_modalities) : r.output_modalities, is_active: Boolean(r.is_active) }
      expect(stored).toEqual({
        id: m.id,
        name: m.name,
        prompt_usd: m.pricing.prompt,
        completion_usd: m.pricing.completion,
        image_usd: m.pricing.image,
        request_usd: m.pricing.request,
        output_modalities: m.architecture.output_modalities,
        is_active: true,
      })
    }
  })
})

// ---------------------------------------------------------------- the Central Bank rate

describe('USD/RUB from the Central Bank', () => {
  let cbr: FakeCbr
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-cbr-test-'))
  beforeAll(() => {
    cbr = startFakeCbr()
  })
  afterAll(() => {
    cbr.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('without USD_RUB_RATE prices use the Central Bank rate; after a restart with the bank down, the last good rate is kept', async () => {
    const first = await startGateway({ USD_RUB_RATE: '', CBR_RATE_URL: cbr.url, DATA_DIR: dataDir })
    try {
      expect(cbr.hits).toBeGreaterThanOrEqual(1)
      const { status, body } = await getJson(`${first.url}/v1/models`)
      expect(status).toBe(200)
      for (const m of CATALOGUE) expect(body.data.find((e: any) => e.id === m.id)).toMatchObject(expectedEntry(m, CBR_RATE))
      expect(body.data.find((e: any) => e.id === 'openai/gpt-4').pricing.prompt).toBe('0.0031681455') // 0.00003 × 81.2345 × 1.3
      expect(await first.read('select currency, rate, effective_date from exchange_rates')).toEqual([{ currency: 'USD', rate: CBR_RATE, effective_date: CBR_DATE }])
    } finally {
      await first.stop()
    }

    // The bank goes away; the restarted gateway (same DATA_DIR) still prices with 81.2345.
    cbr.stop()
    const second = await startGateway({ USD_RUB_RATE: '', CBR_RATE_URL: cbr.url, DATA_DIR: dataDir })
    try {
      await eventually(() => second.server.logs().includes('[rate] Central Bank rate unavailable'))
      expect(second.server.logs()).toContain(`keeping ${CBR_RATE} of ${CBR_DATE}`)
      const { status, body } = await getJson(`${second.url}/v1/models`)
      expect(status).toBe(200)
      for (const m of CATALOGUE) expect(body.data.find((e: any) => e.id === m.id)).toMatchObject(expectedEntry(m, CBR_RATE))
      const one = await getJson(`${second.url}/v1/models/openai%2Fgpt-4o`)
      expect(one.body.pricing.completion).toBe(rub('0.00001', CBR_RATE))
      expect(await second.read('select rate, effective_date from exchange_rates')).toEqual([{ rate: CBR_RATE, effective_date: CBR_DATE }])
    } finally {
      await second.stop()
    }
  })

  test('with no rate ever fetched and no override, the catalogue and chats answer 503 instead of guessing', async () => {
    const dead = 'http://127.0.0.1:9/scripts/XML_daily.asp' // discard port: nothing listens
    const gw = await startGateway({ USD_RUB_RATE: '', CBR_RATE_URL: dead })
    try {
      const unavailable = { error: { message: 'Курс валют временно недоступен. Попробуйте позже.', type: 'server_error', code: 'service_unavailable', param: null } }
      const list = await getJson(`${gw.url}/v1/models`)
      expect(list.status).toBe(503)
      expect(list.body).toEqual(unavailable)
      const one = await getJson(`${gw.url}/v1/models/openai%2Fgpt-4`)
      expect(one.status).toBe(503)
      expect(one.body).toEqual(unavailable)

      const c = await gw.customer()
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
      })
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual(unavailable)
      expect(await gw.books(c.user.id)).toMatchObject({ balance: 50_000_000, held: 0 })
      expect(await gw.read('select * from exchange_rates')).toEqual([])
    } finally {
      await gw.stop()
    }
  })
})

describe('createRateProvider against the fake bank', () => {
  let cbr: FakeCbr
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-rate-unit-'))
  const config = (env: Record<string, string> = {}) => loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), USD_RUB_RATE: '', CBR_RATE_URL: cbr.url, ...env })
  beforeAll(() => {
    cbr = startFakeCbr()
  })
  afterAll(() => {
    cbr.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('fetches and stores the rate, keeps it when the bank fails, and a new provider starts from the stored one', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const rates = await createRateProvider(config(), db, false)
      expect(rates.current()).toBeNull()
      expect(rates.describe()).toEqual({ rate: null, source: 'fallback', effectiveDate: null })

      expect(await rates.refresh()).toBe(true)
      expect(rates.current()).toEqual(dec(CBR_RATE))
      expect(rates.describe()).toEqual({ rate: CBR_RATE, source: 'cbr', effectiveDate: CBR_DATE })

      cbr.mode = 'error'
      const hits = cbr.hits
      expect(await rates.refresh()).toBe(false)
      expect(cbr.hits).toBe(hits + 1)
      expect(rates.current()).toEqual(dec(CBR_RATE))

      const restarted = await createRateProvider(config(), db, false)
      expect(restarted.describe()).toEqual({ rate: CBR_RATE, source: 'cbr', effectiveDate: CBR_DATE })

      // USD_RUB_RATE overrides the stored rate and never calls the bank.
      const fixed = await createRateProvider(config({ USD_RUB_RATE: '95,5' }), db, false)
      const before = cbr.hits
      expect(await fixed.refresh()).toBe(true)
      expect(cbr.hits).toBe(before)
      expect(fixed.current()).toEqual(dec('95.5'))
      expect(fixed.describe()).toEqual({ rate: '95.5', source: 'USD_RUB_RATE', effectiveDate: null })
    } finally {
      cbr.mode = 'ok'
      await close()
    }
  })

  test('the demo upstream falls back to a fixed rate only when nothing was ever fetched', async () => {
    const { db, close } = await openTestDatabase()
    try {
      expect((await createRateProvider(config(), db, true)).current()).toEqual(dec(DEMO_FALLBACK_RATE))
      expect((await createRateProvider(config(), db, false)).current()).toBeNull()
    } finally {
      await close()
    }
  })
})

describe('parseCbrXml', () => {
  test('the encoded feed decodes from windows-1251 back to the same text', () => {
    const xml = cbrXml()
    const bytes = encode1251(xml)
    expect(bytes.length).toBe(xml.length) // one byte per character
    expect(bytes.includes(0xc4)).toBe(true) // "Д" of "Доллар"
    expect(new TextDecoder('windows-1251').decode(bytes)).toBe(xml)
  })

  test('VunitRate present: the USD per-unit rate with a dot, and the date it is in force for', () => {
    const xml = new TextDecoder('windows-1251').decode(encode1251(cbrXml()))
    expect(parseCbrXml(xml)).toEqual({ rate: '81.2345', effectiveDate: CBR_DATE })
  })

  test('VunitRate absent, Nominal 1: Value is the rate — not a neighbour’s VunitRate', () => {
    const xml = new TextDecoder('windows-1251').decode(encode1251(cbrXml({ value: '79,8765' })))
    expect(xml).not.toContain('<VunitRate>79')
    expect(parseCbrXml(xml)).toEqual({ rate: '79.8765', effectiveDate: CBR_DATE })
  })

  test('VunitRate absent, Nominal 10: Value is divided by the nominal', () => {
    const xml = cbrXml({ value: '812,5', nominal: '10' })
    expect(parseCbrXml(xml)).toEqual({ rate: '81.25', effectiveDate: CBR_DATE })
  })

  test('a feed without USD, without a date, or with a zero rate is rejected', () => {
    expect(() => parseCbrXml(cbrXml().replace('<CharCode>USD</CharCode>', '<CharCode>XDR</CharCode>'))).toThrow('no USD rate in the Central Bank answer')
    expect(() => parseCbrXml(cbrXml().replace(`Date="${CBR_DATE}"`, ''))).toThrow('no USD rate in the Central Bank answer')
    expect(() => parseCbrXml(cbrXml({ value: '0,0000', vunit: '0,0000' }))).toThrow('implausible USD rate')
    expect(() => parseCbrXml('<html>Сервис недоступен</html>')).toThrow()
  })
})

// ---------------------------------------------------------------- catalogue sync

const upstreamModel = (id: string, created: number, pricing: UpstreamModel['pricing'] = { prompt: '0.000001', completion: '0.000002' }): UpstreamModel => ({
  id,
  name: `Model ${id}`,
  description: `about ${id}`,
  created,
  context_length: 4096,
  architecture: { input_modalities: ['text'], output_modalities: ['text'] },
  pricing,
  top_provider: { max_completion_tokens: 1024, context_length: 4096 },
})

/**
 * An UpstreamClient whose catalogue the test decides, call by call (embedding and voice models: their
 * own scripts, one answer per sync; none = the router has no such list).
 */
function scriptedUpstream(
  answers: Array<UpstreamModel[] | Error>,
  embeddings: Array<UpstreamModel[] | Error> = [],
  voice: Partial<Record<VoiceModality, Array<UpstreamModel[] | Error>>> = {},
): UpstreamClient & { calls: number } {
  let embeddingCalls = 0
  const voiceCalls = { speech: 0, transcription: 0 }
  const client = {
    mode: 'openrouter' as const,
    calls: 0,
    async listModels() {
      const next = answers[client.calls++]
      if (next === undefined) throw new Error('no more scripted answers')
      if (next instanceof Error) throw next
      return next
    },
    async listEmbeddingModels() {
      const next = embeddings[embeddingCalls++] ?? new Error('404 Not Found')
      if (next instanceof Error) throw next
      return next
    },
    async listVoiceModels(modality: VoiceModality) {
      const next = voice[modality]?.[voiceCalls[modality]++] ?? new Error('404 Not Found')
      if (next instanceof Error) throw next
      return next
    },
    chat: () => Promise.reject(new Error('not used')),
    post: () => Promise.reject(new Error('not used')),
    keyStatus: () => Promise.reject(new Error('not used')),
    generation: () => Promise.reject(new Error('not used')),
  }
  return client
}

describe('createCatalog sync', () => {
  const A = upstreamModel('acme/a', 200)
  const B = upstreamModel('acme/b', 100)

  test('a model the upstream stops listing is retired; failures and empty lists keep the old catalogue', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const upstream = scriptedUpstream([[A, B], [A], new UpstreamError(503, 'upstream down'), [], [B, A]])
      const catalog = await createCatalog(db, upstream)
      expect(catalog.isEmpty()).toBe(true)

      expect(await catalog.sync()).toBe(2)
      expect(catalog.list().map((m) => m.id)).toEqual(['acme/a', 'acme/b']) // newest first
      expect(catalog.get('acme/b')?.name).toBe('Model acme/b')

      expect(await catalog.sync()).toBe(1)
      expect(catalog.list().map((m) => m.id)).toEqual(['acme/a'])
      expect(catalog.get('acme/b')).toBeUndefined()
      // Retired, not deleted: old usage rows still resolve.
      expect(await db.select({ id: models.id, is_active: models.isActive }).from(models).orderBy(models.id)).toEqual([
        { id: 'acme/a', is_active: true },
        { id: 'acme/b', is_active: false },
      ])

      await expect(catalog.sync()).rejects.toThrow('upstream down')
      expect(catalog.list().map((m) => m.id)).toEqual(['acme/a'])

      await expect(catalog.sync()).rejects.toThrow('empty catalogue')
      expect(catalog.list().map((m) => m.id)).toEqual(['acme/a'])
      expect(await db.select({ id: models.id }).from(models).where(eq(models.isActive, true))).toEqual([{ id: 'acme/a' }])

      // Listed again: active again.
      expect(await catalog.sync()).toBe(2)
      expect(catalog.list().map((m) => m.id)).toEqual(['acme/a', 'acme/b'])
      expect(upstream.calls).toBe(5)

      // A new catalog over the same database (a restart) serves the stored models before any sync.
      const restarted = await createCatalog(db, scriptedUpstream([]))
      expect(restarted.list().map((m) => m.id)).toEqual(['acme/a', 'acme/b'])
    } finally {
      await close()
    }
  })

  test('embedding models come from their own list; when only that list fails, the known ones stay', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const A = upstreamModel('acme/a', 200)
      const E = { ...upstreamModel('acme/embed', 100, { prompt: '0.00000002', completion: '0' }), architecture: { input_modalities: ['text'] } }
      const catalog = await createCatalog(db, scriptedUpstream([[A], [A], [A]], [[E], new Error('503'), []]))
      expect(await catalog.sync()).toBe(2)
      expect(catalog.get('acme/embed')?.outputModalities).toEqual(['embeddings'])
      expect(catalog.toApi(catalog.get('acme/embed')!, dec('100'), dec('1.3')).capabilities).toEqual({
        image: false,
        vision: false,
        files: false,
        embeddings: true,
        speech: false,
        transcription: false,
      })
      expect(await catalog.sync()).toBe(1) // the embeddings list failed: acme/embed is kept
      expect(catalog.get('acme/embed')).toBeDefined()
      expect(await catalog.sync()).toBe(1) // listed as empty: retired
      expect(catalog.get('acme/embed')).toBeUndefined()
    } finally {
      await close()
    }
  })

  test('speech and transcription models come from their own lists, typed and priced per character and per second', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const A = upstreamModel('acme/a', 200)
      const tts = { ...upstreamModel('acme/tts', 150, { prompt: '0.000015', completion: '0' }), supported_voices: ['alloy', 'nova'] }
      const stt = upstreamModel('acme/stt', 140, { prompt: '0.0001', completion: '0' })
      const sttTokens = upstreamModel('acme/stt-tokens', 130, { prompt: '0.0000025', completion: '0.00001', audio: '0.000006' })
      const catalog = await createCatalog(
        db,
        scriptedUpstream([[A], [A], [A]], [], { speech: [[tts], new Error('503'), []], transcription: [[stt, sttTokens], [stt, sttTokens], [stt]] }),
      )
      expect(await catalog.sync()).toBe(4)
      expect(catalog.get('acme/tts')?.outputModalities).toEqual(['speech'])
      expect(catalog.get('acme/stt')?.outputModalities).toEqual(['transcription'])
      const rate = dec('100')
      const markup = dec('1.3')
      const tApi = catalog.toApi(catalog.get('acme/tts')!, rate, markup)
      expect(tApi).toMatchObject({ type: 'speech', voices: ['alloy', 'nova'], capabilities: { speech: true, transcription: false }, pricing: { character: '0.00195' } })
      const sApi = catalog.toApi(catalog.get('acme/stt')!, rate, markup)
      expect(sApi).toMatchObject({ type: 'transcription', capabilities: { transcription: true }, pricing: { audio_second: '0.013', character: '0' } })
      expect(sApi.voices).toBeUndefined()
      // Priced per token: no per-second price to show, its audio token price instead.
      expect(catalog.toApi(catalog.get('acme/stt-tokens')!, rate, markup).pricing).toMatchObject({ audio_second: '0', audio: '0.00078' })
      expect(catalog.toApi(catalog.get('acme/a')!, rate, markup).type).toBe('chat')

      expect(await catalog.sync()).toBe(3) // the speech list failed: acme/tts is kept
      expect(catalog.get('acme/tts')).toBeDefined()
      expect(await catalog.sync()).toBe(2) // listed no more: both retired
      expect(catalog.get('acme/tts')).toBeUndefined()
      expect(catalog.get('acme/stt-tokens')).toBeUndefined()
    } finally {
      await close()
    }
  })

  test('stored rows keep the upstream’s strings; missing or junk prices become "0", "-1" stays variable', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const odd: UpstreamModel = { id: 'odd/one', pricing: { prompt: 'abc', completion: '' } }
      const auto = upstreamModel('router/auto', 50, { prompt: '-1', completion: '-1', request: '-1', image: '-1' })
      const image = {
        ...upstreamModel('pics/draw', 300, { prompt: '0', completion: '0', image: '0.04' }),
        architecture: { input_modalities: ['text'], output_modalities: ['image'] },
      }
      const catalog = await createCatalog(db, scriptedUpstream([[odd, auto, image, { id: '' } as UpstreamModel]]))
      expect(await catalog.sync()).toBe(3) // the id-less entry is skipped

      const oddRow = catalog.get('odd/one')!
      expect(oddRow).toMatchObject({ name: 'odd/one', description: '', contextLength: 0, promptUsd: '0', completionUsd: '0', imageUsd: '0', requestUsd: '0' })
      expect(oddRow.inputModalities).toEqual(['text'])

      const rate = dec('100')
      const markup = dec('1.3')
      expect(catalog.toApi(catalog.get('router/auto')!, rate, markup)).toMatchObject({
        id: 'router/auto',
        owned_by: 'router',
        pricing: { prompt: '-1', completion: '-1', image: '-1', request: '-1' },
        variable_pricing: true,
      })
      expect(catalog.toApi(catalog.get('pics/draw')!, rate, markup)).toMatchObject({
        pricing: { prompt: '0', completion: '0', image: '5.2', request: '0' },
        capabilities: { image: true },
        variable_pricing: false,
      })
      expect(catalog.list().map((m) => m.id)).toEqual(['pics/draw', 'router/auto', 'odd/one'])
    } finally {
      await close()
    }
  })
})

// ---------------------------------------------------------------- several instances on one database

describe('one instance refreshes, the others read', () => {
  const OTHER = 'another-instance'

  test('while another instance holds the sync lease, sync asks no upstream and adopts the catalogue it stored', async () => {
    const { db, close } = await openTestDatabase()
    try {
      const writer = await createCatalog(db, scriptedUpstream([[upstreamModel('acme/a', 200)]]))
      expect(await writer.sync()).toBe(1)
      const reader = await createCatalog(db, scriptedUpstream([]))
      expect(reader.list().map((m) => m.id)).toEqual(['acme/a'])

      // The other instance is syncing: this one waits for it instead of asking the upstream.
      expect(await claimLease(db, CATALOG_SYNC_LEASE, OTHER, 30_000)).toBe(true)
      const idle = scriptedUpstream([])
      const waiting = createCatalog(db, idle).then((c) => c.sync().then((n) => ({ c, n })))
      await Bun.sleep(300)
      // What the other instance stores (a newer sync), then it gives the lease back.
      const row = {
        id: 'acme/new',
        name: 'New',
        promptUsd: '0.000001',
        completionUsd: '0.000002',
        inputModalities: ['text'],
        outputModalities: ['text'],
        created: 300,
        syncedAt: new Date(Date.now() + 1000),
      }
      await write(db, (q) => q.insert(models).values(row))
      await releaseLease(db, CATALOG_SYNC_LEASE, OTHER)
      const { c, n } = await waiting
      expect(n).toBe(2)
      expect(c.list().map((m) => m.id)).toEqual(['acme/new', 'acme/a'])
      expect(idle.calls).toBe(0)

      // A copy loaded before re-reads the stored catalogue once it is newer.
      expect(reader.get('acme/new')).toBeUndefined()
      await reader.reloadIfNewer()
      expect(reader.get('acme/new')?.name).toBe('New')
    } finally {
      await close()
    }
  })

  test('while another instance fetches the rate, refresh calls no bank and takes the stored rate', async () => {
    const { db, close } = await openTestDatabase()
    let fetches = 0
    const countingFetch = (async () => {
      fetches++
      throw new Error('not expected')
    }) as unknown as typeof fetch
    try {
      const config = loadConfig({ DATA_DIR: tmpdir(), JWT_SECRET: 'x'.repeat(40), USD_RUB_RATE: '', CBR_RATE_URL: 'http://127.0.0.1:9/' })
      const rates = await createRateProvider(config, db, false, countingFetch)
      expect(rates.current()).toBeNull()
      expect(await claimLease(db, RATE_REFRESH_LEASE, OTHER, 30_000)).toBe(true)
      const refreshed = rates.refresh()
      await Bun.sleep(300)
      await write(db, (q) => q.insert(exchangeRates).values({ currency: 'USD', rate: '88.5', effectiveDate: CBR_DATE, fetchedAt: new Date() }))
      await releaseLease(db, RATE_REFRESH_LEASE, OTHER)
      expect(await refreshed).toBe(true)
      expect(fetches).toBe(0)
      expect(rates.describe()).toEqual({ rate: '88.5', source: 'cbr', effectiveDate: CBR_DATE })
    } finally {
      await close()
    }
  })
})
