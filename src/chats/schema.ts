import { users } from '../auth/schema'
import { index, integer, table, text } from '../db/dialect'

/** A Playground conversation. Listed newest activity first, so `updated_at` moves with every message. */
export const chats = table(
  'chats',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The team context the chat was made in (its replies are paid by the team); null = personal. */
    teamId: text('team_id'),
    title: text('title').notNull(),
    /** The catalogue id the chat was held with (opening the chat selects it again). */
    model: text('model').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('chats_user_updated_idx').on(t.userId, t.updatedAt)],
)

/**
 * One message. `content` is the text, or for generated pictures the spec's JSON string
 * `{"type":"image-message","text","images","metadata"}`, parsed back when the chat is read.
 */
export const chatMessages = table(
  'chat_messages',
  {
    id: text('id').primaryKey(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull(),
    /** Attachments as JSON: [{id, name, filename, mimetype, size}] of uploads (URLs are signed afresh on every read). */
    files: text('files', { mode: 'json' }).$type<StoredFile[]>(),
    /** Small JSON facts about a reply (model, cost in rubles, tokens, stopped). */
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('chat_messages_chat_created_idx').on(t.chatId, t.createdAt)],
)

export type StoredFile = { id: string; name: string; filename: string; mimetype: string; size: number }
export type ChatRow = typeof chats.$inferSelect
export type ChatMessageRow = typeof chatMessages.$inferSelect
