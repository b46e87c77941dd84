// sitemap.xml (the public pages, every model page and every published article) and robots.txt.
import { desc, isNotNull } from 'drizzle-orm'
import { blogPosts } from '../blog/schema'
import { publicModelHref } from '../content/models/catalog'
import type { Db } from '../db/types'
import { esc } from './render'

/** Public pages worth indexing, with their weight in the sitemap. */
export const SITEMAP_PAGES: Array<[path: string, priority: string, changefreq: string]> = [
  ['/', '1.0', 'weekly'],
  ['/models', '0.9', 'daily'],
  ['/blog', '0.8', 'daily'],
  ['/docs', '0.8', 'monthly'],
  ['/services', '0.6', 'monthly'],
  ['/status', '0.3', 'daily'],
  ['/public-offer', '0.3', 'yearly'],
  ['/terms-of-service', '0.3', 'yearly'],
  ['/privacy-policy', '0.3', 'yearly'],
  ['/refund-policy', '0.3', 'yearly'],
]

const day = (d: Date) => d.toISOString().slice(0, 10)

/** Slug and last change of every published article, newest first (the sitemap's limit is 50 000 URLs). */
function publishedForSitemap(db: Db) {
  return db
    .select({ slug: blogPosts.slug, publishedAt: blogPosts.publishedAt, updatedAt: blogPosts.updatedAt })
    .from(blogPosts)
    .where(isNotNull(blogPosts.publishedAt))
    .orderBy(desc(blogPosts.publishedAt), desc(blogPosts.id))
    .limit(49_000)
}

/** A post's <lastmod>: the later of its last edit and its publication (Math.max on the times: the operands are Dates). */
const lastChange = (p: { publishedAt: Date | null; updatedAt: Date }) => new Date(Math.max(+p.updatedAt, +p.publishedAt!))

/** `siteUpdated`: when the static pages last changed (the build's time). */
export async function sitemapXml(db: Db, origin: string, siteUpdated: Date, modelIds: readonly string[] = []): Promise<string> {
  const posts = await publishedForSitemap(db)
  const lastPost = posts.reduce<Date | null>((max, p) => {
    const t = lastChange(p)
    return !max || t > max ? t : max
  }, null)
  const url = (loc: string, lastmod: Date, changefreq: string, priority: string) =>
    `  <url><loc>${esc(loc)}</loc><lastmod>${day(lastmod)}</lastmod><changefreq>${changefreq}</changefreq><priority>${priority}</priority></url>`
  const lines = SITEMAP_PAGES.map(([path, priority, changefreq]) => {
    const lastmod = (path === '/blog' || path === '/') && lastPost && lastPost > siteUpdated ? lastPost : siteUpdated
    return url(`${origin}${path}`, lastmod, changefreq, priority)
  })
  for (const id of modelIds) lines.push(url(`${origin}${publicModelHref(id)}`, siteUpdated, 'weekly', '0.6'))
  for (const p of posts) {
    const lastmod = lastChange(p)
    lines.push(url(`${origin}/blog/${encodeURIComponent(p.slug)}`, lastmod, 'monthly', '0.7'))
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${lines.join('\n')}\n</urlset>\n`
}

export function robotsTxt(origin: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    // The signed-in area, the APIs and one-time links stay out of search results…
    'Disallow: /app',
    'Disallow: /api',
    'Disallow: /v1',
    'Disallow: /pay/',
    'Disallow: /reset-password/',
    'Disallow: /verify-email/',
    'Disallow: /invite/',
    'Disallow: /auth/',
    // …but the public pages read these when a search engine renders them with JavaScript.
    'Allow: /api/blog/posts',
    'Allow: /models',
    'Allow: /v1/models',
    '',
    `Sitemap: ${origin}/sitemap.xml`,
    '',
  ].join('\n')
}
