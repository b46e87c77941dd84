import { users } from '../auth/schema'
import { index, integer, table, text } from '../db/dialect'

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
    /** Optional spending cap per calendar month (UTC), micro-rubles. */
    monthlyLimitMicros: integer('monthly_limit_micros'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('api_keys_user_idx').on(t.userId)],
)

export type ApiKeyRow = typeof apiKeys.$inferSelect
