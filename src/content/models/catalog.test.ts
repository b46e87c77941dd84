import { describe, expect, test } from 'bun:test'
import { contextText, providerLabel } from './catalog'

describe('providerLabel', () => {
  test('known providers by their own spelling', () => {
    expect(providerLabel('black-forest-labs')).toBe('Black Forest Labs')
    expect(providerLabel('openai')).toBe('OpenAI')
    expect(providerLabel('x-ai')).toBe('xAI')
  })

  test('unknown ones as title-cased words of the slug', () => {
    expect(providerLabel('some-new-lab')).toBe('Some New Lab')
    expect(providerLabel('acme-ai')).toBe('Acme AI')
    expect(providerLabel('solo')).toBe('Solo')
  })
})

describe('contextText', () => {
  test('thousands in K, from a million in M with ru-RU decimals', () => {
    expect(contextText(128_000)).toBe('128K контекст')
    expect(contextText(2_000_000)).toBe('2M контекст')
    expect(contextText(1_048_576)).toBe('1,05M контекст')
    expect(contextText(999_999)).toBe('1M контекст')
    expect(contextText(500)).toBe('500 токенов контекст')
    expect(contextText(0)).toBeNull()
  })
})
