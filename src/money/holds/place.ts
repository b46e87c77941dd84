// Placing a hold: the request's worst case reserved on every level that limits it — the key's budget,
// the member's budget, the balance — at once, before the upstream call. On PostgreSQL with the holds
// of concurrent requests in one statement (pg/statements.ts), or from this instance's reserve.

import { onPostgres } from '../../db/dialect'
import { HOLD_LEASE_MS, INSTANCE_ID, LEASE_TOKEN } from '../../db/instance'
import { inUnit, tx } from '../../db/tx'
import type { Db } from '../../db/types'
import { newId } from '../../lib/crypto'
import { reserveBudget } from '../budgets'
import { now as clockNow } from '../periods'
import { pgBatches } from './pg'
import { pgReserves } from './settle'
import { statements } from './statements'
import { CallerChanged, type HoldLevel, HoldRefused, type HoldRequest } from './types'

/**
 * Reserves the amount on every level at once — the key's budget, the member's budget, the balance
 * (the team's or the personal one); rejects with HoldRefused naming the level that cannot cover it
 * (the unit is rolled back, so nothing stays reserved).
 */
export async function placeHold(db: Db, req: HoldRequest): Promise<string> {
  if (!Number.isSafeInteger(req.amountMicros) || req.amountMicros < 0) throw new RangeError('hold must be a non-negative integer')
  const id = newId()
  const amount = req.amountMicros
  const keyHeld = req.keyBudget && req.apiKeyId ? amount : 0
  const memberHeld = req.memberBudget && req.teamId ? amount : 0
  const now = Date.now()
  const row = {
    id,
    userId: req.userId,
    teamId: req.teamId,
    apiKeyId: req.apiKeyId,
    amount,
    keyHeld,
    memberHeld,
    instance: INSTANCE_ID,
    leaseToken: LEASE_TOKEN,
    leaseUntil: now + HOLD_LEASE_MS,
    createdAt: now,
  }
  // PostgreSQL: with the holds of concurrent requests, one statement (money/pg/statements.ts). One that a
  // level refused (or that is not as planned) runs the unit below, which names the refusing level.
  if (onPostgres && !inUnit(db)) {
    // No budget limits the request: a well-funded account's hold comes from this instance's reserve, in memory.
    const account = { userId: req.userId, teamId: req.teamId, role: req.role ?? null }
    if (!keyHeld && !memberHeld && req.available !== undefined && (await pgReserves(db).take(id, account, req.apiKeyId, amount, req.available))) return id
    const held = await pgBatches(db).hold({ ...row, role: req.role ?? null })
    if (held === 'placed') return id
    if (req.cached) throw new CallerChanged()
  }
  // A level that cannot take a plan made from a cached read refuses nothing yet: read the caller
  // again and plan anew (the plan may fit once capped to what is really left).
  const refused = (level: HoldLevel) => (req.cached ? new CallerChanged() : new HoldRefused(level))
  return tx(db, async (q) => {
    const s = statements(q)
    const at = clockNow()
    if (keyHeld && !(await reserveBudget(q, { kind: 'key', keyId: req.apiKeyId! }, amount, at))) throw refused('key')
    if (memberHeld && !(await reserveBudget(q, { kind: 'member', teamId: req.teamId!, userId: req.userId }, amount, at))) throw refused('member')
    if (req.teamId) {
      if ((await s.reserveTeam.rows(q, { teamId: req.teamId, amount })).length === 0) throw refused('team')
    } else if ((await s.reserve.rows(q, { userId: req.userId, amount })).length === 0) throw refused('personal')
    await s.insertHold.run(q, row)
    return id
  })
}
