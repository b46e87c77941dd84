import { users } from '../auth/schema'
import { budgetColumns } from '../db/budget-columns'
import { index, integer, primaryKey, table, text } from '../db/dialect'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

export const TEAM_ROLES = ['owner', 'admin', 'billing', 'member'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]

/**
 * A team is an account of its own: a balance with its ledger (ledger_entries.team_id), holds and
 * usage, shared by its members. Personal accounts stay on users; the two never mix.
 */
/** Where a key's or a team's requests may be processed: anywhere, or only in Russia (152-FZ). */
export const RESIDENCY_RULES = ['any', 'ru'] as const
export type ResidencyRule = (typeof RESIDENCY_RULES)[number]

/** The policy of a new team key, as an owner or admin set it (expiry as days from the key's creation). */
export type KeyDefaults = {
  rpmLimit: number | null
  tpmLimit: number | null
  allowedModels: string[] | null
  allowedIps: string[] | null
  expiresInDays: number | null
  /** Who set them and their role then: a key made from them counts as restricted by that person. */
  setBy?: { userId: string; role: TeamRole }
}

export const teams = table('teams', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Micro-rubles; changed only together with a ledger row of the team (money/ledger.ts). */
  balanceMicros: integer('balance_micros').notNull().default(0),
  /** Sum of the team's open holds (money/holds). */
  heldMicros: integer('held_micros').notNull().default(0),
  /** The low-balance alert level, micro-rubles; null = none. */
  lowBalanceAlertMicros: integer('low_balance_alert_micros'),
  /** Set when the alert went out; cleared when the balance is back above the level. */
  lowBalanceAlerted: integer('low_balance_alerted', { mode: 'boolean' }).notNull().default(false),
  /** Where alerts are POSTed (JSON, signed); null = no webhook. */
  webhookUrl: text('webhook_url'),
  /** The HMAC-SHA256 key of the webhook's signatures: shown once when set, kept to sign. */
  webhookSecret: text('webhook_secret'),
  /** `ru`: every request in the team (its keys, its members' web sessions) goes only to upstreams in Russia. */
  residency: text('residency', { enum: RESIDENCY_RULES }).notNull().default('any'),
  /** Model patterns every request in the team may call (keys/policy.ts); null = every model. */
  allowedModels: text('allowed_models', { mode: 'json' }).$type<string[]>(),
  /** The policy a new team key starts with (owner/admin set it; keys/policy.ts KeyDefaults); null = none. */
  keyDefaults: text('key_defaults', { mode: 'json' }).$type<KeyDefaults>(),
  /** Answers that fit the balance for every request in the team (issue 37). */
  fitToBalance: integer('fit_to_balance', { mode: 'boolean' }).notNull().default(false),
  createdAt: timestamp('created_at').notNull(),
  /** Set when the owner deletes the team: the row stays for its ledger, nobody acts in it any more. */
  deletedAt: timestamp('deleted_at'),
})

export type TeamRow = typeof teams.$inferSelect

/** Membership: a role and, optionally, a budget on the team's balance (money/budgets.ts). */
export const teamMembers = table(
  'team_members',
  {
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: TEAM_ROLES }).notNull(),
    ...budgetColumns(),
    /** Who set the budget's limit and their role then (roles.ts restrictionLock); null without a limit. */
    budgetSetBy: text('budget_set_by'),
    budgetSetByRole: text('budget_set_by_role', { enum: TEAM_ROLES }),
    joinedAt: timestamp('joined_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user_idx').on(t.userId)],
)

export type TeamMemberRow = typeof teamMembers.$inferSelect

/** One-time invitation links (lib/one-time-link.ts): only the token's hash is stored. */
export const teamInvitations = table(
  'team_invitations',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id),
    /** As the inviter typed it; the accepting account must have this address. */
    email: text('email').notNull(),
    emailNormalized: text('email_normalized').notNull(),
    role: text('role', { enum: TEAM_ROLES }).notNull(),
    invitedBy: text('invited_by')
      .notNull()
      .references(() => users.id),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
    revokedAt: timestamp('revoked_at'),
  },
  (t) => [index('team_invitations_team_idx').on(t.teamId, t.createdAt)],
)

/**
 * What owners and admins did, and when: invitations, joins, roles, budgets, keys, top-ups, balance
 * adjustments, webhook changes. Never a raw key, token or password. Kept one year (housekeeping).
 */
export const teamAudit = table(
  'team_audit',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id),
    at: timestamp('at').notNull(),
    /** Who did it (a member, or the site admin behind a balance adjustment); null for the system. */
    actorId: text('actor_id'),
    action: text('action').notNull(),
    /** What it was done to, as people read it: an e-mail, a key's name and prefix. */
    target: text('target'),
    ip: text('ip'),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [index('team_audit_team_at_idx').on(t.teamId, t.at), index('team_audit_at_idx').on(t.at)],
)

export const WEBHOOK_STATUSES = ['pending', 'delivered', 'failed'] as const

/**
 * The webhook outbox: each alert is a row until its receiver answers 2xx. Deliveries are claimed by
 * one instance at a time (claimed_until) and retried with back-off; they survive restarts.
 */
export const webhookDeliveries = table(
  'webhook_deliveries',
  {
    /** Sent as X-Webhook-Id and in the body: receivers de-duplicate by it. */
    id: text('id').primaryKey(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id),
    event: text('event').notNull(),
    /** The exact body that is signed and sent. */
    body: text('body').notNull(),
    status: text('status', { enum: WEBHOOK_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    /** Epoch ms until which an instance is delivering it; the others leave it alone. */
    claimedUntil: integer('claimed_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt), index('webhook_deliveries_team_idx').on(t.teamId, t.createdAt)],
)
