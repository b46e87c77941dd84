// A gateway under test: the fake upstream (the demo upstream with faults on) as a real HTTP server,
// and the real app as a child process pointed at it with a fixed USD/RUB rate.

import { ceilUnits, dec, mul } from '../lib/decimal'
import { type DemoUpstreamOptions, startFakeUpstream } from '../upstream/demo'
import { databaseReader, type Reader } from './db-reader'
import { client, registerUser, type StartServerOptions, startServer } from './server'

export const TEST_RATE = '92.5431'
type Admin = Awaited<ReturnType<typeof registerUser>>
export const UPSTREAM_KEY = 'sk-or-v1-test-upstream-key'
export const FALLBACK_KEY = 'sk-or-v1-test-fallback-key'

/**
 * Reads the server's database behind its back once the answers it already sent are in the books: on
 * SQLite an answer goes out before its settlement commits (money closeForAnswer), and the server's
 * reads of money wait for those settlements — even one without credentials, which waits before its
 * 401 (GET /api/billing/balance; /v1's key check answers first, without the wait). One such read
 * comes first, when the server runs.
 */
function settledReader(serverUrl: string, read: Reader): Reader {
  return async (sql, ...params) => {
    // A server that is not running (killed by the test) has nothing in flight.
    await fetch(`${serverUrl}/api/billing/balance`).then(
      (res) => res.body?.cancel(),
      () => {},
    )
    return read(sql, ...params)
  }
}

/** `fallback`: a second fake router (its own key) configured as FALLBACK_UPSTREAM_*; `serverOpts`: see startServer. */
export async function startGateway(
  env: Record<string, string> = {},
  upstreamOpts: DemoUpstreamOptions = {},
  fallbackOpts?: DemoUpstreamOptions,
  serverOpts: StartServerOptions = {},
) {
  const upstream = await startFakeUpstream({ faults: true, tokenDelayMs: 2, apiKey: UPSTREAM_KEY, ...upstreamOpts })
  const fallback = fallbackOpts ? await startFakeUpstream({ faults: true, tokenDelayMs: 2, apiKey: FALLBACK_KEY, ...fallbackOpts }) : null
  const second: Record<string, string> = fallback ? { FALLBACK_UPSTREAM_URL: fallback.url, FALLBACK_UPSTREAM_API_KEY: FALLBACK_KEY } : {}
  const server = await startServer({ OPENROUTER_API_KEY: UPSTREAM_KEY, OPENROUTER_BASE_URL: upstream.url, USD_RUB_RATE: TEST_RATE, ...second, ...env }, serverOpts)
  const read = settledReader(server.url, databaseReader(server.databaseUrl))
  async function customer(email?: string) {
    const u = await registerUser(server.url, email)
    const res = await u.api.post('/api/auth/api-keys', { name: 'test' }, u.accessToken)
    if (res.status !== 201) throw new Error(`key create failed: ${JSON.stringify(res.body)}`)
    return { ...u, key: res.body.data.key as string, keyId: res.body.data.id as string }
  }
  return {
    upstream,
    /** The second router, when one was asked for. */
    fallback,
    server,
    url: server.url,
    /** A fresh account with an API key. */
    customer,
    /** A fresh account with an API key and exactly `rub` on its balance: the welcome bonus less `admin`'s adjustment. */
    async customerWith(admin: Admin, rub: number) {
      const c = await customer()
      const [u] = await read<{ balance_micros: number }>('select balance_micros from users where id = ?', c.user.id)
      const start = u!.balance_micros / 1e6
      if (start !== rub) {
        const res = await admin.api.post(`/api/admin/users/${c.user.id}/balance`, { amount: rub - start, description: 'test balance' }, admin.accessToken)
        if (res.status !== 200) throw new Error(`balance adjustment failed: ${JSON.stringify(res.body)}`)
      }
      return c
    },
    /** Balance, held amount (the sum of open holds) and ledger sum straight from the database, in micro-rubles. */
    async books(userId: string) {
      const [u] = await read<{ balance_micros: number; held_micros: number }>('select balance_micros, held_micros from users where id = ?', userId)
      const [l] = await read<{ s: number }>('select coalesce(sum(amount_micros), 0) as s from ledger_entries where user_id = ?', userId)
      const usage = await read<{ cost_micros: number; status: string; model: string; upstream_id: string | null; prompt_tokens: number; completion_tokens: number }>(
        'select cost_micros, status, model, upstream_id, prompt_tokens, completion_tokens from usage_logs where user_id = ? order by created_at',
        userId,
      )
      return { balance: u!.balance_micros, held: u!.held_micros, ledgerSum: l!.s, usage }
    },
    read,
    async stop() {
      await server.stop()
      await upstream.stop()
      await fallback?.stop()
    },
  }
}

/** What a reported upstream cost must cost the customer: cost × rate × 1.3, rounded up to the micro-ruble. */
export const expectedCharge = (costUsd: number, rate = TEST_RATE, markup = '1.3') => ceilUnits(mul(dec(costUsd), dec(rate), dec(markup)), 6)

/** Polls until `check` returns a truthy value (async settlement after disconnects). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v) return v as NonNullable<T>
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(50)
  }
}

export { client }
