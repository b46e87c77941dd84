// PostgreSQL's spelling of the per-request money units of money/holds, for many requests at
// once: the holds of every request that arrived while the previous batch was at the database go
// out as one statement (a data-modifying CTE), and so do their settlements (money/pg/queue.ts). One
// statement is one round trip, one plan started and one commit for the whole batch, and a hot
// customer's rows are locked once per batch instead of once per request (bench/README.md, issue 25).
//
// The rules are money/budgets.ts's and money/ledger.ts's: the same conditional period rollover,
// fit checks and "never below zero", applied to the sum of a batch's requests on each row. A paying
// account takes all of its requests in the batch or none of them: when the sum does not fit one of
// its levels (a budget, the balance), or a level's row is gone, or a charge is capped at its hold,
// none of that account's rows are touched and money/holds runs those requests one by one
// through its general unit, which names the refusing level and records what is uncovered.
//
// Rows are locked in one global order — holds, keys, members, users, teams, each sorted — before
// anything is written (each lock CTE waits for the one before it), the same order as every other
// unit that touches several of them, so concurrent batches of this and other instances never
// deadlock. Rows come back decoded here (PostgreSQL answers bigints as strings).
import { sql } from 'drizzle-orm'
import { column, compiled, prepared, rawStatement } from '../../db/prepared'
import type { Db } from '../../db/types'

/** A budget level's columns after a request's settlement (money/budgets.ts BudgetState before decoding the period, without what holds reserve). */
export type LevelAfter = { limitMicros: number | null; period: string; periodStart: number; spentMicros: number }

type Binding = string | number | boolean | null

/** The usage row's facts as bound (money/holds usageValues). */
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
  ['upstream_cost_rub', 'upstreamCostRub'],
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

/** The current period start of a level row `t` and its spend rolled over to it (money/budgets.ts levelStatements). */
function levelPeriod(t: string) {
  const current = `(case ${t}.budget_period when 'day' then cast($day as bigint) when 'week' then cast($week as bigint) when 'month' then cast($month as bigint) else 0 end)`
  const rolled = `(case when ${t}.budget_period_start < ${current} then 0 else ${t}.budget_spent_micros end)`
  return { current, rolled }
}

/** A budget row's SET after its requests: period rolled over; `spent` ($rolled = the rolled spend) and `held` the new values, over the row `t`. */
function levelSet(t: string, spent: string, held: string) {
  const { current, rolled } = levelPeriod(t)
  return `budget_spent_micros = ${spent.replaceAll('$rolled', rolled)}, budget_period_start = greatest(${t}.budget_period_start, ${current}), budget_held_micros = ${held}`
}

/** The fit check of a budget row `t` taking `amount` more, with `held` what holds will still reserve. */
function levelFits(t: string, held: string, amount: string) {
  const { rolled } = levelPeriod(t)
  return `(${t}.budget_limit_micros is null or ${t}.budget_limit_micros - ${rolled} - ${held} >= ${amount})`
}

/**
 * What a batch holds, so its statement names only the tables it needs (a plan started for nothing
 * costs as much as the work at a batch of one): budgets reserved or counted on keys, on members
 * (team requests), and personal and team accounts. One statement is prepared per shape.
 */
export type Shape = { keys: boolean; members: boolean; personal: boolean; teams: boolean }
const shapeName = (s: Shape) => `${s.keys ? 'k' : ''}${s.members ? 'm' : ''}${s.personal ? 'p' : ''}${s.teams ? 't' : ''}`

/** Joins the parts of a statement that apply (false and '' are left out). */
const parts = (sep: string, ...list: Array<string | false>) => list.filter(Boolean).join(sep)

/**
 * The batch's UPDATEs of its levels, as CTEs in the global lock order: each one's WHERE waits for
 * the one before it to finish (a count computed before its scan starts), and each updates its rows
 * in key order (its input sorted, the rows found by index). Each UPDATE is conditional: a row that
 * cannot take its requests is left as it is, its requests drop out of what follows, and the
 * statement's final check fails it. `level(kind, gate)` gives each CTE's UPDATE.
 */
function levelUpdates(shape: Shape, level: (kind: Level, gate: string) => string, reserves = false): string {
  const names: string[] = []
  const ctes: string[] = []
  const add = (kind: Level) => {
    const gate = names.length ? `(select count(*) from ${names.at(-1)}) >= 0` : 'true'
    ctes.push(`${kind} as (\n  ${level(kind, gate)}\n)`)
    names.push(kind)
  }
  // Reserves are holds rows: first in the order, as every hold is.
  if (reserves) add('rs')
  if (shape.keys) add('k')
  if (shape.members) add('m')
  if (shape.personal) add('u')
  if (shape.teams) add('t')
  return ctes.join(', ')
}

/** The levels a batch updates: an instance's reserves (holds rows), keys, members, personal and team accounts. */
type Level = 'rs' | 'k' | 'm' | 'u' | 't'

/** The paying accounts' tables: [table, its id's column in a batch's rows, the rows that pay into it, its (acct_team, acct_user)]. */
const ACCOUNT_TABLES = {
  u: ['users', 'user_id', 'team_id is null', `'' as acct_team, users.id as acct_user`],
  t: ['teams', 'team_id', 'team_id is not null', `teams.id as acct_team, '' as acct_user`],
} as const

/** The paying account of a row of `r`: (team, '') for a team, ('', user) for a person. */
const accountOf = (r: string) => `coalesce(${r}.team_id, '') as acct_team, case when ${r}.team_id is null then ${r}.user_id else '' end as acct_user`

/** The condition that a row of `r` had every level of this shape take it (the UPDATEs' RETURNING). */
function tookAll(shape: Shape, r: string, key: string, member: string) {
  return parts(
    ' and ',
    `(${r}.acct_team, ${r}.acct_user) in (select acct_team, acct_user from a)`,
    shape.keys ? `(not ${key} or ${r}.api_key_id in (select id from k))` : `not ${key}`,
    shape.members ? `(not ${member} or (${r}.team_id, ${r}.user_id) in (select team_id, user_id from m))` : `not ${member}`,
  )
}

/** The accounts the UPDATEs took, as (acct_team, acct_user, …their RETURNING). */
const accountsTaken = (shape: Shape) => parts(' union all ', shape.personal && 'select * from u', shape.teams && 'select * from t')

/**
 * The holds of a batch (money/holds placeHold), all or none: each request as it was planned —
 * its key active and without a budget it was not planned with, the member still in the team with
 * the same role, the account not deleted (a request planned from a cached caller may be out of
 * date) — reserved on every level and its row inserted. When any request is not as planned or a
 * level cannot take its requests, the statement divides by zero and nothing is written
 * (money/holds then holds them one by one).
 */
function holdSql(shape: Shape): string {
  const levels = levelUpdates(shape, (kind, gate) => {
    if (kind === 'k')
      return `update api_keys set ${levelSet('api_keys', '$rolled', 'api_keys.budget_held_micros + s.amount')}
  from (select api_key_id as id, sum(key_held) as amount from v where key_held > 0 group by 1 order by 1) s
  where api_keys.id = s.id and api_keys.id = any(array(select api_key_id from v where key_held > 0)) and ${levelFits('api_keys', 'api_keys.budget_held_micros', 's.amount')} and ${gate}
  returning api_keys.id`
    if (kind === 'm')
      return `update team_members set ${levelSet('team_members', '$rolled', 'team_members.budget_held_micros + s.amount')}
  from (select team_id, user_id, sum(member_held) as amount from v where member_held > 0 group by 1, 2 order by 1, 2) s
  where team_members.team_id = s.team_id and team_members.user_id = s.user_id and team_members.team_id = any(array(select team_id from v where member_held > 0))
    and ${levelFits('team_members', 'team_members.budget_held_micros', 's.amount')} and ${gate}
  returning team_members.team_id, team_members.user_id`
    // The accounts (a batch of holds has no reserve level).
    const [t, which, live, acct] = ACCOUNT_TABLES[kind as 'u' | 't']
    return `update ${t} set held_micros = ${t}.held_micros + s.amount
  from (select ${which} as id, sum(amount) as amount from v where ${live} group by 1 order by 1) s
  where ${t}.id = s.id and ${t}.id = any(array(select ${which} from v where ${live})) and ${t}.deleted_at is null and ${t}.balance_micros - ${t}.held_micros >= s.amount and ${gate}
  returning ${acct}`
  })
  return `
with x as materialized (
  select * from json_to_recordset(cast(cast($items as text) as json)) as x(i int, id text, user_id text, team_id text, api_key_id text,
    amount bigint, key_held bigint, member_held bigint, role text, reserve boolean, created_at bigint)
), v as materialized (
  select x.*, ${accountOf('x')} from x
  left join api_keys k on k.id = x.api_key_id${shape.teams ? '\n  left join team_members tm on tm.team_id = x.team_id and tm.user_id = x.user_id' : ''}
  where (x.api_key_id is null or (k.is_active and (x.key_held > 0 or k.budget_limit_micros is null)))${
    shape.teams
      ? '\n    and (x.team_id is null or (tm.user_id is not null and (x.role is null or tm.role = x.role) and (x.member_held > 0 or tm.budget_limit_micros is null)))'
      : ''
  }
), ${levels}, a as (
  ${accountsTaken(shape)}
), h as (
  insert into holds (id, user_id, team_id, api_key_id, amount_micros, key_held_micros, member_held_micros, instance_id, lease_token, lease_until, reserve, created_at)
  select id, user_id, team_id, api_key_id, amount, key_held, member_held, cast($instance as text), cast($leaseToken as text), cast($leaseUntil as bigint), reserve, created_at
  from v where ${tookAll(shape, 'v', 'v.key_held > 0', 'v.member_held > 0')}
  returning 1
)
select 1 / (case when (select count(*) from h) = (select count(*) from x) then 1 else 0 end) as checked`
}

/** The settlement's input columns besides the usage row's (json_to_recordset's record). */
const SETTLE_INPUT = `i int, hold text, charge bigint, within_hold boolean, ledger_id text, description text, reference text,
  usage_id text, usage_day text, upstream_nano bigint, upstream_nano_rub bigint, now bigint`
/** A pending charge's own columns: what its hold row would have said (money/reserves.ts). */
const PENDING_INPUT = 'reserve text, user_id text, team_id text, api_key_id text, amount_micros bigint'

/**
 * The settlements of a batch (money/holds settleHold), all or none: each hold deleted, each
 * budget level counting its requests' charges and giving their reservations back, each account
 * charged with its reservations given back, a ledger row per charge (its balance after, in the
 * batch's order), a usage row per request and the daily rollup. One row per request: whether its
 * hold was found (not: settled or released before), with what money/holds needs for the
 * alerts. When a level cannot take its requests' charges, or a charge is capped at its hold, or a
 * hold names a level this shape left out, the statement divides by zero and nothing is written
 * (money/holds then settles them one by one). Members come with teams: a team request
 * counts on its member.
 *
 * `from: 'pending'` applies the charges of requests served from reserves instead (money/reserves.ts):
 * their pending_charges rows are deleted in place of holds, each charge comes off its reserve and
 * off the account's held sum (what was not charged stays in the reserve), and the levels count the
 * charges without a check — the answers were served within what the reserve held, no budget limits them.
 */
function settleSql(shape: Shape, from: 'holds' | 'pending'): string {
  const pending = from === 'pending'
  const fits = (check: string) => (pending ? 'true' : check)
  const usageInput = USAGE_COLUMNS.map(([c, f]) => `"${f}" ${USAGE_TYPES[c] ?? 'text'}`).join(', ')
  const usageCols = USAGE_COLUMNS.map(([c]) => c).join(', ')
  // usage_logs.hold_id is the hold settled (the facts' own may be absent: a dead instance's hold settled from /generation).
  const usageVals = USAGE_COLUMNS.map(([c, f]) => (c === 'hold_id' ? 'o.hold' : `o."${f}"`)).join(', ')
  const state = (t: string) => `${t}.budget_limit_micros as lim, ${t}.budget_period as period, ${t}.budget_period_start as start, ${t}.budget_spent_micros as spent`
  const levels = levelUpdates(
    shape,
    (kind, gate) => {
      if (kind === 'k')
        return `update api_keys set ${levelSet('api_keys', '$rolled + s.charge', 'greatest(api_keys.budget_held_micros - s.reserved, 0)')}, last_used_at = s.now
  from (select api_key_id as id, sum(charged) as charge, sum(key_held_micros) as reserved, max(now) as now from c where api_key_id is not null group by 1 order by 1) s
  where api_keys.id = s.id and api_keys.id = any(array(select api_key_id from c)) and ${fits(levelFits('api_keys', 'greatest(api_keys.budget_held_micros - s.reserved, 0)', 's.charge'))} and ${gate}
  returning api_keys.id, ${state('api_keys')}`
      if (kind === 'm')
        return `update team_members set ${levelSet('team_members', '$rolled + s.charge', 'greatest(team_members.budget_held_micros - s.reserved, 0)')}
  from (select team_id, user_id, sum(charged) as charge, sum(member_held_micros) as reserved from c where team_id is not null group by 1, 2 order by 1, 2) s
  where team_members.team_id = s.team_id and team_members.user_id = s.user_id and team_members.team_id = any(array(select team_id from c))
    and ${fits(levelFits('team_members', 'greatest(team_members.budget_held_micros - s.reserved, 0)', 's.charge'))} and ${gate}
  returning team_members.team_id, team_members.user_id, ${state('team_members')}`
      if (kind === 'rs')
        return `update holds set amount_micros = holds.amount_micros - s.charge
  from (select reserve as id, sum(charged) as charge from c group by 1 order by 1) s
  where holds.id = s.id and holds.id = any(array(select reserve from c)) and holds.reserve and holds.amount_micros >= s.charge and ${gate}
  returning holds.id`
      const [t, which, live, acct] = ACCOUNT_TABLES[kind]
      // A hold gives its whole reservation back; a reserve gives back what was charged (the rest stays reserved).
      return `update ${t} set balance_micros = ${t}.balance_micros - s.charge, held_micros = ${t}.held_micros - s.${pending ? 'charge' : 'amount'}
  from (select ${which} as id, sum(charged) as charge, sum(amount_micros) as amount from c where ${live} group by 1 order by 1) s
  where ${t}.id = s.id and ${t}.id = any(array(select ${which} from c where ${live})) and ${t}.balance_micros >= s.charge and ${gate}
  returning ${acct}, ${t}.balance_micros as balance, ${t}.low_balance_alert_micros as alert, ${t}.low_balance_alerted as alerted`
    },
    pending,
  )
  // What a level shows after this request: its spend after the batch, less what later requests of the batch added.
  const levelAfter = (l: 'k' | 'm', on: boolean) => (on ? `${l}.lim, ${l}.period, ${l}.start, ${l}.spent - o.${l}_later` : 'null, null, null, null')
  const later = (partition: string) => `sum(c.charged) over (partition by ${partition}) - sum(c.charged) over (partition by ${partition} order by c.i)`
  return `
with x as materialized (
  select * from json_to_recordset(cast(cast($items as text) as json)) as x(${SETTLE_INPUT}, ${usageInput}${pending ? `, ${PENDING_INPUT}` : ''})
), ${
    pending
      ? `h as (
  delete from pending_charges where id = any(array(select hold from x)) returning id
), c as materialized (
  select x.*, 0 as key_held_micros, 0 as member_held_micros, x.charge as charged, ${accountOf('x')}
  from x join h on h.id = x.hold
)`
      : `h as (
  delete from holds where id = any(array(select hold from x))
  returning id, user_id, team_id, api_key_id, amount_micros, key_held_micros, member_held_micros
), c as materialized (
  select x.*, h.user_id, h.team_id, h.api_key_id, h.amount_micros, h.key_held_micros, h.member_held_micros,
    case when x.within_hold then least(x.charge, h.amount_micros) else x.charge end as charged, ${accountOf('h')}
  from x join h on h.id = x.hold
)`
  }, ${levels}, a as (
  ${accountsTaken(shape)}
), o as materialized (
  select c.*, ${later('c.acct_team, c.acct_user')} as later${shape.keys ? `, ${later('c.api_key_id')} as k_later` : ''}${
    shape.members ? `, ${later('c.team_id, c.user_id')} as m_later` : ''
  }
  from c where c.charged = c.charge and ${tookAll(shape, 'c', 'c.api_key_id is not null', 'c.team_id is not null')}${pending ? ' and c.reserve in (select id from rs)' : ''}
), l as (
  insert into ledger_entries (id, user_id, type, amount_micros, balance_after_micros, description, reference, actor_id, team_id, created_at)
  select o.ledger_id, o.user_id, 'usage', -o.charged, a.balance + o.later, o.description, o.reference, null, o.team_id, o.now
  from o join a on a.acct_team = o.acct_team and a.acct_user = o.acct_user where o.charged > 0
  returning 1
), us as (
  insert into usage_logs (id, user_id, api_key_id, team_id, cost_micros, created_at, ${usageCols})
  select o.usage_id, o.user_id, o.api_key_id, o.team_id, o.charged, o.now, ${usageVals} from o
  returning 1
), r as (
  insert into usage_daily (user_id, team_id, day, api_key_id, model, requests, tokens, audio_seconds, characters, cost_micros, upstream_cost_nano_usd, upstream_cost_nano_rub)
  select o.user_id, coalesce(o.team_id, ''), o.usage_day, coalesce(o.api_key_id, ''), o.model, count(*), sum(o."totalTokens"),
    sum(coalesce(o."audioSeconds", 0)), sum(coalesce(o.characters, 0)), sum(o.charged), sum(o.upstream_nano), sum(o.upstream_nano_rub)
  from o group by o.user_id, o.team_id, o.usage_day, o.api_key_id, o.model
  order by 1, 2, 3, 4, 5
  on conflict (user_id, team_id, day, api_key_id, model) do update set
    requests = usage_daily.requests + excluded.requests,
    tokens = usage_daily.tokens + excluded.tokens,
    audio_seconds = usage_daily.audio_seconds + excluded.audio_seconds,
    characters = usage_daily.characters + excluded.characters,
    cost_micros = usage_daily.cost_micros + excluded.cost_micros,
    upstream_cost_nano_usd = usage_daily.upstream_cost_nano_usd + excluded.upstream_cost_nano_usd,
    upstream_cost_nano_rub = usage_daily.upstream_cost_nano_rub + excluded.upstream_cost_nano_rub
)
select x.i, o.i is not null as settled,
  o.user_id, o.team_id, o.api_key_id, o.amount_micros, o.charged, a.balance + o.later as balance_after, a.alert, a.alerted,
  ${levelAfter('k', shape.keys)},
  ${levelAfter('m', shape.members)},
  1 / (case when (select count(*) from o) = (select count(*) from c) then 1 else 0 end) as checked
from x
left join o on o.i = x.i
left join a on a.acct_team = o.acct_team and a.acct_user = o.acct_user${shape.keys ? '\nleft join k on k.id = o.api_key_id' : ''}${shape.members ? '\nleft join m on m.team_id = o.team_id and m.user_id = o.user_id' : ''}
order by x.i`
}

/** `$name` → sql.placeholder(name), so compiled() binds the values by name. */
function withPlaceholders(text: string) {
  const parts = text.split(/\$([A-Za-z]+)/)
  const chunks = [sql.raw(parts[0]!)]
  for (let i = 1; i < parts.length; i += 2) chunks.push(sql`${sql.placeholder(parts[i]!)}`, sql.raw(parts[i + 1]!))
  return sql.join(chunks)
}

/** A statement of this file (`$name` placeholders, columns read by `columns`), compiled on first use under `name`. */
const pgStatement = <C extends Record<string, (v: unknown) => unknown>>(db: Db, name: string, text: () => string, columns?: C) =>
  prepared(db, `pg-money:${name}`, () => compiled(db, rawStatement(db, withPlaceholders(text()), columns)))

/** The batch statements: holds, settlements of holds, and settlements of pending charges (`apply`). */
type Kind = 'hold' | 'settle' | 'apply'

const number = column.number
const text = column.text
const maybe = column.nullable

/** A settlement statement's row per item (settleSql's last SELECT, in its order). */
const SETTLED_COLUMNS = {
  i: number,
  settled: column.boolean,
  userId: maybe(text),
  teamId: maybe(text),
  apiKeyId: maybe(text),
  amountMicros: maybe(number),
  chargedMicros: maybe(number),
  balanceAfterMicros: maybe(number),
  alertLevelMicros: maybe(number),
  alerted: maybe(column.boolean),
  keyLimit: maybe(number),
  keyPeriod: maybe(text),
  keyStart: maybe(number),
  keySpent: maybe(number),
  memberLimit: maybe(number),
  memberPeriod: maybe(text),
  memberStart: maybe(number),
  memberSpent: maybe(number),
  checked: number,
}

/** The hold statement's one row: its check. */
const HOLD_COLUMNS = { checked: number }

/** The batch statement of a kind and shape, compiled on first use. */
const statement = (db: Db, kind: Kind, shape: Shape) =>
  pgStatement(
    db,
    `${kind}:${shapeName(shape)}`,
    () => (kind === 'hold' ? holdSql(shape) : settleSql(shape, kind === 'settle' ? 'holds' : 'pending')),
    kind === 'hold' ? HOLD_COLUMNS : SETTLED_COLUMNS,
  )

/**
 * A batch's items as one JSON text. PostgreSQL's text holds neither U+0000 nor a lone surrogate
 * (db/client.ts replaces them in plain parameters; inside JSON they arrive as escapes it refuses):
 * the rare string that has one is cleaned the same way, so one such request does not fail its batch.
 */
function itemsJson(items: object[]): string {
  const json = JSON.stringify(items)
  if (!json.includes('\\u0000') && !/\\ud[89a-f]/i.test(json)) return json
  return JSON.stringify(items, (_k, v) => (typeof v === 'string' ? v.toWellFormed().replaceAll('\0', '\uFFFD') : v))
}

/** PostgreSQL's division_by_zero: the statements' way of saying "a level could not take the batch". */
const NOT_USUAL = '22012'
const notUsual = (e: unknown) => {
  const { errno, code } = (e ?? {}) as { errno?: unknown; code?: unknown }
  return errno === NOT_USUAL || code === NOT_USUAL
}

/** A batch of several that a level could not take as a whole: money/pg/queue.ts runs its items one by one. */
export class BatchRefused extends Error {
  constructor() {
    super('a level could not take the whole batch; its items run one by one')
  }
}

/** Runs a batch statement: undefined when a lone item is not the usual case; several that are not, BatchRefused. */
async function run(db: Db, kind: Kind, shape: Shape, values: Record<string, string | number>, lone: boolean) {
  try {
    return (await statement(db, kind, shape).rows(db, values)) as Array<Record<keyof typeof SETTLED_COLUMNS, unknown>>
  } catch (e) {
    if (!notUsual(e)) throw e
    if (lone) return undefined
    throw new BatchRefused()
  }
}

/** A request's hold as the batch places it (money/holds placeHold). */
export type PgHoldItem = {
  id: string
  userId: string
  teamId: string | null
  apiKeyId: string | null
  amount: number
  keyHeld: number
  memberHeld: number
  /** The member's role the request was planned with (a team request from a cached caller); null: any. */
  role: string | null
  /** An instance's reserve (money/reserves.ts) rather than one request's hold. */
  reserve?: boolean
  createdAt: number
}

/** A hold: placed, or 'general' (a lone item that a level refused or that is not as it was planned: nothing written). */
export type PgHeld = 'placed' | 'general'

/** The batch's values besides the items: the period starts (money/periods.ts) and this instance's lease. */
export type PgHoldContext = { day: number; week: number; month: number; instance: string; leaseToken: string; leaseUntil: number }

/** Places a batch of holds in one statement; one answer per item, in order. `db` is the pool, never an open transaction. */
export async function holdBatch(db: Db, items: PgHoldItem[], context: PgHoldContext): Promise<PgHeld[]> {
  const json = itemsJson(
    items.map((h, i) => ({
      i,
      id: h.id,
      user_id: h.userId,
      team_id: h.teamId,
      api_key_id: h.apiKeyId,
      amount: h.amount,
      key_held: h.keyHeld,
      member_held: h.memberHeld,
      role: h.role,
      reserve: h.reserve === true,
      created_at: h.createdAt,
    })),
  )
  const shape = {
    keys: items.some((h) => h.keyHeld > 0),
    members: items.some((h) => h.memberHeld > 0),
    personal: items.some((h) => h.teamId === null),
    teams: items.some((h) => h.teamId !== null),
  }
  const placed = await run(db, 'hold', shape, { ...context, items: json }, items.length === 1)
  return items.map(() => (placed ? 'placed' : 'general'))
}
/** A request's settlement as the batch takes it (money/holds settleHold). */
export type PgSettleItem = {
  holdId: string
  chargeMicros: number
  /** Cap the charge at the hold (a customer's limit applies); a capped charge runs alone (its uncovered rest is recorded). */
  withinHold: boolean
  now: number
  ledgerId: string
  description: string
  reference: string
  usageId: string
  /** Moscow day of the rollup row. */
  usageDay: string
  upstreamNano: number
  /** From an upstream billing in rubles, nano-rubles. */
  upstreamNanoRub: number
  /** The usage row's own columns, as money/holds writes them. */
  usage: UsageBindings
  /** Whose the hold is, when the caller knows (the request that placed it): its statement leaves out the other levels. */
  account?: { teamId: string | null; apiKeyId: string | null }
}

/** A settlement the batch made: the hold it closed, the charge, the account and the levels after this request. */
export type PgSettled = {
  hold: { userId: string; teamId: string | null; apiKeyId: string | null; amountMicros: number }
  chargedMicros: number
  balanceAfterMicros: number
  alertLevelMicros: number | null
  alerted: boolean
  key: LevelAfter | undefined
  member: LevelAfter | undefined
}

/** Per item: settled, 'closed' (the hold is gone: settled or released before), or 'general' (a lone item the usual case does not cover: nothing written). */
export type PgSettleOutcome = PgSettled | 'closed' | 'general'

/** A settle item as its statement's JSON record. */
const settleRecord = (s: PgSettleItem, i: number) => ({
  ...s.usage,
  i,
  hold: s.holdId,
  charge: s.chargeMicros,
  within_hold: s.withinHold,
  ledger_id: s.ledgerId,
  description: s.description,
  reference: s.reference,
  usage_id: s.usageId,
  usage_day: s.usageDay,
  upstream_nano: s.upstreamNano,
  upstream_nano_rub: s.upstreamNanoRub,
  now: s.now,
})

/** A budget level after this request, out of a settled row (null when the row did not count on it). */
const levelAfter = (limit: unknown, period: unknown, start: unknown, spent: unknown): LevelAfter | undefined =>
  period === null ? undefined : { limitMicros: limit as number | null, period: period as string, periodStart: start as number, spentMicros: spent as number }

/** A settlement statement's rows, one per item: settled (with the account and levels after it) or not found. */
const settledRows = (rows: Array<Record<keyof typeof SETTLED_COLUMNS, unknown>>) =>
  rows.map((r): PgSettled | 'closed' => {
    if (r.settled !== true) return 'closed'
    return {
      hold: { userId: r.userId as string, teamId: r.teamId as string | null, apiKeyId: r.apiKeyId as string | null, amountMicros: r.amountMicros as number },
      chargedMicros: r.chargedMicros as number,
      balanceAfterMicros: r.balanceAfterMicros as number,
      alertLevelMicros: r.alertLevelMicros as number | null,
      alerted: r.alerted === true,
      key: levelAfter(r.keyLimit, r.keyPeriod, r.keyStart, r.keySpent),
      member: levelAfter(r.memberLimit, r.memberPeriod, r.memberStart, r.memberSpent),
    }
  })

/** The levels a batch whose items say whose they are counts on (an item that does not say may be anyone's). */
function shapeOf(accounts: Array<{ teamId: string | null; apiKeyId: string | null } | undefined>): Shape {
  const team = accounts.some((a) => a?.teamId !== null)
  return { keys: accounts.some((a) => a?.apiKeyId !== null), members: team, personal: accounts.some((a) => !a || a.teamId === null), teams: team }
}

/** Settles a batch in one statement; one answer per item, in order. `db` is the pool, never an open transaction. */
export async function settleBatch(db: Db, items: PgSettleItem[], periods: { day: number; week: number; month: number }): Promise<PgSettleOutcome[]> {
  // The hold's row says which levels a settlement counts on; the batch names every level its items may have.
  const rows = await run(db, 'settle', shapeOf(items.map((s) => s.account)), { ...periods, items: itemsJson(items.map(settleRecord)) }, items.length === 1)
  return rows ? settledRows(rows) : ['general']
}

/**
 * A charge of a request served from a reserve (money/reserves.ts): its settlement, with what its
 * hold row would have said — whose it is, and what it took from which reserve.
 */
export type PgPendingItem = PgSettleItem & { reserveId: string; userId: string; teamId: string | null; apiKeyId: string | null; amountMicros: number }

/** Writes a batch's pending charges (one statement): once this commits, their answers may go out. */
export async function pendingBatch(db: Db, items: PgPendingItem[]): Promise<void> {
  const now = Date.now()
  await pendingStatement(db).run(db, { items: itemsJson(items.map((e) => ({ id: e.holdId, reserve_id: e.reserveId, entry: e, created_at: now }))) })
}

const pendingStatement = (db: Db) =>
  pgStatement(
    db,
    'pending',
    () => `insert into pending_charges (id, reserve_id, entry, created_at)
select x.id, x.reserve_id, x.entry, x.created_at from json_to_recordset(cast(cast($items as text) as json)) as x(id text, reserve_id text, entry json, created_at bigint)`,
  )

/**
 * Applies a batch of pending charges to the books (one statement): per item settled, 'closed' (its
 * pending row is gone: applied before) or, for a lone item the statement does not cover, 'general'.
 */
export async function applyBatch(db: Db, items: PgPendingItem[], periods: { day: number; week: number; month: number }): Promise<PgSettleOutcome[]> {
  const json = itemsJson(
    items.map((e, i) => ({ ...settleRecord(e, i), reserve: e.reserveId, user_id: e.userId, team_id: e.teamId, api_key_id: e.apiKeyId, amount_micros: e.amountMicros })),
  )
  const rows = await run(db, 'apply', shapeOf(items), { ...periods, items: json }, items.length === 1)
  return rows ? settledRows(rows) : ['general']
}

/**
 * Moves a request's reservation out of its reserve into a hold row of its own (users.held_micros
 * does not change: the amount only changes rows), with the router's generation when it is known:
 * from then on the request is an ordinary hold, which a crash settles from /generation. False when
 * the reserve no longer has the amount (a sweep gave it back).
 */
export async function carve(
  db: Db,
  c: {
    id: string
    reserveId: string
    userId: string
    teamId: string | null
    apiKeyId: string | null
    amount: number
    generationId: string | null
    generation: unknown
    leaseToken: string
    leaseUntil: number
    instance: string
  },
): Promise<boolean> {
  const rows = await carveStatement(db).rows(db, { ...c, generation: c.generation === null ? null : JSON.stringify(c.generation), createdAt: Date.now() })
  return rows.length > 0
}

const carveStatement = (db: Db) =>
  pgStatement(
    db,
    'carve',
    () => `with r as (
  update holds set amount_micros = holds.amount_micros - cast($amount as bigint)
  where holds.id = cast($reserveId as text) and holds.reserve and holds.amount_micros >= cast($amount as bigint)
  returning 1
)
insert into holds (id, user_id, team_id, api_key_id, amount_micros, key_held_micros, member_held_micros, instance_id, lease_token, lease_until, generation_id, generation, created_at)
select cast($id as text), cast($userId as text), cast($teamId as text), cast($apiKeyId as text), cast($amount as bigint), 0, 0, cast($instance as text),
  cast($leaseToken as text), cast($leaseUntil as bigint), cast($generationId as text), cast(cast($generation as text) as json), cast($createdAt as bigint)
from r
returning 1 as carved`,
    { carved: number },
  )
