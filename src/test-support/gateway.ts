// A gateway under test: the fake upstream (the demo upstream with faults on) as a real HTTP server,
// and the real app as a child process pointed at it with a fixed USD/RUB rate.

import { ceilUnits, dec, mul } from '../lib/decimal'
import { type DemoUpstreamOptions, startFakeUpstream } from '../upstream/demo'
import { databaseReader } from './db-reader'
import { client, registerUser, startServer } from './server'

export const TEST_RATE = '92.5431'
export const UPSTREAM_KEY = 'sk-or-v1-test-upstream-key'

export async function startGateway(env: Record<string, string> = {}, upstreamOpts: DemoUpstreamOptions = {}) {
  const upstream = await startFakeUpstream({ faults: true, tokenDelayMs: 2, apiKey: UPSTREAM_KEY, ...upstreamOpts })
  const server = await startServer({ OPENROUTER_API_KEY: UPSTREAM_KEY, OPENROUTER_BASE_URL: upstream.url, USD_RUB_RATE: TEST_RATE, ...env })
  const read = databaseReader(server.databaseUrl)
  return {
    upstream,
    server,
    url: server.url,
    /** A fresh account with an API key. */
    async customer(email?: string) {
      const u = await registerUser(server.url, email)
      const res = await u.api.post('/api/auth/api-keys', { name: 'test' }, u.accessToken)
      if (res.status !== 201) throw new Error(`key create failed: ${JSON.stringify(res.body)}`)
      return { ...u, key: res.body.data.key as string, keyId: res.body.data.id as string }
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
