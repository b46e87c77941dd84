// Seeds blog articles for browser tests: Playwright runs under Node, the store needs bun:sqlite,
// so the seeding runs as a short `bun e2e/seed-posts.ts` process on the e2e server's database.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface SeedInput {
  title: string
  slug?: string
  description?: string
  content?: string
  metaTitle?: string
  metaDescription?: string
  keywords?: string[]
  modelId?: string
  modelName?: string
  views?: number
  /** ISO date; null = draft; default now */
  publishedAt?: string | null
  /** give the article a real PNG cover under DATA_DIR/blog-images */
  cover?: boolean
}

export interface SeededPost {
  id: string
  slug: string
  title: string
  description: string
  coverImage: string | null
  modelId: string
  modelName: string
  views: number
  publishedAt: string | null
}

const script = fileURLToPath(new URL('./seed-posts.ts', import.meta.url))

export function seedPosts(posts: SeedInput[]): SeededPost[] {
  const out = execFileSync('bun', [script], { input: JSON.stringify(posts), env: process.env, encoding: 'utf8' })
  return JSON.parse(out) as SeededPost[]
}
