// The pure parts of a key's policy (issue 36): patterns, addresses and networks, narrower-or-looser,
// and the rate algorithm's arithmetic on a fixed clock (the in-process store of SQLite).
import { describe, expect, test } from 'bun:test'
import { ipAllowed, ipsWithin, loosened, modelAllowed, modelsWithin, NO_POLICY, parsePolicy } from './policy'
import { inMemory, rateHeaders, resetText } from './rates'

describe('patterns and addresses', () => {
  test('a pattern is an exact id or a prefix ending in *', () => {
    expect(modelAllowed(['openai/*'], 'openai/gpt-4o')).toBe(true)
    expect(modelAllowed(['openai/*'], 'OpenAI/GPT-4o')).toBe(true)
    expect(modelAllowed(['openai/gpt-4o'], 'openai/gpt-4o-mini')).toBe(false)
    expect(modelAllowed(['*'], 'anything/at-all')).toBe(true)
    expect(modelAllowed(null, 'x/y')).toBe(true)
    expect(modelsWithin(['openai/gpt-*'], ['openai/*'])).toBe(true)
    expect(modelsWithin(['openai/*'], ['openai/gpt-*'])).toBe(false)
    expect(modelsWithin(null, ['openai/*'])).toBe(false)
  })

  test('IPv4, IPv6 and IPv4-mapped addresses against networks', () => {
    const nets = parsePolicy({ allowedIps: ['10.0.0.0/8', '2001:db8::/32', '198.51.100.7'] }, 0).allowedIps!
    expect(nets).toEqual(['10.0.0.0/8', '2001:db8::/32', '198.51.100.7'])
    for (const ip of ['10.255.0.1', '::ffff:10.1.1.1', '2001:db8:ffff::1', '198.51.100.7', '2001:0db8:0000:0000:0000:0000:0000:0001%eth0']) expect(ipAllowed(nets, ip)).toBe(true)
    for (const ip of ['11.0.0.1', '198.51.100.8', '2001:db9::1', '::1', 'unknown', '']) expect(ipAllowed(nets, ip)).toBe(false)
    expect(parsePolicy({ allowedIps: ['fe80::1:0:0:0/64', '::/0', '1.2.3.4/0'] }, 0).allowedIps).toEqual(['fe80::/64', '::/0', '0.0.0.0/0'])
    expect(ipsWithin(['10.1.0.0/16'], ['10.0.0.0/8'])).toBe(true)
    expect(ipsWithin(['10.0.0.0/8'], ['10.1.0.0/16'])).toBe(false)
    expect(ipsWithin(['2001:db8::1'], ['10.0.0.0/8'])).toBe(false)
  })

  test('what loosens a policy', () => {
    const admin = { ...NO_POLICY, rpmLimit: 10, allowedModels: ['openai/*'], allowedIps: ['10.0.0.0/8'], expiresAt: 5000 }
    expect(loosened({ ...admin, rpmLimit: 5 }, admin)).toBeNull()
    expect(loosened({ ...admin, allowedModels: ['openai/gpt-4o'], allowedIps: ['10.1.0.0/16'], expiresAt: 4000 }, admin)).toBeNull()
    expect(loosened({ ...admin, rpmLimit: 11 }, admin)).toBe('лимит запросов в минуту')
    expect(loosened({ ...admin, rpmLimit: null }, admin)).toBe('лимит запросов в минуту')
    expect(loosened({ ...admin, tpmLimit: 1 }, admin)).toBeNull()
    expect(loosened({ ...admin, allowedModels: null }, admin)).toBe('список разрешённых моделей')
    expect(loosened({ ...admin, allowedIps: ['0.0.0.0/0'] }, admin)).toBe('список разрешённых IP')
    expect(loosened({ ...admin, expiresAt: null }, admin)).toBe('срок действия')
  })
})

describe('requests and tokens per minute (GCRA, in process)', () => {
  const rates = inMemory()
  const T0 = 1_800_000_000_000

  test('rpmLimit 6: six at once, then one every ten seconds; headers say what is left and when it resets', async () => {
    const l = { rpmLimit: 6, tpmLimit: null }
    const taken = []
    for (let i = 0; i < 7; i++) taken.push(await rates.take('k-rpm', l, T0))
    expect(taken.map((t) => t.ok)).toEqual([true, true, true, true, true, true, false])
    expect(taken.map((t) => t.state.requests!.remaining)).toEqual([5, 4, 3, 2, 1, 0, 0])
    const refused = taken[6]!
    expect(refused.ok || refused.refused).toBe('requests')
    expect(refused.ok || refused.retryAfterMs).toBe(10_000)
    expect((await rates.take('k-rpm', l, T0 + 9_999)).ok).toBe(false)
    expect((await rates.take('k-rpm', l, T0 + 10_000)).ok).toBe(true)
    expect(rateHeaders(taken[0]!.state)).toEqual({ 'x-ratelimit-limit-requests': '6', 'x-ratelimit-remaining-requests': '5', 'x-ratelimit-reset-requests': '10s' })
  })

  test('tpmLimit: a request is let in while any token is left; reported tokens refill at the limit’s pace', async () => {
    const l = { rpmLimit: null, tpmLimit: 600 }
    expect((await rates.take('k-tpm', l, T0)).ok).toBe(true)
    await rates.spend('k-tpm', 600, 900, T0) // 1.5 minutes' worth
    const refused = await rates.take('k-tpm', l, T0)
    expect(refused.ok || refused.refused).toBe('tokens')
    expect(refused.state.tokens).toEqual({ limit: 600, remaining: 0, resetMs: 90_000 })
    expect((await rates.take('k-tpm', l, T0 + 30_001)).ok).toBe(true)
  })

  test('OpenAI’s duration format', () => {
    expect([resetText(20), resetText(1500), resetText(60_000), resetText(61_500)]).toEqual(['20ms', '1.5s', '1m0s', '1m1.5s'])
  })
})
