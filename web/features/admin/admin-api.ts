// The admin area's calls: /api/admin/* and /api/blog/admin/* (every one checked on the server too).
import useSWR from 'swr'
import { api, authorizedFetch, parseResponse } from '../../lib/api'

// ─── stats ───────────────────────────────────────────────────────────────────

export interface AdminStats {
  openrouter: {
    mode: 'demo' | 'openrouter'
    /** USD spent on the upstream key */
    usage: number | null
    /** USD; null = the key has no cap */
    limit: number | null
    remaining: number | null
    /** no cap, or a limit ≥ 999999: pay as you go */
    unlimited: boolean
    error: string | null
  }
  users: { total: number; newWeek: number; newToday: number }
  finance: {
    totalTransactions: number
    /** rubles */
    totalBalance: number
    /** rubles charged to customers for requests */
    totalRevenue: number
    /** USD: customers' requests plus the blog */
    openrouterCost: number
    /** USD at the current rate; null when no rate is known */
    totalMargin: number | null
    usdRubRate: number | null
    /** rubles: what requests cost beyond what their customers were charged (should be 0) */
    uncoveredCost: number
    uncoveredRequests: number
  }
  usage: { totalApiKeys: number; totalRequests: number; totalTokens: number }
  blog: { total: number; published: number }
}

/** The spec's threshold for the unlimited (pay-as-you-go) upstream mode. */
export const UNLIMITED_LIMIT = 999999

export const useAdminStats = () => useSWR<AdminStats>('/api/admin/stats', { dedupingInterval: 2000 })

// ─── uncovered cost ──────────────────────────────────────────────────────────

/** One request whose cost exceeded what its customer was charged; amounts in rubles. */
export interface UncoveredCost {
  id: string
  usageId: string
  userId: string
  /** null once the account is deleted */
  email: string | null
  model: string
  upstreamId: string | null
  held: number
  cost: number
  charged: number
  uncovered: number
  createdAt: string
}

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
  const body = (await response.json()) as { total: number; requests: number; data: UncoveredCost[] }
  return { total: body.total, requests: body.requests, rows: body.data }
}

/** The list is asked for only when the stats say there is something to list. */
export const useUncovered = (enabled: boolean) => useSWR<UncoveredPage>(enabled ? UNCOVERED_KEY : null, fetchUncovered, { dedupingInterval: 2000 })

// ─── users ───────────────────────────────────────────────────────────────────

export interface AdminUser {
  id: string
  email: string
  role: 'admin' | 'user'
  /** rubles */
  balance: number
  createdAt: string
  apiKeys: number
  usageLogs: number
}

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
  const body = (await response.json()) as { data: AdminUser[]; pagination: { total: number } }
  return { users: body.data, total: body.pagination.total }
}

export const useAdminUsers = (search: string) => useSWR<UsersPage>(usersKey(search), fetchUsers, { dedupingInterval: 2000, keepPreviousData: true })

export interface RefundRequest {
  id: string
  userId: string
  email: string
  /** rubles requested */
  amount: number
  /** the customer's balance now, rubles */
  balance: number
  status: 'pending' | 'approved' | 'rejected'
  reason: string | null
  createdAt: string
  resolvedAt: string | null
}

export const useRefundRequests = () => useSWR<RefundRequest[]>('/api/admin/refund-requests', { dedupingInterval: 2000 })

/** The spec fixes the description of a balance change made from the admin screen. */
export const ADJUSTMENT_DESCRIPTION = 'Admin adjustment'

export const usersApi = {
  adjustBalance: (id: string, amount: number) =>
    api.post<{ balance: number }>(`/api/admin/users/${encodeURIComponent(id)}/balance`, { amount, description: ADJUSTMENT_DESCRIPTION }),
  remove: (id: string) => api.delete<{ id: string; deleted: true }>(`/api/admin/users/${encodeURIComponent(id)}`),
}

// ─── blog ────────────────────────────────────────────────────────────────────

export interface AutopostSettings {
  isEnabled: boolean
  /** 'HH:MM', Moscow time */
  startTime: string
  intervalHours: number
}

export interface AutopostStats {
  totalPosts: number
  publishedPosts: number
  lastRunTime: string | null
  nextRunTime: string | null
  lastRun: { status: 'running' | 'succeeded' | 'failed' | 'skipped'; modelId: string | null; postId: string | null; error: string | null; finishedAt: string | null } | null
}

export interface AdminPost {
  id: string
  slug: string
  title: string
  description: string
  coverImage: string | null
  modelName: string
  modelId: string
  views: number
  publishedAt: string | null
  createdAt: string
}

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
  runNow: () => api.post<AdminPost>('/api/blog/admin/autopost/run'),
  regenerateImage: (id: string) => api.post<AdminPost>(`/api/blog/admin/posts/${encodeURIComponent(id)}/regenerate-image`),
  remove: (id: string) => api.delete<{ ok: true }>(`/api/blog/admin/posts/${encodeURIComponent(id)}`),
}

/** '1 час', 'каждые 6 часов' wording for a frequency. */
export function intervalLabel(hours: number): string {
  if (hours === 1) return 'Каждый час'
  if (hours === 24) return 'Раз в сутки'
  return `Каждые ${hours} ${hours < 5 ? 'часа' : 'часов'}`
}
