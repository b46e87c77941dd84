// The admin area's calls: /api/admin/* and /api/blog/admin/* (every one checked on the server too).
import useSWR from 'swr'
import type {
  AdminBlogPost,
  AdminRefundRequest,
  AdminStats,
  AdminTeam,
  AdminTeamsPage,
  AdminUpstreams,
  AdminUser,
  AdminUserDetail,
  AdminUsersPage,
  AutopostSettings,
  AutopostStats,
  BalanceAdjustment,
  BlogPost,
  Deleted,
  TeamBalanceAdjustment,
  UncoveredCost,
  UncoveredResponse,
} from '../../../src/wire'
import { api, authorizedFetch, parseResponse } from '../../lib/api'

// The wire types, declared by the route schemas (src/admin/model.ts, src/blog/model.ts, src/payments/model.ts).
export type { AdminStats, AdminTeam, AdminUpstreams, AdminUser, AdminUserDetail, AutopostSettings, AutopostStats, UncoveredCost }
export type RefundRequest = AdminRefundRequest
export type AdminPost = AdminBlogPost

// ─── stats ───────────────────────────────────────────────────────────────────

/** The spec's threshold for the unlimited (pay-as-you-go) upstream mode. */
export const UNLIMITED_LIMIT = 999999

export const useAdminStats = () => useSWR<AdminStats>('/api/admin/stats', { dedupingInterval: 2000 })

/** This instance's circuit breakers and recent upstream errors, followed while the dashboard is open. */
export const useAdminUpstreams = () => useSWR<AdminUpstreams>('/api/admin/upstreams', { refreshInterval: 10_000, dedupingInterval: 2000 })

// ─── uncovered cost ──────────────────────────────────────────────────────────

/** The list as the screen reads it (the wire answer is `{success, total, requests, data}`). */
export interface UncoveredPage {
  /** rubles, all requests */
  total: number
  requests: number
  rows: UncoveredCost[]
}

export const UNCOVERED_LIMIT = 50
export const UNCOVERED_KEY = `/api/admin/uncovered?limit=${UNCOVERED_LIMIT}`

/** This call answers `{success, total, requests, data}`: the shared fetcher would keep only `data`. */
async function fetchUncovered(path: string): Promise<UncoveredPage> {
  const response = await authorizedFetch(path, { headers: { Accept: 'application/json' } })
  if (!response.ok) await parseResponse(response) // throws the server's error
  const body = (await response.json()) as UncoveredResponse
  return { total: body.total, requests: body.requests, rows: body.data }
}

/** The list is asked for only when the stats say there is something to list. */
export const useUncovered = (enabled: boolean) => useSWR<UncoveredPage>(enabled ? UNCOVERED_KEY : null, fetchUncovered, { dedupingInterval: 2000 })

// ─── users ───────────────────────────────────────────────────────────────────

/** The page as the screen reads it (the wire answer is `{success, data, pagination}`). */
export interface UsersPage {
  users: AdminUser[]
  total: number
}

/** The spec's page size for the admin user list. */
export const USERS_PAGE_SIZE = 100

export const usersKey = (search: string) => `/api/admin/users?${new URLSearchParams({ search, limit: String(USERS_PAGE_SIZE) })}`

/** This call answers `{success, data, pagination}`: the shared fetcher would drop the pagination. */
async function fetchUsers(path: string): Promise<UsersPage> {
  const response = await authorizedFetch(path, { headers: { Accept: 'application/json' } })
  if (!response.ok) await parseResponse(response) // throws the server's error
  const body = (await response.json()) as AdminUsersPage
  return { users: body.data, total: body.pagination.total }
}

export const useAdminUsers = (search: string) => useSWR<UsersPage>(usersKey(search), fetchUsers, { dedupingInterval: 2000, keepPreviousData: true })

export const useRefundRequests = () => useSWR<RefundRequest[]>('/api/admin/refund-requests', { dedupingInterval: 2000 })

/** One customer's page: their ledger, keys and recent requests. */
export const adminUserKey = (id: string) => `/api/admin/users/${encodeURIComponent(id)}`
export const useAdminUser = (id: string) => useSWR<AdminUserDetail>(adminUserKey(id), { dedupingInterval: 2000 })

/** The spec's fixed description of a balance change, sent when the admin gives no reason. */
export const ADJUSTMENT_DESCRIPTION = 'Admin adjustment'
/** The reason field's limit (the server's). */
export const REASON_MAX_LENGTH = 200

export const usersApi = {
  /** `reason` is the route's description: the customer reads «Корректировка администратора: <reason>». */
  adjustBalance: (id: string, amount: number, reason = '') =>
    api.post<BalanceAdjustment>(`/api/admin/users/${encodeURIComponent(id)}/balance`, { amount, description: reason.trim() || ADJUSTMENT_DESCRIPTION }),
  remove: (id: string) => api.delete<Deleted>(`/api/admin/users/${encodeURIComponent(id)}`),
}

// ─── teams ───────────────────────────────────────────────────────────────────

export const teamsAdminKey = (search: string) => `/api/admin/teams?${new URLSearchParams({ search, limit: String(USERS_PAGE_SIZE) })}`

/** This call answers `{success, data, pagination}`, like the users'. */
async function fetchTeams(path: string): Promise<{ teams: AdminTeam[]; total: number }> {
  const response = await authorizedFetch(path, { headers: { Accept: 'application/json' } })
  if (!response.ok) await parseResponse(response) // throws the server's error
  const body = (await response.json()) as AdminTeamsPage
  return { teams: body.data, total: body.pagination.total }
}

export const useAdminTeams = (search: string) => useSWR(teamsAdminKey(search), fetchTeams, { dedupingInterval: 2000, keepPreviousData: true })

export const teamsAdminApi = {
  adjustBalance: (id: string, amount: number, reason = '') =>
    api.post<TeamBalanceAdjustment>(`/api/admin/teams/${encodeURIComponent(id)}/balance`, { amount, description: reason.trim() || ADJUSTMENT_DESCRIPTION }),
}

// ─── blog ────────────────────────────────────────────────────────────────────

/** Spec §5: the only frequencies the schedule allows. */
export const INTERVALS = [1, 2, 3, 6, 12, 24] as const
/** Spec §9: autopost stats are polled every 10 s. */
export const AUTOPOST_POLL_MS = 10_000

export const SETTINGS_KEY = '/api/blog/admin/autopost/settings'
export const STATS_KEY = '/api/blog/admin/autopost/stats'
export const POSTS_KEY = '/api/blog/admin/posts'

export const useAutopostSettings = () => useSWR<AutopostSettings>(SETTINGS_KEY, { dedupingInterval: 2000 })
export const useAutopostStats = () => useSWR<AutopostStats>(STATS_KEY, { refreshInterval: AUTOPOST_POLL_MS, dedupingInterval: 2000 })
// The job publishes by itself: the list follows the stats' rhythm.
export const useAdminPosts = () => useSWR<AdminPost[]>(POSTS_KEY, { refreshInterval: AUTOPOST_POLL_MS, dedupingInterval: 2000 })

export const blogApi = {
  updateSettings: (patch: Partial<AutopostSettings>) => api.patch<AutopostSettings>(SETTINGS_KEY, patch),
  runNow: () => api.post<BlogPost>('/api/blog/admin/autopost/run'),
  regenerateImage: (id: string) => api.post<BlogPost>(`/api/blog/admin/posts/${encodeURIComponent(id)}/regenerate-image`),
  remove: (id: string) => api.delete<{ ok: true }>(`/api/blog/admin/posts/${encodeURIComponent(id)}`),
}

/** '1 час', 'каждые 6 часов' wording for a frequency. */
export function intervalLabel(hours: number): string {
  if (hours === 1) return 'Каждый час'
  if (hours === 24) return 'Раз в сутки'
  return `Каждые ${hours} ${hours < 5 ? 'часа' : 'часов'}`
}
