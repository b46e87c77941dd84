// Server state shared by more than one screen (sidebar and dashboard both show the balance).
import useSWR from 'swr'
import { useSession } from '../stores/session'
import { BALANCE_REFRESH_MS } from './swr-config'

export interface BalanceResponse {
  balance: number
}

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

export interface HealthResponse {
  status: 'ok'
  version: string
  upstream: 'demo' | 'openrouter'
  mail: 'smtp' | 'outbox'
  payments: 'test' | 'yookassa'
}

/** How this installation runs: the demo upstream and the test payment page are labelled in the UI. */
export function useHealth() {
  return useSWR<HealthResponse>('/api/health')
}
