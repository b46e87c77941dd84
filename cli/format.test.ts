// Pure helpers: the spec's price rule, balances, usage periods, tables.
import { describe, expect, test } from 'bun:test'
import { describeTransaction } from '../src/content/ledger'
import { activityTable, moscowDayStart } from './commands/activity'
import { periodStart } from './commands/billing'
import { findKey, keysTable, shortIdLength } from './commands/keys'
import { priceCell } from './commands/models'
import type { ActivityItem, ApiKey } from './lib/api'
import { findModel } from './lib/chat-client'
import { resolveServer } from './lib/config'
import { costSummary, cut, exactRubles, price, rubles, signedPrice, table } from './lib/format'

describe('format', () => {
  test('prices: under 0.01 → 6 decimals, under 1 → 4, otherwise 2 (spec section 9)', () => {
    expect(price(0.000123)).toBe('0,000123 ₽')
    expect(price('0.0099')).toBe('0,009900 ₽')
    expect(price(0.01)).toBe('0,0100 ₽')
    expect(price(0.1234)).toBe('0,1234 ₽')
    expect(price(1)).toBe('1,00 ₽')
    expect(price(12345.678)).toBe('12 345,68 ₽')
    expect(signedPrice('-0.003790')).toBe('-0,003790 ₽')
    expect(signedPrice('+50.00')).toBe('+50,00 ₽')
    expect(priceCell('0')).toBe('бесплатно')
    expect(priceCell('-1')).toBe('по запросу')
    expect(priceCell('0.0000005', 1000)).toBe('0,000500 ₽')
  })

  test('balances and totals with two decimals; the exact micro-rubles only where they matter', () => {
    expect(rubles(49.996751)).toBe('50,00 ₽')
    expect(rubles('1234.5')).toBe('1 234,50 ₽')
    expect(costSummary('0.003249', 49.876751)).toBe('Стоимость: 0,003249 ₽ · баланс: 49,88 ₽')
    expect(costSummary(null, null)).toBe('Стоимость: —')
    expect(exactRubles(50)).toBe('50,00 ₽')
    expect(exactRubles(49.996751)).toBe('49,996751 ₽')
    expect(cut('очень длинное название', 8)).toBe('очень д…')
    expect(cut('коротко', 8)).toBe('коротко')
  })

  test('movements read in Russian, as on the web: older English descriptions translated', () => {
    expect(describeTransaction('Admin adjustment')).toBe('Корректировка администратора')
    expect(describeTransaction('welcome bonus ')).toBe('Приветственный бонус')
    expect(describeTransaction('Запрос к модели openai/gpt-4o')).toBe('Запрос к модели openai/gpt-4o')
  })

  test('usage periods start at 00:00 Moscow time N−1 days ago', () => {
    const now = Date.parse('2025-05-20T22:30:00Z') // already 21 May, 01:30 in Moscow
    expect(periodStart('7d', now)).toBe('2025-05-14T21:00:00.000Z')
    expect(periodStart('30d', now)).toBe('2025-04-21T21:00:00.000Z')
    expect(periodStart('all', now)).toBeUndefined()
  })

  test('tables align by code points and right-align numbers', () => {
    expect(
      table(
        ['Модель', 'Цена'],
        [
          ['a', '1,00 ₽'],
          ['длинная', '0,1234 ₽'],
        ],
        [1],
      ),
    ).toBe(['Модель       Цена', '───────  ────────', 'a          1,00 ₽', 'длинная  0,1234 ₽'].join('\n'))
  })

  test('server: --server, then the config file, then GW_SERVER, then localhost', () => {
    expect(resolveServer('http://a/', { server: 'http://b' }, { GW_SERVER: 'http://c' })).toBe('http://a')
    expect(resolveServer(undefined, { server: 'http://b' }, { GW_SERVER: 'http://c' })).toBe('http://b')
    expect(resolveServer(undefined, {}, { GW_SERVER: 'http://c' })).toBe('http://c')
    expect(resolveServer(undefined, {}, {})).toBe('http://localhost:3000')
  })
})

// Keys made within a minute share the first eight characters of their UUIDv7 IDs.
const key = (id: string, name: string, extra: Partial<ApiKey> = {}): ApiKey => ({
  id,
  name,
  keyPrefix: 'sk-gw-1a2b3c4d',
  isActive: true,
  locked: { isActive: null, budget: null },
  teamId: null,
  owner: null,
  budget: { limitRub: null, period: 'month', spent: 0, remaining: null, resetsAt: null } as unknown as ApiKey['budget'],
  residency: 'any',
  monthlyLimit: null,
  monthSpent: 1.234567,
  createdAt: '2025-05-20T10:00:00Z',
  lastUsedAt: '2025-05-21T10:00:00Z',
  ...extra,
})
const KEYS = [
  key('019a6f2e-1c3d-7aaa-8bbb-000000000001', 'сервер'),
  key('019a6f2e-1c3e-7ccc-8ddd-000000000002', 'Ноутбук'),
  key('019a6f2e-9f00-7eee-8fff-000000000003', 'очень длинное название ключа для продакшена и стенда', {
    budget: { limitRub: 500, period: 'month', spent: 12.5 } as unknown as ApiKey['budget'],
    owner: { id: 'u', email: 'anna@example.ru' },
  }),
]

describe('keys by name or ID prefix', () => {
  test('short IDs are the shortest unique beginnings, at least 8 characters', () => {
    expect(shortIdLength(KEYS.map((k) => k.id))).toBe(13)
    expect(shortIdLength([KEYS[0]!.id])).toBe(8)
  })

  test('a name (any case), a unique ID beginning or the whole ID; ambiguity and absence are usage errors', () => {
    expect(findKey(KEYS, 'сервер').id).toBe(KEYS[0]!.id)
    expect(findKey(KEYS, 'ноутбук').id).toBe(KEYS[1]!.id)
    expect(findKey(KEYS, '019a6f2e-1c3e').name).toBe('Ноутбук')
    expect(findKey(KEYS, KEYS[2]!.id).id).toBe(KEYS[2]!.id)
    expect(() => findKey(KEYS, '019a6f2e')).toThrow('Под «019a6f2e» подходят несколько ключей')
    expect(() => findKey(KEYS, 'планшет')).toThrow('Ключ «планшет» не найден')
    // Too short to be an ID prefix: never a guess.
    expect(() => findKey(KEYS, '019')).toThrow('не найден')
  })

  test('the list fits 80 columns; budgets and owners under it', () => {
    const text = keysTable(KEYS)
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    expect(text).toContain('019a6f2e-1c3d  сервер')
    expect(text).toContain('1,23 ₽')
    expect(text).toContain('очень длинное')
    expect(text).toContain('019a6f2e-9f00  бюджет 12,50 ₽ из 500,00 ₽ в месяц · владелец anna@example.ru')
  })
})

describe('/model by a fragment', () => {
  const models = [
    { id: 'anthropic/claude-3-haiku', name: 'Anthropic: Claude 3 Haiku' },
    { id: 'openai/gpt-4o', name: 'OpenAI: GPT-4o' },
    { id: 'openai/gpt-4o-mini', name: 'OpenAI: GPT-4o mini' },
  ]
  test('the exact id, else the one model whose id or name contains the fragment', () => {
    expect(findModel(models, 'haiku')).toBe('anthropic/claude-3-haiku')
    expect(findModel(models, 'MINI')).toBe('openai/gpt-4o-mini')
    expect(findModel(models, 'openai/gpt-4o')).toBe('openai/gpt-4o')
    expect(() => findModel(models, 'gpt')).toThrow('Под «gpt» подходят 2 модели')
    expect(() => findModel(models, 'llama')).toThrow('Модель «llama» не найдена')
  })
})

describe('activity', () => {
  test('--from and --to are Moscow days; the table fits 80 columns', () => {
    expect(moscowDayStart('2025-05-20')).toBe('2025-05-19T21:00:00.000Z')
    expect(moscowDayStart('2025-05-20', true)).toBe('2025-05-20T21:00:00.000Z')
    expect(() => moscowDayStart('20.05.2025')).toThrow('ГГГГ-ММ-ДД')
    const item = {
      id: 'x',
      at: '2025-05-20T12:13:00Z',
      model: 'black-forest-labs/flux.2-pro-ultra-long',
      keyName: 'ключ с длинным названием',
      keyId: 'k',
      status: 'cancelled',
      costRub: 123.456789,
      totalTokens: 1234567,
      images: null,
      audioSeconds: null,
      characters: null,
    } as unknown as ActivityItem
    const text = activityTable([item])
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    expect(text).toContain('20.05 15:13')
    expect(text).toContain('прерван')
    expect(text).toContain('123,46 ₽')
  })
})
