import { users } from '../auth/schema'
import { index, integer, table, text, uniqueIndex } from '../db/dialect'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

/** A promo code an admin made (issue 37): `amountMicros` to each account that redeems it, at most `maxUses` accounts. */
export const promoCodes = table('promo_codes', {
  id: text('id').primaryKey(),
  /** Upper-cased as typed by the admin; customers type it in any case. */
  code: text('code').notNull().unique(),
  amountMicros: integer('amount_micros').notNull(),
  maxUses: integer('max_uses').notNull(),
  /** Redemptions so far; raised by one conditional UPDATE, so it never passes maxUses. */
  uses: integer('uses').notNull().default(0),
  expiresAt: timestamp('expires_at'),
  disabledAt: timestamp('disabled_at'),
  createdBy: text('created_by').references(() => users.id),
  createdAt: timestamp('created_at').notNull(),
})

/** One redemption per code and account (`accountKey`: `user:<id>` or `team:<id>`). */
export const promoRedemptions = table(
  'promo_redemptions',
  {
    id: text('id').primaryKey(),
    promoId: text('promo_id')
      .notNull()
      .references(() => promoCodes.id),
    accountKey: text('account_key').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    teamId: text('team_id'),
    amountMicros: integer('amount_micros').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [uniqueIndex('promo_redemptions_once_idx').on(t.promoId, t.accountKey), index('promo_redemptions_user_idx').on(t.userId)],
)
