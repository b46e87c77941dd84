// What a hostile pass found (issue 22), each against the real server and a recording fake router:
// every protocol holds the routing fields alike; a limit the customer set is never exceeded; no
// raw end-user id leaves us; a deleted account's files are gone; a picture's link is renewed only
// for its owner, and a picture generated before owners were recorded belongs to the first chat
// that named it; /v1/generation finds an answer by the id its client saw.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chatMessages } from '../chats/schema'
import { LEGAL_DOCUMENTS } from '../content/legal'
import { openDatabase } from '../db/client'
import { write } from '../db/tx'
import { newId } from '../lib/crypto'
import { dec, floorDiv, mul } from '../lib/decimal'
import { eventually, expectedCharge, startGateway, TEST_RATE } from '../test-support/gateway'
import { freshIp, registerUser, TEST_JWT_SECRET } from '../test-support/server'
import { withPriceCap } from './upstream-body'

type Gateway = Awaited<ReturnType<typeof startGateway>>
type Customer = Awaited<ReturnType<Gateway['customer']>>

const ADMIN = 'boss@hostile.test'
const say = (text: string) => [{ role: 'user', content: text }]

let gw: Gateway
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  // The auto router prefers GPT-4, then GPT-4o-mini: an answer can cost far more than a small limit.
  gw = await startGateway({ ADMIN_EMAILS: ADMIN }, { autoRouterModels: ['openai/gpt-4', 'openai/gpt-4o-mini'] })
  admin = await registerUser(gw.url, ADMIN)
})
afterAll(() => gw.stop())

const post = (c: Customer, path: string, body: Record<string, unknown>, token = c.key) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const sentTo = (suffix: string, since: number) => gw.upstream.log.slice(since).filter((r) => r.path.endsWith(suffix))
const setLimit = (c: Customer, rub: number) => c.api.patch(`/api/auth/api-keys/${c.keyId}`, { monthlyLimit: rub }, c.accessToken)

describe('every protocol holds what it forwards (routing fields read once for all)', () => {
  test('a 0.05 ₽ account: /v1/messages and /v1/embeddings with fallbacks or web plugins get their 402, and the router hears nothing', async () => {
    const c = await gw.customerWith(admin, 0.05)
    const since = gw.upstream.log.length
    const messages = { model: 'openai/gpt-3.5-turbo', max_tokens: 16, messages: say('привет') }
    const input = 'слово '.repeat(1500) // 16 504 tokens at most (one a byte): within 0.05 ₽ on the small model, not on the large one
    const embeddings = { model: 'openai/text-embedding-3-small', input }
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/v1/messages', { ...messages, models: ['openai/gpt-4'] }],
      ['/v1/messages', { ...messages, plugins: [{ id: 'web', max_results: 100 }] }],
      ['/v1/messages', { ...messages, web_search_options: {} }],
      ['/v1/messages', { ...messages, models: ['openai/gpt-4'], plugins: [{ id: 'web', max_results: 100 }] }],
      ['/v1/embeddings', { ...embeddings, models: ['openai/text-embedding-3-large'] }],
      ['/v1/embeddings', { ...embeddings, plugins: [{ id: 'web', max_results: 100 }] }],
      ['/v1/responses', { model: 'openai/gpt-3.5-turbo', max_output_tokens: 16, input: 'привет', web_search_options: {} }],
    ]
    for (const [path, body] of cases) {
      const res = await post(c, path, body)
      const json = (await res.json()) as Record<string, any>
      expect([path, res.status]).toEqual([path, 402])
      if (path === '/v1/messages') expect(json).toMatchObject({ type: 'error', error: { type: 'billing_error', message: expect.stringContaining('Недостаточно средств') } })
      else expect(json.error).toMatchObject({ code: 'insufficient_balance', message: expect.stringContaining('Недостаточно средств') })
    }
    expect(gw.upstream.log.length).toBe(since)
    const books = await gw.books(c.user.id)
    expect({ balance: books.balance, held: books.held, usage: books.usage }).toEqual({ balance: 50_000, held: 0, usage: [] })

    // Without the routing fields the same requests fit: the 402s came from what those fields cost.
    expect((await post(c, '/v1/messages', messages)).status).toBe(200)
    expect((await post(c, '/v1/embeddings', embeddings)).status).toBe(200)
  })

  test('what is forwarded is what was held: the web plugin with its explicit max_results, fallbacks as named, on Messages as on chat', async () => {
    const c = await gw.customer()
    const since = gw.upstream.log.length
    const res = await post(c, '/v1/messages', {
      model: 'openai/gpt-3.5-turbo',
      models: ['openai/gpt-4o-mini'],
      max_tokens: 16,
      plugins: [{ id: 'web' }, { id: 'response-healing' }],
      messages: say('новости'),
    })
    expect(res.status).toBe(200)
    const [sent] = sentTo('/messages', since)
    expect(sent!.body).toMatchObject({ models: ['openai/gpt-4o-mini'], plugins: [{ id: 'web', max_results: 5 }, { id: 'response-healing' }] })
  })

  test('what no price bounds is refused with a clear 400 before anything is held or sent', async () => {
    const c = await gw.customer()
    const since = gw.upstream.log.length
    const base = { model: 'openai/gpt-4o-mini', max_tokens: 16, messages: say('привет') }
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/chat/completions', { ...base, plugins: [{ id: 'fusion' }] }, 'Плагин fusion не поддерживается'],
      ['/v1/messages', { ...base, plugins: [{ id: 'file-parser', pdf: { engine: 'mistral-ocr' } }] }, 'Движок разбора PDF mistral-ocr не поддерживается'],
      ['/v1/chat/completions', { ...base, route: 'cheapest' }, 'route может быть только "fallback"'],
      ['/v1/responses', { model: 'openai/gpt-4o-mini', input: 'привет', provider: { max_price: { prompt: 'дёшево' } } }, 'provider.max_price'],
      ['/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'x', models: 'openai/text-embedding-3-large' }, 'models должен быть массивом'],
    ]
    for (const [path, body, message] of cases) {
      const res = await post(c, path, body)
      expect([path, res.status]).toEqual([path, 400])
      const json = (await res.json()) as Record<string, any>
      expect(json.error.message).toContain(message)
    }
    expect(gw.upstream.log.length).toBe(since)
    expect((await gw.books(c.user.id)).usage).toEqual([])
  })
})

describe('a limit the customer set is never exceeded', () => {
  // ~1 500 prompt tokens and a long answer: at GPT-4's prices well over $0.05.
  const dear = { model: 'openrouter/auto', messages: say(`[[fault:long]] ${'а'.repeat(6000)}`) }
  const budgetUsd = (rub: number) => floorDiv(mul(dec(rub), dec('1000000000000000')), mul(dec(TEST_RATE), dec('1.3'))) / 1e15

  test('without a limit the auto router answers with GPT-4 and the router reports over $0.05 (the balance pays it)', async () => {
    const c = await gw.customer()
    const res = await post(c, '/v1/chat/completions', dear)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, any>
    expect(body.model).toBe('openai/gpt-4')
    const cost = gw.upstream.generations.get(body.id)!.total_cost
    expect(cost).toBeGreaterThan(0.05)
    expect((await gw.books(c.user.id)).usage[0]!.cost_micros).toBe(expectedCharge(cost))
    expect(expectedCharge(cost)).toBeGreaterThan(5_000_000)
  })

  test('a 1 ₽ key limit: the forwarded body carries max_price and max_tokens from the hold, the router picks within them, usage ≤ 1 ₽', async () => {
    const c = await gw.customer()
    expect((await setLimit(c, 1)).status).toBe(200)
    const since = gw.upstream.log.length
    const res = await post(c, '/v1/chat/completions', dear)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, any>
    const [sent] = sentTo('/chat/completions', since)
    const forwarded = sent!.body as Record<string, any>
    expect(forwarded.max_tokens).toBe(4096)
    expect(forwarded.provider.max_price).toEqual({ prompt: expect.any(String), completion: expect.any(String), request: '0' })
    // Whatever the router picks within the caps, the answer cannot cost more than the 1 ₽ held.
    const cap = forwarded.provider.max_price
    const stats = gw.upstream.generations.get(body.id)!
    expect((stats.tokens_prompt * Number(cap.prompt)) / 1e6 + (forwarded.max_tokens * Number(cap.completion)) / 1e6).toBeLessThanOrEqual(budgetUsd(1))
    expect(body.model).toBe('openai/gpt-4o-mini') // GPT-4 is above the caps
    const books = await gw.books(c.user.id)
    expect(books.usage[0]!.cost_micros).toBe(expectedCharge(stats.total_cost))
    expect(books.usage[0]!.cost_micros).toBeLessThanOrEqual(1_000_000)
    const key = (await (await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${c.key}` } })).json()) as { data: { usage: number; limit: number } }
    expect(key.data.limit).toBe(1)
    expect(key.data.usage).toBeLessThanOrEqual(1)
    expect(books.held).toBe(0)
  })

  test('the customer’s own provider settings are kept and their lower caps win; ours are never loosened', async () => {
    const c = await gw.customer()
    await setLimit(c, 1)
    const since = gw.upstream.log.length
    const res = await post(c, '/v1/chat/completions', { ...dear, provider: { sort: 'price', max_price: { completion: 0.9, prompt: 1000 } } })
    expect(res.status).toBe(200)
    const forwarded = sentTo('/chat/completions', since)[0]!.body as Record<string, any>
    expect(forwarded.provider.sort).toBe('price')
    expect(forwarded.provider.max_price.completion).toBe(0.9)
    expect(Number(forwarded.provider.max_price.prompt)).toBeLessThan(1)
  })

  test('merging: each of the caller’s caps is kept only where it is lower than ours (numbers in any JSON form); other provider fields untouched', () => {
    const ours = { prompt: '0.5', completion: '2', request: '0' }
    expect(withPriceCap({ order: ['a'], max_price: { prompt: 1e-7, completion: '3', request: 0, image: 0.01 } }, ours)).toEqual({
      order: ['a'],
      max_price: { prompt: 1e-7, completion: '2', request: '0', image: 0.01 },
    })
    expect(withPriceCap(undefined, ours)).toEqual({ max_price: ours })
    expect(withPriceCap({ max_price: { prompt: 'free' } }, ours)).toEqual({ max_price: ours })
  })

  test('the same cap goes out on Responses and Messages (max_output_tokens / max_tokens)', async () => {
    const c = await gw.customer()
    await setLimit(c, 3)
    const since = gw.upstream.log.length
    expect((await post(c, '/v1/responses', { model: 'openrouter/auto', input: 'привет' })).status).toBe(200)
    expect((await post(c, '/v1/messages', { model: 'openrouter/auto', max_tokens: 300, messages: say('привет') })).status).toBe(200)
    const responses = sentTo('/responses', since)[0]!.body as Record<string, any>
    const messages = sentTo('/messages', since)[0]!.body as Record<string, any>
    expect(responses).toMatchObject({ max_output_tokens: 4096, provider: { max_price: { request: '0' } } })
    expect(messages).toMatchObject({ max_tokens: 300, provider: { max_price: { request: '0' } } })
    // A shorter answer leaves room for a dearer model: the cap grows as max_tokens shrinks.
    expect(Number(messages.provider.max_price.completion)).toBeGreaterThan(Number(responses.provider.max_price.completion))
  })

  test('what max_price cannot bound under a limit (web search, pictures) is refused with 402; nothing is sent', async () => {
    const c = await gw.customer()
    await setLimit(c, 5)
    const since = gw.upstream.log.length
    for (const body of [
      { ...dear, plugins: [{ id: 'web' }] },
      { model: 'openrouter/auto:online', messages: say('новости') },
    ]) {
      const res = await post(c, '/v1/chat/completions', body)
      expect(res.status).toBe(402)
      expect(((await res.json()) as Record<string, any>).error).toMatchObject({ code: 'limit_uncappable', message: expect.stringContaining('веб-поиска') })
    }
    expect(gw.upstream.log.length).toBe(since)
    // The web session has no limit: the balance's rules apply (the reported cost is charged).
    expect((await post(c, '/v1/chat/completions', { model: 'openrouter/auto', messages: say('новости'), plugins: [{ id: 'web' }] }, c.accessToken)).status).toBe(200)
  })

  test('a 1 ₽ limit and a variable-price answer the router bills at more than 1 ₽ anyway: the key is charged the 1 ₽ held, the rest is on record', async () => {
    const c = await gw.customer()
    await setLimit(c, 1)
    // A long prompt GPT-4o-mini fits under the cap; the router then reports ten times its price (about $0.01).
    gw.upstream.failNext('overbill', (b) => b.model === 'openrouter/auto' && JSON.stringify(b).includes('ббб'))
    const res = await post(c, '/v1/chat/completions', { model: 'openrouter/auto', messages: say(`[[fault:long]] ${'б'.repeat(24_000)}`) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, any>
    expect(body.model).toBe('openai/gpt-4o-mini')
    const reported = expectedCharge(gw.upstream.generations.get(body.id)!.total_cost)
    expect(reported).toBeGreaterThan(1_000_000)
    const books = await gw.books(c.user.id)
    expect(books.usage[0]!.cost_micros).toBe(1_000_000)
    const key = (await (await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${c.key}` } })).json()) as { data: { usage: number; limit_remaining: number } }
    expect(key.data).toMatchObject({ usage: 1, limit_remaining: 0 })
    expect(await gw.read('select charged_micros, uncovered_micros from uncovered_costs where user_id = ?', c.user.id)).toEqual([
      { charged_micros: 1_000_000, uncovered_micros: reported - 1_000_000 },
    ])
  })

  test('even when the router bills more than the hold, a limited key is charged at most the hold; the rest is recorded as uncovered', async () => {
    const c = await gw.customer()
    await setLimit(c, 2)
    gw.upstream.failNext('overbill', (b) => b.model === 'openai/gpt-4' && b.max_tokens === 100)
    const res = await post(c, '/v1/chat/completions', { model: 'openai/gpt-4', max_tokens: 100, messages: say('[[fault:long]] пиши') })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, any>
    const cost = expectedCharge(gw.upstream.generations.get(body.id)!.total_cost)
    const books = await gw.books(c.user.id)
    const [u] = books.usage
    const [row] = await gw.read<{ held_micros: number; cost_micros: number; charged_micros: number; uncovered_micros: number }>(
      'select held_micros, cost_micros, charged_micros, uncovered_micros from uncovered_costs where user_id = ?',
      c.user.id,
    )
    expect(cost).toBeGreaterThan(row!.held_micros)
    expect(row).toEqual({ held_micros: row!.held_micros, cost_micros: cost, charged_micros: row!.held_micros, uncovered_micros: cost - row!.held_micros })
    expect(u!.cost_micros).toBe(row!.held_micros)
    expect(u!.cost_micros).toBeLessThanOrEqual(2_000_000)
    expect(books.balance).toBe(50_000_000 - u!.cost_micros)
    expect(books.ledgerSum).toBe(books.balance)
    expect(body.usage.cost).toBe(u!.cost_micros / 1e6)
  })
})

describe('no raw end-user id reaches the router', () => {
  test('every protocol sends our hashed id (user / metadata.user_id) instead of the caller’s, and nothing else that names the customer', async () => {
    const c = await gw.customer()
    const raw = `alice+${c.user.id}@example.com`
    const hashed = createHash('sha256').update(`user:${c.user.id}`).digest('hex').slice(0, 32)
    const since = gw.upstream.log.length
    const calls: Array<[string, Record<string, unknown>]> = [
      ['/v1/chat/completions', { model: 'openai/gpt-4o-mini', max_tokens: 8, user: raw, safety_identifier: raw, messages: say('привет') }],
      ['/v1/chat/completions', { model: 'openai/gpt-4o-mini', max_tokens: 8, stream: true, user: raw, messages: say('привет') }],
      ['/v1/responses', { model: 'openai/gpt-4o-mini', max_output_tokens: 8, user: raw, input: 'привет' }],
      ['/v1/messages', { model: 'openai/gpt-4o-mini', max_tokens: 8, user: raw, metadata: { user_id: raw }, messages: say('привет') }],
      ['/v1/embeddings', { model: 'openai/text-embedding-3-small', user: raw, input: 'привет' }],
      ['/v1/images', { model: 'black-forest-labs/flux.2-pro', prompt: 'маяк', user: raw, response_format: 'b64_json' }],
    ]
    for (const [path, body] of calls) {
      const res = await post(c, path, body)
      expect([path, res.status]).toEqual([path, 200])
      await res.text()
    }
    const recorded = gw.upstream.log.slice(since)
    expect(recorded.map((r) => r.path.replace('/api/v1', ''))).toEqual(['/chat/completions', '/chat/completions', '/responses', '/messages', '/embeddings', '/chat/completions'])
    for (const r of recorded) {
      const text = JSON.stringify(r.body)
      for (const id of [raw, c.user.id, c.email, c.user.id.slice(0, 8)]) expect([r.path, text.includes(id)]).toEqual([r.path, false])
      const body = r.body as Record<string, any>
      if (r.path.endsWith('/messages')) {
        expect(body.metadata).toEqual({ user_id: hashed })
        expect(body.user).toBeUndefined()
      } else expect(body.user).toBe(hashed)
      if (body.safety_identifier !== undefined) expect(body.safety_identifier).toBe(hashed)
    }
  })
})

describe('deleted means gone', () => {
  const MB_PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')

  async function withFiles() {
    const c = await gw.customer()
    const form = new FormData()
    form.append('file', new File([MB_PDF], 'договор.pdf'))
    const up = await fetch(`${gw.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${c.accessToken}`, 'x-forwarded-for': freshIp() }, body: form })
    expect(up.status).toBe(201)
    const upload = ((await up.json()) as { data: { url: string } }).data.url
    const gen = await post(c, '/v1/images', { model: 'google/gemini-2.5-flash-image', prompt: 'кот', response_format: 'url' })
    expect(gen.status).toBe(200)
    const image = ((await gen.json()) as { data: Array<{ url: string }> }).data[0]!.url
    const files = [join(gw.server.dataDir, 'uploads', new URL(upload).pathname.split('/').pop()!), join(gw.server.dataDir, 'generated', new URL(image).pathname.split('/').pop()!)]
    for (const url of [upload, image]) expect((await fetch(url)).status).toBe(200)
    for (const f of files) expect(existsSync(f)).toBe(true)
    // A Responses answer is stored (issue 28) with what the customer wrote: it goes with the account too.
    expect((await post(c, '/v1/responses', { model: 'openai/gpt-4o-mini', max_output_tokens: 8, input: 'личное' })).status).toBe(200)
    expect((await gw.read('select id from stored_responses where user_id = ?', c.user.id)).length).toBe(1)
    return { c, links: [upload, image], files }
  }

  async function expectGone({ c, links, files }: Awaited<ReturnType<typeof withFiles>>) {
    for (const url of links) expect([url, (await fetch(url)).status]).toEqual([url, 404])
    for (const f of files) expect([f, existsSync(f)]).toEqual([f, false])
    expect(await gw.read('select name from uploads where user_id = ?', c.user.id)).toEqual([])
    expect(await gw.read('select name from generated_images where user_id = ?', c.user.id)).toEqual([])
    expect(await gw.read('select id from stored_responses where user_id = ?', c.user.id)).toEqual([])
  }

  test('«Удалить аккаунт»: the customer’s uploads and pictures answer 404 at once, signed links included, and their files are removed', async () => {
    const owned = await withFiles()
    const res = await fetch(`${gw.url}/api/auth/account`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${owned.c.accessToken}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ email: owned.c.email }),
    })
    expect(res.status).toBe(200)
    await expectGone(owned)
  })

  test('an admin’s deletion does the same', async () => {
    const owned = await withFiles()
    const res = await fetch(`${gw.url}/api/admin/users/${owned.c.user.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${admin.accessToken}` } })
    expect(res.status).toBe(200)
    await expectGone(owned)
  })

  test('the privacy policy says so', () => {
    const text = JSON.stringify(LEGAL_DOCUMENTS['privacy-policy'])
    expect(text).toContain('При удалении аккаунта его чаты, сохранённые ответы Responses API, загруженные файлы и созданные изображения удаляются сразу')
    expect(text).toContain('ссылки на файлы и изображения, в том числе выданные ранее, перестают открываться, а сами файлы стираются из хранилища')
  })
})

describe('a picture’s link is renewed only for its owner', () => {
  test('a chat message naming another customer’s picture keeps its stale link; the owner’s own gets a fresh one', async () => {
    const owner = await gw.customer()
    const other = await gw.customer()
    const gen = await post(owner, '/v1/images', { model: 'google/gemini-2.5-flash-image', prompt: 'маяк', response_format: 'url' })
    const url = ((await gen.json()) as { data: Array<{ url: string }> }).data[0]!.url
    const stale = `${url.split('?')[0]}?exp=1000&sig=stale`
    const imagesInChat = async (c: Customer) => {
      const chat = await c.api.post('/api/chats', { title: 'чужая картинка', model: 'google/gemini-2.5-flash-image' }, c.accessToken)
      const content = JSON.stringify({ type: 'image-message', text: 'вот', images: [stale], metadata: {} })
      expect((await c.api.post(`/api/chats/${chat.body.data.id}/messages`, { role: 'assistant', content }, c.accessToken)).status).toBe(201)
      return (await c.api.get(`/api/chats/${chat.body.data.id}`, c.accessToken)).body.data.messages[0].images as string[]
    }
    expect(await imagesInChat(other)).toEqual([stale])
    const [fresh] = await imagesInChat(owner)
    expect(fresh).not.toBe(stale)
    expect(new URL(fresh!).pathname).toBe(new URL(url).pathname)
    expect((await fetch(fresh!)).status).toBe(200)
    expect((await fetch(stale)).status).toBe(404)
  })
})

describe('a picture generated before owners were recorded belongs to the chat that named it first', () => {
  const link = (name: string, exp: number) => `${gw.url}/v1/files/${name}?exp=${exp}&sig=${createHmac('sha256', TEST_JWT_SECRET).update(`${name}:${exp}`).digest('base64url')}`

  /** An old Playground picture: its bytes in UPLOADS_DIR/generated, no owner row, links signed as they were. */
  function legacyPicture() {
    const name = `${randomBytes(24).toString('base64url')}.png`
    const file = join(gw.server.dataDir, 'generated', name)
    const bytes = new Uint8Array(randomBytes(64))
    writeFileSync(file, bytes)
    return { name, file, bytes, stale: link(name, 1000), live: link(name, Math.floor(Date.now() / 1000) + 3600) }
  }
  type Legacy = ReturnType<typeof legacyPicture>

  /**
   * A chat of `c`'s whose one assistant message shows `pictures` by the links the Playground stored.
   * Saved `daysAgo` straight into the server's database, as an old chat is (nothing meets its
   * pictures on the way in); with no `daysAgo`, posted today through the API.
   */
  async function chatShowing(c: Customer, pictures: Legacy[], daysAgo?: number) {
    const chat = await c.api.post('/api/chats', { title: 'старые картинки', model: 'google/gemini-2.5-flash-image' }, c.accessToken)
    const id = chat.body.data.id as string
    const content = JSON.stringify({ type: 'image-message', text: 'готово', images: pictures.map((p) => p.stale), metadata: {} })
    if (daysAgo === undefined) expect((await c.api.post(`/api/chats/${id}/messages`, { role: 'assistant', content }, c.accessToken)).status).toBe(201)
    else {
      const { db, close } = openDatabase(gw.server.databaseUrl)
      const createdAt = new Date(Date.now() - daysAgo * 86_400_000)
      await write(db, (q) => q.insert(chatMessages).values({ id: newId(), chatId: id, role: 'assistant', content, files: null, metadata: null, createdAt }))
      await close()
    }
    return async () => (await c.api.get(`/api/chats/${id}`, c.accessToken)).body.data.messages[0].images as string[]
  }
  const ownerOf = async (p: Legacy) => (await gw.read<{ user_id: string }>('select user_id from generated_images where name = ?', p.name)).map((r) => r.user_id)
  const served = async (url: string) => {
    const res = await fetch(url)
    return res.status === 200 ? new Uint8Array(await res.arrayBuffer()) : res.status
  }

  test('its owner’s chat gets a fresh link that serves it; a chat naming it later does not, read first or not; deleting the owner deletes it', async () => {
    const owner = await gw.customer()
    const other = await gw.customer()
    const pic = legacyPicture()
    const ownersView = await chatShowing(owner, [pic], 30)
    expect(await ownerOf(pic)).toEqual([])

    // The later chat is met first (posting returns the message with its links): the picture is
    // given to the account whose chat named it first, not to this one.
    const othersView = await chatShowing(other, [pic])
    expect(await ownerOf(pic)).toEqual([owner.user.id])
    expect(await othersView()).toEqual([pic.stale])
    const [fresh] = await ownersView()
    expect(fresh).not.toBe(pic.stale)
    expect(new URL(fresh!).pathname).toBe(`/v1/files/${pic.name}`)
    expect(await served(fresh!)).toEqual(pic.bytes)
    expect(await othersView()).toEqual([pic.stale])

    const res = await fetch(`${gw.url}/api/auth/account`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${owner.accessToken}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ email: owner.email }),
    })
    expect(res.status).toBe(200)
    for (const url of [fresh!, pic.live]) expect(await served(url)).toBe(404)
    expect(existsSync(pic.file)).toBe(false)
    expect(await ownerOf(pic)).toEqual([])
    expect(await othersView()).toEqual([pic.stale])
  })

  test('an erasure first gives the account the old pictures its chats named first, never shown since, and deletes them; one another account named first stays theirs', async () => {
    const erased = await gw.customer()
    const keeper = await gw.customer()
    const mine = legacyPicture()
    const theirs = legacyPicture()
    const keepersView = await chatShowing(keeper, [theirs], 30)
    await chatShowing(erased, [mine, theirs], 20)
    const res = await fetch(`${gw.url}/api/admin/users/${erased.user.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${admin.accessToken}` } })
    expect(res.status).toBe(200)
    expect(await served(mine.live)).toBe(404)
    expect(existsSync(mine.file)).toBe(false)
    expect(await ownerOf(mine)).toEqual([])
    expect(existsSync(theirs.file)).toBe(true)
    expect(await ownerOf(theirs)).toEqual([keeper.user.id])
    const [fresh] = await keepersView()
    expect(await served(fresh!)).toEqual(theirs.bytes)
  })

  test('a signed link meets it too: served once a chat names it (given to that chat’s account); not while no chat names it', async () => {
    const c = await gw.customer()
    const named = legacyPicture()
    const apiOnly = legacyPicture()
    await chatShowing(c, [named], 30)
    expect(await served(named.live)).toEqual(named.bytes)
    expect(await ownerOf(named)).toEqual([c.user.id])

    // Generated through the API only: no chat names it, so it has no owner and is not served (its
    // links expired within a week anyway); the bytes stay where they are.
    expect(await served(apiOnly.live)).toBe(404)
    expect(await served(apiOnly.live)).toBe(404)
    expect(await ownerOf(apiOnly)).toEqual([])
    expect(existsSync(apiOnly.file)).toBe(true)
    // Named later in its owner's chat: the chat gets a fresh link, and a link serves it from then on.
    const [fresh] = await (await chatShowing(c, [apiOnly]))()
    expect(fresh).not.toBe(apiOnly.stale)
    expect(await served(fresh!)).toEqual(apiOnly.bytes)
    expect(await served(apiOnly.live)).toEqual(apiOnly.bytes)
  })
})

describe('/v1/generation finds an answer by the id its client saw', () => {
  const lookup = (c: Customer, id: string) => fetch(`${gw.url}/v1/generation?id=${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${c.key}` } })

  test('msg_… (Messages) and resp_… (Responses), plain and streamed, as well as gen-…', async () => {
    const c = await gw.customer()
    const ids: Array<[string, string]> = []
    const message = (await (await post(c, '/v1/messages', { model: 'openai/gpt-4o-mini', max_tokens: 8, messages: say('привет') })).json()) as { id: string }
    ids.push(['messages', message.id])
    const response = (await (await post(c, '/v1/responses', { model: 'openai/gpt-4o-mini', max_output_tokens: 8, input: 'привет' })).json()) as { id: string }
    ids.push(['responses', response.id])
    const streamed = await (await post(c, '/v1/responses', { model: 'openai/gpt-4o-mini', max_output_tokens: 8, input: 'привет', stream: true })).text()
    ids.push(['responses', streamed.match(/"id":"(resp_[^"]+)"/)![1]!])
    const streamedMessage = await (await post(c, '/v1/messages', { model: 'openai/gpt-4o-mini', max_tokens: 8, stream: true, messages: say('привет') })).text()
    ids.push(['messages', streamedMessage.match(/"id":"(msg_[^"]+)"/)![1]!])
    for (const [apiType, id] of ids) expect(id).toStartWith(apiType === 'messages' ? 'msg_' : 'resp_')
    for (const [apiType, id] of ids) {
      const res = await lookup(c, id)
      expect([id, res.status]).toEqual([id, 200])
      const found = ((await res.json()) as { data: Record<string, unknown> }).data
      expect(found).toMatchObject({ response_id: id, api_type: apiType, status: 'success' })
      expect(String(found.id)).toStartWith('gen-')
      // The generation id finds the same request.
      expect((await lookup(c, String(found.id))).status).toBe(200)
    }
    // Another customer finds none of them.
    const other = await gw.customer()
    for (const [, id] of ids) expect((await lookup(other, id)).status).toBe(404)
    await eventually(async () => (await gw.books(c.user.id)).held === 0)
  })
})
