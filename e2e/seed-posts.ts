// Puts blog articles into the e2e server's database through the blog's own store function.
// Run with bun (bun:sqlite), so Playwright (Node) calls it through e2e/blog-seed.ts:
//   echo '[{"title":"…","cover":true}]' | E2E_DATA_DIR=… bun e2e/seed-posts.ts
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { createCoverStore } from '../src/blog/covers'
import { blogPosts } from '../src/blog/schema'
import { blogStore, type SeedPost, seedBlogPost } from '../src/blog/store'
import { openDatabase } from '../src/db/client'

type Input = Omit<SeedPost, 'publishedAt'> & { publishedAt?: string | null; cover?: boolean }

const dataDir = process.env.E2E_DATA_DIR
if (!dataDir) throw new Error('E2E_DATA_DIR is not set')
const input = JSON.parse(await Bun.stdin.text()) as Input[]
const covers = createCoverStore(dataDir)
const picture = `data:image/png;base64,${readFileSync(new URL('../public/og-image.png', import.meta.url)).toString('base64')}`
const { db, close } = openDatabase(join(dataDir, 'gateway.db'))
try {
  const out = []
  for (const { cover, publishedAt, ...post } of input) {
    // Idempotent by slug: a re-run (Playwright restarts a worker after a failure) starts afresh.
    const [existing] = post.slug ? await db.select({ id: blogPosts.id }).from(blogPosts).where(eq(blogPosts.slug, post.slug)).limit(1) : []
    if (existing) await blogStore(db).remove(existing.id)
    const coverImage = cover ? await covers.saveDataUrl(picture) : (post.coverImage ?? null)
    out.push(
      await seedBlogPost(db, {
        ...post,
        coverImage,
        publishedAt: publishedAt === undefined ? undefined : publishedAt === null ? null : new Date(publishedAt),
      }),
    )
  }
  process.stdout.write(JSON.stringify(out))
} finally {
  await close()
}
