// The circuit breaker on its own, on a clock the test moves.
import { expect, test } from 'bun:test'
import { CircuitBreaker, MIN_CALLERS, PROBES, type Transition } from './breaker'

function breaker(opts: Partial<ConstructorParameters<typeof CircuitBreaker>[1]> = {}) {
  let now = 1_000_000
  const transitions: Transition[] = []
  const b = new CircuitBreaker(
    'primary',
    { windowMs: 10_000, minRequests: 4, failurePercent: 50, cooldownMs: 1000, ...opts },
    (t) => transitions.push(t),
    () => now,
  )
  let n = 0
  /** `caller`: whose request it is (by default each a different account's, as in an outage). */
  const run = (outcome: 'ok' | 'fail' | 'neutral', reason = 'HTTP 503', caller = `account-${n++}`) => {
    const pass = b.admit()
    if (!pass) return false
    if (outcome === 'ok') b.success(pass)
    else if (outcome === 'fail') b.failure(pass, reason, caller)
    else b.neutral(pass)
    return true
  }
  return { b, run, transitions, tick: (ms: number) => void (now += ms) }
}

test('stays closed below the minimum of requests, and at or below the failure share', () => {
  const { b, run } = breaker()
  for (let i = 0; i < 3; i++) run('fail')
  expect(b.state).toBe('closed') // 3 of 3, but fewer than 4 requests
  run('ok')
  run('ok')
  run('ok')
  expect(b.state).toBe('closed') // 3 of 6: not above 50 %
  run('fail')
  expect(b.state).toBe('open') // 4 of 7
})

test('old failures leave the window', () => {
  const { b, run, tick } = breaker()
  for (let i = 0; i < 3; i++) run('fail')
  tick(11_000)
  run('fail')
  expect(b.state).toBe('closed') // the three earlier ones are out of the 10 s window
})

test('open: nothing is admitted until the cool-down; then PROBES probes, all good closing it', () => {
  const { b, run, tick, transitions } = breaker()
  for (let i = 0; i < 4; i++) run('fail', i ? 'HTTP 503' : 'нет соединения')
  expect(b.state).toBe('open')
  expect(transitions[0]).toMatchObject({ from: 'closed', to: 'open', failures: 4, requests: 4, reason: 'HTTP 503' })
  expect(b.admit()).toBeNull()
  expect(b.retryAfterMs()).toBe(1000)
  tick(1000)
  const probes = Array.from({ length: PROBES }, () => b.admit())
  expect(probes.every((p) => p?.probe)).toBe(true)
  expect(b.admit()).toBeNull() // the probes are all out: the rest still fail fast
  for (const p of probes) b.success(p!)
  expect(b.state).toBe('closed')
  expect(transitions.map((t) => t.to)).toEqual(['open', 'half-open', 'closed'])
  expect(run('fail')).toBe(true)
  expect(b.state).toBe('closed') // a fresh window after closing
})

test('a failing probe opens it again for another cool-down; a neutral one gives its turn to the next request', () => {
  const { b, run, tick, transitions } = breaker()
  for (let i = 0; i < 4; i++) run('fail')
  tick(1000)
  const probe = b.admit()!
  b.neutral(probe) // the client left: not an answer either way
  const again = b.admit()!
  b.failure(again, 'нет ответа вовремя', 'account-x')
  expect(b.state).toBe('open')
  expect(transitions.at(-1)).toMatchObject({ from: 'half-open', to: 'open', reason: 'нет ответа вовремя' })
  expect(b.admit()).toBeNull()
  tick(1000)
  expect(b.admit()?.probe).toBe(true)
})

test('an outcome is counted once, however often it is reported', () => {
  const { b } = breaker({ minRequests: 1 })
  const pass = b.admit()!
  b.success(pass)
  b.failure(pass, 'HTTP 500', 'account-x')
  expect(b.state).toBe('closed')
  expect(b.snapshot()).toMatchObject({ requests: 1, failures: 0, recentErrors: [] })
})

test('one account’s failures never open it, however many; a second account’s failure does', () => {
  const { b, run } = breaker()
  for (let i = 0; i < 50; i++) run('fail', 'HTTP 502', 'one-customer')
  expect(b.state).toBe('closed') // 50 of 50 failed, all of them one account's requests
  expect(b.snapshot()).toMatchObject({ requests: 50, failures: 50 })
  run('fail', 'HTTP 502', 'another-customer')
  expect(b.state).toBe('open')
  expect(MIN_CALLERS).toBe(2)
})

test('the accounts are counted over the window: one that failed long ago no longer counts', () => {
  const { b, run, tick } = breaker()
  run('fail', 'HTTP 502', 'early')
  tick(11_000) // out of the 10 s window
  for (let i = 0; i < 5; i++) run('fail', 'HTTP 502', 'late')
  expect(b.state).toBe('closed')
  tick(500)
  run('fail', 'HTTP 502', 'later') // a second account within the window, in another bucket
  expect(b.state).toBe('open')
})
