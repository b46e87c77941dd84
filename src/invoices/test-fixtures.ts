// Company details for the invoice tests: a self-employed seller and an organisation on the general
// regime at real banks (Sberbank's and Tinkoff's published BIK and correspondent accounts), with
// settlement accounts whose control keys agree with the BIK, and two buyers.
import type { SellerDetails } from './requisites'

/** The SELLER_* variables of a self-employed seller (the spec's case). */
export const NPD_SELLER_ENV = {
  SELLER_NAME: 'Иванов Иван Иванович',
  SELLER_INN: '500100732259',
  SELLER_TAX_REGIME: 'npd',
  SELLER_ACCOUNT: '40817810738000001234',
  SELLER_BANK: 'ПАО Сбербанк, г. Москва',
  SELLER_BIK: '044525225',
  SELLER_CORR_ACCOUNT: '30101810400000000225',
  SELLER_ADDRESS: '141400, Московская обл., г. Химки, ул. Лавочкина, д. 1, кв. 2',
} as const

export const NPD_SELLER: SellerDetails = {
  name: NPD_SELLER_ENV.SELLER_NAME,
  inn: NPD_SELLER_ENV.SELLER_INN,
  kpp: null,
  taxRegime: 'npd',
  account: NPD_SELLER_ENV.SELLER_ACCOUNT,
  bank: NPD_SELLER_ENV.SELLER_BANK,
  bik: NPD_SELLER_ENV.SELLER_BIK,
  corrAccount: NPD_SELLER_ENV.SELLER_CORR_ACCOUNT,
  address: NPD_SELLER_ENV.SELLER_ADDRESS,
}

/** An organisation with VAT, whose long name and bank name test the layout's wrapping. */
export const OSN_SELLER: SellerDetails = {
  name: 'Общество с ограниченной ответственностью «Рублёвый шлюз искусственного интеллекта»',
  inn: '7712345671',
  kpp: '771201001',
  taxRegime: 'osn',
  account: '40702810310000000042',
  bank: 'АО «ТБанк», г. Москва',
  bik: '044525974',
  corrAccount: '30101810145250000974',
  address: '127287, г. Москва, ул. 2-я Хуторская, д. 38А, стр. 26, этаж 3, помещение 301',
}

export const COMPANY_BUYER = {
  name: 'ООО «Ромашка»',
  inn: '7707083893',
  kpp: '773601001',
  address: '117997, г. Москва, ул. Вавилова, д. 19',
}

export const SOLE_TRADER_BUYER = {
  name: 'ИП Петров Пётр Петрович',
  inn: '772812345609',
  kpp: null,
  address: '125009, г. Москва, ул. Тверская, д. 7, кв. 15',
}
