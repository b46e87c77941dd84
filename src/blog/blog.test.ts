// The blog's public read API and the autopost admin API, against the real server and the fake upstream.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase } from '../db/client'
import { startGateway } from '../test-support/gateway'
import { client, freshIp, readResult, registerUser } from '../test-support/server'
import { seedBlogPost } from './store'

const ADMIN = 'editor@example.ru'
let g: Awaited<ReturnType<typeof startGateway>>
let admin: Awaited<ReturnType<typeof registerUser>>

beforeAll(async () => {
  g = await startGateway({ ADMIN_EMAILS: ADMIN })
  admin = await registerUser(g.url, ADMIN)
})
afterAll(() => g.stop())

/** Seeds articles through the exported store function, on the server's own database file. */
/** The server's database: its PostgreSQL URL in the PostgreSQL run, else its SQLite file. */
const serverDatabase = (s: { dataDir: string; databaseUrl?: string }) => s.databaseUrl ?? join(s.dataDir, 'gateway.db')

async function seed(...posts: Parameters<typeof seedBlogPost>[1][]) {
  const { db, close } = openDatabase(serverDatabase(g.server))
  try {
    const seeded = []
    for (const p of posts) seeded.push(await seedBlogPost(db, p))
    return seeded
  } finally {
    await close()
  }
}

const del = async (path: string, token?: string) =>
  readResult(await fetch(g.url + path, { method: 'DELETE', headers: { 'x-forwarded-for': freshIp(), ...(token ? { authorization: `Bearer ${token}` } : {}) } }))

describe('public blog API', () => {
  test('lists published articles newest first in the spec’s shape; drafts stay hidden', async () => {
    const day = 86_400_000
    const [older, newer, draft] = await seed(
      { title: 'Старая статья', slug: 'old-one', publishedAt: new Date(Date.now() - 2 * day), keywords: ['a', 'b'] },
      { title: 'Новая статья', slug: 'new-one', publishedAt: new Date(Date.now() - day), modelId: 'openai/gpt-4o', modelName: 'OpenAI: GPT-4o' },
      { title: 'Черновик', slug: 'draft-one', publishedAt: null },
    )
    const api = client(g.url)
    const list = await api.get('/api/blog/posts?limit=3')
    expect(list.status).toBe(200)
    const slugs = list.body.data.map((p: { slug: string }) => p.slug)
    expect(slugs.indexOf('new-one')).toBeLessThan(slugs.indexOf('old-one'))
    expect(slugs).not.toContain('draft-one')
    expect((await api.get('/api/blog/posts?limit=1')).body.data).toHaveLength(1)
    expect((await api.get('/api/blog/posts?limit=0')).status).toBe(400)

    const one = await api.get('/api/blog/posts/new-one')
    expect(one.body.data).toEqual({
      id: newer!.id,
      slug: 'new-one',
      title: 'Новая статья',
      description: 'Описание статьи «Новая статья».',
      content: expect.any(String),
      coverImage: null,
      metaTitle: 'Новая статья',
      metaDescription: 'Описание статьи «Новая статья».',
      keywords: [],
      modelName: 'OpenAI: GPT-4o',
      modelId: 'openai/gpt-4o',
      views: 0,
      publishedAt: newer!.publishedAt,
    })
    expect(older!.keywords).toEqual(['a', 'b'])
    for (const slug of [draft!.slug, 'no-such-article']) {
      const missing = await api.get(`/api/blog/posts/${slug}`)
      expect([missing.status, missing.body.error]).toEqual([404, 'Статья не найдена'])
    }
  })

  test('a view counts once per call, but one visitor cannot inflate the count by repeating it', async () => {
    const [post] = await seed({ title: 'Про просмотры', slug: 'views-post' })
    const visitor = client(g.url)
    expect((await visitor.post(`/api/blog/posts/${post!.slug}/view`)).body.data).toEqual({ views: 1, counted: true })
    expect((await visitor.post(`/api/blog/posts/${post!.slug}/view`)).body.data).toEqual({ views: 1, counted: false })
    expect((await client(g.url).post(`/api/blog/posts/${post!.slug}/view`)).body.data).toEqual({ views: 2, counted: true })
    expect((await visitor.get(`/api/blog/posts/${post!.slug}`)).body.data.views).toBe(2)
    const missing = await visitor.post('/api/blog/posts/nothing-here/view')
    expect([missing.status, missing.body.error]).toEqual([404, 'Статья не найдена'])
  })
})

describe('autopost admin API', () => {
  test('settings: defaults, start/stop, schedule, Russian validation messages', async () => {
    const api = admin.api
    const token = admin.accessToken
    expect((await api.get('/api/blog/admin/autopost/settings', token)).body.data).toEqual({ isEnabled: false, startTime: '10:00', intervalHours: 1 })
    expect((await api.patch('/api/blog/admin/autopost/settings', { isEnabled: true }, token)).body.data.isEnabled).toBe(true)
    const stats = (await api.get('/api/blog/admin/autopost/stats', token)).body.data
    expect(stats.nextRunTime).toBeString()
    expect(new Date(stats.nextRunTime).getUTCMinutes()).toBe(0) // 10:00 Moscow every hour: on the hour
    expect((await api.patch('/api/blog/admin/autopost/settings', { startTime: '07:30', intervalHours: 6 }, token)).body.data).toEqual({
      isEnabled: true,
      startTime: '07:30',
      intervalHours: 6,
    })
    for (const [body, message] of [
      [{ intervalHours: 4 }, 'Частота публикации может быть 1, 2, 3, 6, 12 или 24 часа'],
      [{ startTime: '7:30', intervalHours: 6 }, 'Укажите время начала в формате ЧЧ:ММ, например 10:00'],
      [{ isEnabled: 'true' }, 'isEnabled должен быть true или false'],
      [{}, 'Передайте isEnabled или startTime и intervalHours'],
    ] as const) {
      const res = await api.patch('/api/blog/admin/autopost/settings', body, token)
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: message })
    }
    expect((await api.patch('/api/blog/admin/autopost/settings', { isEnabled: false }, token)).body.data).toEqual({ isEnabled: false, startTime: '07:30', intervalHours: 6 })
    expect((await api.get('/api/blog/admin/autopost/stats', token)).body.data.nextRunTime).toBeNull()
  })

  test('publish now → public article with a public cover; regenerate-image replaces the file; delete removes both', async () => {
    const api = admin.api
    const token = admin.accessToken
    const run = await api.post('/api/blog/admin/autopost/run', undefined, token)
    expect(run.status).toBe(200)
    const post = run.body.data
    expect(post.coverImage).toMatch(/^\/blog-images\/[A-Za-z0-9_-]+\.png$/)

    const publicPost = await client(g.url).get(`/api/blog/posts/${post.slug}`)
    expect(publicPost.body.data).toEqual(post)
    const cover = await fetch(g.url + post.coverImage)
    expect(cover.status).toBe(200)
    expect(cover.headers.get('content-type')).toBe('image/png')
    expect(cover.headers.get('cache-control')).toContain('immutable')
    expect(new Uint8Array(await cover.arrayBuffer()).subarray(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))

    const listed = (await api.get('/api/blog/admin/posts', token)).body.data
    expect(listed[0]).toMatchObject({ id: post.id, slug: post.slug, views: 0, createdAt: expect.any(String) })
    const stats = (await api.get('/api/blog/admin/autopost/stats', token)).body.data
    expect(stats).toMatchObject({ lastRunTime: expect.any(String), lastRun: { status: 'succeeded', postId: post.id } })

    const regenerated = await api.post(`/api/blog/admin/posts/${post.id}/regenerate-image`, undefined, token)
    expect(regenerated.status).toBe(200)
    expect(regenerated.body.data.coverImage).not.toBe(post.coverImage)
    expect((await fetch(g.url + post.coverImage)).status).toBe(404)
    expect((await fetch(g.url + regenerated.body.data.coverImage)).status).toBe(200)

    g.upstream.failNext('http503', (b) => Array.isArray(b.modalities))
    const failed = await api.post(`/api/blog/admin/posts/${post.id}/regenerate-image`, undefined, token)
    expect([failed.status, failed.body.error]).toEqual([502, 'Не удалось сгенерировать изображение. Попробуйте позже.'])
    expect((await fetch(g.url + regenerated.body.data.coverImage)).status).toBe(200)

    expect((await del(`/api/blog/admin/posts/${post.id}`, token)).body).toEqual({ success: true, data: { ok: true } })
    expect((await client(g.url).get(`/api/blog/posts/${post.slug}`)).status).toBe(404)
    expect((await fetch(g.url + regenerated.body.data.coverImage)).status).toBe(404)
    const again = await del(`/api/blog/admin/posts/${post.id}`, token)
    expect([again.status, again.body.error]).toEqual([404, 'Статья не найдена'])
    const noPost = await api.post('/api/blog/admin/posts/nope/regenerate-image', undefined, token)
    expect([noPost.status, noPost.body.error]).toEqual([404, 'Статья не найдена'])
  })

  test('cover URLs accept only generated names: no path tricks, no other files', async () => {
    for (const path of ['/blog-images/..%2Fgateway.db', '/blog-images/jwt-secret', '/blog-images/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.png', '/blog-images/%2e%2e%2fjwt-secret']) {
      const res = await fetch(g.url + path)
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
    }
  })
})
