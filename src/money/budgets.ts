// Budgets on keys and team members: a limit per Moscow calendar period (money/periods.ts) checked
// inside the hold unit with one conditional UPDATE per level, like the balance. Each row keeps the
// settled spend of its current period and what open holds reserved; a period rollover (the stored
// period start older than the current one) reads and writes the spend as 0 in the same statement,
// so no job has to reset anything at midnight and every instance agrees on the period.
import { and, eq, type SQL, sql } from 'drizzle-orm'
import { compiled, prepared } from '../db/prepared'
import { greatest } from '../db/sql'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { badRequest } from '../lib/errors'
import { microsToRub, rubToMicros } from '../lib/money'
import { teamMembers } from '../teams/schema'
import { moscowDay } from './days'
import { nextReset, PERIODS, type Period, periodStart, periodStarts } from './periods'
import type { LevelAfter } from './pg/statements'
import { budgetAlerts, usageDaily } from './schema'

/** A level's budget as read with the caller (a snapshot for planning; the UPDATEs enforce it). */
export type BudgetState = { limitMicros: number | null; period: Period; periodStart: number; spentMicros: number; heldMicros: number }

/** Spend counted in the current period: a stored period older than the current one is a new, empty period. */
export const spentNow = (b: BudgetState, at: number) => (b.periodStart < periodStart(b.period, at) ? 0 : b.spentMicros)

/** What the budget still allows now (open holds reserved); Infinity without a limit. */
export const remainingMicros = (b: BudgetState, at: number) => (b.limitMicros === null ? Number.POSITIVE_INFINITY : Math.max(0, b.limitMicros - spentNow(b, at) - b.heldMicros))

/** The budget as /api shows it (billing/model.ts Budget), rubles. */
export function budgetToApi(b: BudgetState, at: number) {
  const spent = spentNow(b, at)
  const reset = nextReset(b.period, at)
  return {
    limitRub: b.limitMicros === null ? null : microsToRub(b.limitMicros),
    period: b.period,
    spent: microsToRub(spent),
    remaining: b.limitMicros === null ? null : microsToRub(Math.max(0, b.limitMicros - spent)),
    resetsAt: reset === null ? null : new Date(reset).toISOString(),
  }
}

export const MAX_BUDGET_RUB = 10_000_000
export const BUDGET_MESSAGES = {
  limit: 'Лимит должен быть положительным числом',
  limitTooBig: 'Лимит не может превышать 10 000 000 ₽',
  period: 'Период бюджета: day, week, month или total',
} as const

/** A budget as a client sends it ({limitRub, period}) → micro-rubles and a period; 400 with a Russian message otherwise. */
export function parseBudget(input: { limitRub?: unknown; period?: unknown }): { limitMicros: number | null; period: Period } {
  const period = input.period === undefined || input.period === null ? 'month' : input.period
  if (typeof period !== 'string' || !PERIODS.includes(period as Period)) throw badRequest(BUDGET_MESSAGES.period)
  const limit = input.limitRub
  if (limit === null || limit === undefined) return { limitMicros: null, period: period as Period }
  // Range first: a huge number must not reach the micro-ruble conversion, which throws beyond the safe range (a 500).
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0) throw badRequest(BUDGET_MESSAGES.limit)
  if (limit > MAX_BUDGET_RUB) throw badRequest(BUDGET_MESSAGES.limitTooBig)
  // Checked after rounding to micro-rubles: a limit that rounds to nothing would block every request.
  const micros = rubToMicros(limit)
  if (micros < 1) throw badRequest(BUDGET_MESSAGES.limit)
  return { limitMicros: micros, period: period as Period }
}

type BudgetTable = typeof apiKeys | typeof teamMembers

/** A key's or a member's budget columns, selected under BudgetState's names: a compiled statement's row then holds a BudgetState. */
export const budgetSelection = (t: BudgetTable) => ({
  limitMicros: t.budgetLimitMicros,
  period: t.budgetPeriod,
  periodStart: t.budgetPeriodStart,
  spentMicros: t.budgetSpentMicros,
  heldMicros: t.budgetHeldMicros,
})

/** The BudgetState in a row that selected budgetSelection. */
export const budgetIn = (r: BudgetState): BudgetState => ({
  limitMicros: r.limitMicros,
  period: r.period,
  periodStart: r.periodStart,
  spentMicros: r.spentMicros,
  heldMicros: r.heldMicros,
})

/** A level's spend as a settlement left it: what its alerts are decided on (money/holds crossings). */
export type SpendAfter = Omit<BudgetState, 'heldMicros'>

/** A level's row after a batched settlement (money/pg/statements.ts) → a SpendAfter. */
export const spendFromLevel = (l: LevelAfter | undefined): SpendAfter | undefined => l && { ...l, period: l.period as Period }

const p = sql.placeholder

/**
 * The statements of one level, over its table: `where` names the row; `onSettle` columns a settlement
 * sets as well (the key's lastUsedAt: one UPDATE of the key's row instead of two).
 */
function levelStatements(db: Db, t: BudgetTable, where: SQL, onSettle: Record<string, SQL> = {}) {
  // The current period start of this row's period, from the starts the caller computed with the clock.
  const current = sql`(case ${t.budgetPeriod} when 'day' then cast(${p('day')} as bigint) when 'week' then cast(${p('week')} as bigint) when 'month' then cast(${p('month')} as bigint) else 0 end)`
  const rolled = sql`(case when ${t.budgetPeriodStart} < ${current} then 0 else ${t.budgetSpentMicros} end)`
  const unlimited = sql`${t.budgetLimitMicros} is null`
  const back = sql`${greatest(sql`${t.budgetHeldMicros} - ${p('reserved')}`, 0)}`
  const state = budgetSelection(t)
  return {
    // One conditional UPDATE: two concurrent holds can never both take the budget's last micro-ruble.
    reserve: compiled(
      db,
      db
        .update(t)
        .set({ budgetSpentMicros: rolled, budgetPeriodStart: greatest(t.budgetPeriodStart, current), budgetHeldMicros: sql`${t.budgetHeldMicros} + ${p('amount')}` })
        .where(and(where, sql`(${unlimited} or ${t.budgetLimitMicros} - ${rolled} - ${t.budgetHeldMicros} >= ${p('amount')})`))
        .returning({ id: sql`1` }),
    ),
    // Settling: the reservation back and the charge counted, only while the charge fits the budget.
    settle: compiled(
      db,
      db
        .update(t)
        .set({ budgetSpentMicros: sql`${rolled} + ${p('charge')}`, budgetPeriodStart: greatest(t.budgetPeriodStart, current), budgetHeldMicros: back, ...onSettle })
        .where(and(where, sql`(${unlimited} or ${t.budgetLimitMicros} - ${rolled} - ${back} >= ${p('charge')})`))
        .returning(state),
    ),
    // The slow path of a charge that does not fit: the reservation back, the period rolled, the row read.
    unreserve: compiled(
      db,
      db
        .update(t)
        .set({ budgetSpentMicros: rolled, budgetPeriodStart: greatest(t.budgetPeriodStart, current), budgetHeldMicros: back })
        .where(where)
        .returning(state),
    ),
    addSpent: compiled(
      db,
      db
        .update(t)
        .set({ budgetSpentMicros: sql`${t.budgetSpentMicros} + ${p('charge')}` })
        .where(where)
        .returning(state),
    ),
    release: compiled(db, db.update(t).set({ budgetHeldMicros: back }).where(where)),
  }
}

const statements = (db: Db) =>
  prepared(db, 'budgets', () => ({
    key: levelStatements(db, apiKeys, sql`${apiKeys.id} = ${p('keyId')}`, { lastUsedAt: sql`${p('now')}` }),
    member: levelStatements(db, teamMembers, sql`${teamMembers.teamId} = ${p('teamId')} and ${teamMembers.userId} = ${p('userId')}`),
    claimAlert: compiled(
      db,
      db
        .insert(budgetAlerts)
        .values({ target: p('target'), threshold: p('threshold'), periodStart: p('periodStart'), createdAt: p('now') })
        .onConflictDoNothing()
        .returning({ target: budgetAlerts.target }),
    ),
  }))

/** A budget level of a request: the key's, or the member's in its team. */
export type Level = { kind: 'key'; keyId: string } | { kind: 'member'; teamId: string; userId: string }

const rowOf = (level: Level): Record<string, string> => (level.kind === 'key' ? { keyId: level.keyId } : { teamId: level.teamId, userId: level.userId })
const stmtsOf = (q: Db, level: Level) => statements(q)[level.kind]

/** Inside the hold unit: reserves `amount` on the level; false when its budget cannot take it. */
export async function reserveBudget(q: Db, level: Level, amount: number, at: number): Promise<boolean> {
  return (await stmtsOf(q, level).reserve.rows(q, { ...rowOf(level), ...periodStarts(at), amount })).length > 0
}

/** Inside a closing unit: gives the level's reservation back without a charge; `lock` runs it even with nothing reserved (to take the row in order). */
export async function releaseBudget(q: Db, level: Level, reserved: number, lock = false): Promise<void> {
  if (reserved > 0 || lock) await stmtsOf(q, level).release.run(q, { ...rowOf(level), reserved })
}

/**
 * Inside the settling unit, the fast path: gives `reserved` back and counts `charge` if it fits the
 * budget; a key's row also takes `now` as its lastUsedAt. The row after (undefined when it does not
 * fit — or the row is gone).
 */
export async function settleBudget(q: Db, level: Level, reserved: number, charge: number, at: number, now: number): Promise<BudgetState | undefined> {
  const [row] = await stmtsOf(q, level).settle.rows(q, { ...rowOf(level), ...periodStarts(at), reserved, charge, now })
  return row && budgetIn(row)
}

/** The slow path: gives `reserved` back and answers how much of a charge the budget can still take (Infinity without a limit). */
export async function budgetRoom(q: Db, level: Level, reserved: number, at: number): Promise<number> {
  const [b] = await stmtsOf(q, level).unreserve.rows(q, { ...rowOf(level), ...periodStarts(at), reserved })
  if (!b) return Number.POSITIVE_INFINITY // the row is gone (a removed member): nothing left to limit
  return b.limitMicros === null ? Number.POSITIVE_INFINITY : Math.max(0, b.limitMicros - b.spentMicros - b.heldMicros)
}

/** The slow path's second half (and the fast path's correction): adds a signed amount to the period's spend. */
export async function addBudgetSpent(q: Db, level: Level, charge: number): Promise<BudgetState | undefined> {
  if (charge === 0) return undefined
  const [row] = await stmtsOf(q, level).addSpent.rows(q, { ...rowOf(level), charge })
  return row && budgetIn(row)
}

/** Records that an alert for (target, threshold, period) went out; true only for the first caller on any instance. */
export async function claimAlert(db: Db, target: string, threshold: number, periodStartMs: number): Promise<boolean> {
  const rows = await write(db, (q) => statements(q).claimAlert.rows(q, { target, threshold, periodStart: periodStartMs, now: Date.now() }))
  return rows.length > 0
}

/** The alert levels of a budget, percent of its limit. */
export const ALERT_THRESHOLDS = [50, 80, 100] as const

/** The thresholds a spend crossed on its way from `before` to `after` (both in the same period). */
export function crossedThresholds(limitMicros: number, before: number, after: number): number[] {
  return ALERT_THRESHOLDS.filter((pct) => after * 100 >= limitMicros * pct && before * 100 < limitMicros * pct)
}

/**
 * Sets a level's budget (inside a unit): the limit and period, and the spend of the current period
 * counted afresh from the daily rollup (Moscow days, so a period is whole days of it). The row is
 * written first: on PostgreSQL that takes its lock, so a settlement running meanwhile either
 * committed before the count (and is in it) or waits and adds its charge after. Open holds stay
 * reserved. Answers the row after, or undefined when it is gone.
 */
export async function setBudget(q: Db, level: Level, budget: { limitMicros: number | null; period: Period }, at: number): Promise<BudgetState | undefined> {
  const start = periodStart(budget.period, at)
  const fromDay = start === 0 ? '' : moscowDay(start)
  const [t, where, spent] =
    level.kind === 'key'
      ? [apiKeys, eq(apiKeys.id, level.keyId), and(eq(usageDaily.apiKeyId, level.keyId), sql`${usageDaily.day} >= ${fromDay}`)]
      : [
          teamMembers,
          and(eq(teamMembers.teamId, level.teamId), eq(teamMembers.userId, level.userId)),
          and(eq(usageDaily.teamId, level.teamId), eq(usageDaily.userId, level.userId), sql`${usageDaily.day} >= ${fromDay}`),
        ]
  const set = { budgetLimitMicros: budget.limitMicros, budgetPeriod: budget.period, budgetPeriodStart: start }
  const locked = await q
    .update(t as typeof apiKeys)
    .set(set)
    .where(where)
    .returning({ id: sql`1` })
  if (locked.length === 0) return undefined
  const [row] = await q
    .update(t as typeof apiKeys)
    .set({ budgetSpentMicros: sql`(select coalesce(sum(${usageDaily.costMicros}), 0) from ${usageDaily} where ${spent})` })
    .where(where)
    .returning(budgetSelection(t))
  return row && budgetIn(row)
}
