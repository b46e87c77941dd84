// Pure helpers: the spec's price rule, balances, usage periods, tables.
import { describe, expect, test } from 'bun:test'
import { periodStart } from './commands/billing'
import { priceCell } from './commands/models'
import { resolveServer } from './lib/config'
import { costSummary, exactRubles, price, signedPrice, table } from './lib/format'

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

  test('balances keep the micro-rubles a chat charge moves', () => {
    expect(exactRubles(50)).toBe('50,00 ₽')
    expect(exactRubles(49.996751)).toBe('49,996751 ₽')
    expect(costSummary('0.003249', 49.996751)).toBe('Стоимость: 0,003249 ₽ · баланс: 49,996751 ₽')
    expect(costSummary(null, null)).toBe('Стоимость: —')
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
