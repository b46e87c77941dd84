import type { ReactNode } from 'react'
import { Redirect, useLocation, useSearch } from 'wouter'
import type { TeamPermission } from '../../src/wire'
import { PageSpinner } from '../components/spinner'
import { useAccount } from '../lib/account'
import { withNext } from '../lib/next-path'
import { useSession } from '../stores/session'

/** Signed-in area only: visitors are sent to /login?next=<the page they asked for>. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const isAuthenticated = useSession((s) => s.isAuthenticated)
  const hasUser = useSession((s) => s.user !== null)
  const [location] = useLocation()
  const search = useSearch()
  if (!isAuthenticated || !hasUser) return <Redirect to={withNext('/login', location + (search ? `?${search}` : ''))} replace />
  return <>{children}</>
}

/** Admin screens: other users go back to their dashboard (the server enforces the role anyway). */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const isAdmin = useSession((s) => s.user?.role === 'admin')
  if (!isAdmin) return <Redirect to="/app/dashboard" replace />
  return <>{children}</>
}

/**
 * A screen the role in the current team may not use (its link is hidden): back to the dashboard.
 * `team` screens exist only in a team: in the personal account they lead to the teams page.
 */
export function RequirePermission({ permission, team = false, children }: { permission?: TeamPermission; team?: boolean; children: ReactNode }) {
  const account = useAccount()
  if (team && !account.teamId) return <Redirect to="/app/team" replace />
  if (account.loading) return <PageSpinner />
  if (permission && !account.can(permission)) return <Redirect to="/app/dashboard" replace />
  return <>{children}</>
}
