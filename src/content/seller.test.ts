// The provider the public pages name (issue 33): the seller of the invoices when SELLER_* is set.
import { describe, expect, test } from 'bun:test'
import { partyLine } from '../invoices/invoice-pdf'
import { NPD_SELLER, OSN_SELLER } from '../invoices/test-fixtures'
import { LEGAL_DOCUMENTS, legalDocuments } from './legal'
import { publicSeller, sellerDetails, sellerFooter, sellerParty } from './seller'
import { organizationLd } from './seo'
import { SERVICES_DOCUMENT, servicesDocument } from './services'

const text = (doc: unknown) => JSON.stringify(doc)

describe('the seller on the legal pages', () => {
  test('without SELLER_* the documents keep the generic text', () => {
    expect(text(LEGAL_DOCUMENTS)).toBe(text(legalDocuments(null)))
    expect(text(LEGAL_DOCUMENTS['public-offer'])).toContain('Сведения об Исполнителе: самозанятый; ИНН предоставляется по запросу;')
    expect(sellerFooter(null)).toEqual({ who: ['Самозанятый'], ids: 'ИНН предоставляется по запросу', short: 'Самозанятый' })
    expect(text(SERVICES_DOCUMENT)).toContain('Самозанятый (ИНН предоставляется по запросу)')
  })

  test('an organisation: its name, INN, KPP and address in the offer; name, INN and KPP in the footer and the privacy policy', () => {
    const seller = publicSeller(OSN_SELLER)!
    // no bank details on a public page
    expect(Object.keys(seller).sort()).toEqual(['address', 'inn', 'kpp', 'name', 'taxRegime'])
    const docs = legalDocuments(seller)
    const offer = text(docs['public-offer'])
    expect(offer).toContain(`исполнителя — ${OSN_SELLER.name}, ИНН 7712345671, КПП 771201001 (далее — «Исполнитель»)`)
    expect(offer).toContain(`Сведения об Исполнителе: ${OSN_SELLER.name}; ИНН 7712345671; КПП 771201001; адрес: ${OSN_SELLER.address};`)
    expect(offer).not.toContain('самозанят')
    expect(offer).not.toContain('по запросу;')
    expect(text(docs['privacy-policy'])).toContain(
      `Оператор персональных данных и исполнитель по [Публичной оферте](/public-offer) — ${OSN_SELLER.name}, ИНН 7712345671, КПП 771201001.`,
    )
    expect(text(docs['terms-of-service'])).toContain(`Сервис предоставляет ${OSN_SELLER.name}, ИНН 7712345671, КПП 771201001.`)
    // the invoice's «Поставщик» line is the offer's party, with the address
    expect(partyLine(OSN_SELLER)).toBe(`${sellerParty(seller)}, ${OSN_SELLER.address}`)
    expect(sellerFooter(seller)).toEqual({ who: [OSN_SELLER.name], ids: 'ИНН 7712345671, КПП 771201001', short: OSN_SELLER.name })
    expect(text(servicesDocument(seller))).toContain(`${OSN_SELLER.name} (ИНН 7712345671, КПП 771201001)`)
  })

  test('a self-employed seller: the person, their status and INN; no KPP, no home address', () => {
    const seller = publicSeller(NPD_SELLER)!
    expect(seller.address).toBeNull()
    expect(seller.kpp).toBeNull()
    expect(sellerParty(seller)).toBe(
      'Иванов Иван Иванович, физическое лицо, применяющее специальный налоговый режим «Налог на профессиональный доход» (самозанятый), ИНН 500100732259',
    )
    expect(sellerDetails(seller)).toBe('Иванов Иван Иванович; самозанятый (плательщик налога на профессиональный доход); ИНН 500100732259')
    expect(text(legalDocuments(seller))).not.toContain(NPD_SELLER.address)
    expect(sellerFooter(seller)).toEqual({ who: ['Иванов Иван Иванович', 'Самозанятый'], ids: 'ИНН 500100732259', short: 'Иванов Иван Иванович' })
  })

  test('a sole trader is called so once, whether or not the name says «ИП»', () => {
    const trader = { name: 'Петров Пётр Петрович', inn: '500100732259', kpp: null, taxRegime: 'usn' as const, address: 'г. Химки' }
    expect(sellerParty(publicSeller(trader))).toBe('Петров Пётр Петрович, индивидуальный предприниматель, ИНН 500100732259')
    expect(sellerParty(publicSeller({ ...trader, name: 'ИП Петров П. П.' }))).toBe('ИП Петров П. П., ИНН 500100732259')
    expect(sellerFooter(publicSeller(trader)).who).toEqual(['Петров Пётр Петрович', 'Индивидуальный предприниматель'])
    expect(publicSeller(trader)!.address).toBeNull()
  })
})

describe('the seller in the landing page’s structured data', () => {
  test('with SELLER_* the Organization names the same party (legal name, INN); without it, the generic status', () => {
    const origin = 'https://gw.example.ru'
    const seller = publicSeller(OSN_SELLER)!
    const ld = organizationLd(origin, seller)
    expect([ld.legalName, ld.taxID]).toEqual([OSN_SELLER.name, '7712345671'])
    expect(ld.description).toStartWith(`${sellerParty(seller)}.`)
    expect(ld.description).not.toContain('Самозанятый')
    const generic = organizationLd(origin)
    expect(generic).not.toHaveProperty('legalName')
    expect(generic.description).toStartWith('Самозанятый.')
  })
})
