// Requests and tokens per minute of a limited key (issue 36), by the generic cell rate algorithm: one
// number per limit, the "theoretical arrival time" (TAT) — when the key's bucket would be empty again.
// A request moves the requests TAT by a minute / rpmLimit and is let in while that stays within a
// minute of now, so a burst of N parallel requests against rpmLimit N serves exactly N, and a key
// that keeps to its rate is never refused. Tokens are known only after an answer: the tokens TAT
// moves by what the upstream reported, and a request is let in while the key has any token left.
// On SQLite the one process keeps the TATs in memory (a Map lookup per request); several instances
// on PostgreSQL share them in key_rates, moved by one conditional upsert, so the limit is the total.
import { eq, sql } from 'drizzle-orm'
import { onPostgres } from '../db/dialect'
import { greatest } from '../db/sql'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { keyRates } from './schema'

/** The window of both limits, in the TATs' unit (µs: a token of a large tpm limit is a fraction of a ms). */
const MINUTE = 60_000_000
const nowUs = (ms: number) => Math.round(ms * 1000)

export type RateLimits = { rpmLimit: number | null; tpmLimit: number | null }

/** One limit's state as the OpenAI headers state it. */
export type Window = { limit: number; remaining: number; resetMs: number }
export type RateState = { requests: Window | null; tokens: Window | null }
export type Taken = { ok: true; state: RateState } | { ok: false; refused: 'requests' | 'tokens'; retryAfterMs: number; state: RateState }

type Tats = { requests: number; tokens: number }

/** The headers' figures from the TATs after (or without) this request. */
function stateOf(l: RateLimits, t: Tats, now: number): RateState {
  const ahead = (tat: number) => Math.max(0, tat - now)
  return {
    requests:
      l.rpmLimit === null
        ? null
        : { limit: l.rpmLimit, remaining: Math.max(0, Math.floor(((MINUTE - ahead(t.requests)) * l.rpmLimit) / MINUTE)), resetMs: Math.ceil(ahead(t.requests) / 1000) },
    tokens:
      l.tpmLimit === null
        ? null
        : { limit: l.tpmLimit, remaining: Math.max(0, Math.floor(((MINUTE - ahead(t.tokens)) * l.tpmLimit) / MINUTE)), resetMs: Math.ceil(ahead(t.tokens) / 1000) },
  }
}

const step = (l: RateLimits) => (l.rpmLimit === null ? 0 : Math.ceil(MINUTE / l.rpmLimit))
const tokensOk = (l: RateLimits, t: Tats, now: number) => l.tpmLimit === null || t.tokens - now < MINUTE

/** The answer for a request refused at `t` (the TATs as they are; nothing was taken). */
function refusedAt(l: RateLimits, t: Tats, now: number): Taken {
  const state = stateOf(l, t, now)
  if (!tokensOk(l, t, now)) return { ok: false, refused: 'tokens', retryAfterMs: Math.ceil((t.tokens - now - MINUTE) / 1000) + 1, state }
  return { ok: false, refused: 'requests', retryAfterMs: Math.ceil((Math.max(t.requests, now) + step(l) - now - MINUTE) / 1000), state }
}

export type KeyRates = {
  /** Counts one request of the key, or refuses it (nothing counted) when a limit is reached. */
  take(keyId: string, limits: RateLimits, atMs?: number): Promise<Taken>
  /** Counts the tokens an answer reported against the key's tpm limit. */
  spend(keyId: string, tpmLimit: number, tokens: number, atMs?: number): Promise<void>
}

/** The rate state in this process (SQLite: the only one). */
export function inMemory(): KeyRates {
  const tats = new Map<string, Tats>()
  return {
    async take(keyId, l, atMs = Date.now()) {
      const now = nowUs(atMs)
      const t = tats.get(keyId) ?? { requests: now, tokens: now }
      const next = Math.max(t.requests, now) + step(l)
      if (next - now > MINUTE || !tokensOk(l, t, now)) return refusedAt(l, t, now)
      t.requests = next
      tats.set(keyId, t)
      return { ok: true, state: stateOf(l, t, now) }
    },
    async spend(keyId, tpm, tokens, atMs = Date.now()) {
      if (tokens <= 0) return
      const now = nowUs(atMs)
      const t = tats.get(keyId) ?? { requests: now, tokens: now }
      t.tokens = Math.max(t.tokens, now) + Math.ceil((tokens * MINUTE) / tpm)
      tats.set(keyId, t)
    },
  }
}

function shared(db: Db): KeyRates {
  return {
    async take(keyId, l, atMs = Date.now()) {
      const now = nowUs(atMs)
      const inc = step(l)
      // One statement takes the request or leaves the row as it was: concurrent requests on any
      // instance queue on the key's row and each sees the ones before it.
      const tokensRoom = l.tpmLimit === null ? sql`true` : sql`${keyRates.tokensTat} - ${now} < ${MINUTE}`
      const [row] = await write(db, (q) =>
        q
          .insert(keyRates)
          .values({ keyId, requestsTat: now + inc, tokensTat: 0 })
          .onConflictDoUpdate({
            target: keyRates.keyId,
            set: { requestsTat: sql`${greatest(keyRates.requestsTat, now)} + ${inc}` },
            setWhere: sql`${greatest(keyRates.requestsTat, now)} + ${inc} - ${now} <= ${MINUTE} and ${tokensRoom}`,
          })
          .returning({ requests: keyRates.requestsTat, tokens: keyRates.tokensTat }),
      )
      if (row) return { ok: true, state: stateOf(l, { requests: Number(row.requests), tokens: Number(row.tokens) }, now) }
      const [was] = await db.select({ requests: keyRates.requestsTat, tokens: keyRates.tokensTat }).from(keyRates).where(eq(keyRates.keyId, keyId))
      return refusedAt(l, { requests: Number(was?.requests ?? now), tokens: Number(was?.tokens ?? now) }, now)
    },
    async spend(keyId, tpm, tokens, atMs = Date.now()) {
      if (tokens <= 0) return
      const now = nowUs(atMs)
      const inc = Math.ceil((tokens * MINUTE) / tpm)
      await write(db, (q) =>
        q
          .insert(keyRates)
          .values({ keyId, requestsTat: 0, tokensTat: now + inc })
          .onConflictDoUpdate({ target: keyRates.keyId, set: { tokensTat: sql`${greatest(keyRates.tokensTat, now)} + ${inc}` } }),
      )
    },
  }
}

const byDb = new WeakMap<Db, KeyRates>()

/** The rate state of this store's keys: in this process on SQLite, in key_rates on PostgreSQL. */
export function keyRatesOf(db: Db): KeyRates {
  let rates = byDb.get(db)
  if (!rates) byDb.set(db, (rates = onPostgres ? shared(db) : inMemory()))
  return rates
}

/** OpenAI's duration format of the reset headers: `20ms`, `1.5s`, `6m0s`. */
export function resetText(ms: number): string {
  if (ms < 1000) return `${ms}ms`
  const s = ms / 1000
  if (s < 60) return `${Number(s.toFixed(3))}s`
  return `${Math.floor(s / 60)}m${Number((s % 60).toFixed(3))}s`
}

/** The x-ratelimit-* headers of a limited key's answer. */
export function rateHeaders(state: RateState): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [kind, w] of [
    ['requests', state.requests],
    ['tokens', state.tokens],
  ] as const) {
    if (!w) continue
    out[`x-ratelimit-limit-${kind}`] = String(w.limit)
    out[`x-ratelimit-remaining-${kind}`] = String(w.remaining)
    out[`x-ratelimit-reset-${kind}`] = resetText(w.resetMs)
  }
  return out
}
