import { and, desc, eq, isNotNull, lt, max, sql, sum } from 'drizzle-orm'
import type { Db } from '../db/client'
import { apiKeys } from '../keys/schema'
import { users } from '../auth/schema'
import { payments, refundRequests, type PaymentRow, type PaymentStatus } from './schema'

export const paymentsStore = (db: Db) => ({
  insert(row: PaymentRow) {
    db.insert(payments).values(row).run()
  },

  byId: (id: string) => db.select().from(payments).where(eq(payments.id, id)).get(),

  byProviderId: (providerId: string) => db.select().from(payments).where(eq(payments.providerPaymentId, providerId)).get(),

  list: (userId: string, limit: number) =>
    db.select().from(payments).where(eq(payments.userId, userId)).orderBy(desc(payments.createdAt), desc(payments.id)).limit(limit).all(),

  accepted(id: string, providerPaymentId: string, confirmationUrl: string | null) {
    db.update(payments).set({ providerPaymentId, confirmationUrl, updatedAt: new Date() }).where(eq(payments.id, id)).run()
  },

  /** Moves a pending payment to a final state; false when it was no longer pending (someone else got there first). */
  finish(id: string, status: Exclude<PaymentStatus, 'pending'>, fields: { cancelReason?: string | null; paidAt?: Date } = {}): boolean {
    const now = new Date()
    const res = db
      .update(payments)
      .set({ status, cancelReason: fields.cancelReason ?? null, paidAt: fields.paidAt ?? null, updatedAt: now, checkedAt: now })
      .where(and(eq(payments.id, id), eq(payments.status, 'pending')))
      .returning({ id: payments.id })
      .all()
    return res.length === 1
  },

  checked(id: string) {
    db.update(payments).set({ checkedAt: new Date() }).where(eq(payments.id, id)).run()
  },

  /** Pending payments created before `before`, least recently checked first. */
  stalePending: (before: Date, limit: number) =>
    db
      .select()
      .from(payments)
      .where(and(eq(payments.status, 'pending'), lt(payments.createdAt, before)))
      .orderBy(sql`coalesce(${payments.checkedAt}, 0)`)
      .limit(limit)
      .all(),

  /**
   * Card money received through the real provider: the last top-up and the total paid. Payments
   * on the built-in test page (provider 'test') moved no money, so they never count towards a
   * refund, whatever the balance says.
   */
  topUps(userId: string) {
    return db
      .select({ lastPaidAt: max(payments.paidAt), totalMicros: sum(payments.amountMicros).mapWith(Number) })
      .from(payments)
      .where(and(eq(payments.userId, userId), eq(payments.provider, 'yookassa'), eq(payments.status, 'succeeded'), isNotNull(payments.paidAt)))
      .get()!
  },

  activeKeyCount: (userId: string) =>
    db
      .select({ n: sql<number>`count(*)` })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), eq(apiKeys.isActive, true)))
      .get()!.n,

  available: (userId: string) =>
    db
      .select({ a: sql<number>`${users.balanceMicros} - ${users.heldMicros}` })
      .from(users)
      .where(eq(users.id, userId))
      .get()?.a ?? 0,

  latestRefundRequest: (userId: string) =>
    db.select().from(refundRequests).where(eq(refundRequests.userId, userId)).orderBy(desc(refundRequests.createdAt)).limit(1).get(),

  insertRefundRequest(row: typeof refundRequests.$inferInsert) {
    db.insert(refundRequests).values(row).run()
  },

  /** For the admin: requests with the customer's e-mail, pending first. */
  refundRequests: (status: 'pending' | null, limit: number) =>
    db
      .select({ request: refundRequests, email: users.email, balanceMicros: users.balanceMicros })
      .from(refundRequests)
      .innerJoin(users, eq(users.id, refundRequests.userId))
      .where(status ? eq(refundRequests.status, status) : undefined)
      .orderBy(sql`${refundRequests.status} = 'pending' desc`, desc(refundRequests.createdAt))
      .limit(limit)
      .all(),
})

export type PaymentsStore = ReturnType<typeof paymentsStore>
