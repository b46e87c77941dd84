import { type ComponentType, type ReactNode, useEffect, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { formatRubles } from '../../../src/content/format'
import type { TeamPermission } from '../../../src/wire'
import {
  ActivityIcon,
  BookIcon,
  BuildingIcon,
  ChartIcon,
  ChatIcon,
  ChevronDownIcon,
  ClockIcon,
  CloseIcon,
  CubeIcon,
  DashboardIcon,
  FileTextIcon,
  type IconProps,
  KeyIcon,
  LogOutIcon,
  MenuIcon,
  ShieldIcon,
  SparklesIcon,
  UsersIcon,
  WalletIcon,
  ZapIcon,
} from '../../components/icons'
import { Logo } from '../../components/logo'
import { Spinner } from '../../components/spinner'
import { type Account, useAccount } from '../../lib/account'
import { api } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useBalance } from '../../lib/queries'
import { getSession, type User, useSession } from '../../stores/session'
import { AccountSwitcher, useStaleTeamReset } from './account-switcher'
import { AppBanners } from './app-banners'

interface NavItem {
  href: string
  label: string
  icon: ComponentType<IconProps>
  /** Highlight only on the exact path (a section root whose children have their own links). */
  exact?: boolean
  /** Shown only when the role in the current team has it (always in the personal account). */
  permission?: TeamPermission
}

const mainNav: NavItem[] = [
  { href: '/app/dashboard', label: 'Дашборд', icon: DashboardIcon },
  { href: '/app/playground', label: 'Playground', icon: ChatIcon, permission: 'playground' },
  { href: '/app/models', label: 'Модели', icon: CubeIcon },
  { href: '/app/api-keys', label: 'API ключи', icon: KeyIcon, permission: 'keys.own' },
  { href: '/app/billing', label: 'Баланс', icon: WalletIcon, permission: 'history' },
  { href: '/app/usage', label: 'Статистика', icon: ChartIcon, permission: 'usage.own' },
  { href: '/app/activity', label: 'Журнал запросов', icon: ClockIcon, permission: 'usage.own' },
  { href: '/app/docs', label: 'Документация', icon: BookIcon },
]

/** The team's own pages, in team context. */
const teamNav: NavItem[] = [
  { href: '/app/team', label: 'Команда', icon: BuildingIcon, exact: true },
  { href: '/app/team/analytics', label: 'Аналитика команды', icon: ActivityIcon, permission: 'usage.all' },
  { href: '/app/team/documents', label: 'Документы', icon: FileTextIcon, permission: 'topup' },
  { href: '/app/team/audit', label: 'Журнал действий', icon: FileTextIcon, permission: 'audit.view' },
  { href: '/app/team/webhook', label: 'Вебхук', icon: ZapIcon, permission: 'webhook.manage' },
]

const adminNav: NavItem[] = [
  { href: '/app/admin', label: 'Дашборд', icon: DashboardIcon, exact: true },
  { href: '/app/admin/users', label: 'Пользователи', icon: UsersIcon },
  { href: '/app/admin/teams', label: 'Команды', icon: BuildingIcon },
  { href: '/app/admin/invoices', label: 'Счета и выписки', icon: WalletIcon },
  { href: '/app/admin/promo-codes', label: 'Промокоды', icon: SparklesIcon },
  { href: '/app/admin/blog', label: 'Блог', icon: FileTextIcon },
]

/** The links a role may follow: the others are hidden, not left to fail. */
const allowed = (items: NavItem[], account: Account) => items.filter((i) => !i.permission || account.can(i.permission))

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
  const account = useAccount()
  const logout = useSession((s) => s.logout)
  const [leaving, setLeaving] = useState(false)
  // In a team the sidebar shows the team's balance (the personal one waits for the switch back).
  const balance = data?.balance ?? (account.teamId ? undefined : user.balance)

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
          <span className="text-xs font-medium text-slate-500">{account.teamId ? 'Баланс команды' : 'Ваш баланс'}</span>
          {account.can('topup') && (
            <Link href="/app/billing" className="text-xs font-medium text-indigo-600 hover:text-indigo-500">
              Пополнить
            </Link>
          )}
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
  const account = useAccount()
  const balance = data?.balance ?? (account.teamId ? undefined : fallback)
  const classes =
    'flex shrink-0 items-center gap-1.5 rounded-lg border border-slate-200 bg-slate-50 px-2.5 py-1.5 text-sm font-semibold whitespace-nowrap text-slate-900 tabular-nums'
  const content = (
    <>
      <WalletIcon size={15} className="shrink-0 text-slate-400" />
      {formatRubles(balance)}
    </>
  )
  // A role that cannot top up sees the team's balance without the link to the billing page.
  if (!account.can('topup'))
    return (
      <span data-testid="header-balance" className={classes}>
        <span className="sr-only">Баланс команды: </span>
        {content}
      </span>
    )
  return (
    <Link
      href="/app/billing"
      data-testid="header-balance"
      aria-label={`${account.teamId ? 'Баланс команды' : 'Баланс'}: ${formatRubles(balance)}. Пополнить`}
      className={cn(classes, 'hover:bg-slate-100')}
    >
      {content}
    </Link>
  )
}

function Sidebar({ user, open, onClose }: { user: User; open: boolean; onClose: () => void }) {
  const [location] = useLocation()
  const account = useAccount()
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
      <div className="px-3 pb-2">
        <AccountSwitcher />
      </div>
      <nav aria-label="Основное меню" className="flex-1 overflow-y-auto px-3 py-2">
        <div className="space-y-0.5">
          {allowed(mainNav, account).map((item) => (
            <NavLink key={item.href} item={item} location={location} />
          ))}
        </div>
        <div className="mt-4 space-y-0.5 border-t border-slate-100 pt-4" data-testid="team-nav">
          {account.teamId ? (
            <>
              <p className="truncate px-3 pb-1 text-xs font-medium text-slate-500" title={account.team?.name}>
                {account.team ? `Команда «${account.team.name}»` : 'Команда'}
              </p>
              {allowed(teamNav, account).map((item) => (
                <NavLink key={item.href} item={item} location={location} />
              ))}
            </>
          ) : (
            <NavLink item={{ href: '/app/team', label: 'Команды', icon: BuildingIcon, exact: true }} location={location} />
          )}
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
  useStaleTeamReset()

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
        {/* on a phone the mark alone leaves room for the account switcher */}
        <Logo href="/app/dashboard" className="[&>span]:sr-only sm:[&>span]:not-sr-only" />
        <AccountSwitcher compact className="min-w-0 flex-1 sm:ml-auto sm:max-w-56" />
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
