import { users } from '../auth/schema'
import { index, integer, table, text } from '../db/dialect'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

/**
 * pending → succeeded | canceled are the provider's own states; `review` means the provider's
 * answer did not match this row (shop, amount or currency), so nothing was credited and a human
 * must look. `succeeded` is final: the balance was credited exactly once, in the same transaction.
 */
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'canceled', 'review'] as const
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

/** A card top-up. Our id is the Idempotence-Key and travels in the provider's metadata. */
export const payments = table(
  'payments',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** Paid in team context: the team's balance is credited; `userId` is the payer. null = personal. */
    teamId: text('team_id'),
    amountMicros: integer('amount_micros').notNull(),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull(),
    /** 'yookassa' for the real API, 'test' for the built-in test payment page. */
    provider: text('provider', { enum: ['yookassa', 'test'] }).notNull(),
    /** The provider's payment id; null until the provider accepted the payment. */
    providerPaymentId: text('provider_payment_id').unique(),
    description: text('description').notNull(),
    confirmationUrl: text('confirmation_url'),
    returnUrl: text('return_url').notNull(),
    /** Russian reason shown to the customer when canceled or held for review. */
    cancelReason: text('cancel_reason'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    paidAt: timestamp('paid_at'),
    /** Last time we asked the provider about it (reconciliation spaces its questions). */
    checkedAt: timestamp('checked_at'),
  },
  (t) => [
    index('payments_user_created_idx').on(t.userId, t.createdAt),
    index('payments_status_created_idx').on(t.status, t.createdAt),
    index('payments_team_created_idx').on(t.teamId, t.createdAt),
  ],
)

export type PaymentRow = typeof payments.$inferSelect

export const REFUND_STATUSES = ['pending', 'approved', 'rejected'] as const

/** A customer's request to refund the remainder; an admin decides, no money moves automatically. */
export const refundRequests = table(
  'refund_requests',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The team whose remainder is asked back; null = personal. */
    teamId: text('team_id'),
    /** The refundable remainder when the request was made. */
    amountMicros: integer('amount_micros').notNull(),
    reason: text('reason'),
    status: text('status', { enum: REFUND_STATUSES }).notNull().default('pending'),
    createdAt: timestamp('created_at').notNull(),
    resolvedAt: timestamp('resolved_at'),
    resolvedBy: text('resolved_by'),
  },
  (t) => [index('refund_requests_user_idx').on(t.userId, t.createdAt), index('refund_requests_status_idx').on(t.status)],
)

export type RefundRequestRow = typeof refundRequests.$inferSelect
