// What a hostile sender could leave unpaid by lying about its input (issue 33, points 1 and 3),
// against the real server and a fake router that bills as a real one does: on the audio its decoder
// plays, and on every token of every input it embeds. Each attack is reproduced: the hold now covers
// what the router bills (or the request is refused before the router hears of it), and after each
// the platform's uncovered sum is 0 and the books are exact.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseBuffer } from 'music-metadata'
import OpenAI, { toFile } from 'openai'
import { formatMicros } from '../content/format'
import { wavFile } from '../lib/wav'
import { mp3WithXing, mp3WithXingSeconds, wavClaiming } from '../test-support/audio'
import { expectedCharge, startGateway } from '../test-support/gateway'
import { registerUser } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>

const ADMIN = 'boss@hostile-inputs.test'
const WHISPER = 'openai/whisper-1' // $0.0001 a second, billed to the whole second
const LARGE = 'openai/text-embedding-3-large' // $0.13 per 1M tokens, context 8 192

let gw: Gateway
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN })
  admin = await registerUser(gw.url, ADMIN)
})
afterAll(() => gw.stop())

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
const routerCalls = (suffix: string) => gw.upstream.log.filter((r) => r.path.endsWith(suffix)).length

/** After every scenario: nothing the platform could not charge, and the account's books exact. */
async function booksExact(c: Customer) {
  const [{ s }] = (await gw.read<{ s: number }>('select coalesce(sum(uncovered_micros), 0) as s from uncovered_costs')) as [{ s: number }]
  expect(s).toBe(0)
  const books = await gw.books(c.user.id)
  expect(books.held).toBe(0)
  expect(books.ledgerSum).toBe(books.balance)
  expect(books.balance).toBeGreaterThanOrEqual(0)
  return books
}

/** What the Playground's estimate (the hold's own function) says `seconds` of WHISPER may cost, in micro-rubles. */
async function holdFor(seconds: number) {
  const res = await admin.api.post('/api/playground/estimate', { transcription: { model: WHISPER, seconds } }, admin.accessToken)
  expect(res.status).toBe(200)
  return Math.round(res.body.data.maxCost * 1e6)
}

const transcribe = async (c: Customer, bytes: Uint8Array, name: string) => sdk(c).audio.transcriptions.create({ file: await toFile(bytes, name), model: WHISPER })

/** The error a transcription is refused with (it must be refused). */
async function refusal(c: Customer, bytes: Uint8Array, name: string) {
  const err = await transcribe(c, bytes, name).then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(OpenAI.APIError)
  return err as InstanceType<typeof OpenAI.APIError>
}

describe('transcription is held on what the audio plays, not on what its header claims (33.1)', () => {
  const mp3 = mp3WithXing(1300) // 5 MB of frames
  const real = mp3WithXingSeconds(1300)

  test('an MP3 whose Xing header claims 0.026 s over 5 MB of frames: 402 on a 1 ₽ balance, the router never asked', async () => {
    // The header lies, and a reader that trusts it (music-metadata, the old hold) believes it.
    expect((await parseBuffer(mp3, undefined, { duration: true })).format.duration).toBeCloseTo(0.026, 3)
    const c = await gw.customerWith(admin, 1)
    const before = routerCalls('/audio/transcriptions')
    const err = await refusal(c, mp3, 'lecture.mp3')
    expect([err.status, err.code]).toEqual([402, 'insufficient_balance'])
    // The hold it was refused on is the price of the frames' 1 301 s, not of 0.026 s.
    expect(err.message).toContain(formatMicros(await holdFor(Math.ceil(real))))
    expect(routerCalls('/audio/transcriptions')).toBe(before)
    const books = await booksExact(c)
    expect([books.balance, books.usage]).toEqual([1_000_000, []])
  })

  test('the same MP3 on a 50 ₽ balance: the router bills the 1 301 s its decoder plays, and all of it is charged', async () => {
    const c = await gw.customer()
    await transcribe(c, mp3, 'lecture.mp3')
    const books = await booksExact(c)
    const [usage] = books.usage
    const gen = gw.upstream.generations.get(usage!.upstream_id!)!
    // The fake router bills on the frames, as a real one does: the attack's whole price.
    expect(gen.total_cost).toBeCloseTo(Math.ceil(real) * 0.0001, 12)
    expect(usage!.cost_micros).toBe(expectedCharge(gen.total_cost))
    expect(usage!.cost_micros).toBeGreaterThan(15_000_000)
    expect(books.balance).toBe(50_000_000 - usage!.cost_micros)
    const [row] = await gw.read<{ audio_seconds: number }>('select audio_seconds from usage_logs where user_id = ?', c.user.id)
    expect(row!.audio_seconds).toBe(Math.ceil(real))
  })

  for (const hours of [11, 9]) {
    test(`a WAV whose header claims ${hours} h over one second of samples is held (and billed) for the one second`, async () => {
      const wav = wavClaiming(1, hours * 3600)
      expect((await parseBuffer(wav, undefined, { duration: true })).format.duration).toBe(hours * 3600)
      // 1 s of Whisper is 0.012 ₽: a 0.05 ₽ balance affords it; a hold of hours (390 ₽ and more) would not.
      const c = await gw.customerWith(admin, 0.05)
      expect((await transcribe(c, wav, 'call.wav')).text).toContain('1 с')
      const books = await booksExact(c)
      const gen = gw.upstream.generations.get(books.usage[0]!.upstream_id!)!
      expect(gen.total_cost).toBeCloseTo(0.0001, 12)
      expect(books.balance).toBe(50_000 - expectedCharge(gen.total_cost))
    })
  }

  test('a WAV whose data size claims 1 s over 60 s of samples is held for the 60 s', async () => {
    const wav = wavClaiming(60, 1)
    const poor = await gw.customerWith(admin, 0.05)
    const err = await refusal(poor, wav, 'call.wav')
    expect([err.status, err.code]).toEqual([402, 'insufficient_balance'])
    expect(err.message).toContain(formatMicros(await holdFor(60)))
    await booksExact(poor)
    const c = await gw.customer()
    await transcribe(c, wav, 'call.wav')
    const books = await booksExact(c)
    expect(gw.upstream.generations.get(books.usage[0]!.upstream_id!)!.total_cost).toBeCloseTo(60 * 0.0001, 12)
  })

  test('a recording that plays longer than 10 hours is refused with 400, nothing held', async () => {
    // 11 hours of 16-bit samples at 100 Hz: 7.9 MB of real samples, within the 25 MB limit.
    const wav = wavFile(new Int16Array(11 * 3600 * 100), 100)
    const c = await gw.customer()
    const before = routerCalls('/audio/transcriptions')
    const err = await refusal(c, wav, 'night.wav')
    expect([err.status, err.code]).toEqual([400, 'audio_too_long'])
    expect(err.message).toContain('длиннее 10 часов')
    expect((err.error as { param?: string }).param).toBe('file')
    expect(routerCalls('/audio/transcriptions')).toBe(before)
    const books = await booksExact(c)
    expect([books.balance, books.usage]).toEqual([50_000_000, []])
  })
})

describe('embeddings are held for every token the router can bill (33.3)', () => {
  const post = (c: Customer, body: Record<string, unknown>) =>
    fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

  // 50 000 tokens as the router counts them — six times the model's context of 8 192, which used to
  // cap the hold (0.13 ₽) while the router billed all of it (0.78 ₽).
  const text = 'a'.repeat(200_000)
  const ids = Array.from({ length: 50_000 }, (_, i) => i % 50_000)

  for (const [name, input] of [
    ['a 200 000-character text', text],
    ['an array of 50 000 token ids', ids],
  ] as const) {
    test(`${name}: 402 on a 0.5 ₽ balance, the router never asked; on 50 ₽ all 50 000 tokens are charged`, async () => {
      const poor = await gw.customerWith(admin, 0.5)
      const before = routerCalls('/embeddings')
      const refused = await post(poor, { model: LARGE, input })
      expect(refused.status).toBe(402)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('insufficient_balance')
      expect(routerCalls('/embeddings')).toBe(before)
      const poorBooks = await booksExact(poor)
      expect([poorBooks.balance, poorBooks.usage]).toEqual([500_000, []])

      const c = await gw.customer()
      const res = await post(c, { model: LARGE, input })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { usage: { prompt_tokens: number; cost: number } }
      const books = await booksExact(c)
      const gen = gw.upstream.generations.get(books.usage[0]!.upstream_id!)!
      // The fake router bills every token, as the one in the issue did.
      expect([body.usage.prompt_tokens, gen.tokens_prompt]).toEqual([50_000, 50_000])
      expect(gen.total_cost).toBeCloseTo(50_000 * 0.00000013, 12)
      expect(books.usage[0]!.cost_micros).toBe(expectedCharge(gen.total_cost))
      expect(books.balance).toBe(50_000_000 - expectedCharge(gen.total_cost))
      expect(body.usage.cost).toBe(books.usage[0]!.cost_micros / 1e6)
    })
  }

  test('over-long inputs under a 1 ₽ key limit: refused while what the router could bill exceeds it, never served at a loss', async () => {
    const c = await gw.customer()
    const limited = await c.api.patch(`/api/auth/api-keys/${c.keyId}`, { monthlyLimit: 1 }, c.accessToken)
    expect(limited.status).toBe(200)
    for (const input of [[text, text], text]) {
      // 1.56 ₽ and 0.78 ₽ billed at most by the router's count, 6.3 ₽ and 3.1 ₽ at one token a byte: over the limit.
      const refused = await post(c, { model: LARGE, input })
      expect(refused.status).toBe(402)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded')
    }
    // 50 000 bytes hold 0.78 ₽: served, and charged what the router billed for its 12 500 tokens.
    const res = await post(c, { model: LARGE, input: 'a'.repeat(50_000) })
    expect(res.status).toBe(200)
    const books = await booksExact(c)
    const gen = gw.upstream.generations.get(books.usage[0]!.upstream_id!)!
    expect(gen.tokens_prompt).toBe(12_500)
    expect(books.usage.map((u) => u.cost_micros)).toEqual([expectedCharge(gen.total_cost)])
  })
})
