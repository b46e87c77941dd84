// The demo upstream over real HTTP: catalogue, chat completions (JSON and SSE), billing, generation
// stats, faults, images and auth, checked against protocols.md section 1.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { inflateSync } from 'node:zlib'
import { createDemoUpstream, type RunningFakeUpstream, startFakeUpstream } from './index'
import { crc32 } from './png'
import { computeCost, femtoToUsd, toFemto, webResultPriceFemto } from './pricing'
import { readSseFrames, startDemoForTest, until } from './test-setup'

// ---------------------------------------------------------------- helpers

type Json = Record<string, any>

const jsonBody = (body: unknown) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
})

function chat(up: RunningFakeUpstream, body: Json, init: RequestInit = {}) {
  return fetch(`${up.url}/chat/completions`, { ...jsonBody(body), ...init })
}

const user = (content: unknown) => [{ role: 'user', content }]

type SseEvent = { raw: string; at: number; data?: any; comment?: string }

/** Reads an SSE body event by event, stamping each with its arrival time. */
const readSse = (res: Response, stopAfter?: (events: SseEvent[]) => boolean) =>
  readSseFrames(
    res,
    (raw) => {
      const event: SseEvent = { raw, at: performance.now() }
      if (raw.startsWith(':')) event.comment = raw.slice(1).trim()
      else if (raw.startsWith('data: ')) event.data = raw === 'data: [DONE]' ? '[DONE]' : JSON.parse(raw.slice(6))
      return event
    },
    stopAfter,
  )

const contentChunks = (events: SseEvent[]) => events.filter((e) => typeof e.data === 'object' && e.data.choices?.[0]?.delta?.content)
const streamedText = (events: SseEvent[]) =>
  contentChunks(events)
    .map((e) => e.data.choices[0].delta.content)
    .join('')

const expectOpenRouterError = async (res: Response, status: number) => {
  expect(res.status).toBe(status)
  const body = (await res.json()) as Json
  expect(body.error.code).toBe(status)
  expect(body.error.message).toBeString()
  return body
}

/** usage.cost recomputed independently from the catalogue's decimal strings. */
const expectedCost = (pricing: Json, promptTokens: number, completionTokens: number, images = 0) =>
  femtoToUsd(computeCost(pricing as never, { promptTokens, completionTokens, outputImages: images }).total)

let up: RunningFakeUpstream
let models: Map<string, Json>
beforeAll(async () => {
  ;({ up, models } = await startDemoForTest({ faults: true, tokenDelayMs: 20 }))
})
afterAll(() => up.stop())

// ---------------------------------------------------------------- catalogue

describe('GET /models', () => {
  const ids = async (query: string) => ((await (await fetch(`${up.url}/models${query}`)).json()) as Json).data.map((m: Json) => m.id)

  test('the default text filter hides every model that can output images', async () => {
    const byDefault = await ids('')
    expect(byDefault).toContain('openai/gpt-3.5-turbo')
    expect(byDefault).not.toContain('google/gemini-2.5-flash-image')
    expect(byDefault).not.toContain('black-forest-labs/flux.2-pro')
    expect(await ids('?output_modalities=text')).toEqual(byDefault)

    const all = await ids('?output_modalities=all')
    expect(all).toContain('google/gemini-2.5-flash-image')
    expect(all).toContain('black-forest-labs/flux.2-pro')
    // `all` is the whole catalogue, the voice models included; they show otherwise only when named.
    const voice = ['openai/gpt-4o-mini-transcribe', 'openai/gpt-4o-mini-tts', 'openai/whisper-1']
    expect(all.length).toBe(byDefault.length + 2 + voice.length)
    expect((await ids('?output_modalities=image')).sort()).toEqual(['black-forest-labs/flux.2-pro', 'google/gemini-2.5-flash-image'])
    expect((await ids('?output_modalities=text,image')).sort()).toEqual(all.filter((id: string) => !voice.includes(id)).sort())
    expect(await ids('?output_modalities=speech')).toEqual(['openai/gpt-4o-mini-tts'])
    expect((await ids('?output_modalities=transcription')).sort()).toEqual(['openai/gpt-4o-mini-transcribe', 'openai/whisper-1'])
  })

  test('list shape and every Model carries the required keys', async () => {
    const body = (await (await fetch(`${up.url}/models?output_modalities=all`)).json()) as Json
    expect(body.object).toBeUndefined()
    expect(body.total_count).toBe(body.data.length)
    expect(body.links).toEqual({ next: null })
    const required = [
      'id',
      'canonical_slug',
      'name',
      'created',
      'pricing',
      'context_length',
      'architecture',
      'top_provider',
      'per_request_limits',
      'supported_parameters',
      'default_parameters',
      'supported_voices',
      'links',
    ]
    for (const m of body.data as Json[]) {
      for (const key of required) expect(m).toHaveProperty(key)
      expect(m.description).toStartWith('Демо-модель')
      for (const key of ['prompt', 'completion', 'request', 'image']) expect(m.pricing[key]).toMatch(/^-?\d+(\.\d+)?$/)
      expect(m.architecture.input_modalities).toContain(m.architecture.output_modalities.includes('transcription') ? 'audio' : 'text')
      expect(m.top_provider).toHaveProperty('max_completion_tokens')
    }
  })

  test('catalogue prices are the documented ones', () => {
    expect(models.get('openai/gpt-3.5-turbo')!.pricing).toMatchObject({ prompt: '0.0000005', completion: '0.0000015' })
    expect(models.get('openai/gpt-4')!.pricing).toMatchObject({ prompt: '0.00003', completion: '0.00006' })
    expect(models.get('anthropic/claude-3-haiku')!.pricing).toMatchObject({ prompt: '0.00000025', completion: '0.00000125', image: '0.0004' })
    expect(models.get('anthropic/claude-3-haiku')!.architecture.input_modalities).toContain('image')
    expect(models.get('openai/gpt-4o-mini')!.architecture.input_modalities).toContain('image')
    const gemini = models.get('google/gemini-2.5-flash-image')!
    expect(gemini.pricing).toMatchObject({ prompt: '0.0000003', completion: '0.0000025', image: '0.001238' })
    expect(gemini.architecture.output_modalities).toEqual(['image', 'text'])
    const free = models.get('meta-llama/llama-3.1-8b-instruct:free')!.pricing
    expect([free.prompt, free.completion, free.request, free.image]).toEqual(['0', '0', '0', '0'])
    expect(models.get('openrouter/auto')!.pricing).toMatchObject({ prompt: '-1', completion: '-1' })
    expect(models.has('mistralai/mistral-small')).toBe(true)
    expect(models.has('deepseek/deepseek-chat')).toBe(true)
  })

  test('input_modalities and supported_parameters filter; limit/offset paginate', async () => {
    const withImages = await ids('?input_modalities=image')
    expect(withImages).toContain('openai/gpt-4o-mini')
    expect(withImages).not.toContain('openai/gpt-4')
    expect(await ids('?supported_parameters=tools')).not.toContain('meta-llama/llama-3.1-8b-instruct:free')
    const page = (await (await fetch(`${up.url}/models?limit=2&offset=1`)).json()) as Json
    expect(page.data).toHaveLength(2)
    expect(page.total_count).toBeGreaterThan(3)
    expect(page.links.next).toContain('offset=3')
  })

  test('single model: /model/{author}/{slug}, /models/{author}/{slug}, encoded slash, endpoints, 404', async () => {
    for (const path of ['/model/google/gemini-2.5-flash-image', '/models/google/gemini-2.5-flash-image', '/models/google%2Fgemini-2.5-flash-image']) {
      const res = await fetch(up.url + path)
      expect(res.status).toBe(200)
      expect(((await res.json()) as Json).data.id).toBe('google/gemini-2.5-flash-image')
    }
    const free = (await (await fetch(`${up.url}/model/meta-llama/llama-3.1-8b-instruct:free`)).json()) as Json
    expect(free.data.pricing.prompt).toBe('0')
    const endpoints = (await (await fetch(`${up.url}/models/openai/gpt-4/endpoints`)).json()) as Json
    expect(endpoints.data.endpoints[0]).toMatchObject({ provider_name: 'Demo', pricing: { prompt: '0.00003' } })
    await expectOpenRouterError(await fetch(`${up.url}/model/nobody/nothing`), 404)
  })

  test('routes match by suffix under any prefix, and in-process', async () => {
    const origin = up.url.replace('/api/v1', '')
    expect((await fetch(`${origin}/v1/models`)).status).toBe(200)
    expect((await fetch(`${origin}/some/proxy/prefix/api/v1/key`)).status).toBe(200)
    const local = createDemoUpstream()
    const res = await local.fetch(new Request('http://demo.invalid/models?output_modalities=all'))
    expect(((await res.json()) as Json).data.length).toBe(models.size)
    expect(local.log).toHaveLength(1)
    await expectOpenRouterError(await fetch(`${origin}/api/v1/nothing-here`), 404)
  })
})

// ---------------------------------------------------------------- chat, non-stream

describe('POST /chat/completions (JSON)', () => {
  test('shape, X-Generation-Id, deterministic Russian reply, log entry', async () => {
    const res = await chat(up, { model: 'openai/gpt-3.5-turbo', messages: user('Расскажи про Байкал') })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    const body = (await res.json()) as Json
    expect(body.id).toMatch(/^gen-\d+-[A-Za-z0-9]{20}$/)
    expect(res.headers.get('x-generation-id')).toBe(body.id)
    expect(body).toMatchObject({ object: 'chat.completion', model: 'openai/gpt-3.5-turbo', provider: 'Demo', system_fingerprint: null })
    expect(body.created).toBeNumber()
    const [choice] = body.choices
    expect(choice).toMatchObject({ index: 0, finish_reason: 'stop', native_finish_reason: 'stop' })
    expect(choice.message).toEqual({
      role: 'assistant',
      content: 'Демо-ответ: вы написали «Расскажи про Байкал». Это локально сгенерированный ответ демо-режима AI Gateway; подключите OPENROUTER_API_KEY для настоящих моделей.',
      refusal: null,
      reasoning: null,
    })
    const entry = up.log.findLast((r) => r.path === '/api/v1/chat/completions')!
    expect(entry).toMatchObject({ method: 'POST', aborted: false, body: { model: 'openai/gpt-3.5-turbo' } })
    expect(entry.at).toBeNumber()
    expect(up.generations.get(body.id)).toMatchObject({ cancelled: false, streamed: false, finish_reason: 'stop' })
  })

  test('usage as protocols.md 1.4; cost = tokens × decimal prices', async () => {
    const messages = [
      { role: 'system', content: 'Ты помощник.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Сколько будет 2+2?' },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
    ]
    const body = (await (await chat(up, { model: 'openai/gpt-4', messages })).json()) as Json
    const chars = [...'Ты помощник.'].length + [...'Сколько будет 2+2?'].length
    const promptTokens = Math.ceil(chars / 4) + 4 * 2
    const completionTokens = body.choices[0].message.content.match(/\s*\S+/g).length
    expect(body.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0, audio_tokens: 0, video_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, image_tokens: 0 },
      cost: expect.any(Number),
      is_byok: false,
      cost_details: {
        upstream_inference_cost: null,
        upstream_inference_prompt_cost: expect.any(Number),
        upstream_inference_completions_cost: expect.any(Number),
      },
      server_tool_use: { web_search_requests: 0 },
    })
    // Exact decimal arithmetic: (p × 3e-5 + c × 6e-5) in integers of 1e-15 USD.
    const femto = BigInt(promptTokens) * 30_000_000_000n + BigInt(completionTokens) * 60_000_000_000n
    expect(body.usage.cost).toBe(Number(femto) / 1e15)
    expect(body.usage.cost).toBeCloseTo(promptTokens * 0.00003 + completionTokens * 0.00006, 12)
    expect(up.generations.get(body.id)!.total_cost).toBe(body.usage.cost)
    expect(up.generations.get(body.id)!.num_media_prompt).toBe(1)
  })

  test('free models cost 0; openrouter/auto answers as a concrete, priced model', async () => {
    const free = (await (await chat(up, { model: 'meta-llama/llama-3.1-8b-instruct:free', messages: user('hi') })).json()) as Json
    expect(free.usage.cost).toBe(0)
    const auto = (await (await chat(up, { model: 'openrouter/auto', messages: user('hi') })).json()) as Json
    expect(auto.model).toBe('openai/gpt-4o-mini')
    const u = auto.usage
    expect(u.cost).toBe(expectedCost(models.get('openai/gpt-4o-mini')!.pricing, u.prompt_tokens, u.completion_tokens))
    expect(u.cost).toBeGreaterThan(0)
  })

  test('max_tokens and max_completion_tokens cut the answer with finish_reason "length"', async () => {
    for (const limit of [{ max_tokens: 4 }, { max_completion_tokens: 4 }]) {
      const body = (await (await chat(up, { model: 'openai/gpt-3.5-turbo', messages: user('раз два'), ...limit })).json()) as Json
      expect(body.choices[0].finish_reason).toBe('length')
      expect(body.usage.completion_tokens).toBe(4)
      expect(body.choices[0].message.content).toBe('Демо-ответ: вы написали «раз')
    }
    const roomy = (await (await chat(up, { model: 'openai/gpt-3.5-turbo', messages: user('раз'), max_tokens: 1000 })).json()) as Json
    expect(roomy.choices[0].finish_reason).toBe('stop')
  })

  test('400 in OpenRouter shape for missing/empty messages, bad JSON, unknown model', async () => {
    await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4' }), 400)
    await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4', messages: [] }), 400)
    await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4', messages: [{ content: 'no role' }] }), 400)
    await expectOpenRouterError(await fetch(`${up.url}/chat/completions`, { method: 'POST', body: '{not json' }), 400)
    await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4', messages: user('x'), max_tokens: -3 }), 400)
    const unknown = await expectOpenRouterError(await chat(up, { model: 'acme/nope', messages: user('x') }), 400)
    expect(unknown.error.message).toBe('acme/nope is not a valid model ID')
  })

  test('asking a text-only model for images is a 404 like OpenRouter\'s "no endpoints"', async () => {
    await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4', modalities: ['image', 'text'], messages: user('кот') }), 404)
  })
})

// ---------------------------------------------------------------- chat, stream

describe('POST /chat/completions (SSE)', () => {
  test('keep-alive first, chunks flushed one by one over time, one usage chunk, then [DONE]', async () => {
    const t0 = performance.now()
    const res = await chat(up, { model: 'openai/gpt-3.5-turbo', stream: true, messages: user('Расскажи про Байкал') })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const id = res.headers.get('x-generation-id')
    const events = await readSse(res)

    expect(events[0]!.raw).toBe(': OPENROUTER PROCESSING')
    expect(events.at(-1)!.data).toBe('[DONE]')
    const usageChunks = events.filter((e) => typeof e.data === 'object' && e.data.usage)
    expect(usageChunks).toHaveLength(1)
    expect(events.at(-2)).toBe(usageChunks[0]!)
    expect(usageChunks[0]!.data.choices).toEqual([])

    const content = contentChunks(events)
    for (const c of content) {
      expect(c.data).toMatchObject({ id, object: 'chat.completion.chunk', model: 'openai/gpt-3.5-turbo', provider: 'Demo' })
      expect(c.data.created).toBeNumber()
      expect(c.data.choices).toEqual([{ index: 0, delta: { role: 'assistant', content: expect.any(String) }, finish_reason: null, native_finish_reason: null }])
    }
    const finish = events.filter((e) => typeof e.data === 'object' && e.data.choices?.[0]?.finish_reason)
    expect(finish).toHaveLength(1)
    expect(finish[0]!.data.choices[0].finish_reason).toBe('stop')

    // Not buffered: with 20 ms between tokens the first token lands long before the last one.
    expect(content.length).toBeGreaterThan(10)
    expect(content.at(-1)!.at - content[0]!.at).toBeGreaterThan(20 * (content.length - 1) * 0.7)
    expect(content[0]!.at - t0).toBeLessThan(content.at(-1)!.at - t0 - 100)

    // Same text and token count as the JSON answer.
    const usage = usageChunks[0]!.data.usage
    expect(usage.completion_tokens).toBe(content.length)
    const plain = (await (await chat(up, { model: 'openai/gpt-3.5-turbo', messages: user('Расскажи про Байкал') })).json()) as Json
    expect(streamedText(events)).toBe(plain.choices[0].message.content)
    expect(usage.cost).toBe(plain.usage.cost)
    expect(up.generations.get(id!)).toMatchObject({ streamed: true, cancelled: false, tokens_completion: content.length })
  })

  test('max_tokens in a stream: N token chunks and finish_reason "length"', async () => {
    const events = await readSse(await chat(up, { model: 'openai/gpt-4', stream: true, max_tokens: 3, messages: user('x') }))
    expect(contentChunks(events)).toHaveLength(3)
    expect(events.find((e) => e.data?.choices?.[0]?.finish_reason)!.data.choices[0].finish_reason).toBe('length')
    expect(events.find((e) => e.data?.usage)!.data.usage.completion_tokens).toBe(3)
  })

  test('a client abort stops generation and bills only what was generated', async () => {
    const full = (await (await chat(up, { model: 'openai/gpt-4', messages: user('Прерви меня') })).json()) as Json
    const controller = new AbortController()
    const res = await chat(up, { model: 'openai/gpt-4', stream: true, messages: user('Прерви меня') }, { signal: controller.signal })
    const id = res.headers.get('x-generation-id')!
    await readSse(res, (events) => contentChunks(events).length >= 3)
    controller.abort()

    const stats = await until(() => up.generations.get(id))
    expect(stats.cancelled).toBe(true)
    expect(stats.finish_reason).toBeNull()
    expect(stats.tokens_completion).toBeGreaterThanOrEqual(3)
    expect(stats.tokens_completion).toBeLessThan(full.usage.completion_tokens)
    expect(stats.total_cost).toBeLessThan(full.usage.cost)
    expect(stats.total_cost).toBe(expectedCost(models.get('openai/gpt-4')!.pricing, stats.tokens_prompt, stats.tokens_completion))
    const entry = up.log.find((r) => r.body && (r.body as Json).stream && (r.body as Json).messages[0].content === 'Прерви меня')!
    expect(entry.aborted).toBe(true)
    // Nothing more is generated after the abort.
    await Bun.sleep(100)
    expect(up.generations.get(id)!.tokens_completion).toBe(stats.tokens_completion)
  })

  test('an in-process consumer cancelling the body counts as an abort too', async () => {
    const local = createDemoUpstream({ tokenDelayMs: 5 })
    const res = await local.fetch(new Request('http://demo.invalid/api/v1/chat/completions', jsonBody({ model: 'openai/gpt-4', stream: true, messages: user('x') })))
    const events = await readSse(res, (ev) => contentChunks(ev).length >= 2)
    expect(contentChunks(events)).toHaveLength(2)
    const stats = await until(() => local.generations.get(res.headers.get('x-generation-id')!))
    expect(stats.cancelled).toBe(true)
    expect(local.log[0]!.aborted).toBe(true)
  })

  test('waits over 1 s between tokens send extra keep-alive comments', async () => {
    const slowUp = await startFakeUpstream({ tokenDelayMs: 1100 })
    try {
      const events = await readSse(await chat(slowUp, { model: 'openai/gpt-4', stream: true, max_tokens: 2, messages: user('x') }))
      expect(events.filter((e) => e.comment === 'OPENROUTER PROCESSING').length).toBeGreaterThanOrEqual(3)
      expect(contentChunks(events)).toHaveLength(2)
    } finally {
      await slowUp.stop()
    }
  })
})

// ---------------------------------------------------------------- generation stats, key, credits

describe('GET /generation, /key, /credits', () => {
  test('/generation answers 404 until generationStatsDelayMs after the end, then the stats', async () => {
    const lagging = await startFakeUpstream({ generationStatsDelayMs: 300 })
    try {
      const res = await chat(lagging, { model: 'anthropic/claude-3-haiku', messages: user('привет') })
      const body = (await res.json()) as Json
      const lookup = () => fetch(`${lagging.url}/generation?id=${body.id}`)
      await expectOpenRouterError(await lookup(), 404)
      await Bun.sleep(350)
      const found = await lookup()
      expect(found.status).toBe(200)
      expect(((await found.json()) as Json).data).toMatchObject({
        id: body.id,
        model: 'anthropic/claude-3-haiku',
        provider_name: 'Demo',
        total_cost: body.usage.cost,
        tokens_prompt: body.usage.prompt_tokens,
        tokens_completion: body.usage.completion_tokens,
        native_tokens_prompt: body.usage.prompt_tokens,
        native_tokens_completion: body.usage.completion_tokens,
        streamed: false,
        cancelled: false,
        finish_reason: 'stop',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      })
      await expectOpenRouterError(await fetch(`${lagging.url}/generation?id=gen-unknown`), 404)
      await expectOpenRouterError(await fetch(`${lagging.url}/generation`), 400)
    } finally {
      await lagging.stop()
    }
  })

  test('/key, /auth/key and /credits report the cumulative cost', async () => {
    const fresh = await startFakeUpstream()
    try {
      const a = (await (await chat(fresh, { model: 'openai/gpt-4', messages: user('a') })).json()) as Json
      const b = (await (await chat(fresh, { model: 'deepseek/deepseek-chat', messages: user('b') })).json()) as Json
      const total = femtoToUsd(toFemto(String(a.usage.cost)) + toFemto(String(b.usage.cost)))
      expect(fresh.keyUsageUsd()).toBe(total)
      for (const path of ['/key', '/auth/key']) {
        const key = (await (await fetch(fresh.url + path)).json()) as Json
        expect(key.data).toMatchObject({
          label: 'demo',
          limit: null,
          limit_remaining: null,
          limit_reset: null,
          usage: total,
          usage_daily: total,
          usage_weekly: total,
          usage_monthly: total,
          is_free_tier: false,
        })
      }
      const credits = (await (await fetch(`${fresh.url}/credits`)).json()) as Json
      expect(credits).toEqual({ data: { total_credits: 1000, total_usage: total } })
    } finally {
      await fresh.stop()
    }
  })
})

// ---------------------------------------------------------------- images

/** Walks the PNG chunks, checking every CRC; returns the IHDR fields and the inflated pixel data. */
function parsePng(png: Uint8Array) {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  const types: string[] = []
  const idat: Uint8Array[] = []
  let offset = 8
  while (offset < png.length) {
    const length = view.getUint32(offset)
    const type = new TextDecoder().decode(png.subarray(offset + 4, offset + 8))
    expect(view.getUint32(offset + 8 + length)).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)))
    types.push(type)
    if (type === 'IDAT') idat.push(png.subarray(offset + 8, offset + 8 + length))
    offset += 12 + length
  }
  expect(types[0]).toBe('IHDR')
  expect(types.at(-1)).toBe('IEND')
  const width = view.getUint32(16)
  const height = view.getUint32(20)
  return { width, height, bitDepth: png[24], colourType: png[25], pixels: inflateSync(Buffer.concat(idat)) }
}

const pngFromDataUrl = (url: string) => {
  expect(url).toStartWith('data:image/png;base64,')
  return new Uint8Array(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64'))
}

describe('image output', () => {
  test('gemini image: a valid PNG, short text, image_tokens 1290 and the image in the cost', async () => {
    const body = (await (await chat(up, { model: 'google/gemini-2.5-flash-image', modalities: ['image', 'text'], messages: user('рыжий кот') })).json()) as Json
    const { message } = body.choices[0]
    expect(message.content).toContain('рыжий кот')
    expect(message.images).toHaveLength(1)
    expect(message.images[0].type).toBe('image_url')
    const png = pngFromDataUrl(message.images[0].image_url.url)
    const { width, height, bitDepth, colourType, pixels } = parsePng(png)
    expect([width, height, bitDepth, colourType]).toEqual([64, 64, 8, 2])
    expect(pixels.length).toBe(height * (1 + width * 3))
    // A real decoder reads every pixel of it.
    const decoded = new Bun.Image(png)
    expect(await decoded.metadata()).toEqual({ width: 64, height: 64, format: 'png' })
    expect((await new Bun.Image(png).jpeg().bytes()).length).toBeGreaterThan(100)

    const u = body.usage
    expect(u.completion_tokens_details.image_tokens).toBe(1290)
    const pricing = models.get('google/gemini-2.5-flash-image')!.pricing
    expect(u.cost).toBe(expectedCost(pricing, u.prompt_tokens, u.completion_tokens, 1))
    expect(u.cost).toBeCloseTo(u.prompt_tokens * 0.0000003 + u.completion_tokens * 0.0000025 + 0.001238, 12)
    expect(up.generations.get(body.id)).toMatchObject({ num_media_completion: 1, native_tokens_completion_images: 1290 })
  })

  test('same prompt → same picture; aspect_ratio shapes it; without modalities only text', async () => {
    const draw = async (extra: Json) => ((await (await chat(up, { model: 'google/gemini-2.5-flash-image', messages: user('закат'), ...extra })).json()) as Json).choices[0].message
    const a = await draw({ modalities: ['image', 'text'] })
    const b = await draw({ modalities: ['image', 'text'] })
    expect(a.images[0].image_url.url).toBe(b.images[0].image_url.url)
    const wide = await draw({ modalities: ['image', 'text'], image_config: { aspect_ratio: '16:9' } })
    const { width, height } = parsePng(pngFromDataUrl(wide.images[0].image_url.url))
    expect(width).toBeGreaterThan(height)
    expect((await draw({})).images).toBeUndefined()
  })

  test('streamed image arrives in a delta and is billed in the usage chunk', async () => {
    const events = await readSse(await chat(up, { model: 'google/gemini-2.5-flash-image', stream: true, modalities: ['image', 'text'], messages: user('лес') }))
    const withImage = events.filter((e) => e.data?.choices?.[0]?.delta?.images)
    expect(withImage).toHaveLength(1)
    parsePng(pngFromDataUrl(withImage[0]!.data.choices[0].delta.images[0].image_url.url))
    const usage = events.find((e) => e.data?.usage)!.data.usage
    expect(usage.completion_tokens_details.image_tokens).toBe(1290)
    expect(usage.cost).toBeGreaterThan(0.001238)
  })

  test('an image-only model draws without text', async () => {
    const body = (await (await chat(up, { model: 'black-forest-labs/flux.2-pro', modalities: ['image'], messages: user('горы') })).json()) as Json
    expect(body.choices[0].message.content).toBe('')
    expect(body.choices[0].message.images).toHaveLength(1)
    expect(body.usage.cost).toBe(0.03)
  })
})

// ---------------------------------------------------------------- faults

const fault = (name: string, extra: Json = {}) => ({
  model: 'openai/gpt-3.5-turbo',
  messages: [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: `тест [[fault:${name}]]` },
  ],
  ...extra,
})

describe('faults', () => {
  test('HTTP error faults, in both modes, with Retry-After where documented', async () => {
    const cases: [string, number, string | null][] = [
      ['http500', 500, null],
      ['http502', 502, null],
      ['http503', 503, '1'],
      ['http429', 429, '1'],
      ['http400', 400, null],
      ['credits402', 402, null],
    ]
    for (const [name, status, retryAfter] of cases) {
      for (const stream of [false, true]) {
        const res = await chat(up, fault(name, { stream }))
        expect(res.headers.get('content-type')).toContain('application/json')
        expect(res.headers.get('retry-after')).toBe(retryAfter)
        const body = await expectOpenRouterError(res, status)
        if (name === 'http500') expect(body).toEqual({ error: { code: 500, message: 'Internal Server Error' } })
        if (name === 'http429') expect(body.error.metadata.error_type).toBe('rate_limit_exceeded')
        if (name === 'http400') expect(body.error.metadata.error_type).toBe('invalid_request')
        if (name === 'credits402') {
          expect(body).toEqual({
            error: { code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/credits', metadata: { error_type: 'payment_required' } },
          })
        }
      }
    }
  })

  test('a fault directive only counts in the LAST user message', async () => {
    const res = await chat(up, {
      model: 'openai/gpt-4',
      messages: [
        { role: 'user', content: '[[fault:http500]]' },
        { role: 'user', content: 'ok' },
      ],
    })
    expect(res.status).toBe(200)
  })

  test('timeout: no answer until the client aborts, then the request is cleaned up', async () => {
    const controller = new AbortController()
    const started = Date.now()
    setTimeout(() => controller.abort(), 400)
    const err = await chat(up, fault('timeout'), { signal: controller.signal }).catch((e: Error) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).name).toBe('AbortError')
    expect(Date.now() - started).toBeGreaterThanOrEqual(390)
    const entry = await until(() => up.log.find((r) => r.aborted && JSON.stringify(r.body).includes('fault:timeout')))
    expect(entry.aborted).toBe(true)
    const stats = await until(() => [...up.generations.values()].find((g) => g.cancelled && g.tokens_completion === 0 && !g.streamed))
    expect(stats.finish_reason).toBeNull()
  })

  test('error200: HTTP 200, partial content, finish_reason "error", choices[0].error, usage', async () => {
    const res = await chat(up, fault('error200'))
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    const [choice] = body.choices
    expect(choice.finish_reason).toBe('error')
    expect(choice.error).toMatchObject({ code: 502, message: 'Upstream provider error', metadata: { error_type: 'provider_unavailable' } })
    expect(choice.message.content).toBe('Демо-ответ: вы написали')
    expect(body.usage.completion_tokens).toBe(3)
    expect(body.usage.cost).toBeGreaterThan(0)
    expect(up.generations.get(body.id)).toMatchObject({ finish_reason: 'error', tokens_completion: 3 })
  })

  test('toplevel200: HTTP 200 with a top-level error body', async () => {
    const res = await chat(up, fault('toplevel200'))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ error: { code: 500, message: 'Provider returned error' } })
  })

  test('midstream: a few chunks, then the error chunk, then the stream ends (no usage, no [DONE])', async () => {
    const res = await chat(up, fault('midstream', { stream: true }))
    expect(res.status).toBe(200)
    const events = await readSse(res)
    expect(contentChunks(events)).toHaveLength(3)
    const last = events.at(-1)!.data
    expect(last).toMatchObject({
      object: 'chat.completion.chunk',
      provider: 'Demo',
      error: { code: 502, message: expect.any(String), metadata: { error_type: 'provider_unavailable' } },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    })
    expect(events.some((e) => e.data === '[DONE]' || e.data?.usage)).toBe(false)
    expect(up.generations.get(res.headers.get('x-generation-id')!)).toMatchObject({ finish_reason: 'error', tokens_completion: 3 })
  })

  test('break: a few chunks, then the connection dies', async () => {
    const res = await chat(up, fault('break', { stream: true }))
    expect(res.status).toBe(200)
    const seen: SseEvent[] = []
    const err = await readSse(res, (ev) => {
      seen.splice(0, seen.length, ...ev)
      return false
    }).catch((e: Error) => e)
    expect(err).toBeInstanceOf(Error)
    expect(contentChunks(seen)).toHaveLength(3)

    const plain = await chat(up, fault('break'))
    expect(plain.status).toBe(200)
    expect(await plain.json().catch((e: Error) => e)).toBeInstanceOf(Error)
  })

  test('break, in-process: the body stream errors with an Error', async () => {
    const local = createDemoUpstream({ faults: true, tokenDelayMs: 1 })
    const res = await local.fetch(new Request('http://demo.invalid/chat/completions', jsonBody(fault('break', { stream: true }))))
    const err = await res.text().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(local.generations.get(res.headers.get('x-generation-id')!)).toMatchObject({ finish_reason: 'error', tokens_completion: 3 })
  })

  test('slow: 200 ms per token and a long reply', async () => {
    const controller = new AbortController()
    const res = await chat(up, fault('slow', { stream: true }), { signal: controller.signal })
    const events = await readSse(res, (ev) => contentChunks(ev).length >= 3)
    controller.abort()
    const content = contentChunks(events)
    expect(content[2]!.at - content[1]!.at).toBeGreaterThan(150)
    const stats = await until(() => up.generations.get(res.headers.get('x-generation-id')!))
    expect(stats.cancelled).toBe(true)

    // Non-streamed, the reply is long (and a 3-token cap makes it quick to check).
    const capped = (await (await chat(up, fault('slow', { max_tokens: 3 }))).json()) as Json
    expect(capped.choices[0].finish_reason).toBe('length')
  })

  test('slow, non-streamed: a disconnect is billed for the tokens so far', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 700)
    await chat(up, fault('slow', { model: 'openai/gpt-4', user: 'slow-json' }), { signal: controller.signal }).catch(() => undefined)
    const stats = await until(() => [...up.generations.values()].find((g) => g.external_user === 'slow-json'))
    expect(stats).toMatchObject({ cancelled: true, streamed: false })
    expect(stats.tokens_completion).toBeGreaterThanOrEqual(2)
    expect(stats.tokens_completion).toBeLessThan(60)
  })

  test('long: at least 200 tokens, max_tokens still honoured', async () => {
    const body = (await (await chat(up, fault('long'))).json()) as Json
    expect(body.usage.completion_tokens).toBeGreaterThanOrEqual(200)
    expect(body.choices[0].finish_reason).toBe('stop')
    const capped = (await (await chat(up, fault('long', { max_tokens: 50 }))).json()) as Json
    expect(capped.usage.completion_tokens).toBe(50)
    expect(capped.choices[0].finish_reason).toBe('length')
  })

  test('nocost: usage without cost, in both modes', async () => {
    const body = (await (await chat(up, fault('nocost'))).json()) as Json
    expect(body.usage.prompt_tokens).toBeGreaterThan(0)
    expect(body.usage).not.toHaveProperty('cost')
    const events = await readSse(await chat(up, fault('nocost', { stream: true })))
    const usage = events.find((e) => e.data?.usage)!.data.usage
    expect(usage.completion_tokens).toBeGreaterThan(0)
    expect(usage).not.toHaveProperty('cost')
  })

  test('empty: "" content and zero completion tokens', async () => {
    const body = (await (await chat(up, fault('empty'))).json()) as Json
    expect(body.choices[0].message.content).toBe('')
    expect(body.usage.completion_tokens).toBe(0)
    const events = await readSse(await chat(up, fault('empty', { stream: true })))
    expect(contentChunks(events)).toHaveLength(0)
    expect(events.find((e) => e.data?.usage)!.data.usage.completion_tokens).toBe(0)
    expect(events.at(-1)!.data).toBe('[DONE]')
  })

  test('with faults off, directives are just text', async () => {
    const plainUp = await startFakeUpstream()
    try {
      for (const name of ['http500', 'credits402', 'timeout', 'midstream', 'empty']) {
        const res = await chat(plainUp, fault(name))
        expect(res.status).toBe(200)
        const body = (await res.json()) as Json
        expect(body.choices[0].message.content).toContain(`[[fault:${name}]]`)
        expect(body.choices[0].finish_reason).toBe('stop')
      }
    } finally {
      await plainUp.stop()
    }
  })
})

// ---------------------------------------------------------------- auth

describe('apiKey', () => {
  test('every route requires Authorization: Bearer <apiKey>', async () => {
    const locked = await startFakeUpstream({ apiKey: 'sk-or-v1-test' })
    try {
      const missing = await expectOpenRouterError(await fetch(`${locked.url}/models`), 401)
      expect(missing.error.message).toBe('No auth credentials found')
      const wrong = await fetch(`${locked.url}/key`, { headers: { Authorization: 'Bearer nope' } })
      await expectOpenRouterError(wrong, 401)
      await expectOpenRouterError(await chat(locked, { model: 'openai/gpt-4', messages: user('x') }), 401)
      const ok = await chat(
        locked,
        { model: 'openai/gpt-4', messages: user('x') },
        {
          headers: { Authorization: 'Bearer sk-or-v1-test', 'Content-Type': 'application/json' },
        },
      )
      expect(ok.status).toBe(200)
      expect(locked.log.at(-1)!.headers.authorization).toBe('Bearer sk-or-v1-test')
      expect(locked.log).toHaveLength(4)
    } finally {
      await locked.stop()
    }
  })
})

// ---------------------------------------------------------------- billing features (issue 14)

/** Exact USD the demo must report, from the catalogue's decimal strings (BigInt femto-dollars). */
const exactCost = (modelId: string, usage: { promptTokens: number; completionTokens: number; outputImages?: number; inputImages?: number; webResults?: number }) =>
  femtoToUsd(computeCost(models.get(modelId)!.pricing as never, { outputImages: 0, ...usage }).total)

const codePointsOf = (s: string) => [...s].length
/** prompt_tokens as replies.ts documents it, for one user message of plain text plus body extras. */
const promptTokensOf = (text: string, extras: unknown[] = []) =>
  Math.ceil(codePointsOf(text) / 4) + 4 + extras.reduce<number>((n, v) => n + Math.ceil(codePointsOf(JSON.stringify(v)) / 4), 0)

const piecesOf = (text: string) => text.match(/\s*\S+/g)?.length ?? 0

const post = async (body: Json) => (await (await chat(up, body)).json()) as Json

describe('n choices', () => {
  test('non-stream: n full choices, max_tokens per choice, completion_tokens summed, exact cost', async () => {
    const single = await post({ model: 'openai/gpt-4', messages: user('раз два') })
    const text = single.choices[0].message.content
    const body = await post({ model: 'openai/gpt-4', n: 3, messages: user('раз два') })
    expect(body.choices.map((c: Json) => c.index)).toEqual([0, 1, 2])
    for (const c of body.choices) {
      expect(c).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: text } })
    }
    const perChoice = piecesOf(text)
    expect(body.usage.completion_tokens).toBe(3 * perChoice)
    expect(body.usage.prompt_tokens).toBe(single.usage.prompt_tokens)
    expect(body.usage.cost).toBe(exactCost('openai/gpt-4', { promptTokens: body.usage.prompt_tokens, completionTokens: 3 * perChoice }))
    expect(up.generations.get(body.id)).toMatchObject({ tokens_completion: 3 * perChoice, total_cost: body.usage.cost })

    const capped = await post({ model: 'openai/gpt-4', n: 2, max_completion_tokens: 4, messages: user('раз два') })
    expect(capped.choices).toHaveLength(2)
    for (const c of capped.choices) {
      expect(c.finish_reason).toBe('length')
      expect(c.message.content).toBe('Демо-ответ: вы написали «раз')
    }
    expect(capped.usage.completion_tokens).toBe(8)
    expect(capped.usage.cost).toBe(exactCost('openai/gpt-4', { promptTokens: capped.usage.prompt_tokens, completionTokens: 8 }))

    const one = await post({ model: 'openai/gpt-4', n: 1, messages: user('раз два') })
    expect(one.choices).toHaveLength(1)
    expect(one.usage).toEqual(single.usage)
  })

  test('n must be an integer ≥ 1', async () => {
    for (const n of [0, -1, 1.5, '2', true]) {
      const body = await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4', n, messages: user('x') }), 400)
      expect(body.error.metadata.error_type).toBe('invalid_request')
    }
    expect((await chat(up, { model: 'openai/gpt-4', n: null, messages: user('x') })).status).toBe(200)
  })

  test('stream: chunks per choice index, one finish chunk per choice, one usage chunk, [DONE]', async () => {
    const plain = await post({ model: 'openai/gpt-3.5-turbo', messages: user('Волга') })
    const res = await chat(up, { model: 'openai/gpt-3.5-turbo', n: 2, stream: true, messages: user('Волга') })
    const events = await readSse(res)
    const content = contentChunks(events)
    for (const c of content) expect(c.data.choices).toHaveLength(1)
    const textOf = (i: number) =>
      content
        .filter((c) => c.data.choices[0].index === i)
        .map((c) => c.data.choices[0].delta.content)
        .join('')
    expect(textOf(0)).toBe(plain.choices[0].message.content)
    expect(textOf(1)).toBe(plain.choices[0].message.content)
    const finish = events.filter((e) => typeof e.data === 'object' && e.data.choices?.[0]?.finish_reason)
    expect(finish.map((e) => [e.data.choices[0].index, e.data.choices[0].finish_reason])).toEqual([
      [0, 'stop'],
      [1, 'stop'],
    ])
    const usageChunks = events.filter((e) => typeof e.data === 'object' && e.data.usage)
    expect(usageChunks).toHaveLength(1)
    expect(usageChunks[0]!.data.choices).toEqual([])
    expect(events.at(-2)).toBe(usageChunks[0]!)
    expect(events.at(-1)!.data).toBe('[DONE]')
    const usage = usageChunks[0]!.data.usage
    expect(usage.completion_tokens).toBe(content.length)
    expect(usage.completion_tokens).toBe(2 * plain.usage.completion_tokens)
    expect(usage.cost).toBe(exactCost('openai/gpt-3.5-turbo', { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }))
    expect(up.generations.get(res.headers.get('x-generation-id')!)).toMatchObject({ streamed: true, tokens_completion: content.length })
  })

  test('image answers draw one picture per choice, in both modes', async () => {
    const body = await post({ model: 'google/gemini-2.5-flash-image', n: 2, modalities: ['image', 'text'], messages: user('кот') })
    expect(body.choices).toHaveLength(2)
    for (const c of body.choices) expect(c.message.images).toHaveLength(1)
    const u = body.usage
    expect(u.completion_tokens_details.image_tokens).toBe(2 * 1290)
    expect(u.cost).toBe(exactCost('google/gemini-2.5-flash-image', { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, outputImages: 2 }))
    expect(up.generations.get(body.id)).toMatchObject({ num_media_completion: 2 })

    const flux = await post({ model: 'black-forest-labs/flux.2-pro', n: 3, modalities: ['image'], messages: user('горы') })
    expect(flux.choices.map((c: Json) => c.message.images.length)).toEqual([1, 1, 1])
    expect(flux.usage.cost).toBe(femtoToUsd(3n * toFemto('0.03')))

    const events = await readSse(await chat(up, { model: 'google/gemini-2.5-flash-image', n: 2, stream: true, modalities: ['image', 'text'], messages: user('лес') }))
    const withImage = events.filter((e) => e.data?.choices?.[0]?.delta?.images)
    expect(withImage.map((e) => e.data.choices[0].index)).toEqual([0, 1])
    const su = events.find((e) => e.data?.usage)!.data.usage
    expect(su.cost).toBe(exactCost('google/gemini-2.5-flash-image', { promptTokens: su.prompt_tokens, completionTokens: su.completion_tokens, outputImages: 2 }))
  })

  test('faults apply to the whole answer; a cancelled n-choice stream bills what was emitted', async () => {
    const failed = await post(fault('error200', { n: 2 }))
    expect(failed.usage.completion_tokens).toBe(3)
    for (const c of failed.choices) expect(c).toMatchObject({ finish_reason: 'error', error: { code: 502 } })
    expect(failed.choices[0].message.content).toBe('Демо-ответ: вы написали')
    expect(failed.choices[1].message.content).toBe('')

    const events = await readSse(await chat(up, fault('midstream', { n: 2, stream: true })))
    expect(contentChunks(events)).toHaveLength(3)
    expect(events.at(-1)!.data.choices.map((c: Json) => c.finish_reason)).toEqual(['error', 'error'])

    const controller = new AbortController()
    const res = await chat(up, { model: 'openai/gpt-4', n: 2, stream: true, messages: user('Прерви n') }, { signal: controller.signal })
    await readSse(res, (ev) => contentChunks(ev).length >= 3)
    controller.abort()
    const stats = await until(() => up.generations.get(res.headers.get('x-generation-id')!))
    expect(stats.cancelled).toBe(true)
    expect(stats.tokens_completion).toBeGreaterThanOrEqual(3)
    expect(stats.total_cost).toBe(exactCost('openai/gpt-4', { promptTokens: stats.tokens_prompt, completionTokens: stats.tokens_completion }))
  })
})

describe('prompt billing', () => {
  test('each image_url part is billed at pricing.image; file/audio/video parts add nothing', async () => {
    const parts = [
      { type: 'text', text: 'Что на картинках?' },
      { type: 'image_url', image_url: { url: 'https://x/a.png' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      { type: 'video_url', video_url: { url: 'https://x/v.mp4' } },
    ]
    const body = await post({ model: 'anthropic/claude-3-haiku', messages: user(parts) })
    const u = body.usage
    expect(u.prompt_tokens).toBe(promptTokensOf('Что на картинках?'))
    const expected = computeCost(models.get('anthropic/claude-3-haiku')!.pricing, {
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      outputImages: 0,
      inputImages: 2,
    })
    expect(expected.prompt).toBe(BigInt(u.prompt_tokens) * toFemto('0.00000025') + 2n * toFemto('0.0004'))
    expect(u.cost).toBe(femtoToUsd(expected.total))
    expect(u.cost_details.upstream_inference_prompt_cost).toBe(femtoToUsd(expected.prompt))
    expect(up.generations.get(body.id)).toMatchObject({ total_cost: u.cost, num_media_prompt: 5 })

    // Images in earlier messages count too; an editing request pays pricing.image per input and image_output per picture.
    const edit = await post({
      model: 'google/gemini-2.5-flash-image',
      modalities: ['image', 'text'],
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/1.png' } }] },
        { role: 'assistant', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'перекрась' },
            { type: 'image_url', image_url: { url: 'https://x/2.png' } },
          ],
        },
      ],
    })
    const e = edit.usage
    expect(e.cost).toBe(exactCost('google/gemini-2.5-flash-image', { promptTokens: e.prompt_tokens, completionTokens: e.completion_tokens, outputImages: 1, inputImages: 2 }))
  })

  test('tools, response_format and functions count as ceil(code points of their JSON / 4) prompt tokens each', async () => {
    const tools = [{ type: 'function', function: { name: 'погода', description: 'Погода в городе', parameters: { type: 'object', properties: { город: { type: 'string' } } } } }]
    const responseFormat = { type: 'json_schema', json_schema: { name: 'ответ', strict: true, schema: { type: 'object' } } }
    const functions = [{ name: 'f', parameters: {} }]
    const text = 'Какая погода в Казани?'
    const plain = await post({ model: 'openai/gpt-4', messages: user(text) })
    expect(plain.usage.prompt_tokens).toBe(promptTokensOf(text))
    const body = await post({ model: 'openai/gpt-4', messages: user(text), tools, response_format: responseFormat, functions, tool_choice: 'auto' })
    const expectedPrompt = promptTokensOf(text, [tools, responseFormat, functions])
    expect(expectedPrompt).toBe(
      promptTokensOf(text) +
        Math.ceil(codePointsOf(JSON.stringify(tools)) / 4) +
        Math.ceil(codePointsOf(JSON.stringify(responseFormat)) / 4) +
        Math.ceil(codePointsOf(JSON.stringify(functions)) / 4),
    )
    expect(body.usage.prompt_tokens).toBe(expectedPrompt)
    expect(body.usage.cost).toBe(exactCost('openai/gpt-4', { promptTokens: expectedPrompt, completionTokens: body.usage.completion_tokens }))

    const onlyFormat = await post({ model: 'openai/gpt-4', messages: user(text), response_format: { type: 'json_object' }, tools: null })
    expect(onlyFormat.usage.prompt_tokens).toBe(promptTokensOf(text) + Math.ceil(codePointsOf('{"type":"json_object"}') / 4))
  })
})

describe('fallbacks (models: [...])', () => {
  const text = 'Запасной вариант'

  test('the first candidate answers and is billed; with [[fault:fallback]] the last one', async () => {
    const first = await post({ models: ['openai/gpt-4', 'deepseek/deepseek-chat'], messages: user(text) })
    expect(first.model).toBe('openai/gpt-4')
    expect(first.usage.cost).toBe(exactCost('openai/gpt-4', { promptTokens: first.usage.prompt_tokens, completionTokens: first.usage.completion_tokens }))

    const withModel = await post({ model: 'openai/gpt-3.5-turbo', models: ['openai/gpt-4', 'deepseek/deepseek-chat'], messages: user(text) })
    expect(withModel.model).toBe('openai/gpt-3.5-turbo')

    const body = await post({ model: 'openai/gpt-3.5-turbo', models: ['openai/gpt-4', 'deepseek/deepseek-chat'], messages: user(`${text} [[fault:fallback]]`) })
    expect(body.model).toBe('deepseek/deepseek-chat')
    const u = body.usage
    expect(u.cost).toBe(exactCost('deepseek/deepseek-chat', { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens }))
    expect(u.cost).not.toBe(exactCost('openai/gpt-4', { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens }))
    expect(up.generations.get(body.id)).toMatchObject({ model: 'deepseek/deepseek-chat', total_cost: u.cost })

    // `model` already in the list is not prepended again: the list's order stands.
    const inList = await post({ model: 'deepseek/deepseek-chat', models: ['openai/gpt-4', 'deepseek/deepseek-chat'], messages: user(text) })
    expect(inList.model).toBe('openai/gpt-4')
  })

  test('failNext("fallback") in a stream; the answering model is in every chunk and billed', async () => {
    up.failNext('fallback', (b) => b.user === 'fallback-stream')
    const res = await chat(up, { models: ['openai/gpt-4', 'mistralai/mistral-small'], stream: true, user: 'fallback-stream', messages: user(text) })
    const events = await readSse(res)
    for (const c of contentChunks(events)) expect(c.data.model).toBe('mistralai/mistral-small')
    const usage = events.find((e) => e.data?.usage)!.data.usage
    expect(usage.cost).toBe(exactCost('mistralai/mistral-small', { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }))
    expect(up.generations.get(res.headers.get('x-generation-id')!)!.model).toBe('mistralai/mistral-small')
  })

  test('every candidate must resolve; an empty list falls back to model', async () => {
    const bad = await expectOpenRouterError(await chat(up, { models: ['openai/gpt-4', 'acme/nope'], messages: user('x') }), 400)
    expect(bad.error.message).toBe('acme/nope is not a valid model ID')
    await expectOpenRouterError(await chat(up, { model: 'acme/nope', models: ['openai/gpt-4'], messages: user('x') }), 400)
    await expectOpenRouterError(await chat(up, { models: ['openai/gpt-4', 7], messages: user('x') }), 400)
    expect((await post({ model: 'openai/gpt-4', models: [], route: 'fallback', messages: user('x') })).model).toBe('openai/gpt-4')
    // Whichever answers must draw when pictures are asked for.
    await expectOpenRouterError(await chat(up, { models: ['google/gemini-2.5-flash-image', 'openai/gpt-4'], modalities: ['image', 'text'], messages: user('x') }), 404)
  })
})

describe('routing variants', () => {
  test('x/y:nitro (and the other variants) answer and bill as the base model, reporting the suffix', async () => {
    for (const variant of ['nitro', 'floor', 'thinking', 'exacto', 'extended']) {
      const id = `openai/gpt-4:${variant}`
      const body = await post({ model: id, messages: user('вариант') })
      expect(body.model).toBe(id)
      const u = body.usage
      expect(u.cost).toBe(exactCost('openai/gpt-4', { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens }))
      expect(u.server_tool_use).toEqual({ web_search_requests: 0 })
      expect(up.generations.get(body.id)).toMatchObject({ model: id, num_search_results: 0 })
    }
    for (const id of ['openai/gpt-4:turbo', 'acme/nope:nitro', ':nitro']) {
      await expectOpenRouterError(await chat(up, { model: id, messages: user('x') }), 400)
    }
    // :free ids stay catalogue entries of their own (and can take a variant too).
    expect((await post({ model: 'meta-llama/llama-3.1-8b-instruct:free', messages: user('x') })).usage.cost).toBe(0)
    expect((await post({ model: 'meta-llama/llama-3.1-8b-instruct:free:nitro', messages: user('x') })).model).toBe('meta-llama/llama-3.1-8b-instruct:free:nitro')
  })

  test('x/y:online searches with 5 results at $0.004 each, billed on top of the base model', async () => {
    const body = await post({ model: 'deepseek/deepseek-chat:online', messages: user('новости') })
    expect(body.model).toBe('deepseek/deepseek-chat:online')
    const u = body.usage
    expect(u.server_tool_use).toEqual({ web_search_requests: 1 })
    const expected = computeCost(models.get('deepseek/deepseek-chat')!.pricing, {
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      outputImages: 0,
      webResults: 5,
    })
    expect(expected.webSearch).toBe(toFemto('0.02'))
    expect(u.cost).toBe(femtoToUsd(expected.total))
    expect(body.choices[0].message.content).toContain('Демо-поиск')
    expect(up.generations.get(body.id)).toMatchObject({ model: 'deepseek/deepseek-chat:online', num_search_results: 5, total_cost: u.cost })
  })
})

describe('web search', () => {
  const webCost = (u: Json, results: number, model = 'openai/gpt-3.5-turbo') =>
    exactCost(model, { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, webResults: results })

  test('web plugin: max_results 3, the default 5, capped at 20; web_search_options: 5', async () => {
    const cases: [Json, number][] = [
      [{ plugins: [{ id: 'web', max_results: 3 }] }, 3],
      [{ plugins: [{ id: 'file-parser' }, { id: 'web' }] }, 5],
      [{ plugins: [{ id: 'web', max_results: 0 }] }, 5],
      [{ plugins: [{ id: 'web', max_results: 2.5 }] }, 5],
      [{ plugins: [{ id: 'web', max_results: 50 }] }, 20],
      [{ web_search_options: { search_context_size: 'low' } }, 5],
      [{ model: 'openai/gpt-3.5-turbo:online', plugins: [{ id: 'web', max_results: 3 }] }, 3],
    ]
    for (const [extra, results] of cases) {
      const body = await post({ model: 'openai/gpt-3.5-turbo', messages: user('поиск'), ...extra })
      expect(body.usage.server_tool_use).toEqual({ web_search_requests: 1 })
      expect(body.usage.cost).toBe(webCost(body.usage, results))
      expect(up.generations.get(body.id)!.num_search_results).toBe(results)
    }
    const none = await post({ model: 'openai/gpt-3.5-turbo', messages: user('поиск'), plugins: [{ id: 'file-parser' }], web_search_options: null })
    expect(none.usage.server_tool_use).toEqual({ web_search_requests: 0 })
    expect(none.usage.cost).toBe(webCost(none.usage, 0))
  })

  test('billed when cut by max_tokens and in a stream; not when cancelled before the first token', async () => {
    const cut = await post({ model: 'openai/gpt-4', max_tokens: 2, plugins: [{ id: 'web', max_results: 3 }], messages: user('поиск') })
    expect(cut.choices[0].finish_reason).toBe('length')
    expect(cut.usage.cost).toBe(webCost(cut.usage, 3, 'openai/gpt-4'))

    const events = await readSse(await chat(up, { model: 'openai/gpt-4:online', stream: true, messages: user('поиск') }))
    const usage = events.find((e) => e.data?.usage)!.data.usage
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1 })
    expect(usage.cost).toBe(webCost(usage, 5, 'openai/gpt-4'))

    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    await chat(up, fault('timeout', { user: 'web-timeout', plugins: [{ id: 'web' }] }), { signal: controller.signal }).catch(() => undefined)
    const stats = await until(() => [...up.generations.values()].find((g) => g.external_user === 'web-timeout'))
    expect(stats).toMatchObject({ cancelled: true, tokens_completion: 0, num_search_results: 0 })
    expect(stats.total_cost).toBe(exactCost('openai/gpt-3.5-turbo', { promptTokens: stats.tokens_prompt, completionTokens: 0 }))

    const slow = new AbortController()
    const res = await chat(up, fault('slow', { stream: true, user: 'web-slow', plugins: [{ id: 'web', max_results: 4 }] }), { signal: slow.signal })
    await readSse(res, (ev) => contentChunks(ev).length >= 1)
    slow.abort()
    const after = await until(() => up.generations.get(res.headers.get('x-generation-id')!))
    expect(after.cancelled).toBe(true)
    expect(after.num_search_results).toBe(4)
    expect(after.total_cost).toBe(exactCost('openai/gpt-3.5-turbo', { promptTokens: after.tokens_prompt, completionTokens: after.tokens_completion, webResults: 4 }))
  })

  test("per-result price: the model's pricing.web_search when > 0, else $0.004", () => {
    const base = { prompt: '0', completion: '0' }
    const usage = { promptTokens: 0, completionTokens: 0, outputImages: 0, webResults: 7 }
    expect(webResultPriceFemto({ web_search: '0' })).toBe(toFemto('0.004'))
    expect(webResultPriceFemto({})).toBe(toFemto('0.004'))
    expect(webResultPriceFemto({ web_search: '-1' })).toBe(toFemto('0.004'))
    expect(webResultPriceFemto({ web_search: '0.01' })).toBe(toFemto('0.01'))
    expect(computeCost({ ...base, web_search: '0.01' }, usage)).toEqual({ prompt: 0n, completion: toFemto('0.07'), webSearch: toFemto('0.07'), total: toFemto('0.07') })
    expect(computeCost(base, usage).total).toBe(toFemto('0.028'))
    expect(computeCost({ ...base, image: '0.0004', image_output: '0.03' }, { ...usage, webResults: 0, inputImages: 3, outputImages: 2 })).toEqual({
      prompt: toFemto('0.0012'),
      completion: toFemto('0.06'),
      webSearch: 0n,
      total: toFemto('0.0612'),
    })
  })
})

describe('overbill', () => {
  test('the reported cost, generation total_cost and key usage are 10× the true cost', async () => {
    const fresh = await startFakeUpstream({ faults: true, tokenDelayMs: 1 })
    try {
      const res = await chat(fresh, { model: 'openai/gpt-4', messages: user('сколько? [[fault:overbill]]') })
      const body = (await res.json()) as Json
      const u = body.usage
      const truth = computeCost(models.get('openai/gpt-4')!.pricing, { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, outputImages: 0 })
      expect(u.cost).toBe(femtoToUsd(10n * truth.total))
      expect(u.cost_details.upstream_inference_prompt_cost).toBe(femtoToUsd(10n * truth.prompt))
      expect(fresh.generations.get(body.id)!.total_cost).toBe(u.cost)
      expect(fresh.keyUsageUsd()).toBe(u.cost)

      fresh.failNext('overbill', (b) => b.stream === true)
      const events = await readSse(await chat(fresh, { model: 'deepseek/deepseek-chat:online', stream: true, messages: user('поиск') }))
      const su = events.find((e) => e.data?.usage)!.data.usage
      const streamTruth = computeCost(models.get('deepseek/deepseek-chat')!.pricing, {
        promptTokens: su.prompt_tokens,
        completionTokens: su.completion_tokens,
        outputImages: 0,
        webResults: 5,
      })
      expect(su.cost).toBe(femtoToUsd(10n * streamTruth.total))
      // Armed once: the next request is billed truly.
      const next = (await (await chat(fresh, { model: 'openai/gpt-4', stream: false, messages: user('сколько?') })).json()) as Json
      expect(next.usage.cost).toBe(exactCost('openai/gpt-4', { promptTokens: next.usage.prompt_tokens, completionTokens: next.usage.completion_tokens }))
    } finally {
      await fresh.stop()
    }
  })
})

describe('provider.max_price (protocols.md 1.13)', () => {
  const capped = (model: unknown, max_price: Json, extra: Json = {}) => ({ model, messages: user('привет'), provider: { max_price }, ...extra })

  test('a model priced above a cap is not used: 404, nothing generated or billed; within the caps it answers at its own price', async () => {
    const before = up.generations.size
    // gpt-4 completes at $60 per million tokens.
    const refused = await expectOpenRouterError(await chat(up, capped('openai/gpt-4', { completion: 59.99 })), 404)
    expect(refused.error.metadata.error_type).toBe('not_found')
    expect(up.generations.size).toBe(before)
    const served = (await (await chat(up, capped('openai/gpt-4', { prompt: '30', completion: '60', request: 0 }, { max_tokens: 5 }))).json()) as Json
    expect(served.model).toBe('openai/gpt-4')
    expect(served.usage.cost).toBe(expectedCost(models.get('openai/gpt-4')!.pricing, served.usage.prompt_tokens, 5))
    // A model with an input-image price does not fit an image cap below it.
    await expectOpenRouterError(await chat(up, capped('openai/gpt-4o', { image: '0.001' })), 404)
  })

  test('fallbacks above the cap are skipped: the first that fits answers', async () => {
    const body = (await (await chat(up, { ...capped('openai/gpt-4', { prompt: 1, completion: 2 }), models: ['openai/gpt-4o', 'openai/gpt-3.5-turbo'] })).json()) as Json
    expect(body.model).toBe('openai/gpt-3.5-turbo')
  })

  test('a malformed cap is a 400; an unknown model stays a 400 whatever the cap', async () => {
    await expectOpenRouterError(await chat(up, capped('openai/gpt-4', { prompt: 'cheap' })), 400)
    await expectOpenRouterError(await chat(up, { model: 'openai/gpt-4', messages: user('x'), provider: { max_price: [1] } }), 400)
    const unknown = await expectOpenRouterError(await chat(up, capped('acme/nope', { prompt: 1 })), 400)
    expect(unknown.error.message).toBe('acme/nope is not a valid model ID')
  })

  test('openrouter/auto picks the best model of its pool that fits the cap, on every protocol', async () => {
    const auto = createDemoUpstream({ autoRouterModels: ['openai/gpt-4', 'openai/gpt-4o-mini'] })
    const post = async (path: string, body: Json) => {
      const res = await auto.fetch(new Request(`http://demo/api/v1${path}`, jsonBody(body)))
      return { status: res.status, body: (await res.json()) as Json }
    }
    expect((await post('/chat/completions', { model: 'openrouter/auto', messages: user('привет') })).body.model).toBe('openai/gpt-4')
    const cheap = { max_price: { prompt: 1, completion: 1 } }
    expect((await post('/chat/completions', { model: 'openrouter/auto', messages: user('привет'), provider: cheap })).body.model).toBe('openai/gpt-4o-mini')
    expect((await post('/responses', { model: 'openrouter/auto', input: 'привет', provider: cheap })).body.model).toBe('openai/gpt-4o-mini')
    expect((await post('/messages', { model: 'openrouter/auto', max_tokens: 20, messages: user('привет'), provider: cheap })).body.model).toBe('openai/gpt-4o-mini')
    // Below every model of the pool: nothing answers, in each protocol's error shape.
    const none = { max_price: { completion: 0.1 } }
    expect(await post('/chat/completions', { model: 'openrouter/auto', messages: user('привет'), provider: none })).toMatchObject({ status: 404, body: { error: { code: 404 } } })
    expect(await post('/messages', { model: 'openrouter/auto', max_tokens: 20, messages: user('привет'), provider: none })).toMatchObject({
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error' } },
    })
    expect(auto.generations.size).toBe(4)
  })
})
