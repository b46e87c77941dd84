// The public blog (read API for the /blog pages) and the admin's article list.
import type { Db } from '../db/types'
import { AppError, notFound } from '../lib/errors'
import { consume, type Rule } from '../lib/rate-limit'
import { blogStore, postToApi } from './store'

export type { BlogPost } from './store'

export const NOT_FOUND_MESSAGE = 'Статья не найдена'

/** One counted view per visitor address and article per window: reloads and scripts do not inflate counts. */
export const VIEW_RULE: Rule = { limit: 1, windowSec: 30 * 60 }

export function blogService(db: Db) {
  const store = blogStore(db)

  return {
    /** Published articles, newest first. */
    list: async (limit: number) => (await store.published(limit)).map(postToApi),

    /** A published article by slug, or undefined (the server-rendered pages answer 404 themselves). */
    findBySlug: async (slug: string) => {
      const post = await store.publishedBySlug(slug)
      return post && postToApi(post)
    },

    async bySlug(slug: string) {
      const post = await store.publishedBySlug(slug)
      if (!post) throw notFound(NOT_FOUND_MESSAGE)
      return postToApi(post)
    },

    /** Counts a view unless this visitor's view of the article was counted recently; answers the count either way. */
    async view(slug: string, ip: string): Promise<{ views: number; counted: boolean }> {
      const post = await store.publishedBySlug(slug)
      if (!post) throw notFound(NOT_FOUND_MESSAGE)
      try {
        await consume(db, `blog-view:${ip}:${post.id}`, VIEW_RULE)
      } catch (e) {
        // Not an error for the reader: the page ignores this call's failures anyway.
        if (e instanceof AppError && e.status === 429) return { views: post.views, counted: false }
        throw e
      }
      const row = await store.addView(slug)
      if (!row) throw notFound(NOT_FOUND_MESSAGE)
      return { views: row.views, counted: true }
    },

    /** Every article, drafts included, newest first (the admin's table). */
    adminList: async () => (await store.all()).map((p) => ({ ...postToApi(p), createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString() })),

    counts: () => store.counts(),
    platformSpendNanoUsd: () => store.platformSpendNanoUsd(),
  }
}

export type BlogService = ReturnType<typeof blogService>
