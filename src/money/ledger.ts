// The only code that changes a balance, personal (users) or a team's (teams). Call it inside a unit
// (db/tx.ts) with the unit's `q`.
import { and, eq, gte, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import { compiled, prepared } from '../db/prepared'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { teams } from '../teams/schema'
import { type LedgerType, ledgerEntries } from './schema'

/** Anything that can run queries: the database or an open transaction. */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>

export type Movement = {
  /** The personal account moved, or, with `teamId`, the member who acted (requester, payer). */
  userId: string
  /** The team whose balance moves; absent or null = the user's personal balance. */
  teamId?: string | null
  type: LedgerType
  amountMicros: number
  description: string
  /** Idempotency key; a second movement with the same reference violates a unique index. */
  reference?: string
  /** Refuse a debit that would take the balance below zero (default true for debits). */
  requireFunds?: boolean
  /**
   * Refuse a debit that would take what is held under running requests (holds, reserves): the
   * balance less the held sum must cover it (admin deductions; the answers those holds pay for
   * would otherwise go uncovered).
   */
  requireAvailable?: boolean
  /** The admin who made the movement (admin adjustments); null for the customer's own and system movements. */
  actorId?: string
  /** A request's reservation to give back in the same UPDATE (settling a hold, money/holds). */
  releaseHeldMicros?: number
  now?: Date
}

/** The account after a movement: what settling needs for the low-balance check, without a second read. */
export type Posted = { id: string; balanceAfterMicros: number; alertLevelMicros: number | null; alerted: boolean }

export class InsufficientFundsError extends Error {}

/**
 * Every kind of ledger row's description and reference, spelled once for every path that writes
 * or looks one up (the general unit, the PostgreSQL batch, the activity log). The reference is the
 * cause's idempotency key: unique, so a cause moves a balance at most once.
 */
export const LEDGER = {
  usage: { description: (model: string) => `Запрос к модели ${model}`, reference: (holdId: string) => `usage:${holdId}` },
  welcome: { description: 'Приветственный бонус', reference: (userId: string) => `welcome:${userId}` },
  cardTopUp: { description: 'Пополнение баланса картой', reference: (paymentId: string) => `payment:${paymentId}` },
  sbpTopUp: { description: 'Пополнение баланса через СБП', reference: (paymentId: string) => `payment:${paymentId}` },
  autoTopUp: { description: 'Автопополнение с сохранённой карты', reference: (paymentId: string) => `payment:${paymentId}` },
  testTopUp: { description: 'Тестовое пополнение (деньги не списывались)', reference: (paymentId: string) => `payment:${paymentId}` },
  invoice: { description: (number: string) => `Оплата по счёту № ${number}`, reference: (invoiceId: string) => `invoice:${invoiceId}`, referencePrefix: 'invoice:' },
} as const

const p = sql.placeholder

/** The balance UPDATEs of one kind of account (users or teams); the same columns on both tables. */
function accountStatements(db: Db, t: typeof users | typeof teams) {
  const balanceAndRelease = { balanceMicros: sql`${t.balanceMicros} + ${p('amount')}`, heldMicros: sql`${t.heldMicros} - ${p('release')}` }
  const account = { balance: t.balanceMicros, alertLevel: t.lowBalanceAlertMicros, alerted: t.lowBalanceAlerted }
  return {
    apply: compiled(
      db,
      db
        .update(t)
        .set(balanceAndRelease)
        .where(eq(t.id, p('accountId')))
        .returning(account),
    ),
    // The guard lives in the WHERE clause: two concurrent debits can never both spend the same micro-ruble.
    applyIfFunded: compiled(
      db,
      db
        .update(t)
        .set(balanceAndRelease)
        .where(and(eq(t.id, p('accountId')), gte(t.balanceMicros, sql`-${p('amount')}`)))
        .returning(account),
    ),
    applyIfAvailable: compiled(
      db,
      db
        .update(t)
        .set(balanceAndRelease)
        .where(and(eq(t.id, p('accountId')), gte(sql`${t.balanceMicros} - ${t.heldMicros}`, sql`-${p('amount')}`)))
        .returning(account),
    ),
  }
}

// Compiled statements (db/prepared.ts): settlements post a movement on every /v1 request.
const statements = (db: Db) =>
  prepared(db, 'ledger', () => {
    return {
      personal: accountStatements(db, users),
      team: accountStatements(db, teams),
      insert: compiled(
        db,
        db.insert(ledgerEntries).values({
          id: p('id'),
          userId: p('userId'),
          type: p('type'),
          amountMicros: p('amount'),
          balanceAfterMicros: p('balanceAfter'),
          description: p('description'),
          reference: p('reference'),
          actorId: p('actorId'),
          teamId: p('teamId'),
          createdAt: p('createdAt'),
        }),
      ),
    }
  })

/** Applies a signed amount to the balance and writes its ledger row; `q` is the unit's connection (tx/write). */
export async function postMovement(q: Db, m: Movement): Promise<Posted> {
  if (!Number.isSafeInteger(m.amountMicros) || m.amountMicros === 0) throw new RangeError('amount must be a non-zero integer')
  const release = m.releaseHeldMicros ?? 0
  if (!Number.isSafeInteger(release) || release < 0) throw new RangeError('released reservation must be a non-negative integer')
  const s = statements(q)
  const teamId = m.teamId ?? null
  const account = teamId ? s.team : s.personal
  const debit = m.amountMicros < 0
  const statement = debit && m.requireAvailable ? account.applyIfAvailable : debit && m.requireFunds !== false ? account.applyIfFunded : account.apply
  const [row] = await statement.rows(q, { amount: m.amountMicros, release, accountId: teamId ?? m.userId })
  if (!row) throw new InsufficientFundsError(`insufficient funds or unknown account ${teamId ?? m.userId}`)
  const { balance, alertLevel, alerted } = row
  const id = newId()
  await s.insert.run(q, {
    id,
    userId: m.userId,
    type: m.type,
    amount: m.amountMicros,
    balanceAfter: balance,
    description: m.description,
    reference: m.reference ?? null,
    actorId: m.actorId ?? null,
    teamId,
    createdAt: (m.now ?? new Date()).getTime(),
  })
  return { id, balanceAfterMicros: balance, alertLevelMicros: alertLevel, alerted }
}
