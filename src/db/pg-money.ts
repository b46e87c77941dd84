// PostgreSQL's spelling of the per-request money units of billing/holds.ts, each one statement (a
// data-modifying CTE) sent in one round trip and committed on its own: the hot rows (the key's,
// the member's, the balance) stay locked for the statement and its commit only, instead of through
// a transaction's round trips (bench/README.md, issue 25). They cover the usual case; whenever one
// of its conditions fails (a budget or the balance that cannot take the charge, a level's row gone,
// a charge capped by the hold) the statement divides by zero, PostgreSQL undoes all of it, and the
// caller runs its general unit instead, which knows every rule for the rare cases. The same rules
// as billing/budgets.ts and billing/ledger.ts, in the same lock order: key, member, account.
// Rows come back decoded here (PostgreSQL answers bigints as strings).
import { sql } from 'drizzle-orm'
import type { Db } from './client'
import { compiled, prepared, rawStatement } from './prepared'

const p = sql.placeholder

/** A budget level's columns after a settlement (billing/budgets.ts BudgetState before decoding the period). */
export type LevelAfter = { limitMicros: number | null; period: string; periodStart: number; spentMicros: number; heldMicros: number }

/** The usual-case settlement's result: the hold it closed, the charge, the account and levels after. */
export type PgSettled = {
  hold: { userId: string; teamId: string | null; apiKeyId: string | null; amountMicros: number }
  chargedMicros: number
  balanceAfterMicros: number
  alertLevelMicros: number | null
  alerted: boolean
  key: LevelAfter | undefined
  member: LevelAfter | undefined
}

type Binding = string | number | boolean | null

/** What the statement needs besides the hold's id: the charge and the ledger and usage rows' facts. */
export type PgSettleInput = {
  holdId: string
  chargeMicros: number
  /** Cap the charge at the hold (a customer's limit applies); the statement refuses when that would cut it. */
  withinHold: boolean
  /** Period starts (billing/periods.ts periodStarts) for the budget rollover. */
  day: number
  week: number
  month: number
  now: number
  ledgerId: string
  description: string
  reference: string
  usageId: string
  /** Moscow day of the rollup row. */
  usageDay: string
  upstreamNano: number
  /** The usage row's own columns, as billing/holds.ts writes them. */
  usage: UsageBindings
}

/** The usage row's facts as bound (billing/holds.ts usageValues). */
export type UsageBindings = Record<(typeof USAGE_COLUMNS)[number][1], Binding>

/** usage_logs columns filled from the request's facts: [column, fact]. */
const USAGE_COLUMNS = [
  ['endpoint', 'endpoint'],
  ['model', 'model'],
  ['prompt_tokens', 'promptTokens'],
  ['completion_tokens', 'completionTokens'],
  ['total_tokens', 'totalTokens'],
  ['audio_seconds', 'audioSeconds'],
  ['characters', 'characters'],
  ['images', 'images'],
  ['requested_model', 'requestedModel'],
  ['key_name', 'keyName'],
  ['upstream_cost_usd', 'upstreamCostUsd'],
  ['upstream_id', 'upstreamId'],
  ['response_id', 'responseId'],
  ['upstream', 'upstream'],
  ['status', 'status'],
  ['error', 'error'],
  ['usd_rub_rate', 'usdRubRate'],
  ['markup', 'markup'],
  ['hold_id', 'holdId'],
  ['hold_micros', 'holdMicros'],
  ['request_id', 'requestId'],
  ['duration_ms', 'durationMs'],
  ['ttft_ms', 'ttftMs'],
  ['stream', 'stream'],
] as const
const USAGE_TYPES: Record<string, string> = {
  prompt_tokens: 'bigint',
  completion_tokens: 'bigint',
  total_tokens: 'bigint',
  audio_seconds: 'bigint',
  characters: 'bigint',
  images: 'bigint',
  hold_micros: 'bigint',
  duration_ms: 'bigint',
  ttft_ms: 'bigint',
  stream: 'boolean',
}

/** A level's period columns over table `t` (billing/budgets.ts levelStatements): the current start and the rolled spend. */
function levelPeriod(t: string) {
  const current = `(case ${t}.budget_period when 'day' then cast($day as bigint) when 'week' then cast($week as bigint) when 'month' then cast($month as bigint) else 0 end)`
  const rolled = `(case when ${t}.budget_period_start < ${current} then 0 else ${t}.budget_spent_micros end)`
  return { current, rolled }
}

/**
 * A level's settling SET and fit check (levelStatements' `settle`) over table `t`, with what the
 * hold reserved on it in `reserved` (a column of the hold CTE `c`).
 */
function levelSettle(t: string, reserved: string) {
  const { current, rolled } = levelPeriod(t)
  const back = `greatest(${t}.budget_held_micros - c.${reserved}, 0)`
  return {
    set: `budget_spent_micros = ${rolled} + c.charge, budget_period_start = greatest(${t}.budget_period_start, ${current}), budget_held_micros = ${back}`,
    fits: `(${t}.budget_limit_micros is null or ${t}.budget_limit_micros - ${rolled} - ${back} >= c.charge)`,
    state: `${t}.budget_limit_micros, ${t}.budget_period, ${t}.budget_period_start, ${t}.budget_spent_micros, ${t}.budget_held_micros`,
  }
}

/** A level's reserving SET and fit check (levelStatements' `reserve`) for `$amount`. */
function levelReserve(t: string) {
  const { current, rolled } = levelPeriod(t)
  return {
    set: `budget_spent_micros = ${rolled}, budget_period_start = greatest(${t}.budget_period_start, ${current}), budget_held_micros = ${t}.budget_held_micros + cast($amount as bigint)`,
    fits: `(${t}.budget_limit_micros is null or ${t}.budget_limit_micros - ${rolled} - ${t}.budget_held_micros >= cast($amount as bigint))`,
  }
}

/**
 * The hold as one statement (billing/holds.ts placeHold): the reservation on every level that
 * limits the request, in the lock order, and the hold's row. `usual` divides by zero when a level
 * refused, which undoes the levels that had taken it.
 */
function holdSql(): string {
  const key = levelReserve('api_keys')
  const member = levelReserve('team_members')
  const account = (t: 'users' | 'teams', which: string) =>
    `update ${t} set held_micros = ${t}.held_micros + cast($amount as bigint) from kk, mm
     where ${which} and ${t}.balance_micros - ${t}.held_micros >= cast($amount as bigint) returning 1`
  return `
with k as (
  update api_keys set ${key.set}
  where cast($keyHeld as bigint) > 0 and api_keys.id = cast($apiKeyId as text) and ${key.fits}
  returning 1
), kk as (
  select count(*) as n from k
), m as (
  update team_members set ${member.set} from kk
  where cast($memberHeld as bigint) > 0 and team_members.team_id = cast($teamId as text) and team_members.user_id = cast($userId as text) and ${member.fits}
  returning 1
), mm as (
  select count(*) as n from m
), pu as (
  ${account('users', 'cast($teamId as text) is null and users.id = cast($userId as text)')}
), pt as (
  ${account('teams', 'cast($teamId as text) is not null and teams.id = cast($teamId as text) and teams.deleted_at is null')}
), h as (
  insert into holds (id, user_id, team_id, api_key_id, amount_micros, key_held_micros, member_held_micros, instance_id, lease_token, lease_until, created_at)
  values (cast($id as text), cast($userId as text), cast($teamId as text), cast($apiKeyId as text), cast($amount as bigint), cast($keyHeld as bigint),
    cast($memberHeld as bigint), cast($instance as text), cast($leaseToken as text), cast($leaseUntil as bigint), cast($createdAt as bigint))
)
select 1 / (case when kk.n = (case when cast($keyHeld as bigint) > 0 then 1 else 0 end) and mm.n = (case when cast($memberHeld as bigint) > 0 then 1 else 0 end)
  and (select count(*) from pu) + (select count(*) from pt) = 1 then 1 else 0 end) as usual
from kk, mm`
}

/** The account's balance UPDATE (billing/ledger.ts applyIfFunded, with the hold's reservation given back). */
const account = (t: 'users' | 'teams', which: string) =>
  `update ${t} set balance_micros = ${t}.balance_micros - c.charge, held_micros = ${t}.held_micros - c.amount_micros
     from c, kk, mm
     where ${which} and (c.charge = 0 or ${t}.balance_micros >= c.charge)
     returning ${t}.balance_micros, ${t}.low_balance_alert_micros, ${t}.low_balance_alerted`

/** The settlement as one statement; `$name` marks a named value (sql.placeholder). */
function settleSql(): string {
  const key = levelSettle('api_keys', 'key_held_micros')
  const member = levelSettle('team_members', 'member_held_micros')
  const usageCols = USAGE_COLUMNS.map(([c]) => c).join(', ')
  const usageVals = USAGE_COLUMNS.map(([c, f]) => `cast($${f} as ${USAGE_TYPES[c] ?? 'text'})`).join(', ')
  return `
with h as (
  delete from holds where id = $holdId
  returning user_id, team_id, api_key_id, amount_micros, key_held_micros, member_held_micros
), c as (
  select h.*, case when cast($withinHold as integer) = 1 then least(cast($charge as bigint), h.amount_micros) else cast($charge as bigint) end as charge from h
), k as (
  update api_keys set ${key.set}, last_used_at = cast($now as bigint)
  from c where api_keys.id = c.api_key_id and ${key.fits}
  returning ${key.state}
), kk as (
  select count(*) as n from k
), m as (
  update team_members set ${member.set}
  from c, kk where team_members.team_id = c.team_id and team_members.user_id = c.user_id and ${member.fits}
  returning ${member.state}
), mm as (
  select count(*) as n from m
), pu as (
  ${account('users', 'c.team_id is null and users.id = c.user_id')}
), pt as (
  ${account('teams', 'c.team_id is not null and teams.id = c.team_id')}
), a as (
  select * from pu union all select * from pt
), l as (
  insert into ledger_entries (id, user_id, type, amount_micros, balance_after_micros, description, reference, actor_id, team_id, created_at)
  select cast($ledgerId as text), c.user_id, 'usage', -c.charge, a.balance_micros, cast($description as text), cast($reference as text), null, c.team_id, cast($now as bigint)
  from c, a where c.charge > 0
), u as (
  insert into usage_logs (id, user_id, api_key_id, team_id, cost_micros, created_at, ${usageCols})
  select cast($usageId as text), c.user_id, c.api_key_id, c.team_id, c.charge, cast($now as bigint), ${usageVals}
  from c, a
), r as (
  insert into usage_daily (user_id, team_id, day, api_key_id, model, requests, tokens, audio_seconds, characters, cost_micros, upstream_cost_nano_usd)
  select c.user_id, coalesce(c.team_id, ''), cast($usageDay as text), coalesce(c.api_key_id, ''), cast($model as text), 1,
    cast($totalTokens as bigint), coalesce(cast($audioSeconds as bigint), 0), coalesce(cast($characters as bigint), 0), c.charge, cast($upstreamNano as bigint)
  from c, a
  on conflict (user_id, team_id, day, api_key_id, model) do update set
    requests = usage_daily.requests + 1,
    tokens = usage_daily.tokens + excluded.tokens,
    audio_seconds = usage_daily.audio_seconds + excluded.audio_seconds,
    characters = usage_daily.characters + excluded.characters,
    cost_micros = usage_daily.cost_micros + excluded.cost_micros,
    upstream_cost_nano_usd = usage_daily.upstream_cost_nano_usd + excluded.upstream_cost_nano_usd
)
select c.user_id, c.team_id, c.api_key_id, c.amount_micros, c.charge, a.balance_micros, a.low_balance_alert_micros, a.low_balance_alerted,
  k.budget_limit_micros, k.budget_period, k.budget_period_start, k.budget_spent_micros, k.budget_held_micros,
  m.budget_limit_micros, m.budget_period, m.budget_period_start, m.budget_spent_micros, m.budget_held_micros,
  1 / (case when a.balance_micros is not null and (c.api_key_id is null or k.budget_period is not null)
    and (c.team_id is null or m.budget_period is not null) and c.charge = cast($charge as bigint) then 1 else 0 end) as usual
from c left join a on true left join k on true left join m on true`
}

/** `$name` → sql.placeholder(name), so compiled() binds the values by name. */
function withPlaceholders(text: string) {
  const parts = text.split(/\$([A-Za-z]+)/)
  const chunks = [sql.raw(parts[0]!)]
  for (let i = 1; i < parts.length; i += 2) chunks.push(sql`${p(parts[i]!)}`, sql.raw(parts[i + 1]!))
  return sql.join(chunks)
}

const statements = (db: Db) =>
  prepared(db, 'pg-money', () => ({
    hold: compiled(db, rawStatement(db, withPlaceholders(holdSql()))),
    settle: compiled(db, rawStatement(db, withPlaceholders(settleSql()))),
  }))

/** PostgreSQL's division_by_zero: the statements' way of saying "not the usual case". */
const NOT_USUAL = '22012'
const notUsual = (e: unknown) => {
  const { errno, code } = (e ?? {}) as { errno?: unknown; code?: unknown }
  return errno === NOT_USUAL || code === NOT_USUAL
}

const num = (v: unknown) => Number(v)
const numOrNull = (v: unknown) => (v == null ? null : Number(v))
const level = (r: unknown[], at: number): LevelAfter | undefined =>
  r[at + 1] == null ? undefined : { limitMicros: numOrNull(r[at]), period: String(r[at + 1]), periodStart: num(r[at + 2]), spentMicros: num(r[at + 3]), heldMicros: num(r[at + 4]) }

/**
 * Settles a hold in one statement when nothing out of the ordinary applies: null when the hold is
 * already closed, 'general' when the caller must run its general unit (nothing was written).
 * `db` is the pool, never an open transaction (a refusal would abort it).
 */
export async function settleInOneStatement(db: Db, input: PgSettleInput): Promise<PgSettled | null | 'general'> {
  const { usage, chargeMicros, withinHold, ...rest } = input
  let rows: unknown[][]
  try {
    rows = await statements(db).settle.values(db, { ...usage, ...rest, charge: chargeMicros, withinHold: withinHold ? 1 : 0 })
  } catch (e) {
    if (notUsual(e)) return 'general'
    throw e
  }
  const r = rows[0]
  if (!r) return null
  return {
    hold: { userId: String(r[0]), teamId: r[1] == null ? null : String(r[1]), apiKeyId: r[2] == null ? null : String(r[2]), amountMicros: num(r[3]) },
    chargedMicros: num(r[4]),
    balanceAfterMicros: num(r[5]),
    alertLevelMicros: numOrNull(r[6]),
    alerted: r[7] === true,
    key: level(r, 8),
    member: level(r, 13),
  }
}

/** The hold's row and what it reserves on each level (billing/holds.ts placeHold). */
export type PgHoldInput = {
  id: string
  userId: string
  teamId: string | null
  apiKeyId: string | null
  amount: number
  keyHeld: number
  memberHeld: number
  day: number
  week: number
  month: number
  instance: string
  leaseToken: string
  leaseUntil: number
  createdAt: number
}

/**
 * Places a hold in one statement: true when every level took it, false when one refused (nothing
 * was written; the caller's general unit names the level). `db` is the pool, never an open transaction.
 */
export async function holdInOneStatement(db: Db, input: PgHoldInput): Promise<boolean> {
  try {
    await statements(db).hold.run(db, input)
    return true
  } catch (e) {
    if (notUsual(e)) return false
    throw e
  }
}
