import { users } from '../auth/schema'
import { index, integer, table, text, uniqueIndex } from '../db/dialect'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

/**
 * pending → succeeded | canceled are the provider's own states; `review` means the provider's
 * answer did not match this row (shop, amount or currency), so nothing was credited and a human
 * must look. `succeeded` is final: the balance was credited exactly once, in the same transaction.
 */
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'canceled', 'review'] as const
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

/** How a top-up is paid (issue 37): a card typed on YooKassa's page, SBP by QR or bank app, or a saved method without the customer (auto top-up). */
export const PAYMENT_METHODS = ['card', 'sbp', 'saved'] as const
export type PaymentMethodKind = (typeof PAYMENT_METHODS)[number]

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
    /** How it is paid (issue 37); rows before it were cards. */
    method: text('method', { enum: PAYMENT_METHODS }).notNull().default('card'),
    /** The customer asked YooKassa to save the method for later payments (save_payment_method). */
    savePaymentMethod: integer('save_payment_method', { mode: 'boolean' }).notNull().default(false),
    /** The saved method charged (method `saved`): our payment_methods id. */
    paymentMethodId: text('payment_method_id'),
    /** Made by auto top-up (billing/auto-topup), not by a person. */
    auto: integer('auto', { mode: 'boolean' }).notNull().default(false),
    /** YooKassa's cancellation_details.reason (card_expired, insufficient_funds, …) of a canceled payment. */
    cancellationReason: text('cancellation_reason'),
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

/**
 * A payment method YooKassa saved for an account (issue 37): what the customer sees of it (a card's
 * type, last four digits and expiry; an SBP account's bank) and the provider's id to charge it by.
 * Never a card number. Deleting it here forgets it (`deletedAt`); auto top-up stops using it.
 */
export const paymentMethods = table(
  'payment_methods',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The team the method pays for; null = the personal account. */
    teamId: text('team_id'),
    /** YooKassa's payment_method.id (charged with payment_method_id). */
    providerMethodId: text('provider_method_id').notNull(),
    /** YooKassa's payment_method.type: bank_card, sbp, … */
    type: text('type').notNull(),
    /** YooKassa's payment_method.title («Bank card *4444»), as shown. */
    title: text('title').notNull(),
    last4: text('last4'),
    expiryMonth: text('expiry_month'),
    expiryYear: text('expiry_year'),
    cardType: text('card_type'),
    createdAt: timestamp('created_at').notNull(),
    deletedAt: timestamp('deleted_at'),
  },
  (t) => [index('payment_methods_user_idx').on(t.userId, t.teamId), uniqueIndex('payment_methods_provider_idx').on(t.providerMethodId, t.userId)],
)

export type PaymentMethodRow = typeof paymentMethods.$inferSelect

/**
 * Auto top-up of one account (issue 37): when its available balance falls below the threshold, one
 * payment of `amountMicros` from the saved method, at most `dailyLimitMicros` a Moscow day. The row
 * is keyed by the account: `accountKey` is `user:<id>` or `team:<id>`.
 */
export const autoTopups = table('auto_topups', {
  accountKey: text('account_key').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  teamId: text('team_id'),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
  thresholdMicros: integer('threshold_micros').notNull(),
  amountMicros: integer('amount_micros').notNull(),
  dailyLimitMicros: integer('daily_limit_micros').notNull(),
  paymentMethodId: text('payment_method_id'),
  /** The payment in flight, if any: at most one per account. */
  pendingPaymentId: text('pending_payment_id'),
  /** The Moscow day of the counters below, and what they count. */
  day: text('day'),
  chargedTodayMicros: integer('charged_today_micros').notNull().default(0),
  failuresToday: integer('failures_today').notNull().default(0),
  /** Why it was turned off by itself (a permanent cancellation reason, in Russian); null otherwise. */
  disabledReason: text('disabled_reason'),
  /** Not before this time again (a temporary refusal waits). */
  retryAfter: timestamp('retry_after'),
  updatedAt: timestamp('updated_at').notNull(),
})
