import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { users } from '../auth/schema'

export const LEDGER_TYPES = ['bonus', 'topup', 'usage', 'admin', 'refund'] as const
export type LedgerType = (typeof LEDGER_TYPES)[number]

/**
 * Every movement of a balance. Written in the same transaction as the balance change, so the
 * balance always equals the sum of the user's rows. Rows are never updated or deleted.
 */
export const ledgerEntries = sqliteTable(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    type: text('type', { enum: LEDGER_TYPES }).notNull(),
    /** Signed micro-rubles: credits positive, charges negative. */
    amountMicros: integer('amount_micros').notNull(),
    balanceAfterMicros: integer('balance_after_micros').notNull(),
    description: text('description').notNull(),
    /** Idempotency key of the cause (e.g. `payment:<id>`); unique so a cause credits at most once. */
    reference: text('reference').unique(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('ledger_user_created_idx').on(t.userId, t.createdAt)],
)

export type LedgerRow = typeof ledgerEntries.$inferSelect
