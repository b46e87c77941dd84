import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { ButtonLink } from '../../components/button'
import { Logo } from '../../components/logo'
import { useSession } from '../../stores/session'

function HeaderAuth() {
  const user = useSession((s) => s.user)
  const isAuthenticated = useSession((s) => s.isAuthenticated)
  if (isAuthenticated && user) {
    return (
      <div className="flex min-w-0 items-center gap-3">
        <Link
          href="/app/dashboard"
          className="hidden max-w-[16rem] truncate text-sm text-slate-600 hover:text-slate-900 sm:block"
          title={user.email}
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
    <div className="flex items-center gap-1.5 sm:gap-2">
      <ButtonLink href="/login" variant="ghost" size="sm">
        Войти
      </ButtonLink>
      <ButtonLink href="/register" size="sm">
        Регистрация
      </ButtonLink>
    </div>
  )
}

const navLink = 'text-sm text-slate-600 transition-colors hover:text-slate-900'

const footerGroups: Array<{ title: string; links: Array<[href: string, label: string]> }> = [
  {
    title: 'Продукт',
    links: [
      ['/', 'Главная'],
      ['/app/models', 'Модели'],
      ['/app/playground', 'Playground'],
      ['/app/docs', 'Документация'],
      ['/blog', 'Блог'],
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

/** Landing, blog, legal pages: site header with sign-in links, content, footer. */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col bg-white">
      <header className="sticky top-0 z-30 border-b border-slate-200/80 bg-white/85 backdrop-blur supports-[backdrop-filter]:bg-white/70">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
          <div className="flex items-center gap-8">
            <Logo />
            <nav aria-label="Разделы сайта" className="hidden items-center gap-6 md:flex">
              <Link href="/app/models" className={navLink}>
                Модели
              </Link>
              <Link href="/app/docs" className={navLink}>
                Документация
              </Link>
              <Link href="/blog" className={navLink}>
                Блог
              </Link>
            </nav>
          </div>
          <HeaderAuth />
        </div>
      </header>
      <main className="flex flex-1 flex-col">{children}</main>
      <footer className="border-t border-slate-200 bg-slate-50">
        <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-[1.4fr_1fr_1fr]">
          <div>
            <Logo />
            <p className="mt-3 max-w-xs text-sm leading-6 text-slate-500">
              Доступ к AI-моделям через единый OpenAI-совместимый API с оплатой в рублях.
            </p>
          </div>
          {footerGroups.map((group) => (
            <nav key={group.title} aria-label={group.title}>
              <h2 className="text-sm font-semibold text-slate-900">{group.title}</h2>
              <ul className="mt-3 space-y-2">
                {group.links.map(([href, label]) => (
                  <li key={href}>
                    <Link href={href} className="text-sm text-slate-500 transition-colors hover:text-slate-900">
                      {label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          ))}
        </div>
        <div className="border-t border-slate-200">
          <p className="mx-auto max-w-6xl px-4 py-5 text-xs leading-5 text-slate-400 sm:px-6">
            © 2025 AI Gateway. Сервис работает на базе стороннего сервиса маршрутизации запросов к AI-моделям.
          </p>
        </div>
      </footer>
    </div>
  )
}
