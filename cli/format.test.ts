// Pure helpers: the spec's price rule, balances, usage periods, tables.
import { describe, expect, test } from 'bun:test'
import { describeTransaction } from '../src/content/ledger'
import { activityTable, moscowDayStart } from './commands/activity'
import { periodStart } from './commands/billing'
import { findKey, keysTable, shortIdLength, wrap } from './commands/keys'
import { priceCell } from './commands/models'
import type { ActivityItem, ApiKey } from './lib/api'
import { findModel } from './lib/chat-client'
import { resolveServer } from './lib/config'
import { costSummary, cut, exactRubles, price, rubles, signedPrice, table } from './lib/format'
import { commaList, expiry, expiryOrNone, expiryText, policyBody, policySummary, rpm, rpmOrNone, tpm, tpmOrNone } from './lib/key-policy'

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
  kind: 'inference',
  isActive: true,
  rpmLimit: null,
  tpmLimit: null,
  allowedModels: null,
  allowedIps: null,
  expiresAt: null,
  expired: false,
  appOrigin: null,
  fitToBalance: false,
  locked: { isActive: null, budget: null, policy: null },
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

describe('key policies (issue 36)', () => {
  const NOW = Date.parse('2026-06-01T12:00:00+03:00')

  test('--expires: a day is the end of that Moscow day; an ISO time as given (Moscow without a zone); the past and non-dates refused', () => {
    expect(expiry('2027-01-31', NOW)).toBe('2027-01-31T20:59:59.000Z')
    expect(expiry('2027-01-31T18:00:00+03:00', NOW)).toBe('2027-01-31T15:00:00.000Z')
    expect(expiry('2027-01-31T18:00Z', NOW)).toBe('2027-01-31T18:00:00.000Z')
    expect(expiry('2027-01-31T18:00:00', NOW)).toBe('2027-01-31T15:00:00.000Z')
    expect(expiry('2028-02-29', NOW)).toBe('2028-02-29T20:59:59.000Z')
    for (const bad of ['31.01.2027', '2027-02-30', '2027-13-01', '2027-01-31T25:00', 'завтра', '', '2027-1-31']) expect(() => expiry(bad, NOW)).toThrow('ГГГГ-ММ-ДД')
    expect(() => expiry('2026-05-31', NOW)).toThrow('срок действия уже прошёл (31.05.2026, 23:59 МСК)')
    expect(expiryOrNone('none')).toBe('none')
    expect(expiryOrNone('NONE')).toBe('none')
  })

  test('limits are whole numbers from 1 to the server ceiling; none only where a limit can be cleared', () => {
    expect(rpm('60')).toBe(60)
    expect(tpm('100 000')).toBe(100_000)
    expect(tpm('100_000')).toBe(100_000)
    expect(rpm('1000000')).toBe(1_000_000)
    for (const bad of ['0', '-5', '1.5', '1e3', 'abc', '', 'none', '1000001']) expect(() => rpm(bad)).toThrow('нужно целое число от 1 до 1 000 000')
    expect(() => tpm('1000000001')).toThrow('от 1 до 1 000 000 000')
    expect(rpmOrNone('none')).toBe('none')
    expect(tpmOrNone('120')).toBe(120)
    expect(() => rpmOrNone('ноль')).toThrow('или none — снять ограничение')
  })

  test('what is sent: only the options given, none as null', () => {
    expect(policyBody({})).toEqual({})
    expect(policyBody({ rpm: 'none', tpm: 5, models: 'none', ips: ['10.0.0.0/8'], expires: 'none' })).toEqual({
      rpmLimit: null,
      tpmLimit: 5,
      allowedModels: null,
      allowedIps: ['10.0.0.0/8'],
      expiresAt: null,
    })
  })

  test('--models and --ips: comma lists that add up when repeated; none alone clears', () => {
    const models = commaList('--models')
    expect(models(' openai/* , anthropic/claude-3.5-sonnet,', undefined)).toEqual(['openai/*', 'anthropic/claude-3.5-sonnet'])
    expect(models('google/*', ['openai/*'])).toEqual(['openai/*', 'google/*'])
    expect(models('openai/*', ['openai/*'])).toEqual(['openai/*'])
    expect(() => models(' , ', undefined)).toThrow('пустой список (--models)')
    const ips = commaList('--ips', true)
    expect(ips('none', undefined)).toBe('none')
    expect(() => ips('10.0.0.0/8', 'none')).toThrow('none нельзя сочетать')
    expect(() => ips('none', ['10.0.0.0/8'])).toThrow('none нельзя сочетать')
    // Without none allowed (create), «none» is just a name the server will judge.
    expect(models('none', undefined)).toEqual(['none'])
  })

  test('the policy in one line, dates in ru-RU by Moscow', () => {
    const limited = key('k', 'бот', {
      rpmLimit: 60,
      tpmLimit: 100_000,
      allowedModels: ['openai/*'],
      allowedIps: ['10.0.0.0/8'],
      expiresAt: '2027-01-31T20:59:59.000Z',
      expired: false,
    })
    expect(policySummary(limited)).toBe('60 запр/мин · 100 000 ток/мин · модели: openai/* · IP: 10.0.0.0/8 · до 31.01.2027')
    expect(policySummary(key('k', 'всё можно'))).toBe('без ограничений')
    expect(policySummary(key('k', 'никуда', { allowedModels: [] }))).toBe('модели: никакие')
    expect(expiryText('2027-01-31T15:00:00.000Z')).toBe('31.01.2027, 18:00 МСК')
    // Expired is the server's word (its clock), not the terminal's.
    expect(policySummary(key('k', 'подрядчик', { expiresAt: '2026-05-01T20:59:59.000Z', expired: true }))).toBe('истёк 01.05.2026')
  })

  test('keys list: the kind, the policy, «истёк» and the app under the table, within 80 columns', () => {
    const list = [
      key('019a6f2e-1c3d-7aaa-8bbb-000000000001', 'бот поддержки', {
        rpmLimit: 60,
        tpmLimit: 100_000,
        allowedModels: ['openai/*', 'anthropic/claude-3.5-sonnet', 'google/gemini-2.5-flash', 'meta-llama/llama-3.3-70b-instruct'],
        allowedIps: ['10.0.0.0/8', '192.168.1.5', '2001:db8::/32'],
        expiresAt: '2027-01-31T20:59:59.000Z',
        expired: false,
        budget: { limitRub: 500, period: 'month', spent: 12.5 } as unknown as ApiKey['budget'],
        owner: { id: 'u', email: 'anna@example.ru' },
      }),
      key('019a6f2e-1c3e-7ccc-8ddd-000000000002', 'админка', { kind: 'management' }),
      key('019a6f2e-9f00-7eee-8fff-000000000003', 'подрядчик', { expiresAt: '2026-05-01T20:59:59.000Z', expired: true }),
      key('019a6f2e-9f01-7eee-8fff-000000000004', 'chat.example.ru', { appOrigin: 'https://chat.example.ru' }),
      key('019a6f2e-9f02-7eee-8fff-000000000005', 'выключен', { isActive: false, expired: true, expiresAt: '2026-05-01T20:59:59.000Z' }),
    ]
    const text = keysTable(list)
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    const lines = text.split('\n')
    const row = (name: string) => lines.find((l) => l.includes(name))!
    expect(row('подрядчик')).toContain(' истёк ')
    expect(row('выключен')).toContain(' отключён ')
    expect(row('бот поддержки')).toContain(' активен ')
    // The notes, joined back where they were wrapped.
    const notes = text.slice(text.indexOf('\n\n') + 2).replace(/\n\s+/g, ' ')
    expect(notes).toContain(
      '019a6f2e-1c3d  60 запр/мин · 100 000 ток/мин · модели: openai/*, anthropic/claude-3.5-sonnet, google/gemini-2.5-flash, meta-llama/llama-3.3-70b-instruct · IP: 10.0.0.0/8, 192.168.1.5, 2001:db8::/32 · до 31.01.2027 · бюджет 12,50 ₽ из 500,00 ₽ в месяц · владелец anna@example.ru',
    )
    expect(notes).toContain('019a6f2e-1c3e  управляющий')
    expect(notes).toContain('019a6f2e-9f00  истёк 01.05.2026')
    expect(notes).toContain('019a6f2e-9f01  приложение https://chat.example.ru')
  })

  test('wrapped notes stay under their ID', () => {
    expect(wrap('abcd  ', 'один два')).toEqual(['abcd  один два'])
    const long = wrap('abcd  ', Array.from({ length: 30 }, (_, i) => `слово${i}`).join(' '))
    expect(long.length).toBeGreaterThan(1)
    for (const line of long) expect([...line].length).toBeLessThanOrEqual(80)
    for (const line of long.slice(1)) expect(line).toStartWith('      слово')
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
