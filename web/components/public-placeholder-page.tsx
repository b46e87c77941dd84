import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { useDocumentTitle } from '../lib/use-document-title'
import { ArrowLeftIcon, ClockIcon } from './icons'

export interface PublicPlaceholderPageProps {
  title: string
  /** One sentence on what the page is for. */
  lead?: ReactNode
  backHref?: string
  backLabel?: string
}

/** A public page whose content is still being prepared: heading, purpose, no invented text. */
export function PublicPlaceholderPage({ title, lead, backHref = '/', backLabel = 'На главную' }: PublicPlaceholderPageProps) {
  useDocumentTitle(title)
  return (
    <div className="mx-auto w-full max-w-3xl px-4 py-14 sm:px-6 sm:py-20">
      <Link href={backHref} className="inline-flex items-center gap-1.5 text-sm text-slate-500 hover:text-slate-800">
        <ArrowLeftIcon size={14} />
        {backLabel}
      </Link>
      <h1 className="mt-5 text-[26px] leading-tight font-semibold tracking-tight break-words text-slate-900 sm:text-4xl">{title}</h1>
      {lead && <p className="mt-3 text-[17px] leading-7 text-slate-600">{lead}</p>}
      <div className="mt-8 flex items-start gap-3 rounded-xl border border-slate-200 bg-white p-5 text-[15px] text-slate-600 shadow-xs">
        <ClockIcon size={18} className="mt-0.5 shrink-0 text-indigo-600" />
        <p>Раздел готовится к публикации. Загляните сюда чуть позже.</p>
      </div>
    </div>
  )
}
