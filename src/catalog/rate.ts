// USD/RUB from the Central Bank's daily XML (windows-1251, comma decimals), cached in the database
// so the last good value survives restarts and outages. USD_RUB_RATE overrides everything.
// With several instances one of them asks the bank at a time (a lease, exclusive.ts); the others
// wait for it and take the stored rate when it is newer than theirs.
import { eq } from 'drizzle-orm'
import type { Config } from '../config'
import { exclusively } from '../db/leases'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { type Dec, dec } from '../lib/decimal'
import { exchangeRates } from './schema'

/** Used only by the demo upstream when no rate was ever fetched (offline newcomer machine). */
export const DEMO_FALLBACK_RATE = '90'

/** Parses the USD entry of XML_daily.asp: RUB per 1 USD as a decimal string, and its effective date. */
export function parseCbrXml(xml: string): { rate: string; effectiveDate: string } {
  const date = xml.match(/<ValCurs[^>]*\bDate="([^"]+)"/)?.[1]
  const usd = xml.match(/<Valute\b[^>]*>(?:(?!<\/Valute>)[\s\S])*?<CharCode>USD<\/CharCode>[\s\S]*?<\/Valute>/)?.[0]
  if (!date || !usd) throw new Error('no USD rate in the Central Bank answer')
  const unit = usd.match(/<VunitRate>([^<]+)<\/VunitRate>/)?.[1]
  const value = usd.match(/<Value>([^<]+)<\/Value>/)?.[1]
  const nominal = Number(usd.match(/<Nominal>([^<]+)<\/Nominal>/)?.[1] ?? '1')
  const raw = unit ?? value
  if (!raw) throw new Error('USD entry without a value')
  const normalized = raw.trim().replace(',', '.')
  // VunitRate is already per unit; Value is per Nominal units (1 for USD, checked anyway).
  const perUnit = unit || nominal === 1 ? normalized : String(Number(normalized) / nominal)
  if (!(Number(perUnit) > 0)) throw new Error(`implausible USD rate ${raw}`)
  return { rate: perUnit, effectiveDate: date }
}

/** The lease of the rate refresh, and how long one refresh may take at most (a 15 s fetch). */
export const RATE_REFRESH_LEASE = 'exchange-rate'
const REFRESH_LEASE_MS = 60_000

type Cached = { rate: string; effectiveDate: string; fetchedAt: number }

/** The rate provider of this process, starting from the stored rate (async: it reads it first). */
export async function createRateProvider(config: Config, db: Db, demo: boolean, fetchImpl: typeof fetch = fetch) {
  const override = config.usdRubRate === null ? null : String(config.usdRubRate)
  const stored = async (): Promise<Cached | null> => {
    const [row] = await db.select().from(exchangeRates).where(eq(exchangeRates.currency, 'USD')).limit(1)
    return row ? { rate: row.rate, effectiveDate: row.effectiveDate, fetchedAt: +row.fetchedAt } : null
  }
  let cached = await stored()
  /** Takes the stored rate when it was fetched after this copy (by another instance). */
  const reloadIfNewer = async () => {
    const row = await stored()
    if (row && (!cached || row.fetchedAt > cached.fetchedAt)) cached = row
  }

  async function fetchRate(): Promise<boolean> {
    try {
      const res = await fetchImpl(config.cbrRateUrl, { signal: AbortSignal.timeout(15_000) })
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      const xml = new TextDecoder('windows-1251').decode(await res.arrayBuffer())
      const parsed = parseCbrXml(xml)
      const row = { currency: 'USD', ...parsed, fetchedAt: new Date() }
      await write(db, (q) => q.insert(exchangeRates).values(row).onConflictDoUpdate({ target: exchangeRates.currency, set: row }))
      cached = { ...parsed, fetchedAt: +row.fetchedAt }
      return true
    } catch (e) {
      console.warn(`[rate] Central Bank rate unavailable (${(e as Error).message}); keeping ${cached ? `${cached.rate} of ${cached.effectiveDate}` : 'no rate'}`)
      return false
    }
  }

  return {
    /** RUB per USD in force now, or null when none is known (real upstream, Central Bank never reached). */
    current(): Dec | null {
      const rate = override ?? cached?.rate ?? (demo ? DEMO_FALLBACK_RATE : null)
      return rate ? dec(rate) : null
    },

    describe() {
      if (override) return { rate: override, source: 'USD_RUB_RATE' as const, effectiveDate: null }
      if (cached) return { rate: cached.rate, source: 'cbr' as const, effectiveDate: cached.effectiveDate }
      return { rate: demo ? DEMO_FALLBACK_RATE : null, source: 'fallback' as const, effectiveDate: null }
    },

    reloadIfNewer,

    /**
     * Fetches today's rate; on failure keeps the last good one and reports false. When another
     * instance is fetching it, waits for that one and takes what it stored.
     */
    async refresh(): Promise<boolean> {
      if (override) return true
      const done = await exclusively(db, RATE_REFRESH_LEASE, REFRESH_LEASE_MS, fetchRate)
      if (done.ran) return done.value
      await reloadIfNewer()
      return cached !== null
    },
  }
}

export type RateProvider = Awaited<ReturnType<typeof createRateProvider>>
