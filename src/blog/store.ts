// Queries of the blog and the autopost job. `seedBlogPost` is also the way tests and other
// features put an article into a database without running the job.
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, like, lt, sql } from 'drizzle-orm'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { SLUG_MAX } from './article'
import { coverUrl } from './covers'
import { type AutopostRunRow, autopostRuns, autopostSettings, type BlogPostRow, blogPosts } from './schema'

const SETTINGS_ID = 1

/** The public article shape (spec §3 "Blog post"); coverImage is a URL path on this site. */
export function postToApi(p: BlogPostRow) {
  return {
    id: p.id,
    slug: p.slug,
    title: p.title,
    description: p.description,
    content: p.content,
    coverImage: coverUrl(p.coverImage),
    metaTitle: p.metaTitle,
    metaDescription: p.metaDescription,
    keywords: p.keywords,
    modelName: p.modelName,
    modelId: p.modelId,
    views: p.views,
    publishedAt: p.publishedAt?.toISOString() ?? null,
  }
}

export type BlogPost = ReturnType<typeof postToApi>

const first = <T>(rows: T[]): T | undefined => rows[0]

/**
 * The blog's queries. `db` is the database, or a unit's `q` (db/tx.ts) for statements that must
 * share its transaction; writes outside a unit go through `write`.
 */
export const blogStore = (db: Db) => ({
  // ── posts ──────────────────────────────────────────────────────────────────
  published: (limit: number) => db.select().from(blogPosts).where(isNotNull(blogPosts.publishedAt)).orderBy(desc(blogPosts.publishedAt), desc(blogPosts.id)).limit(limit),
  publishedBySlug: async (slug: string) =>
    first(
      await db
        .select()
        .from(blogPosts)
        .where(and(eq(blogPosts.slug, slug), isNotNull(blogPosts.publishedAt)))
        .limit(1),
    ),
  all: () => db.select().from(blogPosts).orderBy(desc(blogPosts.createdAt), desc(blogPosts.id)),
  byId: async (id: string) => first(await db.select().from(blogPosts).where(eq(blogPosts.id, id)).limit(1)),
  slugTaken: async (slug: string) => !!first(await db.select({ id: blogPosts.id }).from(blogPosts).where(eq(blogPosts.slug, slug)).limit(1)),
  /**
   * The used slugs that uniqueSlug(base) could pick: they all start with the first SLUG_MAX − 12
   * characters of `base` (slugify's output holds no LIKE wildcards).
   */
  slugsStartingLike: async (base: string) =>
    new Set(
      (
        await db
          .select({ slug: blogPosts.slug })
          .from(blogPosts)
          .where(like(blogPosts.slug, `${base.slice(0, SLUG_MAX - 12)}%`))
      ).map((r) => r.slug),
    ),
  /** Inserts an article unless its slug is taken (another instance publishing the same title): true when inserted. */
  insert: async (row: typeof blogPosts.$inferInsert) =>
    (await write(db, (q) => q.insert(blogPosts).values(row).onConflictDoNothing({ target: blogPosts.slug }).returning({ id: blogPosts.id }))).length === 1,
  remove: async (id: string) => first(await write(db, (q) => q.delete(blogPosts).where(eq(blogPosts.id, id)).returning())),
  /** Counts a view of a published article; undefined when there is none. */
  addView: async (slug: string) =>
    first(
      await write(db, (q) =>
        q
          .update(blogPosts)
          .set({ views: sql`${blogPosts.views} + 1` })
          .where(and(eq(blogPosts.slug, slug), isNotNull(blogPosts.publishedAt)))
          .returning({ views: blogPosts.views }),
      ),
    ),
  /** Swaps the cover and returns the previous file name (to delete it). */
  replaceCover: (id: string, name: string, now: Date) =>
    tx(db, async (q) => {
      const [old] = await q.select({ cover: blogPosts.coverImage }).from(blogPosts).where(eq(blogPosts.id, id)).limit(1)
      if (!old) return undefined
      await q.update(blogPosts).set({ coverImage: name, updatedAt: now }).where(eq(blogPosts.id, id))
      return { previous: old.cover }
    }),
  modelIdsWithPosts: async () => new Set((await db.selectDistinct({ id: blogPosts.modelId }).from(blogPosts)).map((r) => r.id)),
  async counts() {
    const [row] = await db
      .select({
        total: count(),
        published: sql<number>`coalesce(sum(case when ${blogPosts.publishedAt} is not null then 1 else 0 end), 0)`.mapWith(Number),
      })
      .from(blogPosts)
    return { total: row?.total ?? 0, published: row?.published ?? 0 }
  },

  // ── settings ───────────────────────────────────────────────────────────────
  /** The one settings row, created with the spec's defaults on first read. */
  async settings() {
    const [row] = await db.select().from(autopostSettings).where(eq(autopostSettings.id, SETTINGS_ID)).limit(1)
    if (row) return row
    await write(db, (q) => q.insert(autopostSettings).values({ id: SETTINGS_ID, updatedAt: new Date() }).onConflictDoNothing())
    return (await db.select().from(autopostSettings).where(eq(autopostSettings.id, SETTINGS_ID)).limit(1))[0]!
  },
  async updateSettings(set: Partial<typeof autopostSettings.$inferInsert>) {
    // The row exists before it is updated (the service reads the settings first; this is for other callers).
    await write(db, (q) => q.insert(autopostSettings).values({ id: SETTINGS_ID, updatedAt: new Date() }).onConflictDoNothing())
    return (await write(db, (q) => q.update(autopostSettings).set(set).where(eq(autopostSettings.id, SETTINGS_ID)).returning()))[0]!
  },

  // ── runs ───────────────────────────────────────────────────────────────────
  /**
   * Inserts the run row; false when a scheduled slot is already taken (another instance, or a
   * restart). One INSERT … ON CONFLICT DO NOTHING RETURNING: of instances racing for a slot exactly
   * one gets its row back, and only that one runs it.
   */
  async claimRun(row: typeof autopostRuns.$inferInsert): Promise<boolean> {
    const inserted = await write(db, (q) => q.insert(autopostRuns).values(row).onConflictDoNothing({ target: autopostRuns.slot }).returning({ id: autopostRuns.id }))
    return inserted.length === 1
  },
  updateRun: async (id: string, set: Partial<Pick<AutopostRunRow, 'status' | 'modelId' | 'postId' | 'error' | 'costNanoUsd' | 'finishedAt'>>) => {
    await write(db, (q) => q.update(autopostRuns).set(set).where(eq(autopostRuns.id, id)))
  },
  /** Models a run is writing about right now (in any instance), so two runs never pick the same one. */
  runningModelIds: async () =>
    new Set(
      (
        await db
          .select({ id: autopostRuns.modelId })
          .from(autopostRuns)
          .where(and(eq(autopostRuns.status, 'running'), isNotNull(autopostRuns.modelId)))
      ).map((r) => r.id!),
    ),
  slotTaken: async (slot: Date) => !!first(await db.select({ id: autopostRuns.id }).from(autopostRuns).where(eq(autopostRuns.slot, +slot)).limit(1)),
  lastArticleRun: async () =>
    first(
      await db
        .select()
        .from(autopostRuns)
        .where(inArray(autopostRuns.kind, ['scheduled', 'manual']))
        .orderBy(desc(autopostRuns.startedAt), desc(autopostRuns.id))
        .limit(1),
    ),
  /** Models the job failed on this many times: skipped, so one broken model cannot stall the blog. */
  async modelIdsFailedAtLeast(times: number) {
    return new Set(
      (
        await db
          .select({ id: autopostRuns.modelId })
          .from(autopostRuns)
          .where(and(eq(autopostRuns.status, 'failed'), isNotNull(autopostRuns.modelId), inArray(autopostRuns.kind, ['scheduled', 'manual'])))
          .groupBy(autopostRuns.modelId)
          .having(gte(count(), times))
      ).map((r) => r.id!),
    )
  },
  /** Runs still 'running' long after they started were cut short by a crash or restart. */
  failAbandonedRuns: async (startedBefore: Date, now: Date) =>
    (
      await write(db, (q) =>
        q
          .update(autopostRuns)
          .set({ status: 'failed', error: 'прервано перезапуском сервера', finishedAt: now })
          .where(and(eq(autopostRuns.status, 'running'), lt(autopostRuns.startedAt, startedBefore), isNull(autopostRuns.finishedAt)))
          .returning({ id: autopostRuns.id }),
      )
    ).length,
  /** Everything the platform spent at the upstream on the blog, nano-dollars. */
  platformSpendNanoUsd: async () => (await db.select({ s: sql<number>`coalesce(sum(${autopostRuns.costNanoUsd}), 0)`.mapWith(Number) }).from(autopostRuns))[0]?.s ?? 0,
})

export type BlogStore = ReturnType<typeof blogStore>

export type SeedPost = Partial<Omit<typeof blogPosts.$inferInsert, 'publishedAt'>> & {
  title: string
  /** Defaults to now; pass null for an unpublished draft. */
  publishedAt?: Date | null
}

/** Puts an article straight into the database (tests, fixtures); fills what is not given. */
export async function seedBlogPost(db: Db, p: SeedPost): Promise<BlogPost> {
  const now = new Date()
  const description = p.description ?? `Описание статьи «${p.title}».`
  const row: typeof blogPosts.$inferInsert = {
    id: p.id ?? newId(),
    slug: p.slug ?? `post-${newId().slice(-12)}`,
    title: p.title,
    description,
    content: p.content ?? `## ${p.title}\n\nТекст статьи.`,
    coverImage: p.coverImage ?? null,
    metaTitle: p.metaTitle ?? p.title,
    metaDescription: p.metaDescription ?? description,
    keywords: p.keywords ?? [],
    modelId: p.modelId ?? 'openai/gpt-4o-mini',
    modelName: p.modelName ?? 'OpenAI: GPT-4o-mini',
    views: p.views ?? 0,
    publishedAt: p.publishedAt === undefined ? now : p.publishedAt,
    createdAt: p.createdAt ?? now,
    updatedAt: p.updatedAt ?? now,
  }
  await write(db, (q) => q.insert(blogPosts).values(row))
  return postToApi((await db.select().from(blogPosts).where(eq(blogPosts.id, row.id)).limit(1))[0]!)
}
