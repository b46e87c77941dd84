import type { ReactNode } from 'react'
import { Redirect, useLocation, useSearch } from 'wouter'
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
