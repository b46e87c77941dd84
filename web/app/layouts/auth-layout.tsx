import type { ReactNode } from 'react'
import { PROVIDER } from '../../../src/content/terms'
import { DemoBanner } from '../../components/demo-banner'
import { Logo } from '../../components/logo'
import { TestPaymentsBanner } from '../../components/test-payments-banner'

/** Sign-in, registration and password screens: brand on top, one centred card. */
export function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col bg-slate-50 bg-[radial-gradient(ellipse_80%_50%_at_50%_-10%,rgb(99_102_241/0.10),transparent)]">
      <TestPaymentsBanner />
      <DemoBanner />
      <header className="px-4 py-5 sm:px-8">
        <Logo />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pt-4 pb-12 sm:items-center sm:pt-0">
        <div className="w-full max-w-[420px]">{children}</div>
      </main>
      <footer className="px-4 pb-6 text-center text-xs text-slate-500">© {PROVIDER.copyrightYear} AI Gateway</footer>
    </div>
  )
}
