// Claude Code's mid-conversation system messages (issue 33, point 14): Claude Code 2.1.x puts
// `{"role":"system"}` entries inside `messages`. Through the official @anthropic-ai/sdk they are
// accepted where Anthropic's rules allow them (protocols.md 1.12), forwarded to the router as they
// are, counted in the hold's prompt estimate, and refused elsewhere with Anthropic's 400 — before
// anything is held or sent.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { expectedCharge, startGateway } from '../test-support/gateway'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let c: Awaited<ReturnType<Gateway['customer']>>

beforeAll(async () => {
  // No count_tokens at the router: the gateway answers with its own estimate, the hold's.
  gw = await startGateway({}, { noCountTokens: true })
  c = await gw.customer()
})
afterAll(() => gw.stop())

const MODEL = 'anthropic/claude-3-haiku'
const sdk = () => new Anthropic({ baseURL: gw.url, apiKey: c.key, maxRetries: 0 })
const routerMessages = () => gw.upstream.log.filter((r) => r.path.endsWith('/messages'))

/** The books are exact: balance = ledger, nothing held, every answer charged its reported cost, nothing uncovered. */
async function booksExact() {
  const books = await gw.books(c.user.id)
  expect(books.held).toBe(0)
  expect(books.ledgerSum).toBe(books.balance)
  for (const u of books.usage) expect(u.cost_micros).toBe(u.status === 'success' ? expectedCharge(gw.upstream.generations.get(u.upstream_id!)!.total_cost) : 0)
  expect(books.balance).toBe(50_000_000 - books.usage.reduce((s, u) => s + u.cost_micros, 0))
  expect(await gw.read('select * from uncovered_costs where user_id = ?', c.user.id)).toEqual([])
}

describe('accepted where Anthropic accepts them, and forwarded verbatim', () => {
  test('a system message after a user turn, as the last entry: 200, the router gets the conversation as sent', async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Посмотри файл README.md' },
      { role: 'assistant', content: 'Смотрю.' },
      { role: 'user', content: [{ type: 'text', text: 'Что в нём главное?' }] },
      { role: 'system', content: 'Пользователь переключился в режим планирования: не меняй файлы.' },
    ]
    const answer = await sdk().messages.create({ model: MODEL, max_tokens: 60, system: 'Ты Claude Code.', messages })
    expect(answer.type).toBe('message')
    expect(answer.content[0]!.type).toBe('text')
    const sent = routerMessages().at(-1)!.body as Record<string, unknown>
    expect(sent.messages).toEqual(messages)
    expect(sent.system).toBe('Ты Claude Code.')
    await booksExact()
  })

  test('followed by an assistant turn, in text blocks, streamed', async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Привет' },
      { role: 'system', content: [{ type: 'text', text: 'Напоминание: отвечай по-русски.' }] },
      { role: 'assistant', content: 'Здравствуйте!' },
      { role: 'user', content: 'Как дела?' },
    ]
    const answer = await sdk().messages.stream({ model: MODEL, max_tokens: 60, messages }).finalMessage()
    expect(answer.stop_reason).toBe('end_turn')
    expect(routerMessages().at(-1)!.body).toMatchObject({ messages, stream: true })
    await booksExact()
  })

  test('after an assistant turn that ends in a server tool use (a paused web search)', async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Найди новости о Bun' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Ищу.' },
          { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'Bun news' } },
        ],
      },
      { role: 'system', content: 'Искать только на русском.' },
    ]
    const answer = await sdk().messages.create({ model: MODEL, max_tokens: 60, messages })
    expect(answer.type).toBe('message')
    expect((routerMessages().at(-1)!.body as { messages: unknown }).messages).toEqual(messages)
    await booksExact()
  })

  test('they count in the hold’s prompt estimate (count_tokens answers that estimate when the router has none)', async () => {
    const base: Anthropic.MessageParam[] = [{ role: 'user', content: 'Короткий вопрос' }]
    const reminder = 'я'.repeat(3000) // 6 000 bytes of text: about 2 000 tokens in the estimate
    const count = async (messages: Anthropic.MessageParam[]) => {
      const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': c.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: MODEL, messages }),
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-token-count-estimated')).toBe('true')
      return ((await res.json()) as { input_tokens: number }).input_tokens
    }
    const without = await count(base)
    const withReminder = await count([...base, { role: 'system', content: reminder }])
    expect(withReminder - without).toBeGreaterThanOrEqual(2000)
  })
})

describe('refused where Anthropic refuses them: its 400, nothing held, nothing sent', () => {
  const cases: Array<[string, Anthropic.MessageParam[], string]> = [
    [
      'the first entry',
      [
        { role: 'system', content: 'Сначала система' },
        { role: 'user', content: 'Привет' },
      ],
      'messages.0: системное сообщение (role: system) не может быть первым',
    ],
    [
      'after an assistant turn without a server tool use',
      [
        { role: 'user', content: 'Привет' },
        { role: 'assistant', content: 'Здравствуйте' },
        { role: 'system', content: 'После ассистента' },
      ],
      'messages.2: системное сообщение может стоять только после сообщения пользователя',
    ],
    [
      'after an assistant turn ending in a client tool use (its result must come first, in a user turn)',
      [
        { role: 'user', content: 'Погода?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Казань' } }] },
        { role: 'system', content: 'После вызова клиентского инструмента' },
      ],
      'messages.2: системное сообщение может стоять только после сообщения пользователя',
    ],
    [
      'followed by a user turn',
      [
        { role: 'user', content: 'Привет' },
        { role: 'system', content: 'Между двумя пользователями' },
        { role: 'user', content: 'Ещё раз' },
      ],
      'messages.1: после системного сообщения может идти только ответ ассистента, или оно должно быть последним',
    ],
    [
      'two in a row',
      [
        { role: 'user', content: 'Привет' },
        { role: 'system', content: 'Первое' },
        { role: 'system', content: 'Второе' },
      ],
      'messages.2: два системных сообщения подряд недопустимы',
    ],
  ]

  for (const [name, messages, message] of cases)
    test(name, async () => {
      const sent = routerMessages().length
      const error = await sdk()
        .messages.create({ model: MODEL, max_tokens: 20, messages })
        .catch((e) => e)
      expect(error).toBeInstanceOf(Anthropic.BadRequestError)
      expect(error.status).toBe(400)
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
      expect(error.error.error.message).toStartWith(message)
      // count_tokens refuses the same body the same way.
      const counted = await sdk()
        .messages.countTokens({ model: MODEL, messages })
        .catch((e) => e)
      expect(counted).toBeInstanceOf(Anthropic.BadRequestError)
      expect(counted.error.error.message).toBe(error.error.error.message)
      expect(routerMessages().length).toBe(sent)
      await booksExact()
    })

  test('a role that is none of user, assistant or system is still a 400 in Anthropic’s shape', async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': c.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'robot', content: 'x' }] }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'role должен быть user, assistant или system' } })
  })
})
