import { users } from '../auth/schema'
import { index, integer, table, text } from '../db/dialect'

/**
 * A picture /v1/images generated and stored (UPLOADS_DIR/generated/<name>): whose it is, so only the
 * owner's chats get its link renewed, and deleting the account deletes the picture. A signed link
 * is served only while its row exists and its owner's account is alive (checked in the database,
 * which every instance shares).
 */
export const generatedImages = table(
  'generated_images',
  {
    /** Random, unguessable storage name (also the last path segment of its URL). */
    name: text('name').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('generated_images_user_idx').on(t.userId)],
)

export type GeneratedImageRow = typeof generatedImages.$inferSelect
