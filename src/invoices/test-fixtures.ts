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

let innSerial = Math.floor(Math.random() * 1_000_000)

/**
 * A fresh valid organisation INN (10 digits, the checksum of protocols.md §6). One server's tests give
 * each team its own company: a second team naming an INN waits for the site admin's confirmation.
 */
export function freshCompanyInn(): string {
  const first9 = `77${String(++innSerial % 10_000_000).padStart(7, '0')}`
  const sum = [2, 4, 10, 3, 5, 9, 4, 6, 8].reduce((acc, w, i) => acc + w * Number(first9[i]), 0)
  return `${first9}${(sum % 11) % 10}`
}

// ─── bank statements (1CClientBankExchange), built line by line as banks export them ───

/** An account of the seller's other than the one invoices name. */
export const OTHER_ACCOUNT = '40702810638000005678'

/** A payment order of a statement: into the seller's account unless `from` says it is outgoing. */
export type StatementDoc = {
  number: string
  amount: string
  purpose: string
  payer?: { name: string; inn: string; kpp: string | null; account: string }
  to?: string
  from?: string
}

export const ROMASHKA = { name: COMPANY_BUYER.name, inn: COMPANY_BUYER.inn, kpp: COMPANY_BUYER.kpp, account: '40702810310000000042' }
export const PETROV = { name: SOLE_TRADER_BUYER.name, inn: SOLE_TRADER_BUYER.inn, kpp: null, account: '40802810310000000777' }

/** A payment order as a bank exports it: into the seller's account unless `from` says it is outgoing. */
function statementDocument(d: StatementDoc): string[] {
  const payer = d.payer ?? ROMASHKA
  const fromAccount = d.from ?? payer.account
  const toAccount = d.to ?? NPD_SELLER.account
  return [
    'СекцияДокумент=Платежное поручение',
    `Номер=${d.number}`,
    'Дата=21.11.2026',
    `Сумма=${d.amount}`,
    `ПлательщикСчет=${fromAccount}`,
    'ДатаСписано=21.11.2026',
    `Плательщик=ИНН ${payer.inn} ${payer.name}`,
    `ПлательщикИНН=${payer.inn}`,
    `Плательщик1=${payer.name}`,
    `ПлательщикРасчСчет=${fromAccount}`,
    'ПлательщикБанк1=АО «ТБанк»',
    'ПлательщикБанк2=г. Москва',
    'ПлательщикБИК=044525974',
    'ПлательщикКорсчет=30101810145250000974',
    `ПолучательСчет=${toAccount}`,
    d.from ? 'ДатаПоступило=' : 'ДатаПоступило=22.11.2026',
    `Получатель=ИНН ${NPD_SELLER.inn} ${NPD_SELLER.name}`,
    `ПолучательИНН=${NPD_SELLER.inn}`,
    `Получатель1=${NPD_SELLER.name}`,
    `ПолучательРасчСчет=${toAccount}`,
    'ПолучательБанк1=ПАО Сбербанк',
    'ПолучательБИК=044525225',
    'ПолучательКорсчет=30101810400000000225',
    'ВидОплаты=01',
    'Очередность=5',
    `ПлательщикКПП=${payer.kpp ?? '0'}`,
    'ПолучательКПП=',
    `НазначениеПлатежа=${d.purpose}`,
    'КонецДокумента',
  ]
}

/** A whole statement of the seller's account, as text. */
export function statementText(docs: StatementDoc[], opts: { encodingLine?: string; account?: string; eol?: string } = {}): string {
  const account = opts.account ?? NPD_SELLER.account
  return [
    '1CClientBankExchange',
    'ВерсияФормата=1.03',
    `Кодировка=${opts.encodingLine ?? 'Windows'}`,
    'Отправитель=СберБизнес',
    'Получатель=Бухгалтерия предприятия, редакция 3.0',
    'ДатаСоздания=22.11.2026',
    'ВремяСоздания=09:15:00',
    'ДатаНачала=21.11.2026',
    'ДатаКонца=22.11.2026',
    `РасчСчет=${account}`,
    'Документ=Платежное поручение',
    'СекцияРасчСчет',
    'ДатаНачала=21.11.2026',
    'ДатаКонца=22.11.2026',
    `РасчСчет=${account}`,
    'НачальныйОстаток=0.00',
    'ВсегоПоступило=3901.50',
    'ВсегоСписано=100.00',
    'КонечныйОстаток=3801.50',
    'КонецРасчСчет',
    ...docs.flatMap(statementDocument),
    'КонецФайла',
    '',
  ].join(opts.eol ?? '\r\n')
}
