import { type AnyColumn, type SQL, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { index, integer, onPostgres, primaryKey, table, text, uniqueIndex } from '../db/dialect'
import { apiKeys } from '../keys/schema'
import { teams } from '../teams/schema'

/**
 * A team's index leaves out, on SQLite, the personal rows (team null: most of them), which it never
 * serves (a query naming a team implies the column is not null): a personal request writes one page
 * fewer per table it touches (bench/README.md, issue 34). PostgreSQL's stays whole: rebuilding it there
 * is a migration under load that its figures never asked for.
 */
function teamsOnly<I extends { where(condition: SQL): I }>(ix: I, teamId: AnyColumn): I {
  return onPostgres ? ix : ix.where(sql`${teamId} is not null`)
}

export const LEDGER_TYPES = ['bonus', 'topup', 'usage', 'admin', 'refund', 'promo', 'referral'] as const
export type LedgerType = (typeof LEDGER_TYPES)[number]

/**
 * Every movement of a balance. Written in the same transaction as the balance change, so the
 * balance always equals the sum of its account's rows: a personal balance the user's rows with no
 * team, a team's balance the rows of that team. Rows are never updated or deleted.
 */
export const ledgerEntries = table(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    type: text('type', { enum: LEDGER_TYPES }).notNull(),
    /** Signed micro-rubles: credits positive, charges negative. */
    amountMicros: integer('amount_micros').notNull(),
    balanceAfterMicros: integer('balance_after_micros').notNull(),
    description: text('description').notNull(),
    /** Idempotency key of the cause (e.g. `payment:<id>`); unique so a cause credits at most once. */
    reference: text('reference').unique(),
    /** Who made the movement when it was not the customer or the system: the admin behind an adjustment. */
    actorId: text('actor_id').references(() => users.id),
    /** The team whose balance moved; null = the user's personal balance. In team rows `userId` is the member who acted. */
    teamId: text('team_id').references(() => teams.id),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('ledger_user_created_idx').on(t.userId, t.createdAt), teamsOnly(index('ledger_team_created_idx').on(t.teamId, t.createdAt), t.teamId)],
)

export type LedgerRow = typeof ledgerEntries.$inferSelect

export const USAGE_STATUSES = ['success', 'error', 'cancelled'] as const
/** Which /v1 route a request came through (a text column: new values need no migration). */
export const ENDPOINTS = ['chat', 'images', 'responses', 'messages', 'embeddings', 'speech', 'transcription'] as const
export type Endpoint = (typeof ENDPOINTS)[number]

/** One row per /v1 request: what was asked, what the upstream reported and what we charged. */
export const usageLogs = table(
  'usage_logs',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    apiKeyId: text('api_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    /** The key's name when the request was made: the log still names a deleted key (its id is then null). */
    keyName: text('key_name'),
    /** The team that paid; null = the user's personal account (then `userId` is the payer, else the member who asked). */
    teamId: text('team_id'),
    endpoint: text('endpoint', { enum: ENDPOINTS }).notNull(),
    /** The model that answered (a fallback or variant the router chose), else the one asked for. */
    model: text('model').notNull(),
    /** The model the request named; null in rows older than the activity log (then it is `model`). */
    requestedModel: text('requested_model'),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
    totalTokens: integer('total_tokens').notNull().default(0),
    /** Voice: seconds of audio transcribed (rounded up), characters voiced; null for every other endpoint. */
    audioSeconds: integer('audio_seconds'),
    characters: integer('characters'),
    /** Pictures the model drew (images, image output of a chat); null when it drew none. */
    images: integer('images'),
    /** What the customer paid, micro-rubles (0 for failed requests). */
    costMicros: integer('cost_micros').notNull().default(0),
    /** What the upstream reported, USD decimal string; null when it reported nothing. */
    upstreamCostUsd: text('upstream_cost_usd'),
    /** What an upstream billing in rubles charged us (reported, or its tokens at UPSTREAMS_FILE's prices), decimal string; null otherwise. */
    upstreamCostRub: text('upstream_cost_rub'),
    upstreamId: text('upstream_id'),
    /** The answer's own id when the client saw one other than the generation id (Messages msg_…, Responses resp_…). */
    responseId: text('response_id'),
    /** Which upstream answered (or last failed): `primary`, `fallback` or an UPSTREAMS_FILE id. */
    upstream: text('upstream').notNull().default('primary'),
    status: text('status', { enum: USAGE_STATUSES }).notNull(),
    error: text('error'),
    // How the charge came about (the activity log's detail); null in rows older than the log.
    /** The USD/RUB rate the request was priced at, decimal string. */
    usdRubRate: text('usd_rub_rate'),
    /** The markup over the upstream cost, decimal string ('1.3'). */
    markup: text('markup'),
    /** The request's hold: its id (the ledger row's reference is `usage:<holdId>`) and what it reserved, micro-rubles. */
    holdId: text('hold_id'),
    holdMicros: integer('hold_micros'),
    /** The x-request-id the client saw. */
    requestId: text('request_id'),
    durationMs: integer('duration_ms').notNull(),
    /** Streams: from the request to the first relayed event of the answer. */
    ttftMs: integer('ttft_ms'),
    stream: integer('stream', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    // (created_at, id) is the lists' order, newest first: the activity log's keyset cursor and the
    // recent requests walk these backwards with no sort, on both stores.
    index('usage_user_created_id_idx').on(t.userId, t.createdAt, t.id),
    index('usage_key_created_idx').on(t.apiKeyId, t.createdAt),
    // the usage page's model filter walks this instead of every row of the user
    index('usage_user_model_created_idx').on(t.userId, t.model, t.createdAt),
    teamsOnly(index('usage_team_created_id_idx').on(t.teamId, t.createdAt, t.id), t.teamId),
    // One usage row per hold: a settlement that finds its hold gone (given back by another instance)
    // looks here whether it was closed already, and can never write a second row (money/holds).
    uniqueIndex('usage_hold_idx').on(t.holdId),
  ],
)

export type UsageLogRow = typeof usageLogs.$inferSelect

/**
 * Daily totals per account, user, key and model, kept in step with usage_logs in the same
 * transaction, so the usage page sums a few hundred rows instead of a million. `day` is the Moscow
 * calendar day (UTC+3, no DST), `apiKeyId` is '' for requests made from the web session and
 * `teamId` '' for the personal account (key columns cannot be null).
 */
export const usageDaily = table(
  'usage_daily',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    teamId: text('team_id').notNull().default(''),
    day: text('day').notNull(),
    apiKeyId: text('api_key_id').notNull(),
    model: text('model').notNull(),
    requests: integer('requests').notNull(),
    tokens: integer('tokens').notNull(),
    /** Voice requests measure audio seconds and characters instead of tokens. */
    audioSeconds: integer('audio_seconds').notNull().default(0),
    characters: integer('characters').notNull().default(0),
    costMicros: integer('cost_micros').notNull(),
    /** What the upstream reported for these requests, nano-dollars (the admin's provider cost and margin). */
    upstreamCostNanoUsd: integer('upstream_cost_nano_usd').notNull().default(0),
    /** The same from upstreams billing in rubles, nano-rubles. */
    upstreamCostNanoRub: integer('upstream_cost_nano_rub').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.teamId, t.day, t.apiKeyId, t.model] }), index('usage_daily_team_day_idx').on(t.teamId, t.day)],
)

/**
 * A request whose reported cost exceeded what the customer's balance could pay: the part nobody
 * was charged for. Written in the settling transaction; the balance itself never goes below zero.
 * The hold is meant to make this impossible, so every row is an operator alert (/app/admin).
 */
export const uncoveredCosts = table(
  'uncovered_costs',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The team whose request it was; null = personal. */
    teamId: text('team_id'),
    /** The usage row of the request. */
    usageId: text('usage_id').notNull(),
    model: text('model').notNull(),
    upstreamId: text('upstream_id'),
    heldMicros: integer('held_micros').notNull(),
    /** The full price of the request at our rate and markup. */
    costMicros: integer('cost_micros').notNull(),
    chargedMicros: integer('charged_micros').notNull(),
    uncoveredMicros: integer('uncovered_micros').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('uncovered_created_idx').on(t.createdAt)],
)

/**
 * The open holds: one row per request in flight, reserved in users.held_micros (teams.held_micros
 * for a team's request) and in the budgets it was checked against, by the same unit that inserts it
 * (money/holds); the row says what it reserved on each level, so closing it gives back exactly that. Each belongs to the instance serving the request, which renews
 * `leaseUntil` while it lives; when an instance dies (kill -9, a crashed host) the others release
 * its holds once the lease has lapsed, so no instance ever frees what another still holds.
 */
/** A hold's request, as a settlement after a crash needs it (money/holds). */
export type HoldGeneration = { upstream: string; endpoint: string; model: string; stream: boolean; limited: boolean }

export const holds = table(
  'holds',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    apiKeyId: text('api_key_id'),
    /** The team whose balance is reserved; null = the user's personal balance. */
    teamId: text('team_id'),
    amountMicros: integer('amount_micros').notNull(),
    /** Reserved in the key's budget (0 when the key had none). */
    keyHeldMicros: integer('key_held_micros').notNull().default(0),
    /** Reserved in the member's budget (team requests; 0 when the member had none). */
    memberHeldMicros: integer('member_held_micros').notNull().default(0),
    instanceId: text('instance_id').notNull(),
    /** The start of the process that renews the lease (db/instance.ts): a restart under the same INSTANCE_ID is another. */
    leaseToken: text('lease_token').notNull().default(''),
    /** Epoch milliseconds until which the owning instance vouches for the hold. */
    leaseUntil: integer('lease_until').notNull(),
    /** The router's generation id, once its answer named it: a hold whose instance died is settled from /generation. */
    generationId: text('generation_id'),
    /** What that settlement needs besides (the router, endpoint, model, stream, a customer's limit). */
    generation: text('generation', { mode: 'json' }).$type<HoldGeneration>(),
    /**
     * An instance's reserve on a well-funded account (money/reserves.ts, PostgreSQL): the requests it
     * serves take their holds from it in memory, and their charges come off it as they are applied.
     */
    reserve: integer('reserve', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
  },
  // On SQLite the table holds only the requests in flight on its one process: the sweeps read all of
  // it, and an index would be written twice per request (the insert, the delete) for nothing — 15 % of
  // the money units' CPU at concurrency 1 (bench/README.md, issue 34). PostgreSQL's instances sweep
  // each other's holds and reserves by instance and by lease.
  (t) => (onPostgres ? [index('holds_instance_idx').on(t.instanceId), index('holds_lease_idx').on(t.leaseUntil), index('holds_key_idx').on(t.apiKeyId)] : []),
)

/**
 * The charge of a request served from a reserve, written before its answer goes out and applied to
 * the books right after (money/reserves.ts): one row per request until its settlement commits,
 * deleted by that settlement, so a settlement runs once whoever runs it. When its instance dies
 * the others apply what is left here before they give the reserve back.
 */
export const pendingCharges = table('pending_charges', {
  /** The request's hold id (its usage row's hold_id, its ledger row's reference). */
  id: text('id').primaryKey(),
  /** The reserve (holds row) the request was served from. */
  reserveId: text('reserve_id').notNull(),
  /** Everything the settlement writes (money/pg/statements.ts PgPendingItem). */
  entry: text('entry', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: integer('created_at').notNull(),
})

/**
 * Budget alerts already sent: one row per budget, threshold (50, 80, 100 %) and period, inserted
 * once, so concurrent settlements on any instance send one alert (money/budgets.ts).
 */
export const budgetAlerts = table(
  'budget_alerts',
  {
    /** `key:<id>` or `member:<team>:<user>`; `team:<id>` for a team's low balance. */
    target: text('target').notNull(),
    threshold: integer('threshold').notNull(),
    periodStart: integer('period_start').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.target, t.threshold, t.periodStart] }), index('budget_alerts_created_idx').on(t.createdAt)],
)
