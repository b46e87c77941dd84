import { describe, expect, test } from 'bun:test'
import { amountInWords, formatKopecks, kopecksFromMicros, kopecksFromText, numberInWords } from './amount'

const rub = (rubles: number, kopecks = 0) => rubles * 100 + kopecks

describe('amount in words', () => {
  test.each([
    [rub(1200), 'Одна тысяча двести рублей 00 копеек'],
    [rub(21001, 1), 'Двадцать одна тысяча один рубль 01 копейка'],
    [rub(0), 'Ноль рублей 00 копеек'],
    [rub(0, 1), 'Ноль рублей 01 копейка'],
    [rub(1), 'Один рубль 00 копеек'],
    [rub(2, 2), 'Два рубля 02 копейки'],
    [rub(5, 5), 'Пять рублей 05 копеек'],
    [rub(1000), 'Одна тысяча рублей 00 копеек'],
    [rub(2000), 'Две тысячи рублей 00 копеек'],
    [rub(5000), 'Пять тысяч рублей 00 копеек'],
    [rub(1_000_000), 'Один миллион рублей 00 копеек'], // the top-up maximum
    [rub(2_000_000), 'Два миллиона рублей 00 копеек'],
    [rub(5_000_000), 'Пять миллионов рублей 00 копеек'],
    [rub(1_234_567, 89), 'Один миллион двести тридцать четыре тысячи пятьсот шестьдесят семь рублей 89 копеек'],
    [rub(2_001_002, 22), 'Два миллиона одна тысяча два рубля 22 копейки'],
    [rub(1_000_001_000), 'Один миллиард одна тысяча рублей 00 копеек'],
    [rub(3_000_000_000_000, 3), 'Три триллиона рублей 03 копейки'],
    [rub(999_999, 99), 'Девятьсот девяносто девять тысяч девятьсот девяносто девять рублей 99 копеек'],
    [rub(100), 'Сто рублей 00 копеек'],
    [rub(110), 'Сто десять рублей 00 копеек'],
    [rub(40), 'Сорок рублей 00 копеек'],
    [rub(90_090), 'Девяносто тысяч девяносто рублей 00 копеек'],
    [rub(300_400), 'Триста тысяч четыреста рублей 00 копеек'],
  ])('%d kopecks → %s', (kopecks, words) => {
    expect(amountInWords(kopecks)).toBe(words)
  })

  // 11–14 take the plural of many whatever their last digit; 21, 101, 1001 take the singular.
  test.each([
    [rub(11, 11), 'Одиннадцать рублей 11 копеек'],
    [rub(12, 12), 'Двенадцать рублей 12 копеек'],
    [rub(13, 13), 'Тринадцать рублей 13 копеек'],
    [rub(14, 14), 'Четырнадцать рублей 14 копеек'],
    [rub(111), 'Сто одиннадцать рублей 00 копеек'],
    [rub(112_000), 'Сто двенадцать тысяч рублей 00 копеек'],
    [rub(11_000_000), 'Одиннадцать миллионов рублей 00 копеек'],
    [rub(14_000), 'Четырнадцать тысяч рублей 00 копеек'],
    [rub(21, 21), 'Двадцать один рубль 21 копейка'],
    [rub(22, 24), 'Двадцать два рубля 24 копейки'],
    [rub(101, 91), 'Сто один рубль 91 копейка'],
    [rub(1001), 'Одна тысяча один рубль 00 копеек'],
    [rub(21_000), 'Двадцать одна тысяча рублей 00 копеек'],
    [rub(22_000), 'Двадцать две тысячи рублей 00 копеек'],
    [rub(21_000_000), 'Двадцать один миллион рублей 00 копеек'],
    [rub(1_012, 15), 'Одна тысяча двенадцать рублей 15 копеек'],
  ])('11–14 and 21: %d kopecks → %s', (kopecks, words) => {
    expect(amountInWords(kopecks)).toBe(words)
  })

  test('feminine numbers for what needs them', () => {
    expect(numberInWords(1, 'f')).toBe('одна')
    expect(numberInWords(22, 'f')).toBe('двадцать две')
    expect(numberInWords(1)).toBe('один')
  })

  test('refuses what is not an amount', () => {
    expect(() => amountInWords(-1)).toThrow(RangeError)
    expect(() => amountInWords(1.5)).toThrow(RangeError)
    expect(() => amountInWords(Number.NaN)).toThrow(RangeError)
  })
})

describe('amount in figures', () => {
  test.each([
    [rub(1200), '1 200,00'],
    [rub(0), '0,00'],
    [rub(0, 5), '0,05'],
    [rub(999, 99), '999,99'],
    [rub(1_000_000), '1 000 000,00'],
    [rub(21_001, 1), '21 001,01'],
  ])('%d kopecks → %s', (kopecks, figures) => {
    // a no-break space between the groups, so a number never breaks across lines
    expect(formatKopecks(kopecks).replaceAll('\u00a0', ' ')).toBe(figures)
  })

  test('micro-rubles round to the nearest kopeck, half up', () => {
    expect(kopecksFromMicros(1_200_000_000)).toBe(120_000)
    expect(kopecksFromMicros(4_999)).toBe(0)
    expect(kopecksFromMicros(5_000)).toBe(1)
    expect(kopecksFromMicros(1_234_567)).toBe(123)
    expect(kopecksFromMicros(1_235_000)).toBe(124)
    expect(() => kopecksFromMicros(-1)).toThrow(RangeError)
  })
})

describe('amount from text (issue 33)', () => {
  test.each([
    ['1200', 120_000],
    ['1 200,50', 120_050],
    ['1\u00a0200.5', 120_050],
    ['1200.500', 120_050],
    ['0001000', 100_000],
    ['0.01', 1],
  ])('%s → %d kopecks', (text, kopecks) => {
    expect(kopecksFromText(text)).toEqual({ kopecks })
  })

  test.each([
    ['0x3E8', 'not_number'],
    ['1e3', 'not_number'],
    ['0b1111101000', 'not_number'],
    ['0o1750', 'not_number'],
    ['Infinity', 'not_number'],
    ['NaN', 'not_number'],
    ['+1000', 'not_number'],
    ['-1000', 'not_number'],
    ['1_000', 'not_number'],
    ['١٠٠٠', 'not_number'],
    ['', 'not_number'],
    ['1000.001', 'sub_kopeck'],
    ['99999999999999', 'too_large'],
  ] as const)('%s is refused: %s', (text, error) => {
    expect(kopecksFromText(text)).toEqual({ error })
  })
})
