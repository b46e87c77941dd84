// The only code that changes a balance. Call it inside a transaction you already hold, or alone.
import { and, eq, gte, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { prepared } from '../db/prepared'
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
  /** The admin who made the movement (admin adjustments); null for the customer's own and system movements. */
  actorId?: string
  now?: Date
}

export class InsufficientFundsError extends Error {}

const p = sql.placeholder

const statements = (db: Db) =>
  prepared(db, 'ledger', () => ({
    apply: db
      .update(users)
      .set({ balanceMicros: sql`${users.balanceMicros} + ${p('amount')}` })
      .where(eq(users.id, p('userId')))
      .returning({ balance: users.balanceMicros })
      .prepare(),
    // The guard lives in the WHERE clause: two concurrent debits can never both spend the same micro-ruble.
    applyIfFunded: db
      .update(users)
      .set({ balanceMicros: sql`${users.balanceMicros} + ${p('amount')}` })
      .where(and(eq(users.id, p('userId')), gte(users.balanceMicros, sql`-${p('amount')}`)))
      .returning({ balance: users.balanceMicros })
      .prepare(),
    insert: db
      .insert(ledgerEntries)
      .values({
        id: p('id'),
        userId: p('userId'),
        type: p('type'),
        amountMicros: p('amount'),
        balanceAfterMicros: p('balanceAfter'),
        description: p('description'),
        reference: p('reference'),
        actorId: p('actorId'),
        createdAt: p('createdAt'),
      })
      .prepare(),
  }))

/** Applies a signed amount to the balance and writes its ledger row (pass the root db, even inside a transaction). */
export function postMovement(db: Db, m: Movement): { id: string; balanceAfterMicros: number } {
  if (!Number.isSafeInteger(m.amountMicros) || m.amountMicros === 0) throw new RangeError('amount must be a non-zero integer')
  const s = statements(db)
  const guard = m.amountMicros < 0 && m.requireFunds !== false
  const [row] = (guard ? s.applyIfFunded : s.apply).all({ amount: m.amountMicros, userId: m.userId })
  if (!row) throw new InsufficientFundsError(`insufficient funds or unknown user ${m.userId}`)
  const id = newId()
  s.insert.run({
    id,
    userId: m.userId,
    type: m.type,
    amount: m.amountMicros,
    balanceAfter: row.balance,
    description: m.description,
    reference: m.reference ?? null,
    actorId: m.actorId ?? null,
    createdAt: m.now ?? new Date(),
  })
  return { id, balanceAfterMicros: row.balance }
}
