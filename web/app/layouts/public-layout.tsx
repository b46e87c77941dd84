import { type MouseEvent, type ReactNode, useEffect, useId, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { sellerFooter } from '../../../src/content/seller'
import { PROVIDER, SUPPORT } from '../../../src/content/terms'
import { ButtonLink } from '../../components/button'
import { DemoBanner } from '../../components/demo-banner'
import { CloseIcon, MailIcon, MenuIcon } from '../../components/icons'
import { Logo } from '../../components/logo'
import { TestPaymentsBanner } from '../../components/test-payments-banner'
import { cn } from '../../lib/cn'
import { siteSeller } from '../../lib/seller'
import { useSession } from '../../stores/session'

type NavItem = { label: string } & ({ section: string } | { href: string })

/**
 * One header for every public page — landing, catalogue, docs, blog, legal texts, services, status
 * (issue 29: the blog and the catalogue had a header of their own): the spec's landing header, whose
 * sections are reached from any page; the logo is the way home.
 */
export const PUBLIC_NAV: NavItem[] = [
  { label: 'Возможности', section: 'features' },
  { label: 'Для кого', section: 'audience' },
  { label: 'Модели', section: 'models' },
  { label: 'Playground', section: 'playground' },
  { label: 'Применение', section: 'use-cases' },
  { label: 'Блог', href: '/blog' },
]

/**
 * A link to a section of the landing. On the landing the browser scrolls by itself; elsewhere the
 * SPA navigates to '/#section' and the landing scrolls once it is shown.
 */
function SectionLink({ section, className, children, onNavigate }: { section: string; className: string; children: ReactNode; onNavigate?: () => void }) {
  const [location, navigate] = useLocation()
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onNavigate?.()
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    if (location === '/') return
    event.preventDefault()
    navigate(`/#${section}`)
  }
  return (
    <a href={`/#${section}`} onClick={onClick} className={className}>
      {children}
    </a>
  )
}

function NavLinks({ items, className, onNavigate }: { items: NavItem[]; className: string; onNavigate?: () => void }) {
  const [location] = useLocation()
  return (
    <>
      {items.map((item) =>
        'section' in item ? (
          <SectionLink key={item.label} section={item.section} className={className} onNavigate={onNavigate}>
            {item.label}
          </SectionLink>
        ) : (
          <Link
            key={item.label}
            href={item.href}
            onClick={onNavigate}
            aria-current={location === item.href || (item.href !== '/' && location.startsWith(`${item.href}/`)) ? 'page' : undefined}
            className={className}
          >
            {item.label}
          </Link>
        ),
      )}
    </>
  )
}

function HeaderAuth() {
  const user = useSession((s) => s.user)
  const isAuthenticated = useSession((s) => s.isAuthenticated)
  if (isAuthenticated && user) {
    return (
      <div className="flex min-w-0 items-center gap-3">
        <Link
          href="/app/dashboard"
          className="hidden max-w-[14rem] truncate rounded text-sm text-slate-600 hover:text-slate-900 lg:block"
          title={user.email}
          data-testid="header-email"
        >
          {user.email}
        </Link>
        <ButtonLink href="/app/dashboard" size="sm">
          Панель управления
        </ButtonLink>
      </div>
    )
  }
  return (
    <div className="flex items-center gap-1 sm:gap-2">
      <ButtonLink href="/login" variant="ghost" size="sm" className="max-sm:px-2">
        Войти
      </ButtonLink>
      <ButtonLink href="/register" size="sm">
        Регистрация
      </ButtonLink>
    </div>
  )
}

const desktopLink = 'rounded-md px-1 py-1 text-sm text-slate-600 transition-colors hover:text-slate-900 aria-[current=page]:font-medium aria-[current=page]:text-slate-900'
const mobileLink = 'block rounded-lg px-3 py-2.5 text-[15px] text-slate-700 hover:bg-slate-100 aria-[current=page]:bg-indigo-50 aria-[current=page]:text-indigo-700'

function Header() {
  const items = PUBLIC_NAV
  const [open, setOpen] = useState(false)
  const menuId = useId()
  const [location] = useLocation()
  const user = useSession((s) => (s.isAuthenticated ? s.user : null))
  // biome-ignore lint/correctness/useExhaustiveDependencies: location is the trigger: a navigation closes the menu
  useEffect(() => setOpen(false), [location])
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [open])

  return (
    <header className="sticky top-0 z-30 border-b border-slate-200/80 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-2 px-4 sm:gap-3 sm:px-6">
        <div className="flex min-w-0 items-center gap-8">
          {/* below 400 px only the mark shows (the name stays for screen readers), so Войти and Регистрация fit */}
          <Logo className="max-[399px]:[&>span]:sr-only" />
          <nav aria-label="Разделы сайта" className="hidden items-center gap-5 lg:flex">
            <NavLinks items={items} className={desktopLink} />
          </nav>
        </div>
        <div className="flex items-center gap-1.5">
          <HeaderAuth />
          <button
            type="button"
            className="inline-flex h-9 w-9 items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100 hover:text-slate-900 lg:hidden"
            aria-expanded={open}
            aria-controls={menuId}
            aria-label={open ? 'Закрыть меню' : 'Открыть меню'}
            onClick={() => setOpen((v) => !v)}
          >
            {open ? <CloseIcon size={20} /> : <MenuIcon size={20} />}
          </button>
        </div>
      </div>
      <nav id={menuId} aria-label="Меню" hidden={!open} className="border-t border-slate-200 bg-white px-4 pt-2 pb-4 lg:hidden">
        <NavLinks items={items} className={mobileLink} onNavigate={() => setOpen(false)} />
        {user && (
          <div className="mt-2 border-t border-slate-100 pt-2">
            <Link href="/app/dashboard" className={cn(mobileLink, 'truncate text-slate-500')} title={user.email}>
              {user.email}
            </Link>
          </div>
        )}
      </nav>
    </header>
  )
}

const FOOTER_GROUPS: Array<{ title: string; links: Array<[href: string, label: string]> }> = [
  {
    title: 'Продукт',
    links: [
      ['/', 'Главная'],
      ['/models', 'Модели'],
      ['/app/playground', 'Playground'],
      ['/app/docs', 'Документация'],
      ['/blog', 'Блог'],
      ['/status', 'Состояние сервиса'],
    ],
  },
  {
    title: 'Документы',
    links: [
      ['/services', 'Услуги'],
      ['/privacy-policy', 'Политика конфиденциальности'],
      ['/terms-of-service', 'Пользовательское соглашение'],
      ['/public-offer', 'Публичная оферта'],
      ['/refund-policy', 'Политика возврата'],
    ],
  },
]

const footerLink = 'rounded text-sm text-slate-600 transition-colors hover:text-slate-900'

/** The provider as the offer names it: the seller of the invoices when the server has one (SELLER_*). */
const provider = sellerFooter(siteSeller)

function Footer() {
  return (
    <footer className="border-t border-slate-200 bg-slate-50" data-testid="site-footer">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:grid-cols-2 sm:px-6 lg:grid-cols-[1.3fr_1fr_1fr_1.2fr]">
        <div>
          <Logo />
          <p className="mt-3 max-w-xs text-sm leading-6 text-slate-600">Доступ к 300+ AI-моделям через единый OpenAI-совместимый API с оплатой в рублях.</p>
        </div>
        {FOOTER_GROUPS.map((group) => (
          <nav key={group.title} aria-label={group.title}>
            <h2 className="text-sm font-semibold text-slate-900">{group.title}</h2>
            <ul className="mt-3 space-y-2">
              {group.links.map(([href, label]) => (
                <li key={href}>
                  <Link href={href} className={footerLink}>
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
        <div>
          <h2 className="text-sm font-semibold text-slate-900">Контакты</h2>
          <ul className="mt-3 space-y-2 text-sm text-slate-600">
            {provider.who.map((line) => (
              <li key={line} data-testid="footer-provider">
                {line}
              </li>
            ))}
            <li>
              <a href={`mailto:${PROVIDER.email}`} className={cn(footerLink, 'inline-flex items-center gap-1.5 break-all')}>
                <MailIcon size={14} className="shrink-0" />
                {PROVIDER.email}
              </a>
            </li>
            <li>
              {PROVIDER.messenger.name}:{' '}
              <a href={PROVIDER.messenger.url} target="_blank" rel="noopener noreferrer" className={footerLink}>
                {PROVIDER.messenger.handle}
              </a>
            </li>
            <li data-testid="footer-tax-ids">{provider.ids}</li>
            <li>Поддержка {SUPPORT.hours}</li>
          </ul>
        </div>
      </div>
      <div className="border-t border-slate-200">
        <div className="mx-auto flex max-w-6xl flex-col gap-1 px-4 py-5 text-xs leading-5 text-slate-500 sm:px-6 md:flex-row md:justify-between md:gap-6">
          <p>
            © {PROVIDER.copyrightYear} AI Gateway · {provider.short}
          </p>
          <p>{PROVIDER.upstreamNote}</p>
        </div>
      </div>
    </footer>
  )
}

/** Landing, blog, docs, legal pages: site header with sign-in links, content, footer. */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col bg-white">
      <a href="#main" className="sr-only z-50 rounded-lg bg-white px-4 py-2 text-sm font-medium text-indigo-700 shadow focus:not-sr-only focus:fixed focus:top-3 focus:left-3">
        Перейти к содержимому
      </a>
      <TestPaymentsBanner />
      <DemoBanner />
      <Header />
      <main id="main" tabIndex={-1} className="flex flex-1 flex-col outline-none">
        {children}
      </main>
      <Footer />
    </div>
  )
}
