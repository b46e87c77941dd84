// The only code that changes a balance. Call inside a transaction you already hold, or let it open one.
import { and, eq, gte, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { newId } from '../lib/crypto'
import { users } from '../auth/schema'
import { ledgerEntries, type LedgerType } from './schema'

/** Anything that can run queries: the database or an open transaction. */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>

export type Movement = {
  userId: string
  type: LedgerType
  amountMicros: number
  description: string
  /** Idempotency key; a second movement with the same reference violates a unique index. */
  reference?: string
  /** Refuse a debit that would take the balance below zero (default true for debits). */
  requireFunds?: boolean
  now?: Date
}

export class InsufficientFundsError extends Error {}

/**
 * Applies a signed amount to the balance and writes its ledger row. The balance update is a
 * single conditional UPDATE, so two concurrent debits can never both spend the same micro-ruble.
 */
export function postMovement(tx: Tx, m: Movement): { id: string; balanceAfterMicros: number } {
  if (!Number.isSafeInteger(m.amountMicros) || m.amountMicros === 0) throw new RangeError('amount must be a non-zero integer')
  const guard = m.amountMicros < 0 && m.requireFunds !== false
  const [row] = tx
    .update(users)
    .set({ balanceMicros: sql`${users.balanceMicros} + ${m.amountMicros}` })
    .where(guard ? and(eq(users.id, m.userId), gte(users.balanceMicros, -m.amountMicros)) : eq(users.id, m.userId))
    .returning({ balance: users.balanceMicros })
    .all()
  if (!row) throw new InsufficientFundsError(`insufficient funds or unknown user ${m.userId}`)
  const id = newId()
  tx.insert(ledgerEntries)
    .values({
      id,
      userId: m.userId,
      type: m.type,
      amountMicros: m.amountMicros,
      balanceAfterMicros: row.balance,
      description: m.description,
      reference: m.reference ?? null,
      createdAt: m.now ?? new Date(),
    })
    .run()
  return { id, balanceAfterMicros: row.balance }
}
