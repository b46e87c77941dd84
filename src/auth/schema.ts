import { index, integer, table, text } from '../db/dialect'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

export const users = table(
  'users',
  {
    id: text('id').primaryKey(),
    /** As the customer typed it (trimmed); shown in the UI and used for letters. */
    email: text('email').notNull(),
    /** Lower-cased: the unique key, so e-mails are unique case-insensitively. */
    emailNormalized: text('email_normalized').notNull().unique(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['user', 'admin'] })
      .notNull()
      .default('user'),
    /** Current balance in micro-rubles; changed only together with a ledger row (money/ledger.ts). */
    balanceMicros: integer('balance_micros').notNull().default(0),
    /** Sum of open holds (money/holds): reserved for requests in flight, not spendable. */
    heldMicros: integer('held_micros').notNull().default(0),
    /** The customer's low-balance e-mail level, micro-rubles; null = no letter. */
    lowBalanceAlertMicros: integer('low_balance_alert_micros'),
    /** Set when the letter went out; cleared when the balance is back above the level, so it is sent once per drop. */
    lowBalanceAlerted: integer('low_balance_alerted', { mode: 'boolean' }).notNull().default(false),
    /** When the owner followed the confirmation link; null = not confirmed (the welcome bonus waits for it). */
    emailVerifiedAt: timestamp('email_verified_at'),
    /** The account's referral link is /r/<referralCode> (issue 37); null until it is first asked for. */
    referralCode: text('referral_code').unique(),
    /** Who referred the account (registered through their link); null otherwise. */
    referredBy: text('referred_by'),
    /** When the referral bonus of this account's first real payment was given (to it and its referrer): once. */
    referralRewardedAt: timestamp('referral_rewarded_at'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    /**
     * Set when an admin deletes the account: the row stays (anonymised) because ledger and usage rows
     * must be kept for their retention periods; every lookup for sign-in or a session ignores it.
     */
    deletedAt: timestamp('deleted_at'),
  },
  // Who an account referred (the account page's figures, the monthly cap of referral bonuses).
  (t) => [index('users_referred_by_idx').on(t.referredBy)],
)

/**
 * Refresh tokens rotate: each use marks the row used and issues a successor in the same family.
 * Presenting a used token means it leaked, so the whole family (the session) is revoked.
 */
export const refreshTokens = table(
  'refresh_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: text('family_id').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
    revokedAt: timestamp('revoked_at'),
    /** The browser or client that signed in (User-Agent, cut to 512 characters) and its IP: the session list shows them. Carried to each successor. */
    userAgent: text('user_agent'),
    ip: text('ip'),
  },
  (t) => [index('refresh_tokens_family_idx').on(t.familyId), index('refresh_tokens_user_idx').on(t.userId)],
)

export const passwordResets = table(
  'password_resets',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
  },
  (t) => [index('password_resets_user_idx').on(t.userId)],
)

/** One-time links that confirm an address; only the token's hash is stored, like reset links. */
export const emailVerifications = table(
  'email_verifications',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
  },
  (t) => [index('email_verifications_user_idx').on(t.userId)],
)

export type UserRow = typeof users.$inferSelect
