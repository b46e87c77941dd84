// Server state shared by more than one screen (sidebar and dashboard both show the balance; the
// dashboard counts keys and payments; a card payment and a bank statement both move money).
import useSWR, { mutate } from 'swr'
import type { Balance, Health, Payment, UsageStats } from '../../src/wire'
import { useSession } from '../stores/session'
import { BALANCE_REFRESH_MS } from './swr-config'

/** GET /api/billing/balance (wire type: src/wire.ts). */
export type BalanceResponse = Balance

export const BALANCE_KEY = '/api/billing/balance'

/**
 * The current balance, polled every 30 s while signed in; every answer is copied into the
 * session so the persisted user shows the latest figure on the next load.
 */
export function useBalance() {
  const isAuthenticated = useSession((s) => s.isAuthenticated)
  const updateBalance = useSession((s) => s.updateBalance)
  return useSWR<BalanceResponse>(isAuthenticated ? BALANCE_KEY : null, {
    refreshInterval: BALANCE_REFRESH_MS,
    // polling revalidates "with dedupe": a 5-minute deduping window would swallow every tick
    dedupingInterval: 2000,
    onSuccess: (data) => {
      if (typeof data?.balance === 'number') updateBalance(data.balance)
    },
  })
}

/** GET /api/health (wire type: src/wire.ts). */
export type HealthResponse = Health

/** How this installation runs: the demo upstream and the test payment page are labelled in the UI. */
export function useHealth() {
  return useSWR<HealthResponse>('/api/health')
}

/** The ledger as the billing page and the dashboard show it (the spec fetches 50). */
export const TRANSACTIONS_KEY = '/api/billing/transactions?limit=50'

/** How many recent requests the usage screens show (spec: 20). */
export const USAGE_LOGS_SHOWN = 20

export interface UsageParams {
  /** ISO start of the period; omitted = all time */
  startDate?: string
  apiKeyId?: string
  model?: string
}

/** The query string for GET /api/billing/usage and its CSV export, empty parts left out. */
export function usageQuery(params: UsageParams, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams()
  if (params.startDate) query.set('startDate', params.startDate)
  if (params.apiKeyId) query.set('apiKeyId', params.apiKeyId)
  if (params.model) query.set('model', params.model)
  for (const [name, value] of Object.entries(extra)) query.set(name, value)
  return query.toString()
}

/**
 * Usage totals, per-day series and recent requests. New requests land any second, so unlike
 * the 5-minute default a screen that mounts always asks again (while showing the cached figures).
 */
export function useUsage(params: UsageParams) {
  const key = `/api/billing/usage?${usageQuery(params, { limit: String(USAGE_LOGS_SHOWN) })}`
  return useSWR<UsageStats>(key, { dedupingInterval: 2000, keepPreviousData: true })
}

/** The account's API keys (the keys screen lists them, the dashboard counts them). */
export const KEYS_KEY = '/api/auth/api-keys'

export const PAYMENTS_KEY = '/api/payments/list?limit=20'
export const REFUND_KEY = '/api/payments/refund-request'

/** The latest card payments; `enabled` false: the role may not see payments (nothing is asked). */
export function usePayments(enabled = true) {
  return useSWR<Payment[]>(enabled ? PAYMENTS_KEY : null)
}

/** After money moved: everything on the billing screen that shows it asks the server again. */
export function revalidateMoney(): Promise<unknown> {
  const history = (key: unknown) => typeof key === 'string' && key.includes('/api/billing/transactions')
  return Promise.all([mutate(BALANCE_KEY), mutate(TRANSACTIONS_KEY), mutate(history), mutate(PAYMENTS_KEY), mutate(REFUND_KEY)])
}
