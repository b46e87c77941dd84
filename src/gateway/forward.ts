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
// move the request to the second router. A 5xx the provider gave because of the request's content
// (errors.ts failureCause) is final: the same body fails the same way anywhere.
//
// The breakers (upstream/breaker.ts) count only failures that say an upstream is down, and whose:
// no connection, no head in time and a 5xx naming nobody go to the router's breaker; a 5xx the
// router puts on one model's provider goes to that model's breaker at that router (the router and
// its other models keep serving). A refusal of the request's content counts as an answer. Each
// failure carries the caller's account: one account alone never opens a breaker.

import { OpenAIError } from '../lib/errors'
import type { CircuitBreaker, Pass } from '../upstream/breaker'
import { type UpstreamError, upstreamErrorFrom } from '../upstream/client'
import type { Upstream, UpstreamName, Upstreams } from '../upstream/pool'
import { type FailureCause, failureCause, fromFetchFailure, fromUpstream } from './errors'
import type { Target } from './routing'

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
  /** The catalogue ids the request may be answered by (variants stripped): the second router must list them all. The first is the one asked for. */
  models: readonly string[]
  /** Whose request it is (callerAccount): a breaker opens only on failures of several accounts. */
  account: string
  /** The upstreams that may answer, in order, with the model name each is sent (routing.ts); absent: the routers. */
  targets?: readonly Target[]
}

/** The account a request is counted for by the breakers: the team that pays, or the person. */
export const callerAccount = (c: { userId: string; teamId: string | null }) => (c.teamId ? `team:${c.teamId}` : `user:${c.userId}`)

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

/** 503 `model_unavailable`: the router is up, but the one model asked for keeps failing at its provider. */
export function modelUnavailable(model: string, retryAfterMs: number): OpenAIError {
  const sec = Math.max(1, Math.ceil(retryAfterMs / 1000))
  return new OpenAIError(
    503,
    `Модель ${model} сейчас не отвечает у провайдера: мы не отправляем ей запросы, пока она не восстановится. Повторите запрос через ${sec} с или выберите другую модель.`,
    'server_error',
    'model_unavailable',
    { retryAfter: String(sec), shouldRetry: true },
  )
}

/** How an outcome counts: retried here, moved to the next router, or the end. */
function verdict(o: Exclude<Outcome, { kind: 'ok' | 'cancelled' }>, stream: boolean, cause: FailureCause | null): 'retry' | 'next' | 'final' {
  if (o.kind === 'connect') return 'retry'
  if (o.kind === 'timeout') return stream ? 'retry' : 'final'
  if (cause?.kind === 'content') return 'final'
  const s = o.error.status
  if (s === 429 || s === 502 || s === 503 || s === 504) return 'retry'
  if (s === 408 || s === 524) return 'final'
  if (s === 401 || s === 402 || s >= 500) return 'next'
  return 'final'
}

/** The passes one try holds: the router's, and its model's (null when the request goes without one). */
type Passes = { router: Pass; model: { breaker: CircuitBreaker; pass: Pass } | null }

/**
 * What the breakers count (a 429 means up, only busy; the request refused for its content is an
 * answer): the router's own failures on its breaker, a failure the router puts on the model's
 * provider on the model's breaker, each with the caller's account.
 */
function count(u: Upstream, p: Passes, o: Outcome, cause: FailureCause | null, account: string) {
  const model = p.model
  if (o.kind === 'ok' || cause?.kind === 'content') {
    u.breaker.success(p.router)
    return model?.breaker.success(model.pass)
  }
  if (o.kind === 'cancelled' || (o.kind === 'http' && o.error.status === 429)) {
    u.breaker.neutral(p.router)
    return model?.breaker.neutral(model.pass)
  }
  if (cause?.kind === 'model' && o.kind === 'http') {
    u.breaker.success(p.router) // the router answered: it is up
    return model?.breaker.failure(model.pass, `HTTP ${o.error.status}${cause.provider ? `, провайдер ${cause.provider}` : ''}`, account)
  }
  // The router's own failure: not the model's.
  model?.breaker.neutral(model.pass)
  u.breaker.failure(p.router, o.kind === 'connect' ? 'нет соединения' : o.kind === 'timeout' ? 'нет ответа вовремя' : `HTTP ${o.error.status}`, account)
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
  async function attempt(u: Upstream, req: ForwardRequest, body: Record<string, unknown>, clientSignal: AbortSignal, deadlineAt: number): Promise<Outcome> {
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
      res = await u.client.post(req.path, body, ac.signal, req.headers)
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
    // The shortest wait until an open breaker lets requests through: a router's, or only the model's.
    let routerRefusedFor: number | null = null
    let modelRefusedFor: number | null = null
    const sooner = (a: number | null, b: number) => (a === null ? b : Math.min(a, b))
    const asked = req.models[0]
    for (const u of upstreams.list()) {
      const target = req.targets ? req.targets.find((t) => t.upstream === u.name) : u.kind === 'openrouter' ? { upstream: u.name } : undefined
      if (!target || (u !== upstreams.primary && u.kind === 'openrouter' && !u.serves(req.models))) continue
      const body = target.model === undefined ? req.body : { ...req.body, model: target.model }
      const modelBreaker = asked === undefined ? null : u.model(asked)
      for (let retry = 0; retry <= MAX_RETRIES; retry++) {
        // The asked-for model's breaker holds back a request that nothing else could answer; one
        // with fallback models goes (the router tries the others) and is counted when a pass is free.
        const modelPass = modelBreaker?.admit() ?? null
        if (modelBreaker && !modelPass && req.models.length === 1) {
          modelRefusedFor = sooner(modelRefusedFor, modelBreaker.retryAfterMs())
          break
        }
        const pass = u.breaker.admit()
        if (!pass) {
          if (modelPass) modelBreaker?.neutral(modelPass)
          routerRefusedFor = sooner(routerRefusedFor, u.breaker.retryAfterMs())
          break
        }
        const o = await attempt(u, req, body, clientSignal, deadlineAt)
        const cause = o.kind === 'http' && o.error.status !== 429 ? failureCause(o.error) : null
        count(u, { router: pass, model: modelBreaker && modelPass ? { breaker: modelBreaker, pass: modelPass } : null }, o, cause, req.account)
        if (o.kind === 'ok') return o.sent
        last = o
        if (o.kind === 'cancelled') throw fromFetchFailure(o.error, false)
        const next = verdict(o, req.stream, cause)
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
    if (last) throw failure(last)
    if (routerRefusedFor === null && modelRefusedFor !== null && asked !== undefined) throw modelUnavailable(asked, modelRefusedFor)
    throw upstreamUnavailable(routerRefusedFor ?? 0)
  }

  return { forward }
}

function failure(o: Exclude<Outcome, { kind: 'ok' }>): OpenAIError {
  if (o.kind === 'http') return fromUpstream(o.error)
  return fromFetchFailure(o.error, o.kind === 'timeout')
}

export type Forwarder = ReturnType<typeof forwarder>
