// Who is calling /v1, in which account, and what they can spend, in one read per request: the key
// (by its hash) with its owner's account, or the account of a web session — personal, or a team's
// (a team key always acts in its team; a session in the team its X-Team-Id names). The spendable
// amount and the budgets are a snapshot for planning the hold; the hold's own conditional UPDATEs
// are what enforce them.
// The read joins the group commit (db/writer.ts) rather than running alone: inside the shared
// transaction it costs about 2 µs, where a read transaction of its own cost about 14 µs under load.
// On PostgreSQL it is a round trip, so the instance keeps what it read for a moment (see `cache`).
import { and, eq, isNull, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { compiled, prepared } from '../db/prepared'
import type { Db } from '../db/types'
import { writer } from '../db/writer'
import type { KeyPolicy } from '../keys/policy'
import { apiKeys, type KeyKind } from '../keys/schema'
import { sha256 } from '../lib/crypto'
import { type BudgetState, budgetIn, budgetSelection } from '../money'
import { type ResidencyRule, type TeamRole, teamMembers, teams } from '../teams/schema'

/** What a request needs of its API key: its budget is counted whether or not it has a limit; its policy (keys/policy.ts). */
export type CallerKey = { id: string; name: string; isActive: boolean; budget: BudgetState; kind: KeyKind; policy: KeyPolicy }

/** The team a request acts in, with the caller's membership. */
export type CallerTeam = { id: string; name: string; role: TeamRole; memberBudget: BudgetState }

/**
 * The acting account: `userId` is the person (the key's owner, the signed-in user), `team` the team
 * whose balance pays, or null for the personal account. Stored responses and chats (issue 28) are
 * kept per acting account: (userId, team?.id).
 */
export type Caller = {
  userId: string
  /** The team whose balance pays; null = the personal account (the same as team?.id). */
  teamId: string | null
  team: CallerTeam | null
  /** null for the web session's access token. */
  apiKey: CallerKey | null
  /** The acting account's balance minus its open holds when the request arrived, micro-rubles. */
  availableMicros: number
  /** `ru` when the key or the team binds its requests to upstreams in Russia (gateway/routing.ts). */
  residency: ResidencyRule
  /** The model patterns that must each allow a request's models: the team's, then the key's (keys/policy.ts); empty = any model. */
  modelRules: (readonly string[])[]
  /** The key or the team asked for answers that fit the balance: a max_tokens the money cannot cover is lowered instead of refused (issue 37). */
  fitToBalance: boolean
  /** The headers of this request's HTTP answer (the route's `set.headers`), for what the pipeline has to say there; absent on WebSocket turns. */
  answerHeaders?: Record<string, unknown>
  /** The x-request-id the client sees for this request (kept on its usage row); absent on WebSocket turns. */
  requestId?: string
  /** Read earlier by this instance (PostgreSQL): a plan's input, not its proof (see `cache`). */
  cached?: boolean
  /** Reads this caller afresh, with every check of a first read (set on cached callers by gateway/auth.ts). */
  reread?: () => Promise<Caller>
}

/**
 * How long an instance reuses a caller it read: the read is a round trip on every /v1 request on
 * PostgreSQL (bench/README.md, issue 25), and a statement in the write queue on SQLite. A cached
 * caller is never trusted with money: its hold checks the account and the budgets as they are now
 * and, when a level cannot take the plan, reads the caller again (money/holds CallerChanged); on
 * PostgreSQL the batch also checks the key and the membership; a plan the cached balance or budgets
 * could have limited reads the caller afresh first (gateway/pipeline.ts). Any change made through
 * this instance's /api forgets every cached caller (app.ts) — on SQLite, the only process, that is
 * every change of a key, a membership or an account; another instance's is seen within this.
 */
export const CALLER_CACHE_MS = 1000
const CACHE_SIZE = 10_000
const cache = new Map<string, { at: number; caller: Caller | undefined }>()

/** Forgets every cached caller of this process (a key, a membership or an account may have changed). */
export function forgetCallers(): void {
  cache.clear()
}

/** `read`, or what it gave within CALLER_CACHE_MS (`fresh` reads anyway). */
async function cachedRead(key: string, fresh: boolean, read: () => Promise<Caller | undefined>): Promise<Caller | undefined> {
  const now = Date.now()
  const hit = fresh ? undefined : cache.get(key)
  if (hit && now - hit.at < CALLER_CACHE_MS) return hit.caller && { ...hit.caller, cached: true }
  const caller = await read()
  if (cache.size >= CACHE_SIZE) cache.clear()
  cache.set(key, { at: now, caller })
  return caller
}

const p = sql.placeholder
const READ = { single: true } // a read needs no savepoint of its own
const available = sql<number>`${users.balanceMicros} - ${users.heldMicros}`.mapWith(Number)
// A scalar subquery, not a JOIN: SQLite ran the join about four times slower (16 vs 4 µs here).
const ownersAvailable = sql<number | null>`(select ${available} from ${users} where ${users.id} = ${apiKeys.userId} and ${users.deletedAt} is null)`.mapWith(Number)

const statements = (db: Db) =>
  prepared(db, 'gateway-callers', () => ({
    byKeyHash: compiled(
      db,
      db
        .select({
          id: apiKeys.id,
          userId: apiKeys.userId,
          name: apiKeys.name,
          isActive: apiKeys.isActive,
          available: ownersAvailable,
          teamId: apiKeys.teamId,
          residency: apiKeys.residency,
          kind: apiKeys.kind,
          fitToBalance: apiKeys.fitToBalance,
          rpmLimit: apiKeys.rpmLimit,
          tpmLimit: apiKeys.tpmLimit,
          allowedModels: apiKeys.allowedModels,
          allowedIps: apiKeys.allowedIps,
          expiresAt: apiKeys.expiresAt,
          ...budgetSelection(apiKeys),
        })
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, p('hash'))),
    ),
    byUserId: compiled(
      db,
      db
        .select({ available })
        .from(users)
        .where(and(eq(users.id, p('id')), isNull(users.deletedAt))),
    ),
    // The membership of a (live) user in a (live) team: its role, budget and the team's spendable balance.
    member: compiled(
      db,
      db
        .select({
          name: teams.name,
          available: sql<number>`${teams.balanceMicros} - ${teams.heldMicros}`.mapWith(Number),
          role: teamMembers.role,
          residency: teams.residency,
          allowedModels: teams.allowedModels,
          fitToBalance: teams.fitToBalance,
          ...budgetSelection(teamMembers),
        })
        .from(teamMembers)
        .innerJoin(teams, eq(teams.id, teamMembers.teamId))
        .where(and(eq(teamMembers.teamId, p('teamId')), eq(teamMembers.userId, p('userId')), isNull(teams.deletedAt))),
    ),
  }))

/** The team part of a caller; undefined when the user is not (or no longer) a member of a live team. */
async function membership(
  q: Db,
  teamId: string,
  userId: string,
): Promise<{ team: CallerTeam; availableMicros: number; residency: ResidencyRule; modelRules: (readonly string[])[]; fitToBalance: boolean } | undefined> {
  const [row] = await statements(q).member.rows(q, { teamId, userId })
  if (!row) return undefined
  return {
    team: { id: teamId, name: row.name, role: row.role, memberBudget: budgetIn(row) },
    availableMicros: row.available,
    residency: row.residency,
    modelRules: row.allowedModels ? [row.allowedModels] : [],
    fitToBalance: row.fitToBalance,
  }
}

/**
 * The key presented as `secret` with its (not deleted) owner, acting in the key's account; undefined
 * for an unknown key — and for a team key whose owner has left the team or whose team was deleted.
 */
export function callerForKey(db: Db, secret: string, fresh = false): Promise<Caller | undefined> {
  const hash = sha256(secret)
  return cachedRead(`key:${hash}`, fresh, () => readKeyCaller(db, hash))
}

function readKeyCaller(db: Db, hash: string): Promise<Caller | undefined> {
  return writer(db)(async (q) => {
    const [row] = await statements(q).byKeyHash.rows(q, { hash })
    // No owner's balance: the owner is deleted.
    if (!row || row.available === null) return undefined
    const { userId, teamId } = row
    const policy: KeyPolicy = {
      rpmLimit: row.rpmLimit,
      tpmLimit: row.tpmLimit,
      allowedModels: row.allowedModels,
      allowedIps: row.allowedIps,
      expiresAt: row.expiresAt === null ? null : row.expiresAt.getTime(),
    }
    const apiKey = { id: row.id, name: row.name, isActive: row.isActive, budget: budgetIn(row), kind: row.kind, policy }
    const keyRules = row.allowedModels ? [row.allowedModels] : []
    if (teamId === null)
      return { userId, teamId: null, team: null, apiKey, availableMicros: row.available, residency: row.residency, modelRules: keyRules, fitToBalance: row.fitToBalance }
    const member = await membership(q, teamId, userId)
    // The stricter of the key's and the team's.
    return (
      member && {
        userId,
        teamId,
        apiKey,
        ...member,
        residency: row.residency === 'ru' ? 'ru' : member.residency,
        modelRules: [...member.modelRules, ...keyRules],
        fitToBalance: row.fitToBalance || member.fitToBalance,
      }
    )
  }, READ)
}

/** The account behind a web session's access token — its team's when `teamId` is given; undefined when it is gone or not a member. */
export function callerForUser(db: Db, userId: string, teamId: string | null = null, fresh = false): Promise<Caller | undefined> {
  return cachedRead(`user:${userId}:${teamId ?? ''}`, fresh, () => readUserCaller(db, userId, teamId))
}

function readUserCaller(db: Db, userId: string, teamId: string | null): Promise<Caller | undefined> {
  return writer(db)(async (q) => {
    const [row] = await statements(q).byUserId.rows(q, { id: userId })
    if (!row) return undefined
    if (teamId === null) return { userId, teamId: null, team: null, apiKey: null, availableMicros: row.available, residency: 'any', modelRules: [], fitToBalance: false }
    const member = await membership(q, teamId, userId)
    return member && { userId, teamId, apiKey: null, ...member }
  }, READ)
}
