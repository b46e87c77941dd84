// One spelling of every money rule (issue 34): the same requests — personal and team, key and member
// budgets, refusals, a charge above the hold, a charge above the balance (uncovered), a deleted
// account, a failed request — held and settled through PostgreSQL's batch statements
// (pg/statements.ts) and through the general unit (holds/*.ts) write the same books, column by column.
// On SQLite (general unit only) the same script must write the books spelled out at the bottom, which
// the PostgreSQL run holds both of its paths to as well.
import { afterEach, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { onPostgres } from '../db/dialect'
import { selectRows } from '../db/sql'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { teamMembers, teams } from '../teams/schema'
import { addAccount, usageFacts } from '../test-support/billing'
import { openTestDatabase } from '../test-support/database'
import { HoldRefused, type HoldRequest, placeHold, postMovement, releaseHold, settleHold, type UsageFacts } from './index'

const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

const RUB = 1_000_000

/** The accounts of the script: personal u1 (10 ₽, key k2), u2 (1 ₽), u3 (5 ₽, deleted); team t1 (20 ₽) with owner o1 and member m1 (2 ₽ a day), m1's key k1 (1 ₽ in total). */
async function accounts(db: Db) {
  for (const [id, rub] of [
    ['u1', 10],
    ['u2', 1],
    ['u3', 5],
    ['o1', 0],
    ['m1', 0],
  ] as const)
    if (rub) await addAccount(db, id, rub * RUB)
    else await write(db, (q) => q.insert(users).values({ id, email: `${id}@b.ru`, emailNormalized: `${id}@b.ru`, passwordHash: 'x', createdAt: new Date(), updatedAt: new Date() }))
  await write(db, (q) => q.update(users).set({ deletedAt: new Date() }).where(eq(users.id, 'u3')))
  const now = new Date()
  await write(db, (q) => q.insert(teams).values({ id: 't1', name: 'T', createdAt: now }))
  await write(db, (q) => postMovement(q, { userId: 'o1', teamId: 't1', type: 'topup', amountMicros: 20 * RUB, description: 'top-up', reference: 'payment:t1' }))
  await write(db, (q) =>
    q.insert(teamMembers).values([
      { teamId: 't1', userId: 'o1', role: 'owner', joinedAt: now },
      { teamId: 't1', userId: 'm1', role: 'member', joinedAt: now, budgetLimitMicros: 2 * RUB, budgetPeriod: 'day' },
    ]),
  )
  await write(db, (q) =>
    q.insert(apiKeys).values([
      { id: 'k1', userId: 'm1', teamId: 't1', name: 'k1', keyPrefix: 'sk-', keyHash: 'h1', createdAt: now, budgetLimitMicros: 1 * RUB, budgetPeriod: 'total' },
      { id: 'k2', userId: 'u1', name: 'k2', keyPrefix: 'sk-', keyHash: 'h2', createdAt: now },
    ]),
  )
}

type Step = { label: string; hold: Omit<HoldRequest, 'amountMicros'> & { rub: number }; end: { settleRub: number; withinHold?: boolean } | 'release' }

const personal = (userId: string, apiKeyId: string | null = null) => ({ userId, teamId: null, apiKeyId })
const m1 = { userId: 'm1', teamId: 't1', role: 'member' }

/** The requests, in order: each is held, then settled, released, or refused (the level that refused it). */
const SCRIPT: Step[] = [
  { label: 'a', hold: { ...personal('u1', 'k2'), rub: 1 }, end: { settleRub: 0.4 } },
  { label: 'b', hold: { ...personal('u1'), rub: 0.5 }, end: { settleRub: 0.8 } }, // above the hold: charged in full
  { label: 'c', hold: { ...personal('u2'), rub: 0.9 }, end: { settleRub: 3 } }, // above the balance: 1 ₽ charged, 2 ₽ uncovered
  { label: 'd', hold: { ...m1, apiKeyId: 'k1', keyBudget: true, memberBudget: true, rub: 0.6 }, end: { settleRub: 0.7, withinHold: true } }, // capped at the hold
  { label: 'e', hold: { ...m1, apiKeyId: 'k1', keyBudget: true, memberBudget: true, rub: 0.6 }, end: { settleRub: 0.1 } }, // the key has 0,40 ₽ left: refused
  { label: 'f', hold: { ...m1, apiKeyId: null, memberBudget: true, rub: 1.5 }, end: { settleRub: 0.1 } }, // the member has 1,40 ₽ left: refused
  { label: 'g', hold: { ...m1, apiKeyId: null, memberBudget: true, rub: 1 }, end: { settleRub: 0.3 } },
  { label: 'h', hold: { ...personal('u3'), rub: 0.1 }, end: { settleRub: 0.1 } }, // a deleted account: refused
  { label: 'i', hold: { ...personal('u1', 'k2'), rub: 0.2 }, end: 'release' }, // a failed request
  { label: 'j', hold: { userId: 'o1', teamId: 't1', apiKeyId: null, role: 'owner', rub: 5 }, end: { settleRub: 4 } },
  { label: 'k', hold: { ...personal('u2'), rub: 0.01 }, end: { settleRub: 0.01 } }, // u2 is at zero now: refused
]

/** Runs the script; `general` forces the general unit on PostgreSQL: called inside a unit of the database, which a batch cannot join. */
async function run(db: Db, general: boolean) {
  const through = <T>(work: (db: Db) => Promise<T>) => (general ? tx(db, () => work(db)) : work(db))
  const holdIds = new Map<string, string>()
  const outcomes: Record<string, string> = {}
  for (const step of SCRIPT) {
    const { rub, ...req } = step.hold
    let id: string
    try {
      id = await through((q) => placeHold(q, { ...req, amountMicros: Math.round(rub * RUB) }))
    } catch (e) {
      if (!(e instanceof HoldRefused)) throw new Error(`step ${step.label}: ${(e as Error).message}`)
      outcomes[step.label] = `refused: ${e.level}`
      continue
    }
    holdIds.set(id, step.label)
    const facts: UsageFacts = { ...usageFacts, model: `model/${step.label}`, holdId: id, holdMicros: Math.round(rub * RUB), keyName: req.apiKeyId }
    if (step.end === 'release') {
      await through((q) => releaseHold(q, id, { ...facts, status: 'error', error: 'upstream failed' }))
      outcomes[step.label] = 'released'
    } else {
      const { settleRub, withinHold } = step.end
      const account = { userId: req.userId, teamId: req.teamId, apiKeyId: req.apiKeyId }
      const settled = await through((q) => settleHold(q, id, Math.round(settleRub * RUB), facts, { withinHold, account }))
      outcomes[step.label] = `charged ${settled?.chargedMicros}`
    }
  }
  return { outcomes, books: await books(db, holdIds) }
}

/** A row of raw SQL, compared as a whole. */
type Row = Record<string, any>

/** Every column the money units write, without ids and times; hold ids by the script's labels. */
async function books(db: Db, holdIds: Map<string, string>) {
  const label = (holdId: unknown) => holdIds.get(String(holdId)) ?? holdId
  const rows = (table: string, columns: string, order: string) => selectRows<Record<string, unknown>>(db, sql.raw(`select ${columns} from ${table} order by ${order}`))
  const numbers = (r: Record<string, unknown>): Row =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' || (typeof v === 'string' && /^-?\d+$/.test(v)) ? Number(v) : v]))
  return {
    users: (await rows('users', 'id, balance_micros, held_micros, low_balance_alerted', 'id')).map(
      (r): Row => ({ ...numbers(r), low_balance_alerted: Boolean(r.low_balance_alerted) }),
    ),
    teams: (await rows('teams', 'id, balance_micros, held_micros', 'id')).map(numbers),
    keys: (await rows('api_keys', 'id, budget_spent_micros, budget_held_micros, budget_period_start', 'id')).map(numbers),
    members: (await rows('team_members', 'user_id, budget_spent_micros, budget_held_micros, budget_period_start', 'user_id')).map(numbers),
    ledger: (await rows('ledger_entries', 'user_id, team_id, type, amount_micros, balance_after_micros, description, reference, actor_id', 'description, user_id')).map(
      (r): Row => ({ ...numbers(r), reference: String(r.reference).replace(/^usage:(.*)$/, (_, id) => `usage:${label(id)}`) }),
    ),
    usage: (
      await rows(
        'usage_logs',
        'user_id, team_id, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, cost_micros, status, error, hold_id, hold_micros, key_name, stream',
        'model',
      )
    ).map((r): Row => ({ ...numbers(r), hold_id: label(r.hold_id), stream: Boolean(r.stream) })),
    daily: (await rows('usage_daily', 'user_id, team_id, api_key_id, model, requests, tokens, cost_micros', 'model')).map(numbers),
    uncovered: (await rows('uncovered_costs', 'user_id, team_id, model, held_micros, cost_micros, charged_micros, uncovered_micros', 'model')).map(numbers),
    open: (await rows('holds', 'count(*) as n', '1')).map(numbers),
  }
}

test('the batch statements and the general unit write the same books, and the books the rules say', async () => {
  const runs: Array<Awaited<ReturnType<typeof run>>> = []
  for (const general of onPostgres ? [false, true] : [false]) {
    const { db, close } = await openTestDatabase()
    opened.push(close)
    await accounts(db)
    runs.push(await run(db, general))
  }
  if (runs.length === 2) expect(runs[1]).toEqual(runs[0]!)
  const { outcomes, books } = runs[0]!
  expect(outcomes).toEqual({
    a: 'charged 400000',
    b: 'charged 800000',
    c: 'charged 1000000',
    d: 'charged 600000',
    e: 'refused: key',
    f: 'refused: member',
    g: 'charged 300000',
    h: 'refused: personal',
    i: 'released',
    j: 'charged 4000000',
    k: 'refused: personal',
  })
  expect(books.users).toEqual([
    { id: 'm1', balance_micros: 0, held_micros: 0, low_balance_alerted: false },
    { id: 'o1', balance_micros: 0, held_micros: 0, low_balance_alerted: false },
    { id: 'u1', balance_micros: 8_800_000, held_micros: 0, low_balance_alerted: false },
    { id: 'u2', balance_micros: 0, held_micros: 0, low_balance_alerted: false },
    { id: 'u3', balance_micros: 5_000_000, held_micros: 0, low_balance_alerted: false },
  ])
  expect(books.teams).toEqual([{ id: 't1', balance_micros: 15_100_000, held_micros: 0 }])
  expect(books.keys.map(({ id, budget_spent_micros, budget_held_micros }) => ({ id, budget_spent_micros, budget_held_micros }))).toEqual([
    { id: 'k1', budget_spent_micros: 600_000, budget_held_micros: 0 },
    { id: 'k2', budget_spent_micros: 400_000, budget_held_micros: 0 },
  ])
  expect(books.members.map(({ user_id, budget_spent_micros, budget_held_micros }) => ({ user_id, budget_spent_micros, budget_held_micros }))).toEqual([
    { user_id: 'm1', budget_spent_micros: 900_000, budget_held_micros: 0 },
    { user_id: 'o1', budget_spent_micros: 4_000_000, budget_held_micros: 0 },
  ])
  expect(books.ledger.filter((l) => l.type === 'usage')).toEqual([
    {
      user_id: 'u1',
      team_id: null,
      type: 'usage',
      amount_micros: -400_000,
      balance_after_micros: 9_600_000,
      description: 'Запрос к модели model/a',
      reference: 'usage:a',
      actor_id: null,
    },
    {
      user_id: 'u1',
      team_id: null,
      type: 'usage',
      amount_micros: -800_000,
      balance_after_micros: 8_800_000,
      description: 'Запрос к модели model/b',
      reference: 'usage:b',
      actor_id: null,
    },
    {
      user_id: 'u2',
      team_id: null,
      type: 'usage',
      amount_micros: -1_000_000,
      balance_after_micros: 0,
      description: 'Запрос к модели model/c',
      reference: 'usage:c',
      actor_id: null,
    },
    {
      user_id: 'm1',
      team_id: 't1',
      type: 'usage',
      amount_micros: -600_000,
      balance_after_micros: 19_400_000,
      description: 'Запрос к модели model/d',
      reference: 'usage:d',
      actor_id: null,
    },
    {
      user_id: 'm1',
      team_id: 't1',
      type: 'usage',
      amount_micros: -300_000,
      balance_after_micros: 19_100_000,
      description: 'Запрос к модели model/g',
      reference: 'usage:g',
      actor_id: null,
    },
    {
      user_id: 'o1',
      team_id: 't1',
      type: 'usage',
      amount_micros: -4_000_000,
      balance_after_micros: 15_100_000,
      description: 'Запрос к модели model/j',
      reference: 'usage:j',
      actor_id: null,
    },
  ])
  expect(books.usage.map((u) => [u.hold_id, u.cost_micros, u.status, u.hold_micros])).toEqual([
    ['a', 400_000, 'success', 1_000_000],
    ['b', 800_000, 'success', 500_000],
    ['c', 1_000_000, 'success', 900_000],
    ['d', 600_000, 'success', 600_000],
    ['g', 300_000, 'success', 1_000_000],
    ['i', 0, 'error', 200_000],
    ['j', 4_000_000, 'success', 5_000_000],
  ])
  expect(books.uncovered).toEqual([
    { user_id: 'u2', team_id: null, model: 'model/c', held_micros: 900_000, cost_micros: 3_000_000, charged_micros: 1_000_000, uncovered_micros: 2_000_000 },
    { user_id: 'm1', team_id: 't1', model: 'model/d', held_micros: 600_000, cost_micros: 700_000, charged_micros: 600_000, uncovered_micros: 100_000 },
  ])
  expect(books.open).toEqual([{ n: 0 }])
})
