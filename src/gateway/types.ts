// The shapes the gateway's rooms hand each other: the services every route is built from, and a
// request between its hold and its settlement (pipeline.ts makes it; charge.ts, reconcile.ts and the
// protocols read it). Kept apart so that none of them imports another for a type.

import type { RateProvider } from '../catalog/rate'
import type { ModelRow } from '../catalog/schema'
import type { Catalog } from '../catalog/service'
import type { Config } from '../config'
import type { Db } from '../db/types'
import type { KeysService } from '../keys/service'
import type { Dec } from '../lib/decimal'
import type { Endpoint, Notifier } from '../money'
import type { UpstreamName, Upstreams } from '../upstream/pool'
import type { Caller } from './callers'
import type { PriceCap, RequestShape } from './estimate'
import type { Target } from './routing'

export type GatewayDeps = {
  db: Db
  config: Config
  catalog: Catalog
  rates: RateProvider
  /** The routers: the primary and, when configured, the second one (upstream/pool.ts). */
  upstreams: Upstreams
  keys: KeysService
  /** Budget and low-balance alerts, sent after settlement (teams/notify.ts). */
  notify: Notifier
}

/** A request between its hold and its settlement. */
export type Prepared = {
  caller: Caller
  /** The first candidate's catalogue entry (the model the request names). */
  model: ModelRow
  /** The id the request names, variant included. */
  modelId: string
  /** What the hold was computed from. */
  shape: RequestShape
  /** Fields sent instead of the caller's (chatShape). */
  patch: Record<string, unknown>
  rate: Dec
  holdId: string
  /** What the hold reserved, micro-rubles (the activity log shows it beside the charge). */
  holdMicros: number
  maxTokens: number | null
  /** `provider.max_price` to send (a variable-price request under a limit). */
  priceCap: PriceCap | null
  /** A limit the customer set applies: the charge never exceeds the hold. */
  limited: boolean
  /** The id the client sees when it is not the generation id (msg_…, resp_…), once the answer names it. */
  responseId: string | null
  started: number
  /** When the first piece of a streamed answer was relayed (performance.now()); null until then, and for whole answers. */
  firstByteAt: number | null
  endpoint: Endpoint
  stream: boolean
  /** Headers the router needs besides ours (anthropic-version, anthropic-beta). */
  headers?: Record<string, string>
  /** The upstreams that may answer, in the order they are tried (routing.ts). */
  targets: Target[]
  /** The upstream that answered (or failed last). */
  upstream: UpstreamName
}
