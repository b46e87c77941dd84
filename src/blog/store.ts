// Queries of the blog and the autopost job. `seedBlogPost` is also the way tests and other
// features put an article into a database without running the job.
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { newId } from '../lib/crypto'
import { coverUrl } from './covers'
import { autopostRuns, autopostSettings, blogPosts, type AutopostRunRow, type BlogPostRow } from './schema'

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

export const blogStore = (db: Db) => ({
  // ── posts ──────────────────────────────────────────────────────────────────
  published: (limit: number) =>
    db.select().from(blogPosts).where(isNotNull(blogPosts.publishedAt)).orderBy(desc(blogPosts.publishedAt), desc(blogPosts.id)).limit(limit).all(),
  publishedBySlug: (slug: string) =>
    db.select().from(blogPosts).where(and(eq(blogPosts.slug, slug), isNotNull(blogPosts.publishedAt))).get(),
  all: () => db.select().from(blogPosts).orderBy(desc(blogPosts.createdAt), desc(blogPosts.id)).all(),
  byId: (id: string) => db.select().from(blogPosts).where(eq(blogPosts.id, id)).get(),
  slugTaken: (slug: string) => !!db.select({ id: blogPosts.id }).from(blogPosts).where(eq(blogPosts.slug, slug)).get(),
  insert: (row: typeof blogPosts.$inferInsert) => db.insert(blogPosts).values(row).run(),
  remove: (id: string) => db.delete(blogPosts).where(eq(blogPosts.id, id)).returning().get(),
  /** Counts a view of a published article; undefined when there is none. */
  addView: (slug: string) =>
    db
      .update(blogPosts)
      .set({ views: sql`${blogPosts.views} + 1` })
      .where(and(eq(blogPosts.slug, slug), isNotNull(blogPosts.publishedAt)))
      .returning({ views: blogPosts.views })
      .get(),
  /** Swaps the cover and returns the previous file name (to delete it). */
  replaceCover: (id: string, name: string, now: Date) =>
    db.transaction((tx) => {
      const old = tx.select({ cover: blogPosts.coverImage }).from(blogPosts).where(eq(blogPosts.id, id)).get()
      if (!old) return undefined
      tx.update(blogPosts).set({ coverImage: name, updatedAt: now }).where(eq(blogPosts.id, id)).run()
      return { previous: old.cover }
    }),
  modelIdsWithPosts: () => new Set(db.selectDistinct({ id: blogPosts.modelId }).from(blogPosts).all().map((r) => r.id)),
  counts() {
    const row = db
      .select({ total: count(), published: sql<number>`coalesce(sum(case when ${blogPosts.publishedAt} is not null then 1 else 0 end), 0)` })
      .from(blogPosts)
      .get()
    return { total: row?.total ?? 0, published: row?.published ?? 0 }
  },

  // ── settings ───────────────────────────────────────────────────────────────
  /** The one settings row, created with the spec's defaults on first read. */
  settings() {
    db.insert(autopostSettings).values({ id: SETTINGS_ID, updatedAt: new Date() }).onConflictDoNothing().run()
    return db.select().from(autopostSettings).where(eq(autopostSettings.id, SETTINGS_ID)).get()!
  },
  updateSettings: (set: Partial<typeof autopostSettings.$inferInsert>) =>
    db.update(autopostSettings).set(set).where(eq(autopostSettings.id, SETTINGS_ID)).returning().get()!,

  // ── runs ───────────────────────────────────────────────────────────────────
  /** Inserts the run row; false when a scheduled slot is already taken (another instance, or a restart). */
  claimRun(row: typeof autopostRuns.$inferInsert): boolean {
    return db.insert(autopostRuns).values(row).onConflictDoNothing({ target: autopostRuns.slot }).returning({ id: autopostRuns.id }).all().length === 1
  },
  updateRun: (id: string, set: Partial<Pick<AutopostRunRow, 'status' | 'modelId' | 'postId' | 'error' | 'costNanoUsd' | 'finishedAt'>>) =>
    db.update(autopostRuns).set(set).where(eq(autopostRuns.id, id)).run(),
  /** Models a run is writing about right now (in any instance), so two runs never pick the same one. */
  runningModelIds: () =>
    new Set(
      db
        .select({ id: autopostRuns.modelId })
        .from(autopostRuns)
        .where(and(eq(autopostRuns.status, 'running'), isNotNull(autopostRuns.modelId)))
        .all()
        .map((r) => r.id!),
    ),
  slotTaken: (slot: Date) => !!db.select({ id: autopostRuns.id }).from(autopostRuns).where(eq(autopostRuns.slot, +slot)).get(),
  lastArticleRun: () =>
    db
      .select()
      .from(autopostRuns)
      .where(inArray(autopostRuns.kind, ['scheduled', 'manual']))
      .orderBy(desc(autopostRuns.startedAt))
      .limit(1)
      .get(),
  /** Models the job failed on this many times: skipped, so one broken model cannot stall the blog. */
  modelIdsFailedAtLeast(times: number) {
    return new Set(
      db
        .select({ id: autopostRuns.modelId })
        .from(autopostRuns)
        .where(and(eq(autopostRuns.status, 'failed'), isNotNull(autopostRuns.modelId), inArray(autopostRuns.kind, ['scheduled', 'manual'])))
        .groupBy(autopostRuns.modelId)
        .having(gte(count(), times))
        .all()
        .map((r) => r.id!),
    )
  },
  /** Runs still 'running' long after they started were cut short by a crash or restart. */
  failAbandonedRuns: (startedBefore: Date, now: Date) =>
    db
      .update(autopostRuns)
      .set({ status: 'failed', error: 'прервано перезапуском сервера', finishedAt: now })
      .where(and(eq(autopostRuns.status, 'running'), lt(autopostRuns.startedAt, startedBefore), isNull(autopostRuns.finishedAt)))
      .returning({ id: autopostRuns.id })
      .all().length,
  /** Everything the platform spent at the upstream on the blog, nano-dollars. */
  platformSpendNanoUsd: () =>
    db.select({ s: sql<number>`coalesce(sum(${autopostRuns.costNanoUsd}), 0)` }).from(autopostRuns).get()?.s ?? 0,
})

export type BlogStore = ReturnType<typeof blogStore>

export type SeedPost = Partial<Omit<typeof blogPosts.$inferInsert, 'publishedAt'>> & {
  title: string
  /** Defaults to now; pass null for an unpublished draft. */
  publishedAt?: Date | null
}

/** Puts an article straight into the database (tests, fixtures); fills what is not given. */
export function seedBlogPost(db: Db, p: SeedPost): BlogPost {
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
  db.insert(blogPosts).values(row).run()
  return postToApi(db.select().from(blogPosts).where(eq(blogPosts.id, row.id)).get()!)
}
