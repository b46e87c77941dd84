// The seller as the public pages name it: the offer, the privacy policy, the services page and the
// footer name the same party as the invoices and acts (SELLER_* in src/config.ts), so an invoice's
// «Основание: Договор-оферта» points at an offer of that party (issue 33). Without SELLER_* the
// pages keep their generic text (terms.ts PROVIDER). The server writes the seller into every page's
// HTML (src/spa/index.ts); the SPA reads it there (web/lib/seller.ts), so no text changes after load.

import { PROVIDER } from './terms'

/** What the public pages show of SELLER_*: no bank details; an address only for an organisation. */
export interface PublicSeller {
  name: string
  inn: string
  kpp: string | null
  taxRegime: 'npd' | 'usn' | 'osn'
  /** the registered address of an organisation; null for a person (self-employed, sole trader) */
  address: string | null
}

/** The element id of the inline JSON with the seller in every page's HTML. */
export const SELLER_ISLAND_ID = 'seller-data'

type SellerKind = 'self-employed' | 'sole-trader' | 'organisation'

/** A 10-digit INN is an organisation's; a person's has 12 (self-employed under НПД, or a sole trader). */
const kindOf = (s: Pick<PublicSeller, 'inn' | 'taxRegime'>): SellerKind => (s.taxRegime === 'npd' ? 'self-employed' : s.inn.length === 10 ? 'organisation' : 'sole-trader')

/** From the configured seller (SELLER_*): what may be published, a person's address excluded. */
export function publicSeller(seller: PublicSeller | null): PublicSeller | null {
  if (!seller) return null
  const organisation = kindOf(seller) === 'organisation'
  return { name: seller.name, inn: seller.inn, kpp: organisation ? seller.kpp : null, taxRegime: seller.taxRegime, address: organisation ? seller.address : null }
}

const NPD_LONG = 'физическое лицо, применяющее специальный налоговый режим «Налог на профессиональный доход» (самозанятый)'
/** A sole trader whose SELLER_NAME already says so ('ИП Иванов И. И.') is not called so twice. */
const saysSoleTrader = (name: string) => /^ИП\s|предпринимател/i.test(name)

/** 'ИНН 7712345671, КПП 771201001' */
export const sellerIds = (s: PublicSeller) => `ИНН ${s.inn}${s.kpp ? `, КПП ${s.kpp}` : ''}`

/**
 * How the footer names the provider: its lines (name and legal status) and the tax ids line;
 * `short` for the copyright line. Without a seller: 'Самозанятый', 'ИНН предоставляется по запросу'.
 */
export function sellerFooter(s: PublicSeller | null): { who: string[]; ids: string; short: string } {
  if (!s) return { who: [PROVIDER.status], ids: PROVIDER.taxId, short: PROVIDER.status }
  const kind = kindOf(s)
  const status = kind === 'self-employed' ? 'Самозанятый' : kind === 'sole-trader' && !saysSoleTrader(s.name) ? 'Индивидуальный предприниматель' : null
  return { who: status ? [s.name, status] : [s.name], ids: sellerIds(s), short: s.name }
}

/** The party in a document's opening sentence: 'Иванов Иван Иванович, физическое лицо, …, ИНН 500100732259'. */
export function sellerParty(s: PublicSeller | null): string {
  if (!s) return PROVIDER.statusLong
  const kind = kindOf(s)
  if (kind === 'self-employed') return `${s.name}, ${NPD_LONG}, ИНН ${s.inn}`
  if (kind === 'sole-trader') return `${s.name}${saysSoleTrader(s.name) ? '' : ', индивидуальный предприниматель'}, ИНН ${s.inn}`
  return `${s.name}, ${sellerIds(s)}`
}

/** «Сведения об Исполнителе»: status and ids, with an organisation's address. */
export function sellerDetails(s: PublicSeller | null): string {
  if (!s) return `${PROVIDER.status.toLowerCase()}; ${PROVIDER.taxId}`
  const kind = kindOf(s)
  const status = kind === 'self-employed' ? 'самозанятый (плательщик налога на профессиональный доход)' : kind === 'sole-trader' ? 'индивидуальный предприниматель' : null
  return [s.name, status, `ИНН ${s.inn}`, s.kpp && `КПП ${s.kpp}`, s.address && `адрес: ${s.address}`].filter(Boolean).join('; ')
}
