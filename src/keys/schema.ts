import { users } from '../auth/schema'
import { budgetColumns } from '../db/budget-columns'
import { index, integer, table, text } from '../db/dialect'
import { RESIDENCY_RULES, TEAM_ROLES, teams } from '../teams/schema'

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
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('api_keys_user_idx').on(t.userId), index('api_keys_team_idx').on(t.teamId)],
)

export type ApiKeyRow = typeof apiKeys.$inferSelect
