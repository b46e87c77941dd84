// The body the router gets, for every protocol: the caller's with what the hold decided (completion
// cap, price cap, the shape's patch) and our end-user id in place of any the caller sent.

import { sha256 } from '../lib/crypto'
import { dec, isNegative, sub } from '../lib/decimal'
import { isObject } from '../lib/json'
import type { PriceCap } from './estimate'
import { isPrice } from './shape'
import type { Prepared } from './types'

/** Which protocol's names the forwarded body uses (max_tokens or max_output_tokens, user or metadata.user_id). */
export type BodyProtocol = 'chat' | 'responses' | 'messages' | 'embeddings'

/**
 * The caller's `provider` with our price cap merged in: each of the caller's own caps is kept where
 * it is lower, never loosened past ours (protocols.md 1.13).
 */
export function withPriceCap(provider: unknown, cap: PriceCap): Record<string, unknown> {
  const own = isObject(provider) ? provider : {}
  const theirs = isObject(own.max_price) ? own.max_price : {}
  const merged: Record<string, unknown> = { ...theirs }
  for (const [field, ours] of Object.entries(cap) as Array<[string, string]>) {
    const given = theirs[field]
    merged[field] = isPrice(given) && isNegative(sub(dec(String(given)), dec(ours))) ? given : ours
  }
  return { ...own, max_price: merged }
}

/** The hashed end-user id sent upstream, memoised: it is the same on every request of a customer. */
const endUserIds = new Map<string, string>()
export function endUserId(userId: string) {
  let id = endUserIds.get(userId)
  if (id === undefined) {
    if (endUserIds.size >= 10_000) endUserIds.clear() // bounded; recomputing is cheap
    endUserIds.set(userId, (id = sha256(`user:${userId}`).slice(0, 32)))
  }
  return id
}

/**
 * The caller's body (the model, variants and fallbacks as named; the hold covers each) with the
 * shape's patch, our completion cap and price cap, and our end-user id.
 */
export function upstreamBody(p: Prepared, body: Record<string, unknown>, protocol: BodyProtocol): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body, ...p.patch }
  if (protocol !== 'embeddings') out.stream = p.stream
  if (protocol === 'chat') {
    if (p.stream) out.stream_options = { include_usage: true }
    else delete out.stream_options
  }
  if (p.maxTokens !== null) {
    if (protocol === 'responses') out.max_output_tokens = p.maxTokens
    else {
      delete out.max_completion_tokens
      out.max_tokens = p.maxTokens
    }
  }
  if (p.priceCap) out.provider = withPriceCap(out.provider, p.priceCap)
  // A stable, non-identifying end-user id helps the router isolate abuse; the caller's own ids
  // (an e-mail, a user name) never leave us.
  const user = endUserId(p.caller.userId)
  if (protocol === 'messages') {
    delete out.user
    delete out.safety_identifier
    out.metadata = { ...(isObject(out.metadata) ? out.metadata : {}), user_id: user }
  } else {
    out.user = user
    if (out.safety_identifier !== undefined) out.safety_identifier = user
  }
  return out
}
