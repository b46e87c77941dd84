// The seller's details in configuration (SELLER_*): all or none, each value checked; a partial or
// wrong set stops the server at start with the variable named.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../config'
import { refusesToStart } from '../test-support/process'
import { NPD_SELLER, NPD_SELLER_ENV, OSN_SELLER } from './test-fixtures'

const dataDir = mkdtempSync(join(tmpdir(), 'gw-seller-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), ...env })
const configError = (env: Record<string, string>) => {
  try {
    config(env)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return (e as Error).message
  }
  throw new Error('the configuration was accepted')
}

describe('SELLER_*', () => {
  test('none set: no seller, no invoice payment', () => {
    expect(config({}).seller).toBeNull()
    expect(config({ SELLER_NAME: '  ', SELLER_INN: '' }).seller).toBeNull()
  })

  test('all set: the seller as documents show it', () => {
    expect(config({ ...NPD_SELLER_ENV }).seller).toEqual(NPD_SELLER)
    const osn = config({
      SELLER_NAME: OSN_SELLER.name,
      SELLER_INN: OSN_SELLER.inn,
      SELLER_KPP: '7712 01 001',
      SELLER_TAX_REGIME: 'OSN',
      SELLER_ACCOUNT: OSN_SELLER.account,
      SELLER_BANK: `  ${OSN_SELLER.bank} `,
      SELLER_BIK: OSN_SELLER.bik,
      SELLER_CORR_ACCOUNT: OSN_SELLER.corrAccount,
      SELLER_ADDRESS: OSN_SELLER.address,
    }).seller
    expect(osn).toEqual(OSN_SELLER)
    expect(Object.isFrozen(osn)).toBe(true)
  })

  test('a partial set names every missing variable', () => {
    const { SELLER_BIK: _b, SELLER_CORR_ACCOUNT: _c, ...partial } = NPD_SELLER_ENV
    expect(configError(partial)).toBe(
      "the seller's details for invoices are all or none: SELLER_BIK, SELLER_CORR_ACCOUNT are missing (SELLER_NAME, SELLER_INN, SELLER_TAX_REGIME, SELLER_ACCOUNT, SELLER_BANK, SELLER_ADDRESS are set)",
    )
    expect(configError({ SELLER_INN: '7707083893' })).toContain(
      'SELLER_NAME, SELLER_TAX_REGIME, SELLER_ACCOUNT, SELLER_BANK, SELLER_BIK, SELLER_CORR_ACCOUNT, SELLER_ADDRESS are missing (SELLER_INN is set)',
    )
    expect(configError({ SELLER_KPP: '773601001' })).toContain('SELLER_KPP is set without the other seller details')
  })

  test.each([
    [{ SELLER_TAX_REGIME: 'patent' }, 'SELLER_TAX_REGIME must be one of npd, usn, osn, got "patent"'],
    [{ SELLER_INN: '500100732258' }, 'SELLER_INN "500100732258" is not valid: Неверный ИНН: не сходится контрольное число'],
    [{ SELLER_INN: '7707083893' }, 'SELLER_INN "7707083893" is not valid: ИНН индивидуального предпринимателя или физического лица состоит из 12 цифр'], // the self-employed are people
    [{ SELLER_KPP: '773601001' }, 'SELLER_KPP is only for an organisation'],
    [{ SELLER_BIK: '04452522' }, 'SELLER_BIK "04452522" is not valid: БИК состоит из 9 цифр'],
    [{ SELLER_ACCOUNT: '4081781073800000123' }, 'SELLER_ACCOUNT "4081781073800000123" is not valid: Расчётный счёт состоит из 20 цифр'],
    [{ SELLER_ACCOUNT: '40817810738000001235' }, 'SELLER_ACCOUNT "40817810738000001235" is not valid: Расчётный счёт не сходится с БИК банка'],
    [{ SELLER_CORR_ACCOUNT: '30101810400000000226' }, 'SELLER_CORR_ACCOUNT "30101810400000000226" is not valid: Корреспондентский счёт не сходится с БИК банка'],
    [{ SELLER_BIK: '044525974' }, 'SELLER_ACCOUNT "40817810738000001234" is not valid: Расчётный счёт не сходится с БИК банка'], // the account belongs to another bank
  ])('a wrong value is named: %j', (wrong, message) => {
    expect(configError({ ...NPD_SELLER_ENV, ...wrong })).toContain(message)
  })

  test('the server refuses to start with a partial set and names what is missing', async () => {
    const { SELLER_ADDRESS: _a, ...partial } = NPD_SELLER_ENV
    const r = await refusesToStart(partial)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('[config]')
    expect(r.stderr).toContain('SELLER_ADDRESS is missing')
    expect(r.stdout).not.toContain('listening')
  })
})
