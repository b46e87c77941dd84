import { index, integer, table, text } from '../db/dialect'

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' })

/** Articles about models, written by the autopost job (or seeded). Public once `publishedAt` is set. */
export const blogPosts = table(
  'blog_posts',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull().unique(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    /** Markdown; the public page renders and sanitises it. */
    content: text('content').notNull(),
    /** File name under UPLOADS_DIR/blog-images (served at /blog-images/<name>); null = no cover. */
    coverImage: text('cover_image'),
    metaTitle: text('meta_title').notNull(),
    metaDescription: text('meta_description').notNull(),
    keywords: text('keywords', { mode: 'json' }).$type<string[]>().notNull(),
    /** The catalogue model the article is about (no foreign key: a retired model keeps its article). */
    modelId: text('model_id').notNull(),
    modelName: text('model_name').notNull(),
    views: integer('views').notNull().default(0),
    /** Null = draft, not shown publicly. */
    publishedAt: timestamp('published_at'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [index('blog_posts_published_idx').on(t.publishedAt), index('blog_posts_model_idx').on(t.modelId)],
)

export type BlogPostRow = typeof blogPosts.$inferSelect

// Defined beside the slot arithmetic (pure, shared with the admin page in the browser).
export { AUTOPOST_INTERVALS } from '../content/schedule'

/** The single row (id 1) of the publisher's schedule; defaults from the spec (off, 10:00, every hour). */
export const autopostSettings = table('autopost_settings', {
  id: integer('id').primaryKey(),
  isEnabled: integer('is_enabled', { mode: 'boolean' }).notNull().default(false),
  /** 'HH:MM', Moscow time. */
  startTime: text('start_time').notNull().default('10:00'),
  intervalHours: integer('interval_hours').notNull().default(1),
  /**
   * Slots before this instant never run: set when the job is switched on or the schedule changes,
   * so enabling at 10:30 does not publish for the 10:00 slot that has already passed.
   */
  activeSince: timestamp('active_since'),
  updatedAt: timestamp('updated_at').notNull(),
})

export const AUTOPOST_RUN_KINDS = ['scheduled', 'manual', 'cover'] as const
export const AUTOPOST_RUN_STATUSES = ['running', 'succeeded', 'failed', 'skipped'] as const

/**
 * One row per generation the platform paid for: a scheduled slot, a manual run or a cover
 * regeneration. `slot` is unique, and the row is inserted before any work starts, so two job
 * instances (or a restart) can never run the same slot twice. Its cost is the platform's own
 * spend at the upstream, charged to no customer.
 */
export const autopostRuns = table(
  'autopost_runs',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: AUTOPOST_RUN_KINDS }).notNull(),
    /** The due slot (ms since epoch) of a scheduled run; null for manual runs and covers. */
    slot: integer('slot').unique(),
    status: text('status', { enum: AUTOPOST_RUN_STATUSES }).notNull(),
    modelId: text('model_id'),
    postId: text('post_id'),
    error: text('error'),
    /** What the upstream charged us for this run, nano-dollars. */
    costNanoUsd: integer('cost_nano_usd').notNull().default(0),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
  },
  (t) => [index('autopost_runs_started_idx').on(t.startedAt)],
)

export type AutopostRunRow = typeof autopostRuns.$inferSelect
