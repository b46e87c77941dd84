import { and, count, desc, eq, isNotNull, isNull, like, lt, max, type SQL, sql, sum } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { LEDGER, ledgerEntries } from '../money'
import { teams } from '../teams/schema'
import { type PaymentRow, type PaymentStatus, payments, refundRequests } from './schema'

/** Whose money: a personal account (teamId null, the user's) or a team's. */
export type PaymentAccount = { userId: string; teamId: string | null }

const paymentsOf = (a: PaymentAccount): SQL => (a.teamId ? eq(payments.teamId, a.teamId) : and(eq(payments.userId, a.userId), isNull(payments.teamId))!)
const requestsOf = (a: PaymentAccount): SQL => (a.teamId ? eq(refundRequests.teamId, a.teamId) : and(eq(refundRequests.userId, a.userId), isNull(refundRequests.teamId))!)

/**
 * The payment queries. `db` is the database, or a unit's `q` (db/tx.ts) for statements that must
 * share its transaction; writes outside a unit go through `write`.
 */
export const paymentsStore = (db: Db) => ({
  async insert(row: PaymentRow) {
    await write(db, (q) => q.insert(payments).values(row))
  },

  byId: async (id: string) => (await db.select().from(payments).where(eq(payments.id, id)).limit(1))[0],

  byProviderId: async (providerId: string) => (await db.select().from(payments).where(eq(payments.providerPaymentId, providerId)).limit(1))[0],

  list: (a: PaymentAccount, limit: number) => db.select().from(payments).where(paymentsOf(a)).orderBy(desc(payments.createdAt), desc(payments.id)).limit(limit),

  async accepted(id: string, providerPaymentId: string, confirmationUrl: string | null) {
    await write(db, (q) => q.update(payments).set({ providerPaymentId, confirmationUrl, updatedAt: new Date() }).where(eq(payments.id, id)))
  },

  /**
   * Moves a pending payment to a final state; false when it was no longer pending (someone else got
   * there first). One conditional UPDATE: of concurrent callers, on any number of instances, exactly
   * one sees its row come back (PostgreSQL re-checks `status = 'pending'` after the winner commits).
   */
  async finish(
    id: string,
    status: Exclude<PaymentStatus, 'pending'>,
    fields: { cancelReason?: string | null; paidAt?: Date; cancellationReason?: string | null } = {},
  ): Promise<boolean> {
    const now = new Date()
    const res = await write(db, (q) =>
      q
        .update(payments)
        .set({
          status,
          cancelReason: fields.cancelReason ?? null,
          cancellationReason: fields.cancellationReason?.slice(0, 64) ?? null,
          paidAt: fields.paidAt ?? null,
          updatedAt: now,
          checkedAt: now,
        })
        .where(and(eq(payments.id, id), eq(payments.status, 'pending')))
        .returning({ id: payments.id }),
    )
    return res.length === 1
  },

  async checked(id: string) {
    await write(db, (q) => q.update(payments).set({ checkedAt: new Date() }).where(eq(payments.id, id)))
  },

  /** Pending payments created before `before`, least recently checked first. */
  stalePending: (before: Date, limit: number) =>
    db
      .select()
      .from(payments)
      .where(and(eq(payments.status, 'pending'), lt(payments.createdAt, before)))
      .orderBy(sql`coalesce(${payments.checkedAt}, 0)`, payments.createdAt)
      .limit(limit),

  /**
   * Card money received through the real provider: the last top-up and the total paid. Payments
   * on the built-in test page (provider 'test') moved no money, so they never count towards a
   * refund, whatever the balance says.
   */
  /**
   * The money the account paid in: card payments, and for a team its paid invoices (issue 24) — the
   * ledger's `invoice:<id>` top-up rows, which count towards refunds exactly like a card top-up.
   */
  async topUps(a: PaymentAccount): Promise<{ lastPaidAt: Date | null; totalMicros: number | null }> {
    const [[card], [invoice]] = await Promise.all([
      db
        .select({ lastPaidAt: max(payments.paidAt), totalMicros: sum(payments.amountMicros).mapWith(Number) })
        .from(payments)
        .where(and(paymentsOf(a), eq(payments.provider, 'yookassa'), eq(payments.status, 'succeeded'), isNotNull(payments.paidAt))),
      a.teamId
        ? db
            .select({ lastPaidAt: max(ledgerEntries.createdAt), totalMicros: sum(ledgerEntries.amountMicros).mapWith(Number) })
            .from(ledgerEntries)
            .where(and(eq(ledgerEntries.teamId, a.teamId), eq(ledgerEntries.type, 'topup'), like(ledgerEntries.reference, `${LEDGER.invoice.referencePrefix}%`)))
        : [undefined],
    ])
    const last = [card?.lastPaidAt, invoice?.lastPaidAt].filter((d): d is Date => d instanceof Date)
    const total = (card?.totalMicros ?? 0) + (invoice?.totalMicros ?? 0)
    return { lastPaidAt: last.length ? new Date(Math.max(...last.map(Number))) : null, totalMicros: card?.totalMicros == null && invoice?.totalMicros == null ? null : total }
  },

  /** Top-ups made on the built-in test page: shown on the refund card as not counting. */
  testTopUpCount: async (a: PaymentAccount) =>
    (
      await db
        .select({ n: count() })
        .from(payments)
        .where(and(paymentsOf(a), eq(payments.provider, 'test'), eq(payments.status, 'succeeded')))
    )[0]?.n ?? 0,

  activeKeyCount: async (a: PaymentAccount) =>
    (
      await db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(a.teamId ? eq(apiKeys.teamId, a.teamId) : and(eq(apiKeys.userId, a.userId), isNull(apiKeys.teamId)), eq(apiKeys.isActive, true)))
    )[0]?.n ?? 0,

  available: async (a: PaymentAccount) =>
    a.teamId
      ? ((
          await db
            .select({ a: sql<number>`${teams.balanceMicros} - ${teams.heldMicros}`.mapWith(Number) })
            .from(teams)
            .where(eq(teams.id, a.teamId))
        )[0]?.a ?? 0)
      : ((
          await db
            .select({ a: sql<number>`${users.balanceMicros} - ${users.heldMicros}`.mapWith(Number) })
            .from(users)
            .where(eq(users.id, a.userId))
        )[0]?.a ?? 0),

  /**
   * Takes the account's row lock until the unit ends (PostgreSQL; a no-op write on SQLite, whose
   * units already run one at a time), so two requests of one account are decided one after the other.
   */
  async lockAccount(a: PaymentAccount) {
    if (a.teamId)
      await db
        .update(teams)
        .set({ heldMicros: sql`${teams.heldMicros}` })
        .where(eq(teams.id, a.teamId))
    else
      await db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros}` })
        .where(eq(users.id, a.userId))
  },

  latestRefundRequest: async (a: PaymentAccount) =>
    (await db.select().from(refundRequests).where(requestsOf(a)).orderBy(desc(refundRequests.createdAt), desc(refundRequests.id)).limit(1))[0],

  async insertRefundRequest(row: typeof refundRequests.$inferInsert) {
    await write(db, (q) => q.insert(refundRequests).values(row))
  },

  /** For the admin: requests with the customer's e-mail, pending first. */
  refundRequests: (status: 'pending' | null, limit: number) =>
    db
      .select({
        request: refundRequests,
        email: users.email,
        balanceMicros: sql<number>`coalesce(${teams.balanceMicros}, ${users.balanceMicros})`.mapWith(Number),
        teamName: teams.name,
      })
      .from(refundRequests)
      .innerJoin(users, eq(users.id, refundRequests.userId))
      .leftJoin(teams, eq(teams.id, refundRequests.teamId))
      .where(status ? eq(refundRequests.status, status) : undefined)
      .orderBy(sql`case when ${refundRequests.status} = 'pending' then 0 else 1 end`, desc(refundRequests.createdAt))
      .limit(limit),
})

export type PaymentsStore = ReturnType<typeof paymentsStore>
