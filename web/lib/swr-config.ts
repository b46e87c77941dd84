import type { SWRConfiguration } from 'swr'
import { fetcher } from './api'

/** Data freshness from the spec: 5 minutes. */
export const FRESHNESS_MS = 5 * 60 * 1000
/** Sidebar balance polling from the spec: 30 seconds. */
export const BALANCE_REFRESH_MS = 30 * 1000

export const swrConfig: SWRConfiguration = {
  fetcher,
  // SWR's deduping window is what makes data "fresh": within it, mounting a screen reuses the cache.
  dedupingInterval: FRESHNESS_MS,
  errorRetryCount: 1,
  revalidateOnFocus: false,
}
