import { describe, expect, test } from 'bun:test'
import { add, ceilUnits, dec, floorDiv, mul, toDecimalString } from './decimal'

describe('decimal', () => {
  test('parses strings, commas, exponents and numbers exactly', () => {
    expect(dec('0.0000025')).toEqual({ n: 25n, scale: 7 })
    expect(dec('85,9541')).toEqual({ n: 859541n, scale: 4 })
    expect(dec(1.234e-7)).toEqual({ n: 1234n, scale: 10 })
    expect(dec(1.3)).toEqual({ n: 13n, scale: 1 })
    expect(dec('-1')).toEqual({ n: -1n, scale: 0 })
    expect(dec('2e3')).toEqual({ n: 2000n, scale: 0 })
    expect(() => dec('abc')).toThrow(RangeError)
    expect(() => dec('')).toThrow(RangeError)
  })

  test('cost × rate × markup in micro-rubles, rounded up, without float drift', () => {
    // 0.00014 USD × 85.9541 × 1.3 = 0.0156436462 RUB → rounded up to 15 644 micro-rubles
    expect(ceilUnits(mul(dec(0.00014), dec('85,9541'), dec(1.3)), 6)).toBe(15644)
    expect(ceilUnits(dec('0.015644'), 6)).toBe(15644) // exact: no rounding up
    expect(ceilUnits(mul(dec('0.1'), dec('3')), 6)).toBe(300000) // 0.1 × 3 is 0.30000000000000004 in floats
    expect(ceilUnits(dec('1'), 6)).toBe(1_000_000)
  })

  test('floorDiv, add and decimal strings', () => {
    expect(floorDiv(dec('10'), dec('0.003'))).toBe(3333)
    expect(toDecimalString(add(dec('0.1'), dec('0.02')))).toBe('0.12')
    expect(toDecimalString(mul(dec('0.0000025'), dec('90'), dec('1.3')))).toBe('0.0002925')
    expect(toDecimalString(dec('0.00000000001'), 10)).toBe('0.0000000001') // rounds up, never down to free
    expect(toDecimalString(dec('0'))).toBe('0')
  })
})
