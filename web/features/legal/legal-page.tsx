import { Link } from 'wouter'
import { type LegalSlug, legalDocuments } from '../../../src/content/legal'
import { RichSections } from '../../components/rich-document'
import { cn } from '../../lib/cn'
import { siteSeller } from '../../lib/seller'

/** The provider named as the seller of the invoices when the server has one (SELLER_*). */
const DOCUMENTS = legalDocuments(siteSeller)

const ORDER: Array<[LegalSlug, string]> = [
  ['public-offer', 'Публичная оферта'],
  ['terms-of-service', 'Пользовательское соглашение'],
  ['privacy-policy', 'Политика конфиденциальности'],
  ['refund-policy', 'Политика возврата средств'],
]

/** One legal document: title, revision, contents with anchors, the text, links to the others. */
function LegalPage({ slug }: { slug: LegalSlug }) {
  const doc = DOCUMENTS[slug]
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="grid gap-10 lg:grid-cols-[15rem_minmax(0,1fr)]">
        <aside className="order-2 lg:order-1">
          <nav aria-label="Документы" className="lg:sticky lg:top-24">
            <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Документы</h2>
            <ul className="mt-3 space-y-1">
              {ORDER.map(([s, label]) => (
                <li key={s}>
                  <Link
                    href={`/${s}`}
                    aria-current={s === slug ? 'page' : undefined}
                    className={cn(
                      'block rounded-lg px-3 py-2 text-sm transition-colors',
                      s === slug ? 'bg-indigo-50 font-medium text-indigo-700' : 'text-slate-600 hover:bg-slate-100 hover:text-slate-900',
                    )}
                  >
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </aside>
        <article className="order-1 max-w-3xl min-w-0 lg:order-2">
          <h1 className="text-2xl leading-tight font-semibold tracking-tight break-words text-slate-900 min-[400px]:text-[28px] sm:text-4xl">{doc.title}</h1>
          {doc.lead && <p className="mt-3 text-[17px] leading-7 text-slate-600">{doc.lead}</p>}
          {doc.updated && <p className="mt-2 text-sm text-slate-500">Редакция от {doc.updated}</p>}
          <nav aria-label="Содержание" className="mt-6 rounded-xl border border-slate-200 bg-slate-50 p-4 sm:p-5">
            <h2 className="text-sm font-semibold text-slate-900">Содержание</h2>
            <ol className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
              {doc.sections.map((section, i) => (
                <li key={section.id}>
                  <a href={`#${section.id}`} className="text-slate-600 hover:text-indigo-700 hover:underline">
                    {i + 1}. {section.title}
                  </a>
                </li>
              ))}
            </ol>
          </nav>
          <RichSections sections={doc.sections} numbered />
        </article>
      </div>
    </div>
  )
}

export const PublicOfferPage = () => <LegalPage slug="public-offer" />
export const TermsOfServicePage = () => <LegalPage slug="terms-of-service" />
export const PrivacyPolicyPage = () => <LegalPage slug="privacy-policy" />
export const RefundPolicyPage = () => <LegalPage slug="refund-policy" />
