import { describe, expect, test } from 'bun:test'
import { accountError, bikError, innError, innKppError, isValidInn, kppError } from './requisites'

describe('INN', () => {
  // Public organisations' INNs (Sberbank, Yandex, Gazprom, Tinkoff) and 12-digit ones whose two check
  // digits were computed by the rule of protocols.md §6 (500100732259 is the one tax guides quote).
  test.each(['7707083893', '7736207543', '7736050003', '7710140679', '7712345671', '5003000015'])('10 digits, valid: %s', (inn) => {
    expect(innError(inn)).toBeNull()
    expect(innError(inn, 'company')).toBeNull()
    expect(innError(` ${inn} `)).toBeNull() // pasted with spaces around
  })

  test.each(['500100732259', '772812345609', '500123456750', '780200000150'])('12 digits, valid: %s', (inn) => {
    expect(innError(inn)).toBeNull()
    expect(innError(inn, 'person')).toBeNull()
  })

  test.each([
    ['7707083894', 'last digit off by one'],
    ['7707083839', 'two digits swapped'],
    ['1234567890', 'arbitrary digits'],
  ])('10 digits, bad checksum: %s (%s)', (inn) => {
    expect(innError(inn)).toBe('Неверный ИНН: не сходится контрольное число. Проверьте цифры')
  })

  test.each([
    ['500100732258', 'twelfth digit wrong'],
    ['500100732269', 'eleventh digit wrong'],
    ['500100732250', 'twelfth digit zeroed'],
    ['772800000000', 'arbitrary digits'],
  ])('12 digits, bad checksum: %s (%s)', (inn) => {
    expect(innError(inn)).toBe('Неверный ИНН: не сходится контрольное число. Проверьте цифры')
  })

  test('wrong shape: a clear Russian message for each', () => {
    expect(innError('')).toBe('Укажите ИНН')
    expect(innError('   ')).toBe('Укажите ИНН')
    expect(innError('77070838x3')).toBe('ИНН состоит только из цифр')
    expect(innError('7707 083 893')).toBe('ИНН состоит только из цифр')
    expect(innError('770708389')).toBe('ИНН состоит из 10 цифр (организация) или 12 цифр (индивидуальный предприниматель)')
    expect(innError('77070838931')).toBe('ИНН состоит из 10 цифр (организация) или 12 цифр (индивидуальный предприниматель)')
    expect(innError('0000000000')).toContain('код региона') // all zeros pass the sums, not the region
    expect(innError('000000000000')).toContain('код региона')
  })

  test('the kind asked for: a company has 10 digits, a person 12', () => {
    expect(innError('500100732259', 'company')).toBe('ИНН организации состоит из 10 цифр')
    expect(innError('7707083893', 'person')).toBe('ИНН индивидуального предпринимателя или физического лица состоит из 12 цифр')
    expect(isValidInn('7707083893', 'company')).toBe(true)
    expect(isValidInn('7707083893', 'person')).toBe(false)
  })
})

describe('KPP', () => {
  test.each(['773601001', '770701001', '7707AB001', ' 7736 01 001 ', '7707ab001'])('valid: %s', (kpp) => {
    expect(kppError(kpp)).toBeNull()
  })

  test.each([
    ['', 'Укажите КПП'],
    ['77360100', 'КПП состоит из 9 символов'],
    ['7736010011', 'КПП состоит из 9 символов'],
    ['77A601001', 'Неверный КПП: 4 цифры, затем 2 цифры или заглавные латинские буквы, затем 3 цифры'],
    ['7736010A1', 'Неверный КПП: 4 цифры, затем 2 цифры или заглавные латинские буквы, затем 3 цифры'],
    ['7736АБ001', 'Неверный КПП: 4 цифры, затем 2 цифры или заглавные латинские буквы, затем 3 цифры'], // Cyrillic look-alikes
  ])('invalid: %j', (kpp, message) => {
    expect(kppError(kpp)).toBe(message)
  })

  test('an organisation has a KPP, a sole trader has none', () => {
    expect(innKppError('7707083893', '773601001')).toBeNull()
    expect(innKppError('500100732259', null)).toBeNull()
    expect(innKppError('500100732259', '')).toBeNull()
    expect(innKppError('7707083893', null)).toBe('Укажите КПП: у организации (ИНН из 10 цифр) он есть')
    expect(innKppError('500100732259', '773601001')).toBe('КПП есть только у организаций: у ИП и физических лиц (ИНН из 12 цифр) его нет')
    expect(innKppError('7707083894', '773601001')).toContain('контрольное число')
    expect(innKppError('7707083893', '77360100')).toBe('КПП состоит из 9 символов')
  })
})

describe('BIK and bank accounts', () => {
  // Sberbank's and Tinkoff's published BIK and correspondent accounts.
  test('real banks: BIK and correspondent account agree', () => {
    expect(bikError('044525225')).toBeNull()
    expect(accountError('30101810400000000225', '044525225', 'correspondent')).toBeNull()
    expect(bikError('044525974')).toBeNull()
    expect(accountError('30101810145250000974', '044525974', 'correspondent')).toBeNull()
  })

  test('a settlement account is keyed with the BIK: one wrong digit is caught', () => {
    // 40702810 (rubles, company) + key digit + 38000000001: the key makes the 23-digit sum ≡ 0 mod 10.
    const valid = settlementAccount('044525225', '40702810', '38000000001')
    expect(accountError(valid, '044525225', 'settlement')).toBeNull()
    const typo = `${valid.slice(0, 15)}${(Number(valid[15]) + 1) % 10}${valid.slice(16)}`
    expect(accountError(typo, '044525225', 'settlement')).toBe('Расчётный счёт не сходится с БИК банка (контрольный ключ). Проверьте цифры счёта и БИК')
    expect(accountError(valid, '044525974', 'settlement')).toContain('не сходится с БИК')
  })

  test('wrong shapes', () => {
    expect(bikError('04452522')).toBe('БИК состоит из 9 цифр')
    expect(bikError('04452522x')).toBe('БИК состоит из 9 цифр')
    expect(bikError('944525225')).toBe('Неверный БИК: российский БИК начинается с 04 или 01')
    expect(accountError('4070281038000000000', '044525225', 'settlement')).toBe('Расчётный счёт состоит из 20 цифр')
    expect(accountError('40702810380000000001', '044525225', 'correspondent')).toBe('Корреспондентский счёт банка начинается с 30101')
    expect(accountError('3010181040000000022', '044525225', 'correspondent')).toBe('Корреспондентский счёт состоит из 20 цифр')
  })
})

/** A settlement account `head` + key + `tail` whose key digit makes it valid at the bank with `bik`. */
function settlementAccount(bik: string, head: string, tail: string): string {
  for (let k = 0; k <= 9; k++) {
    const account = `${head}${k}${tail}`
    if (accountError(account, bik, 'settlement') === null) return account
  }
  throw new Error('no key digit fits')
}
