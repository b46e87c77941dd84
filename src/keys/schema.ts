import { users } from '../auth/schema'
import { budgetColumns } from '../db/budget-columns'
import { index, integer, table, text } from '../db/dialect'
import { RESIDENCY_RULES, TEAM_ROLES, teams } from '../teams/schema'

/** `inference` keys call /v1; `management` keys manage keys and read the balance and activity (issue 36), nothing else. */
export const KEY_KINDS = ['inference', 'management'] as const
export type KeyKind = (typeof KEY_KINDS)[number]

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

export const apiKeys = table(
  'api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The first characters of the key, shown in lists so the owner can tell keys apart. */
    keyPrefix: text('key_prefix').notNull(),
    /** SHA-256 of the full key; the key itself is shown once and never stored. */
    keyHash: text('key_hash').notNull().unique(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    /** A team key's: who disabled it and their role then (teams/roles.ts restrictionLock); null while active or personal. */
    disabledBy: text('disabled_by'),
    disabledByRole: text('disabled_by_role', { enum: TEAM_ROLES }),
    /** The team whose balance the key spends (made in team context); null = the owner's personal account. */
    teamId: text('team_id').references(() => teams.id),
    /** The key's budget; its spend is counted whether or not a limit is set (for month: "spent this month"). */
    ...budgetColumns(),
    /** A team key's: who set its budget's limit and their role then; null without a limit or personal. */
    budgetSetBy: text('budget_set_by'),
    budgetSetByRole: text('budget_set_by_role', { enum: TEAM_ROLES }),
    /** `ru`: its requests go only to upstreams that keep data in Russia (gateway/routing.ts); `any`: to every one. */
    residency: text('residency', { enum: RESIDENCY_RULES }).notNull().default('any'),
    kind: text('kind', { enum: KEY_KINDS }).notNull().default('inference'),
    // The key's policy (keys/policy.ts): null = no limit of that kind.
    rpmLimit: integer('rpm_limit'),
    tpmLimit: integer('tpm_limit'),
    /** Model patterns (`openai/*` or exact ids) the key may call. */
    allowedModels: text('allowed_models', { mode: 'json' }).$type<string[]>(),
    /** IPv4/IPv6 addresses and CIDRs the key may be used from. */
    allowedIps: text('allowed_ips', { mode: 'json' }).$type<string[]>(),
    expiresAt: timestamp('expires_at'),
    /** A team key's: who last set its policy and their role then (a member cannot loosen what an admin set). */
    policySetBy: text('policy_set_by'),
    policySetByRole: text('policy_set_by_role', { enum: TEAM_ROLES }),
    /** Answers that fit the balance (issue 37): lower max_tokens to what the money affords instead of 402. */
    fitToBalance: integer('fit_to_balance', { mode: 'boolean' }).notNull().default(false),
    /** The origin of the app a user approved through «Войти через AI Gateway» (auth/authorize); null otherwise. */
    appOrigin: text('app_origin'),
    createdAt: timestamp('created_at').notNull(),
    lastUsedAt: timestamp('last_used_at'),
  },
  (t) => [index('api_keys_user_idx').on(t.userId), index('api_keys_team_idx').on(t.teamId)],
)

export type ApiKeyRow = typeof apiKeys.$inferSelect

/**
 * The rate state of a limited key across instances (PostgreSQL; on SQLite the one process keeps it in
 * memory): the "theoretical arrival times" of the generic cell rate algorithm (keys/rates.ts), epoch ms.
 */
export const keyRates = table('key_rates', {
  keyId: text('key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  requestsTat: integer('requests_tat').notNull().default(0),
  tokensTat: integer('tokens_tat').notNull().default(0),
})

/** «Войти через AI Gateway» (OAuth 2.0 with PKCE): a code the approving user's browser carries back to the app. */
export const authCodes = table(
  'auth_codes',
  {
    /** SHA-256 of the code: the code itself travels once, in the redirect. */
    codeHash: text('code_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    callbackUrl: text('callback_url').notNull(),
    /** S256 code_challenge (base64url of SHA-256 of the verifier). */
    codeChallenge: text('code_challenge').notNull(),
    /** The monthly budget the user gave the app, micro-rubles; null = none. */
    budgetMicros: integer('budget_micros'),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [index('auth_codes_expires_idx').on(t.expiresAt)],
)
