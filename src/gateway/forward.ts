// Sends one request to a router and waits for its answer's head: retried when it failed before the
// router could have started (and billed) anything, moved to the second router when the first is down,
// refused at once while every router's breaker is open. Nothing here runs after a byte of the answer
// reached the client: the caller gets the head, or an error, before it answers anything.
//
// Retried (at most MAX_RETRIES more tries, exponential back-off with jitter, a Retry-After honoured up
// to RETRY_AFTER_MAX_MS, all within the request's own deadline, UPSTREAM_TIMEOUT_MS):
//   - no connection, or the connection lost before the head;
//   - a streamed request whose head did not come in STREAM_HEAD_TIMEOUT_MS: the router answers a
//     stream's head before the model starts, so nothing was generated;
//   - 502, 503, 504 and 429.
// Not retried: a plain (non-streamed) request with no head by the deadline (the head comes with the
// whole answer, which the router may have made and billed), 408 and 524 (timeouts after the router
// took the request), and the router's verdicts on the request (400, 403, 404, 413, 422).
// 401, 402 and the other 5xx are not retried on the same router (they do not pass in a second) but
// move the request to the second router.

import { OpenAIError } from '../lib/errors'
import type { Pass } from '../upstream/breaker'
import { type UpstreamError, upstreamErrorFrom } from '../upstream/client'
import type { Upstream, UpstreamName, Upstreams } from '../upstream/pool'
import { fromFetchFailure, fromUpstream } from './errors'

export const MAX_RETRIES = 2
/** The first retry waits 100–200 ms, the second 200–400 ms ("equal jitter": never two clients in step). */
const BACKOFF_BASE_MS = 200
/** A router asking for a longer wait is not waited for: the second router, or the error with its Retry-After. */
export const RETRY_AFTER_MAX_MS = 5_000
/** The longest wait for a streamed answer's head (shorter when the deadline is: a third of it). */
const STREAM_HEAD_TIMEOUT_MS = 30_000
/** A try that could not have this long before the deadline is not made. */
const MIN_TRY_MS = 200

export type ForwardRequest = {
  path: string
  body: Record<string, unknown>
  headers?: Record<string, string>
  stream: boolean
  /** The catalogue ids the request may be answered by (variants stripped): the second router must list them all. */
  models: readonly string[]
}

/** The head of an answer, from the router that gave it. */
export type Forwarded = {
  res: Response
  upstream: UpstreamName
  /** Aborts the router's request (the client left, or the relay gave up). */
  ac: AbortController
  /** Stops the deadline timer and unhooks the client's signal: call once the answer is read. */
  done: () => void
  timedOut: () => boolean
}

type Outcome =
  | { kind: 'ok'; sent: Forwarded }
  | { kind: 'cancelled'; error: unknown }
  | { kind: 'connect'; error: unknown }
  | { kind: 'timeout'; error: unknown }
  | { kind: 'http'; error: UpstreamError }

/** 503 `upstream_unavailable`: every router is known to be down; the client may come back after `retryAfterMs`. */
export function upstreamUnavailable(retryAfterMs: number): OpenAIError {
  const sec = Math.max(1, Math.ceil(retryAfterMs / 1000))
  return new OpenAIError(
    503,
    `Провайдер моделей временно недоступен: мы не отправляем запросы, пока он не восстановится. Повторите запрос через ${sec} с. Состояние сервиса — на странице /status.`,
    'server_error',
    'upstream_unavailable',
    { retryAfter: String(sec), shouldRetry: true },
  )
}

/** How an outcome counts: retried here, moved to the next router, or the end. */
function verdict(o: Exclude<Outcome, { kind: 'ok' | 'cancelled' }>, stream: boolean): 'retry' | 'next' | 'final' {
  if (o.kind === 'connect') return 'retry'
  if (o.kind === 'timeout') return stream ? 'retry' : 'final'
  const s = o.error.status
  if (s === 429 || s === 502 || s === 503 || s === 504) return 'retry'
  if (s === 408 || s === 524) return 'final'
  if (s === 401 || s === 402 || s >= 500) return 'next'
  return 'final'
}

/** What the breaker counts: the router's failures only (a 429 means it is up, only busy; a 400 is its verdict on the request). */
function count(u: Upstream, pass: Pass, o: Outcome) {
  if (o.kind === 'ok') return u.breaker.success(pass)
  if (o.kind === 'cancelled') return u.breaker.neutral(pass)
  if (o.kind === 'connect') return u.breaker.failure(pass, 'нет соединения')
  if (o.kind === 'timeout') return u.breaker.failure(pass, 'нет ответа вовремя')
  const s = o.error.status
  if (s === 429) return u.breaker.neutral(pass)
  if (s === 401 || s === 402 || s === 408 || s >= 500) return u.breaker.failure(pass, `HTTP ${s}`)
  u.breaker.success(pass)
}

/** Retry-After in milliseconds (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined
  const sec = Number(value)
  if (Number.isFinite(sec) && sec >= 0) return sec * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const backoff = (retry: number) => {
  const ceiling = BACKOFF_BASE_MS * 2 ** retry
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

/** Resolves after `ms`, or at once when the client leaves. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })

export function forwarder(upstreams: Upstreams, deadlineMs: number) {
  /** One try at one router: its head, or how it failed. */
  async function attempt(u: Upstream, req: ForwardRequest, clientSignal: AbortSignal, deadlineAt: number): Promise<Outcome> {
    const ac = new AbortController()
    let timedOut = false
    const left = deadlineAt - Date.now()
    // A plain answer's head comes with its whole body, read under the same timer: the deadline.
    const headWait = req.stream ? Math.min(left, STREAM_HEAD_TIMEOUT_MS, Math.max(MIN_TRY_MS, Math.floor(deadlineMs / 3))) : left
    const timer = setTimeout(() => {
      timedOut = true
      ac.abort()
    }, headWait)
    const onClientAbort = () => ac.abort()
    clientSignal.addEventListener('abort', onClientAbort, { once: true })
    if (clientSignal.aborted) ac.abort() // gone while the hold was placed: never call the upstream
    const done = () => {
      clearTimeout(timer)
      clientSignal.removeEventListener('abort', onClientAbort)
    }
    let res: Response
    try {
      res = await u.client.post(req.path, req.body, ac.signal, req.headers)
    } catch (error) {
      done()
      if (clientSignal.aborted) return { kind: 'cancelled', error }
      return timedOut ? { kind: 'timeout', error } : { kind: 'connect', error }
    }
    if (!res.ok) {
      const error = await upstreamErrorFrom(res)
      done()
      return clientSignal.aborted ? { kind: 'cancelled', error } : { kind: 'http', error }
    }
    // From a stream's head on, the relay's own watch applies.
    if (req.stream) clearTimeout(timer)
    return { kind: 'ok', sent: { res, upstream: u.name, ac, done, timedOut: () => timedOut } }
  }

  /**
   * The answer's head from the first router that gives one, within the deadline. Throws the customer's
   * error: the last failure's, or 503 upstream_unavailable when no router would take the request.
   */
  async function forward(req: ForwardRequest, clientSignal: AbortSignal): Promise<Forwarded> {
    const deadlineAt = Date.now() + deadlineMs
    let last: Exclude<Outcome, { kind: 'ok' }> | undefined
    let refusedFor = 0 // the shortest wait until an open breaker lets requests through
    for (const u of upstreams.list()) {
      if (u.name !== 'primary' && !u.serves(req.models)) continue
      for (let retry = 0; retry <= MAX_RETRIES; retry++) {
        const pass = u.breaker.admit()
        if (!pass) {
          refusedFor = refusedFor ? Math.min(refusedFor, u.breaker.retryAfterMs()) : u.breaker.retryAfterMs()
          break
        }
        const o = await attempt(u, req, clientSignal, deadlineAt)
        count(u, pass, o)
        if (o.kind === 'ok') return o.sent
        last = o
        if (o.kind === 'cancelled') throw fromFetchFailure(o.error, false)
        const next = verdict(o, req.stream)
        if (next === 'final') throw failure(o)
        if (next === 'next' || retry === MAX_RETRIES) break
        // Back off, honouring the router's Retry-After when it asks for a wait we can give.
        const asked = o.kind === 'http' ? retryAfterMs(o.error.retryAfter) : undefined
        if (asked !== undefined && asked > RETRY_AFTER_MAX_MS) break
        const wait = Math.max(backoff(retry), asked ?? 0)
        if (Date.now() + wait + MIN_TRY_MS > deadlineAt) break
        await pause(wait, clientSignal)
        if (clientSignal.aborted) throw fromFetchFailure(new Error('client disconnected'), false)
      }
      if (Date.now() + MIN_TRY_MS > deadlineAt) break
    }
    if (!last) throw upstreamUnavailable(refusedFor)
    throw failure(last)
  }

  return { forward }
}

function failure(o: Exclude<Outcome, { kind: 'ok' }>): OpenAIError {
  if (o.kind === 'http') return fromUpstream(o.error)
  return fromFetchFailure(o.error, o.kind === 'timeout')
}

export type Forwarder = ReturnType<typeof forwarder>
