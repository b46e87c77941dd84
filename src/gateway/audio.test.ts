// Voice through the official `openai` client against the running gateway and the fake router:
// speech streams the router's audio and is charged its generation's cost, transcription takes
// OpenAI's multipart and the router's JSON and is charged usage.cost — both × rate × 1.3 — and
// neither ever spends money the account does not have.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { ceilUnits, dec, mul } from '../lib/decimal'
import { oggOpus, toneWav } from '../test-support/audio'
import { eventually, expectedCharge, startGateway, TEST_RATE, UPSTREAM_KEY } from '../test-support/gateway'

let gw: Awaited<ReturnType<typeof startGateway>>
let customer: Awaited<ReturnType<typeof gw.customer>>
let admin: Awaited<ReturnType<typeof gw.customer>>
let sdk: OpenAI

const TTS = 'openai/gpt-4o-mini-tts'
const WHISPER = 'openai/whisper-1'
const TOKEN_STT = 'openai/gpt-4o-mini-transcribe'

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: 'boss@voice.test' })
  customer = await gw.customer()
  admin = await gw.customer('boss@voice.test')
  sdk = new OpenAI({ apiKey: customer.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
})
afterAll(() => gw.stop())

type Row = {
  endpoint: string
  model: string
  status: string
  cost_micros: number
  upstream_id: string | null
  audio_seconds: number | null
  characters: number | null
  error: string | null
}
const rows = (userId: string) =>
  gw.read<Row>('select endpoint, model, status, cost_micros, upstream_id, audio_seconds, characters, error from usage_logs where user_id = ? order by created_at, id', userId)

/** Waits until the account's `count` requests are all settled (speech settles after its last byte). */
async function settled(userId: string, count: number, timeoutMs?: number) {
  const books = await eventually(async () => {
    const b = await gw.books(userId)
    return b.held === 0 && b.usage.length >= count ? b : undefined
  }, timeoutMs)
  return books!
}

/** POST /v1/audio/speech with a key, as plain fetch (to read the body piece by piece). */
const postSpeech = (key: string, body: Record<string, unknown>) =>
  fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** The audio the router sends for a speech body, asked of it directly. */
async function routerAudio(body: Record<string, unknown>) {
  const res = await fetch(`${gw.upstream.url}/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) }
}

describe('POST /v1/audio/speech', () => {
  test('openai.audio.speech.create: the router’s bytes and Content-Type, charged its generation’s cost × rate × 1.3', async () => {
    const input = 'Привет! Это проверка озвучки текста.'
    const before = await gw.books(customer.user.id)
    const res = await sdk.audio.speech.create({ model: TTS, input, voice: 'nova', response_format: 'wav' })
    expect(res.headers.get('content-type')).toBe('audio/wav')
    const id = res.headers.get('x-generation-id')!
    expect(id).toStartWith('gen-tts-')
    // What every /v1 answer carries: its request id and CORS (the generation id readable from a browser too).
    expect(res.headers.get('x-request-id')).toStartWith('req_')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-expose-headers')).toContain('x-generation-id')
    const bytes = new Uint8Array(await res.arrayBuffer())
    const direct = await routerAudio({ model: TTS, input, voice: 'nova', response_format: 'wav' })
    expect(direct.type).toBe('audio/wav')
    expect(bytes).toEqual(direct.bytes)
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe('RIFF')

    const after = await settled(customer.user.id, before.usage.length + 1)
    const charge = before.balance - after.balance
    expect(charge).toBe(expectedCharge(gw.upstream.generations.get(id)!.total_cost))
    expect(after.ledgerSum).toBe(after.balance)
    const row = (await rows(customer.user.id)).find((r) => r.upstream_id === id)!
    expect(row).toMatchObject({ endpoint: 'speech', model: TTS, status: 'success', cost_micros: charge, characters: [...input].length, audio_seconds: null, error: null })
    // The router's own request carried the caller's voice and format, and an end-user id instead of ours.
    const sent = gw.upstream.log.findLast((r) => r.path.endsWith('/audio/speech') && (r.body as any)?.input === input && (r.body as any)?.user)!
    expect(sent.body).toMatchObject({ model: TTS, voice: 'nova', response_format: 'wav' })

    // /v1/generation knows it by the id the answer carried.
    const lookup = await fetch(`${gw.url}/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${customer.key}` } })
    expect((await lookup.json()).data).toMatchObject({ model: TTS, api_type: 'speech', characters: [...input].length, total_cost: charge / 1e6 })
  })

  test('pcm keeps the router’s parameters in the Content-Type; the audio arrives before the router has finished', async () => {
    const res = await postSpeech(customer.key, { model: TTS, input: '[[fault:slow]] Медленная озвучка длинного текста', voice: 'alloy', response_format: 'pcm' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('audio/pcm;rate=24000;channels=1')
    const id = res.headers.get('x-generation-id')!
    const reader = res.body!.getReader()
    const first = await reader.read()
    expect(first.value!.byteLength).toBeGreaterThan(0)
    // Relayed as it arrives: the first bytes are here while the router is still synthesising.
    expect(gw.upstream.generations.has(id)).toBe(false)
    let total = first.value!.byteLength
    for (let r = await reader.read(); !r.done; r = await reader.read()) total += r.value.byteLength
    expect(total).toBe(2 * Math.round(24_000 * Math.min(30, Math.max(0.4, [...'[[fault:slow]] Медленная озвучка длинного текста'].length * 0.06))))
  })

  test('no generation stats from the router: charged the catalogue price × characters, and the usage row says so', async () => {
    const c = await gw.customer()
    const input = '[[fault:nostats]] Текст без отчёта о стоимости'
    const res = await sdk.audio.speech.create({ model: TTS, input, voice: 'alloy' }, { headers: { authorization: `Bearer ${c.key}` } })
    await res.arrayBuffer()
    const books = await settled(c.user.id, 1, 15_000)
    const perChar = mul(dec('0.000015'), dec(TEST_RATE), dec('1.3'))
    const expected = ceilUnits(mul(perChar, dec([...input].length)), 6)
    const [row] = await rows(c.user.id)
    expect(row).toMatchObject({ status: 'success', cost_micros: expected, characters: [...input].length })
    expect(row!.error).toContain('по цене каталога')
    expect(books.ledgerSum).toBe(books.balance)
  })

  test('the caller hangs up mid-audio: the router is stopped and what it reports is charged, once', async () => {
    const c = await gw.customer()
    const res = await postSpeech(c.key, { model: TTS, input: '[[fault:slow]] Очень длинная речь, которую никто не дослушает до конца', voice: 'alloy' })
    const id = res.headers.get('x-generation-id')!
    const reader = res.body!.getReader()
    await reader.read()
    await reader.cancel()
    const books = await settled(c.user.id, 1)
    const stats = (await eventually(() => gw.upstream.generations.get(id)))!
    expect(stats.cancelled).toBe(true)
    expect(books.usage[0]).toMatchObject({ status: 'cancelled', cost_micros: expectedCharge(stats.total_cost) })
    expect(books.ledgerSum).toBe(books.balance)
  })

  test('the router cuts the audio: nothing is charged and the hold is released', async () => {
    const c = await gw.customer()
    const res = await postSpeech(c.key, { model: TTS, input: `[[fault:break]] ${'Длинный текст. '.repeat(20)}`, voice: 'alloy' })
    expect(res.status).toBe(200)
    await expect(res.arrayBuffer()).rejects.toThrow()
    const books = await settled(c.user.id, 1)
    expect(books.usage[0]!.status).toBe('error')
    expect(books.balance).toBe(50_000_000)
  })

  test('refusals: a non-speech model, an empty or too long input, a router error (nothing held or charged)', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const err = await sdk.audio.speech.create(body as any).catch((e) => e)
      expect(err).toBeInstanceOf(OpenAI.APIError)
      return err as InstanceType<typeof OpenAI.APIError>
    }
    expect((await bad({ model: 'openai/gpt-4o-mini', input: 'Привет', voice: 'alloy' })).code).toBe('model_not_speech')
    expect((await bad({ model: 'acme/none', input: 'Привет', voice: 'alloy' })).status).toBe(404)
    expect((await bad({ model: TTS, input: 'я'.repeat(4097), voice: 'alloy' })).message).toContain('4096')
    expect((await bad({ model: TTS, input: 'Привет', voice: 'alloy', response_format: 'ogg' })).status).toBe(400)
    const failed = await bad({ model: TTS, input: '[[fault:http500]] Привет', voice: 'alloy' })
    expect(failed.status).toBe(502)
    const books = await gw.books(customer.user.id)
    expect(books.held).toBe(0)
  })
})

describe('POST /v1/audio/transcriptions', () => {
  test('a WAV through openai.audio.transcriptions.create: the transcript, charged usage.cost × rate × 1.3', async () => {
    const before = await gw.books(customer.user.id)
    const seen = new Set(gw.upstream.generations.keys())
    const result = await sdk.audio.transcriptions.create({ file: await toFile(toneWav(3.2), 'meeting.wav', { type: 'audio/wav' }), model: WHISPER, language: 'ru' })
    expect(result.text).toContain('3,2 с')
    const after = await gw.books(customer.user.id)
    const gen = [...gw.upstream.generations.values()].find((g) => !seen.has(g.id))!
    const charge = before.balance - after.balance
    expect(charge).toBe(expectedCharge(gen.total_cost))
    expect(gen.total_cost).toBeCloseTo(4 * 0.0001, 12) // billed to the whole second
    expect(after.held).toBe(0)
    expect(after.ledgerSum).toBe(after.balance)
    expect((result as any).usage).toMatchObject({ type: 'duration', seconds: 4, cost: charge / 1e6 })
    const row = (await rows(customer.user.id)).find((r) => r.upstream_id === gen.id)!
    expect(row).toMatchObject({ endpoint: 'transcription', model: WHISPER, status: 'success', audio_seconds: 4, characters: null, cost_micros: charge })
    // Forwarded as the router's JSON: base64 audio and the format read from the file.
    const sent = gw.upstream.log.findLast((r) => r.path.endsWith('/audio/transcriptions'))!
    expect(sent.headers['content-type']).toBe('application/json')
    expect((sent.body as any).input_audio.format).toBe('wav')
    expect(Buffer.from((sent.body as any).input_audio.data, 'base64')).toEqual(Buffer.from(toneWav(3.2)))
  })

  test('an OGG/Opus voice message in text, srt, vtt and verbose_json', async () => {
    const voiceNote = await toFile(oggOpus(7.5), 'voice.ogg', { type: 'audio/ogg' })
    const text = await sdk.audio.transcriptions.create({ file: voiceNote, model: WHISPER, response_format: 'text' })
    expect(typeof text).toBe('string')
    expect(text).toContain('7,5 с')
    const srt = await sdk.audio.transcriptions.create({ file: await toFile(oggOpus(7.5), 'voice.ogg'), model: WHISPER, response_format: 'srt' })
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:07,500\nДемо-расшифровка: .*7,5 с/)
    const vtt = await sdk.audio.transcriptions.create({ file: await toFile(oggOpus(7.5), 'voice.ogg'), model: WHISPER, response_format: 'vtt' })
    expect(vtt).toStartWith('WEBVTT\n\n00:00:00.000 --> 00:00:07.500\n')
    const verbose = await sdk.audio.transcriptions.create({ file: await toFile(oggOpus(7.5), 'voice.ogg'), model: WHISPER, response_format: 'verbose_json', language: 'en' })
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'en', duration: 7.5 })
    expect(verbose.text).toContain('7.5 s')
    expect(verbose.segments).toEqual([expect.objectContaining({ id: 0, start: 0, end: 7.5, text: verbose.text })])
    const sent = gw.upstream.log.findLast((r) => r.path.endsWith('/audio/transcriptions'))!
    expect((sent.body as any).input_audio.format).toBe('ogg')
    expect((sent.body as any).response_format).toBeUndefined() // answered in the caller's format by the gateway
    const books = await gw.books(customer.user.id)
    expect(books.held).toBe(0)
    expect(books.ledgerSum).toBe(books.balance)
  })

  test('the router’s JSON form, on a model priced per token', async () => {
    const c = await gw.customer()
    const res = await fetch(`${gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: TOKEN_STT, input_audio: { data: Buffer.from(oggOpus(12)).toString('base64'), format: 'ogg' } }),
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.text).toContain('12 с')
    const books = await gw.books(c.user.id)
    const gen = gw.upstream.generations.get(res.headers.get('x-generation-id')!)!
    expect(50_000_000 - books.balance).toBe(expectedCharge(gen.total_cost))
    expect(body.usage).toMatchObject({ type: 'tokens', input_tokens: 120, cost: expectedCharge(gen.total_cost) / 1e6 })
    expect(books.usage[0]).toMatchObject({ status: 'success', prompt_tokens: 120 })
  })

  test('a 26 MB file is refused with 413, an unreadable one with 400; nothing is held', async () => {
    const big = await sdk.audio.transcriptions.create({ file: await toFile(new Uint8Array(26 * 1024 * 1024), 'long.wav'), model: WHISPER }).catch((e) => e)
    expect(big).toBeInstanceOf(OpenAI.APIError)
    expect(big.status).toBe(413)
    expect(big.code).toBe('request_too_large')
    expect(big.message).toContain('25 МБ')
    const junk = await sdk.audio.transcriptions.create({ file: await toFile(new TextEncoder().encode('это не звук, а текст'), 'note.mp3'), model: WHISPER }).catch((e) => e)
    expect(junk.status).toBe(400)
    expect(junk.code).toBe('invalid_audio')
    expect(junk.message).toContain('длительность записи')
    const wrongModel = await sdk.audio.transcriptions.create({ file: await toFile(toneWav(1), 'a.wav'), model: TTS }).catch((e) => e)
    expect(wrongModel.code).toBe('model_not_transcription')
    const noFile = await fetch(`${gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: WHISPER }),
    })
    expect(noFile.status).toBe(400)
    expect((await noFile.json()).error.message).toContain('input_audio')
    expect((await gw.books(customer.user.id)).held).toBe(0)
  })
})

describe('money', () => {
  test('a 0 ₽ account gets 402 with the top-up action on both routes', async () => {
    const broke = await gw.customer()
    await admin.api.post(`/api/admin/users/${broke.user.id}/balance`, { amount: -50, description: 'test' }, admin.accessToken)
    const client = new OpenAI({ apiKey: broke.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
    const speech = await client.audio.speech.create({ model: TTS, input: 'Привет', voice: 'alloy' }).catch((e) => e)
    const stt = await client.audio.transcriptions.create({ file: await toFile(toneWav(2), 'a.wav'), model: WHISPER }).catch((e) => e)
    for (const err of [speech, stt]) {
      expect(err.status).toBe(402)
      expect(err.code).toBe('insufficient_balance')
      expect(err.error.action).toEqual({ label: 'Пополнить баланс', url: '/app/billing' })
      expect(err.headers.get('x-request-id')).toBeTruthy()
    }
    expect(await rows(broke.user.id)).toEqual([])
  })

  test('20 concurrent voice requests on a small balance: served or refused with 402, never below zero, nothing left held', async () => {
    const poor = await gw.customer()
    await admin.api.post(`/api/admin/users/${poor.user.id}/balance`, { amount: 12 - 50, description: 'test' }, admin.accessToken)
    const client = new OpenAI({ apiKey: poor.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
    const long = 'Длинный текст для озвучки. '.repeat(80) // ~3.9 ₽ held each
    const recording = oggOpus(600) // ten minutes: ~9.4 ₽ held each
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        try {
          if (i % 2) {
            await (await client.audio.speech.create({ model: TTS, input: long, voice: 'alloy' })).arrayBuffer()
          } else await client.audio.transcriptions.create({ file: await toFile(recording, 'long.ogg'), model: WHISPER })
          return 200
        } catch (e) {
          expect((e as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_balance')
          return (e as InstanceType<typeof OpenAI.APIError>).status
        }
      }),
    )
    expect(results.filter((s) => s !== 200 && s !== 402)).toEqual([])
    expect(results).toContain(200)
    expect(results).toContain(402)
    const served = results.filter((s) => s === 200).length
    const books = await settled(poor.user.id, served)
    expect(books.balance).toBeGreaterThanOrEqual(0)
    expect(books.held).toBe(0)
    expect(books.ledgerSum).toBe(books.balance)
    for (const u of books.usage) expect(u.cost_micros).toBe(expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost))
    const [{ n }] = (await gw.read<{ n: number }>('select count(*) as n from uncovered_costs')) as [{ n: number }]
    expect(n).toBe(0)
  })
})

describe('usage', () => {
  test('the usage stats, the CSV export and the admin totals measure voice in seconds and characters', async () => {
    const stats = (await customer.api.get('/api/billing/usage', customer.accessToken)).body.data
    const served = (model: string) => stats.logs.find((l: { model: string; status: string }) => l.model === model && l.status === 'success')
    const whisper = served(WHISPER)
    const tts = served(TTS)
    // Plain comparisons: bun's toMatchObject writes its asymmetric matchers into the object it checks.
    expect([typeof whisper.audioSeconds, whisper.characters]).toEqual(['number', null])
    expect([tts.audioSeconds, typeof tts.characters]).toEqual([null, 'number'])
    const top = stats.topModels.find((m: { model: string }) => m.model === WHISPER)
    expect(top.audioSeconds).toBeGreaterThanOrEqual(whisper.audioSeconds)

    const csv = await (await fetch(`${gw.url}/api/billing/usage/export?format=csv`, { headers: { authorization: `Bearer ${customer.accessToken}` } })).text()
    const lines = csv.split('\r\n')
    expect(lines[0]).toContain('Секунд аудио,Символов')
    expect(lines.find((l) => l.includes(`,${WHISPER},`))).toMatch(/,\d+,,\d+\.\d+,успешно,/)
    expect(lines.find((l) => l.includes(`,${TTS},`))).toMatch(/,,\d+,\d+\.\d+,успешно,/)

    const admin_ = (await admin.api.get('/api/admin/stats', admin.accessToken)).body.data
    expect(admin_.usage.totalAudioSeconds).toBeGreaterThan(0)
    expect(admin_.usage.totalCharacters).toBeGreaterThan(0)
  })
})

describe('catalogue', () => {
  test('/v1/models lists the voice models with their type; chat routes refuse them', async () => {
    const models = (await sdk.models.list()).data as any[]
    expect(models.find((m) => m.id === TTS)).toMatchObject({ type: 'speech', capabilities: { speech: true }, voices: expect.arrayContaining(['alloy', 'nova']) })
    expect(models.find((m) => m.id === WHISPER)).toMatchObject({ type: 'transcription', capabilities: { transcription: true } })
    expect(Number(models.find((m) => m.id === WHISPER).pricing.audio_second)).toBeCloseTo(0.0001 * Number(TEST_RATE) * 1.3, 9)
    expect(models.find((m) => m.id === 'openai/gpt-4o').type).toBe('chat')
    const chat = await sdk.chat.completions.create({ model: TTS, messages: [{ role: 'user', content: 'Привет' }] }).catch((e) => e)
    expect(chat.code).toBe('model_is_speech')
    const stt = await sdk.chat.completions.create({ model: WHISPER, messages: [{ role: 'user', content: 'Привет' }] }).catch((e) => e)
    expect(stt.code).toBe('model_is_transcription')
  })

  test('the Playground’s estimate prices speech by characters and transcription by seconds', async () => {
    const speech = await customer.api.post('/api/playground/estimate', { speech: { model: TTS, input: 'я'.repeat(1000), voice: 'alloy' } }, customer.accessToken)
    expect(speech.status).toBe(200)
    const perChar = mul(dec('0.000015'), dec(TEST_RATE), dec('1.3'))
    expect(speech.body.data.maxCost).toBe(ceilUnits(mul(perChar, dec(1000)), 6) / 1e6)
    const stt = await customer.api.post('/api/playground/estimate', { transcription: { model: WHISPER, seconds: 59.2 } }, customer.accessToken)
    expect(stt.body.data).toMatchObject({ affordable: true, maxCost: ceilUnits(mul(dec('0.0001'), dec(60), dec(TEST_RATE), dec('1.3')), 6) / 1e6 })
  })
})
