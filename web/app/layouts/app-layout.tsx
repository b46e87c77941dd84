import { type ComponentType, type ReactNode, useEffect, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { formatRubles } from '../../../src/content/format'
import {
  BookIcon,
  ChartIcon,
  ChatIcon,
  ChevronDownIcon,
  CloseIcon,
  CubeIcon,
  DashboardIcon,
  FileTextIcon,
  type IconProps,
  KeyIcon,
  LogOutIcon,
  MenuIcon,
  ShieldIcon,
  UsersIcon,
  WalletIcon,
} from '../../components/icons'
import { Logo } from '../../components/logo'
import { Spinner } from '../../components/spinner'
import { api } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useBalance } from '../../lib/queries'
import { getSession, type User, useSession } from '../../stores/session'
import { AppBanners } from './app-banners'

interface NavItem {
  href: string
  label: string
  icon: ComponentType<IconProps>
  /** Highlight only on the exact path (a section root whose children have their own links). */
  exact?: boolean
}

const mainNav: NavItem[] = [
  { href: '/app/dashboard', label: 'Дашборд', icon: DashboardIcon },
  { href: '/app/playground', label: 'Playground', icon: ChatIcon },
  { href: '/app/models', label: 'Модели', icon: CubeIcon },
  { href: '/app/api-keys', label: 'API ключи', icon: KeyIcon },
  { href: '/app/billing', label: 'Баланс', icon: WalletIcon },
  { href: '/app/usage', label: 'Статистика', icon: ChartIcon },
  { href: '/app/docs', label: 'Документация', icon: BookIcon },
]

const adminNav: NavItem[] = [
  { href: '/app/admin', label: 'Дашборд', icon: DashboardIcon, exact: true },
  { href: '/app/admin/users', label: 'Пользователи', icon: UsersIcon },
  { href: '/app/admin/blog', label: 'Блог', icon: FileTextIcon },
]

/** The spec's rule: the path equals the link or lies below it. */
export function isActivePath(location: string, href: string, exact = false): boolean {
  return location === href || (!exact && location.startsWith(`${href}/`))
}

function NavLink({ item, location }: { item: NavItem; location: string }) {
  const active = isActivePath(location, item.href, item.exact)
  const Icon = item.icon
  return (
    <Link
      href={item.href}
      aria-current={active ? 'page' : undefined}
      className={cn(
        'group flex h-9 items-center gap-3 rounded-lg px-3 text-sm font-medium transition-colors',
        active ? 'bg-indigo-50 text-indigo-700' : 'text-slate-600 hover:bg-slate-100 hover:text-slate-900',
      )}
    >
      <Icon size={18} className={cn('shrink-0', active ? 'text-indigo-600' : 'text-slate-400 group-hover:text-slate-600')} />
      <span className="truncate">{item.label}</span>
    </Link>
  )
}

function AdminGroup({ location }: { location: string }) {
  const inAdmin = isActivePath(location, '/app/admin')
  const [open, setOpen] = useState(inAdmin)
  useEffect(() => {
    if (inAdmin) setOpen(true)
  }, [inAdmin])
  return (
    <div className="mt-4 border-t border-slate-100 pt-4">
      <button
        type="button"
        onClick={() => setOpen((v) => !v)}
        aria-expanded={open}
        aria-controls="sidebar-admin-links"
        className="flex h-9 w-full items-center gap-3 rounded-lg px-3 text-sm font-medium text-slate-600 transition-colors hover:bg-slate-100 hover:text-slate-900"
      >
        <ShieldIcon size={18} className="shrink-0 text-slate-400" />
        <span className="flex-1 text-left">Админ-панель</span>
        <ChevronDownIcon size={16} className={cn('shrink-0 text-slate-400 transition-transform', open && 'rotate-180')} />
      </button>
      {open && (
        <div id="sidebar-admin-links" className="mt-0.5 ml-[21px] space-y-0.5 border-l border-slate-200 pl-2">
          {adminNav.map((item) => (
            <NavLink key={item.href} item={item} location={location} />
          ))}
        </div>
      )}
    </div>
  )
}

function SidebarFooter({ user }: { user: User }) {
  const [location, navigate] = useLocation()
  const { data } = useBalance()
  const logout = useSession((s) => s.logout)
  const [leaving, setLeaving] = useState(false)
  const balance = data?.balance ?? user.balance

  async function signOut() {
    setLeaving(true)
    const refreshToken = getSession().refreshToken
    if (refreshToken) {
      // Revoke the refresh token on the server, but never keep the user waiting on it.
      const revoke = api.post('/api/auth/logout', { refreshToken }).catch(() => undefined)
      await Promise.race([revoke, new Promise((resolve) => setTimeout(resolve, 3000))])
    }
    logout()
    navigate('/login')
  }

  return (
    <div className="space-y-3 border-t border-slate-200 p-3">
      <div className="rounded-xl border border-slate-200 bg-slate-50 px-3.5 py-3">
        <div className="flex items-center justify-between gap-2">
          <span className="text-xs font-medium text-slate-500">Ваш баланс</span>
          <Link href="/app/billing" className="text-xs font-medium text-indigo-600 hover:text-indigo-500">
            Пополнить
          </Link>
        </div>
        <p data-testid="sidebar-balance" className="mt-1 text-lg font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums">
          {formatRubles(balance)}
        </p>
      </div>
      <Link
        href="/app/account"
        data-testid="sidebar-account"
        aria-current={location === '/app/account' ? 'page' : undefined}
        className={cn('flex items-center gap-2.5 rounded-lg px-1 py-1 transition-colors hover:bg-slate-100', location === '/app/account' && 'bg-indigo-50')}
      >
        <span aria-hidden="true" className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-sm font-semibold text-indigo-700 uppercase">
          {user.email.charAt(0)}
        </span>
        <div className="min-w-0 flex-1">
          <p className="text-xs text-slate-600">Аккаунт · настройки</p>
          <p className="truncate text-sm font-medium text-slate-800" title={user.email} data-testid="sidebar-email">
            {user.email}
          </p>
        </div>
      </Link>
      <button
        type="button"
        onClick={signOut}
        disabled={leaving}
        className="flex h-9 w-full items-center justify-center gap-2 rounded-lg border border-slate-200 bg-white text-sm font-medium text-slate-600 transition-colors hover:bg-slate-50 hover:text-slate-900 disabled:opacity-60"
      >
        {leaving ? <Spinner size={14} /> : <LogOutIcon size={15} />}
        Выйти
      </button>
    </div>
  )
}

/** The mobile header's balance: always in sight on a phone, a tap opens the top-up page. */
function HeaderBalance({ fallback }: { fallback: number }) {
  const { data } = useBalance()
  return (
    <Link
      href="/app/billing"
      data-testid="header-balance"
      aria-label={`Баланс: ${formatRubles(data?.balance ?? fallback)}. Пополнить`}
      className="ml-auto flex items-center gap-1.5 rounded-lg border border-slate-200 bg-slate-50 px-2.5 py-1.5 text-sm font-semibold whitespace-nowrap text-slate-900 tabular-nums hover:bg-slate-100"
    >
      <WalletIcon size={15} className="shrink-0 text-slate-400" />
      {formatRubles(data?.balance ?? fallback)}
    </Link>
  )
}

function Sidebar({ user, open, onClose }: { user: User; open: boolean; onClose: () => void }) {
  const [location] = useLocation()
  return (
    <aside
      id="app-sidebar"
      aria-label="Боковая панель"
      className={cn(
        'fixed inset-y-0 left-0 z-40 flex w-72 max-w-[85vw] flex-col border-r border-slate-200 bg-white',
        'transition-[translate,visibility] duration-200 ease-out lg:visible lg:w-64 lg:translate-x-0',
        open ? 'visible translate-x-0 shadow-2xl lg:shadow-none' : 'invisible -translate-x-full',
      )}
    >
      <div className="flex h-16 shrink-0 items-center justify-between px-5">
        <Logo href="/app/dashboard" />
        <button type="button" onClick={onClose} aria-label="Закрыть меню" className="-mr-2 rounded-lg p-2 text-slate-500 hover:bg-slate-100 hover:text-slate-900 lg:hidden">
          <CloseIcon size={18} />
        </button>
      </div>
      <nav aria-label="Основное меню" className="flex-1 overflow-y-auto px-3 py-2">
        <div className="space-y-0.5">
          {mainNav.map((item) => (
            <NavLink key={item.href} item={item} location={location} />
          ))}
        </div>
        {user.role === 'admin' && <AdminGroup location={location} />}
      </nav>
      <SidebarFooter user={user} />
    </aside>
  )
}

/** The signed-in area: sidebar (a drawer behind a menu button on narrow screens) and the page. */
export function AppLayout({ children }: { children: ReactNode }) {
  const user = useSession((s) => s.user)
  const setUser = useSession((s) => s.setUser)
  const [location] = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)

  // The persisted user may be stale (role or balance changed elsewhere): refresh it once.
  useEffect(() => {
    let cancelled = false
    api
      .get<{ user: User }>('/api/auth/profile')
      .then((data) => {
        if (!cancelled && data?.user) setUser(data.user)
      })
      .catch(() => undefined)
    return () => {
      cancelled = true
    }
  }, [setUser])

  // biome-ignore lint/correctness/useExhaustiveDependencies: location is the trigger: a navigation closes the menu
  useEffect(() => setMenuOpen(false), [location])

  useEffect(() => {
    if (!menuOpen) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [menuOpen])

  if (!user) return null

  return (
    <div className="min-h-dvh bg-slate-50">
      <header className="sticky top-0 z-20 flex h-14 items-center gap-3 border-b border-slate-200 bg-white/90 px-4 backdrop-blur lg:hidden">
        <button
          type="button"
          onClick={() => setMenuOpen(true)}
          aria-label="Открыть меню"
          aria-expanded={menuOpen}
          aria-controls="app-sidebar"
          className="-ml-2 rounded-lg p-2 text-slate-600 hover:bg-slate-100 hover:text-slate-900"
        >
          <MenuIcon size={20} />
        </button>
        <Logo href="/app/dashboard" />
        <HeaderBalance fallback={user.balance} />
      </header>
      {menuOpen && <div aria-hidden="true" onClick={() => setMenuOpen(false)} className="fixed inset-0 z-30 bg-slate-900/30 lg:hidden" />}
      <Sidebar user={user} open={menuOpen} onClose={() => setMenuOpen(false)} />
      <main className="lg:pl-64">
        <AppBanners />
        <div className="mx-auto w-full max-w-6xl px-4 py-6 sm:px-6 sm:py-8 lg:px-8 lg:py-10">{children}</div>
      </main>
    </div>
  )
}
