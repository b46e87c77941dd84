// A circuit breaker for one upstream, in this instance's memory. Closed: every request goes through
// and its outcome is counted in a sliding window. When, over the window, at least `minRequests`
// requests were counted and more than `failurePercent` % of them failed, it opens: requests are not
// sent (the gateway fails fast or uses the second upstream) until the cool-down has passed. Then it
// is half-open: PROBES requests go through (others still fail fast); all succeeding closes it, one
// failing opens it again for another cool-down.
//
// The defaults (config.ts): a 60 s window with at least 20 requests and more than 50 % failing. Single
// failures are ordinary (one model's provider down answers 502), and a quiet minute of a few requests
// must not cut everyone off; an outage of the router fails nearly every request and trips it within
// seconds at any real traffic. A 30 s cool-down is about what a client's own retry waits, and finds
// the router back within a minute of its return.
//
// Only failures that say the upstream is down reach `failure()` (gateway/forward.ts sorts them: a
// request the provider refused for its content is the router answering), and the failures must come
// from at least MIN_CALLERS accounts: one customer's requests, whatever they are, never cut off the
// others. A real outage fails everyone's requests and still opens it at once.

/** Requests let through while half-open; each must succeed before the breaker closes. */
export const PROBES = 3
/** The window is counted in this many buckets: an old failure leaves it within a tenth of the window. */
const BUCKETS = 10
/** Failures kept for the admin's dashboard. */
const RECENT_ERRORS = 20
/** Distinct accounts whose failures it takes to open the breaker. */
export const MIN_CALLERS = 2

export type BreakerState = 'closed' | 'open' | 'half-open'

export type BreakerOptions = { windowMs: number; minRequests: number; failurePercent: number; cooldownMs: number }

/** A change of state, for the log and the incident record (status page). */
export type Transition = {
  from: BreakerState
  to: BreakerState
  at: number
  /** What failed most in the window (or the failed probe): «HTTP 503», «нет соединения»… */
  reason: string
  failures: number
  requests: number
}

/** A request the breaker let through: a probe or an ordinary one. Its outcome must be reported once. */
export type Pass = { probe: boolean; settled: boolean }

/** `callers`: accounts whose requests failed, at most MIN_CALLERS per bucket (enough to tell whether the window has that many). */
type Bucket = { start: number; ok: number; failed: number; reasons: Map<string, number>; callers: Set<string> }

export class CircuitBreaker {
  private buckets: Bucket[] = []
  private current: BreakerState = 'closed'
  private since = Date.now()
  private openUntil = 0
  private probesSent = 0
  private probesPassed = 0
  /** What failed most when the breaker opened (or the probe that failed). */
  private openReason = ''
  private readonly recent: Array<{ at: number; reason: string }> = []

  constructor(
    readonly name: string,
    private readonly opts: BreakerOptions,
    private readonly onTransition: (t: Transition) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    return this.current
  }

  /** A request may go to this upstream now (null: the breaker is open, or its probes are all out). */
  admit(): Pass | null {
    if (this.current === 'open') {
      if (this.now() < this.openUntil) return null
      this.move('half-open', this.openReason)
      this.probesSent = 0
      this.probesPassed = 0
    }
    if (this.current === 'half-open') {
      if (this.probesSent >= PROBES) return null
      this.probesSent++
      return { probe: true, settled: false }
    }
    return { probe: false, settled: false }
  }

  /** The upstream answered (any answer that is not its own failure, a 400 included). */
  success(pass: Pass) {
    if (this.settle(pass)) return
    if (pass.probe) {
      if (this.current === 'half-open' && ++this.probesPassed >= PROBES) {
        this.buckets = []
        this.move('closed', this.openReason)
      }
      return
    }
    this.bucket().ok++
  }

  /** The upstream failed: no connection, no answer in time, a 5xx not tied to the request, or our key refused; `caller`: the account whose request it was. */
  failure(pass: Pass, reason: string, caller: string) {
    if (this.settle(pass)) return
    const at = this.now()
    this.recent.push({ at, reason })
    if (this.recent.length > RECENT_ERRORS) this.recent.shift()
    if (pass.probe) {
      if (this.current === 'half-open') this.open(reason)
      return
    }
    const bucket = this.bucket()
    bucket.failed++
    bucket.reasons.set(reason, (bucket.reasons.get(reason) ?? 0) + 1)
    if (bucket.callers.size < MIN_CALLERS) bucket.callers.add(caller)
    if (this.current !== 'closed') return
    const { ok, failed } = this.counts()
    if (ok + failed >= this.opts.minRequests && failed * 100 > (ok + failed) * this.opts.failurePercent && this.failingCallers() >= MIN_CALLERS) this.open(this.lastReason())
  }

  /** Neither: the client left, or a 429 (the router is up, only busy). A probe's turn goes to the next request. */
  neutral(pass: Pass) {
    if (this.settle(pass)) return
    if (pass.probe && this.current === 'half-open') this.probesSent--
  }

  /** Milliseconds until requests are let through again (0 when they are). */
  retryAfterMs(): number {
    return this.current === 'open' ? Math.max(0, this.openUntil - this.now()) : 0
  }

  /** The state for the admin's dashboard and the status page. */
  snapshot() {
    const { ok, failed } = this.counts()
    return {
      state: this.current,
      since: new Date(this.since).toISOString(),
      requests: ok + failed,
      failures: failed,
      retryAfterSec: Math.ceil(this.retryAfterMs() / 1000),
      recentErrors: this.recent.map((e) => ({ at: new Date(e.at).toISOString(), reason: e.reason })).reverse(),
    }
  }

  private settle(pass: Pass): boolean {
    if (pass.settled) return true
    pass.settled = true
    return false
  }

  private open(reason: string) {
    const { ok, failed } = this.counts()
    this.openReason = reason
    this.openUntil = this.now() + this.opts.cooldownMs
    this.move('open', reason, failed, ok + failed)
  }

  private move(to: BreakerState, reason: string, failures?: number, requests?: number) {
    const from = this.current
    this.current = to
    this.since = this.now()
    const counts = this.counts()
    this.onTransition({ from, to, at: this.since, reason, failures: failures ?? counts.failed, requests: requests ?? counts.ok + counts.failed })
  }

  /** Accounts with failures in the window, counted up to MIN_CALLERS. */
  private failingCallers(): number {
    const seen = new Set<string>()
    for (const b of this.buckets) for (const c of b.callers) if (seen.add(c).size >= MIN_CALLERS) return seen.size
    return seen.size
  }

  /** The most frequent failure in the window. */
  private lastReason(): string {
    const all = new Map<string, number>()
    for (const b of this.buckets) for (const [reason, n] of b.reasons) all.set(reason, (all.get(reason) ?? 0) + n)
    let best = 'ошибки провайдера'
    let most = 0
    for (const [reason, n] of all)
      if (n > most) {
        best = reason
        most = n
      }
    return best
  }

  private bucket(): Bucket {
    const size = this.opts.windowMs / BUCKETS
    const start = Math.floor(this.now() / size) * size
    let last = this.buckets.at(-1)
    if (!last || last.start !== start) {
      last = { start, ok: 0, failed: 0, reasons: new Map(), callers: new Set() }
      this.buckets.push(last)
    }
    this.prune()
    return last
  }

  private prune() {
    const oldest = this.now() - this.opts.windowMs
    while (this.buckets.length && this.buckets[0]!.start + this.opts.windowMs / BUCKETS <= oldest) this.buckets.shift()
  }

  private counts() {
    this.prune()
    let ok = 0
    let failed = 0
    for (const b of this.buckets) {
      ok += b.ok
      failed += b.failed
    }
    return { ok, failed }
  }
}
