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

/**
 * A Responses API answer kept for `previous_response_id` and GET /v1/responses/{id} (issue 28), for
 * 30 days after the last response of its chain. A chain is stored once, not per response: a row holds
 * only the input items its request added and its output, and points at the stored response it
 * continues (`parent_id`); the router is stateless, so a continuation is expanded along these links.
 */
export const storedResponses = table(
  'stored_responses',
  {
    /** The id the client saw (the router's `resp_…`). */
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The team that owns it when made with a team's key (teams fill it in); null: the personal account. */
    teamId: text('team_id'),
    /**
     * The stored response whose chain this one continues; null for a chain's first row. A response that
     * continued one not stored (`store: false` over WebSocket) holds that whole history in `input` instead.
     */
    parentId: text('parent_id'),
    model: text('model').notNull(),
    status: text('status').notNull(),
    /** The input items this response added to its chain (a string `input` as one user message). */
    input: text('input', { mode: 'json' }).$type<unknown[]>().notNull(),
    output: text('output', { mode: 'json' }).$type<unknown[]>().notNull(),
    /** As the client saw it: tokens and the charge in rubles. */
    usage: text('usage', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    /** The rest of the Response object (instructions, tools, previous_response_id…), for GET. */
    response: text('response', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** UTF-8 bytes of input and output as JSON; `chain_bytes` adds those of every ancestor. */
    bytes: integer('bytes').notNull(),
    chainBytes: integer('chain_bytes').notNull(),
    /** Ancestors along parent_id (0 for a chain's first row); bounds the walk that expands a chain. */
    depth: integer('depth').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('stored_responses_expires_idx').on(t.expiresAt)],
)

export type StoredResponseRow = typeof storedResponses.$inferSelect
