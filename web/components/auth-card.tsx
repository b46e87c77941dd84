// The card of the public forms: sign-in, registration, password reset, e-mail confirmation and
// a team's invitation (teams/invite-page.tsx) share it.
import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { ArrowLeftIcon } from './icons'

export interface AuthCardProps {
  title: string
  subtitle?: ReactNode
  /** An icon or badge shown above the title (success screens). */
  badge?: ReactNode
  children: ReactNode
  /** Links under the card body ('Нет аккаунта? …'). */
  footer?: ReactNode
}

export function AuthCard({ title, subtitle, badge, children, footer }: AuthCardProps) {
  return (
    <div className="w-full">
      <div className="rounded-2xl border border-slate-200 bg-white px-5 py-7 shadow-sm sm:px-8 sm:py-8">
        {badge && <div className="mb-4">{badge}</div>}
        <h1 className="text-[22px] font-semibold tracking-tight text-slate-900">{title}</h1>
        {subtitle && <p className="mt-1.5 text-sm leading-6 text-slate-500">{subtitle}</p>}
        <div className="mt-6">{children}</div>
      </div>
      {footer && <div className="mt-6 space-y-3 text-center text-sm text-slate-500">{footer}</div>}
    </div>
  )
}

export function AuthBadge({ tone, children }: { tone: 'success' | 'info'; children: ReactNode }) {
  const colors = tone === 'success' ? 'bg-emerald-50 text-emerald-600' : 'bg-indigo-50 text-indigo-600'
  return <div className={`flex h-11 w-11 items-center justify-center rounded-full ${colors}`}>{children}</div>
}

export const authLinkClass = 'font-medium text-indigo-600 hover:text-indigo-500'

/** The footer of the login and register cards: the way to the other one, and home. */
export function AuthSwitchFooter({ question, href, label }: { question: string; href: string; label: string }) {
  return (
    <>
      <p>
        {question}{' '}
        <Link href={href} className={authLinkClass}>
          {label}
        </Link>
      </p>
      <p>
        <Link href="/" className="inline-flex items-center gap-1.5 text-slate-500 hover:text-slate-800">
          <ArrowLeftIcon size={14} />
          На главную
        </Link>
      </p>
    </>
  )
}
