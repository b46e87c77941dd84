// The public blog: GET /api/blog/posts, GET /api/blog/posts/{slug}, POST /api/blog/posts/{slug}/view.
import useSWR from 'swr'
import type { BlogPost, PostViews } from '../../../src/wire'
import { ApiError } from '../../lib/api'

/** A published article (spec §3 "Blog post"); the wire type of src/blog/model.ts. */
export type Post = BlogPost

export const postsKey = (limit: number) => `/api/blog/posts?limit=${limit}`
export const postKey = (slug: string) => `/api/blog/posts/${encodeURIComponent(slug)}`

/** Published articles, newest first. */
export function usePosts(limit: number) {
  return useSWR<Post[]>(postsKey(limit))
}

/** One article; a 404 is an answer ('Статья не найдена'), not something to retry. */
export function usePost(slug: string) {
  return useSWR<Post>(postKey(slug), {
    onErrorRetry: (error, _key, _config, revalidate, { retryCount }) => {
      if (error instanceof ApiError && error.status === 404) return
      if (retryCount >= 1) return
      setTimeout(() => void revalidate({ retryCount }), 2000)
    },
  })
}

/** Counts one view of the article; the new count, or null on any failure (which stays silent). */
export async function countView(slug: string): Promise<number | null> {
  try {
    const res = await fetch(`${postKey(slug)}/view`, { method: 'POST', headers: { Accept: 'application/json' } })
    if (!res.ok) return null
    const body = (await res.json()) as { success?: boolean; data?: Partial<PostViews> }
    return typeof body?.data?.views === 'number' ? body.data.views : null
  } catch {
    return null
  }
}
