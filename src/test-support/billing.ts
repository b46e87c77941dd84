// For the tests that hold and settle on the store itself (billing/*.test.ts): a funded account,
// its money, and the facts of a usage row.
import { eq } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { postMovement, type UsageFacts } from '../money'

export const usageFacts: UsageFacts = {
  endpoint: 'chat',
  model: 'openai/gpt-4o',
  promptTokens: 10,
  completionTokens: 5,
  totalTokens: 15,
  upstreamCostUsd: null,
  upstreamId: null,
  responseId: null,
  upstream: 'primary',
  status: 'success',
  error: null,
  durationMs: 1,
  stream: false,
}

/** Adds the personal account `id` with `balanceMicros`, credited as a bonus (a ledger row). */
export async function addAccount(db: Db, id: string, balanceMicros: number): Promise<string> {
  const now = new Date()
  await write(db, (q) => q.insert(users).values({ id, email: `${id}@b.ru`, emailNormalized: `${id}@b.ru`, passwordHash: 'x', createdAt: now, updatedAt: now }))
  await write(db, (q) => postMovement(q, { userId: id, type: 'bonus', amountMicros: balanceMicros, description: 'bonus' }))
  return id
}

/** The account's balance and held sum. */
export const moneyOf = async (db: Db, id: string) => (await db.select({ balance: users.balanceMicros, held: users.heldMicros }).from(users).where(eq(users.id, id)))[0]!
