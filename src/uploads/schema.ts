import { users } from '../auth/schema'
import { index, integer, table, text } from '../db/dialect'

/** A file a customer attached in the Playground; the bytes live in UPLOADS_DIR/uploads/<name> (UPLOADS_DIR defaults to DATA_DIR). */
export const uploads = table(
  'uploads',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Random, unguessable storage name (also the last path segment of its URL). */
    name: text('name').notNull().unique(),
    /** The customer's file name, for display and downloads only; never used as a path. */
    filename: text('filename').notNull(),
    /** Decided from the content (magic bytes or UTF-8 text), never from the name. */
    mimetype: text('mimetype').notNull(),
    size: integer('size').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('uploads_user_idx').on(t.userId)],
)

export type UploadRow = typeof uploads.$inferSelect
