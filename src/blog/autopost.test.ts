// The autopost job with a controllable clock: tick(now) runs in-process against a real database
// file and the fake upstream over HTTP, built exactly as the server builds it (createServices).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServices } from '../app'
import { loadConfig } from '../config'
import { openDatabase, runMigrations } from '../db/client'
import { onPostgres } from '../db/dialect'
import { AppError } from '../lib/errors'
import { createMailer } from '../mail/service'
import { freshDatabaseUrl } from '../test-support/database'
import { UPSTREAM_KEY } from '../test-support/gateway'
import { type RunningFakeUpstream, startFakeUpstream } from '../upstream/demo'
import { autopostRuns, blogPosts } from './schema'

let upstream: RunningFakeUpstream
const dirs: string[] = []
const closers: Array<() => Promise<void>> = []

beforeAll(async () => {
  upstream = await startFakeUpstream({ faults: true, tokenDelayMs: 0, apiKey: UPSTREAM_KEY })
})
// Each test's instances are closed after it (on PostgreSQL each holds a pool of connections).
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {})
})
afterAll(async () => {
  await upstream.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** An instant given in Moscow time (UTC+3). */
const msk = (local: string) => new Date(`${local}+03:00`)

const isArticle = (b: Record<string, unknown>) => (b.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name === 'blog_article'
const isCover = (b: Record<string, unknown>) => Array.isArray(b.modalities) && b.modalities.includes('image')

/** A fresh data directory (covers) and database (a file, or a PostgreSQL database) shared by every instance opened on it. */
async function site(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'autopost-test-'))
  dirs.push(dataDir)
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: onPostgres ? await freshDatabaseUrl() : join(dataDir, 'gateway.db'),
    JWT_SECRET: 'autopost-test-secret-0123456789-abcdefghijklmnop',
    OPENROUTER_API_KEY: UPSTREAM_KEY,
    OPENROUTER_BASE_URL: upstream.url,
    USD_RUB_RATE: '90',
    PUBLIC_URL: 'https://gw.example.ru',
    ...env,
  })
  const covers = () => (existsSync(join(dataDir, 'blog-images')) ? readdirSync(join(dataDir, 'blog-images')) : [])
  /** One job instance: its own connection to the same database file, like a second server process. */
  async function instance() {
    const { db, close } = openDatabase(config.databaseUrl)
    closers.push(close)
    await runMigrations(db)
    const services = await createServices(config, db, createMailer(config))
    if (services.catalog.isEmpty()) await services.catalog.sync()
    return { close, db, services, autopost: services.autopost }
  }
  return { dataDir, config, covers, instance }
}

describe('autopost job', () => {
  test('at the due time one run writes one article with a cover, recorded as platform spend; outside slots nothing happens', async () => {
    const { covers, instance } = await site()
    const { db, autopost } = await instance()
    await autopost.updateSettings({ isEnabled: true, startTime: '10:00', intervalHours: 6 }, msk('2030-05-10T09:00:00'))
    const before = upstream.log.length

    expect(await autopost.tick(msk('2030-05-10T09:59:00'))).toEqual({ status: 'idle' })
    const outcome = await autopost.tick(msk('2030-05-10T10:00:00'))
    expect(outcome.status).toBe('succeeded')
    const post = (outcome as { post: import('./store').BlogPost }).post

    const posts = await db.select().from(blogPosts)
    expect(posts).toHaveLength(1)
    // The newest catalogue model without an article, written about in Russian markdown.
    expect(post).toMatchObject({ modelId: 'black-forest-labs/flux.2-pro', modelName: 'Black Forest Labs: FLUX.2 [pro]', views: 0 })
    expect(post.slug).toMatch(/^[a-z0-9-]+$/)
    expect(post.title).toContain('FLUX.2 [pro]')
    expect(post.content).toContain('## ')
    expect(post.keywords.length).toBeGreaterThan(2)
    expect(post.publishedAt).toBeString()
    expect(post.coverImage).toMatch(/^\/blog-images\/[A-Za-z0-9_-]{32,}\.png$/)
    expect(covers()).toEqual([post.coverImage!.split('/').pop()!])

    // Through our own upstream client: one article request, one cover request, no /v1, no customer.
    const calls = upstream.log.slice(before).filter((r) => r.path.endsWith('/chat/completions'))
    expect(calls.map((c) => (isArticle(c.body as never) ? 'article' : isCover(c.body as never) ? 'cover' : 'other'))).toEqual(['article', 'cover'])
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`)
    expect((calls[0]!.body as { messages: Array<{ content: string }> }).messages[1]!.content).toContain('ID модели: black-forest-labs/flux.2-pro')

    const [run] = await db.select().from(autopostRuns)
    expect(run).toMatchObject({ kind: 'scheduled', slot: +msk('2030-05-10T10:00:00'), status: 'succeeded', modelId: 'black-forest-labs/flux.2-pro', postId: post.id })
    expect(run!.costNanoUsd).toBeGreaterThan(0)

    // The same slot again (the next minute) and the hours until the next slot: nothing new.
    expect(await autopost.tick(msk('2030-05-10T10:01:00'))).toEqual({ status: 'taken' })
    expect(await autopost.tick(msk('2030-05-10T13:00:00'))).toEqual({ status: 'idle' })
    expect(await db.select().from(blogPosts)).toHaveLength(1)

    // The next slot writes about the next newest model.
    const next = await autopost.tick(msk('2030-05-10T16:00:10'))
    expect(next.status).toBe('succeeded')
    expect((next as { post: { modelId: string } }).post.modelId).toBe('google/gemini-2.5-flash-image')
    expect(await autopost.stats(msk('2030-05-10T16:05:00'))).toMatchObject({
      totalPosts: 2,
      publishedPosts: 2,
      lastRunTime: msk('2030-05-10T16:00:10').toISOString(),
      nextRunTime: msk('2030-05-10T22:00:00').toISOString(),
    })
  })

  test('three job instances ticking at the same moment on one database write one article; a restarted one does not repeat it', async () => {
    const s = await site()
    const a = await s.instance()
    const b = await s.instance()
    const c = await s.instance()
    await a.autopost.updateSettings({ isEnabled: true, startTime: '10:00', intervalHours: 1 }, msk('2030-05-10T09:00:00'))
    const at = msk('2030-05-10T10:00:00')
    const outcomes = await Promise.all([a.autopost.tick(at), b.autopost.tick(at), c.autopost.tick(at)])
    expect(outcomes.map((o) => o.status).sort()).toEqual(['succeeded', 'taken', 'taken'])
    expect(await a.db.select().from(blogPosts)).toHaveLength(1)
    expect(await a.db.select().from(autopostRuns)).toHaveLength(1)

    await b.close()
    const restarted = await s.instance()
    expect(await restarted.autopost.tick(msk('2030-05-10T10:02:00'))).toEqual({ status: 'taken' })
    expect(await restarted.db.select().from(blogPosts)).toHaveLength(1)
  }, 30_000)

  test.each(['http500', 'error200', 'empty', 'timeout'] as const)('an upstream failure (%s) on the article writes nothing, and the run says why', async (fault) => {
    // `timeout` never answers: the job's own deadline (UPSTREAM_TIMEOUT_MS) ends the wait.
    const s = await site(fault === 'timeout' ? { UPSTREAM_TIMEOUT_MS: '300' } : {})
    const { db, autopost } = await s.instance()
    await autopost.updateSettings({ isEnabled: true, startTime: '10:00', intervalHours: 1 }, msk('2030-05-10T09:00:00'))
    upstream.failNext(fault, isArticle)
    const outcome = await autopost.tick(msk('2030-05-10T10:00:00'))
    expect(outcome.status).toBe('failed')
    expect(await db.select().from(blogPosts)).toEqual([])
    expect(s.covers()).toEqual([])
    const [run] = await db.select().from(autopostRuns)
    expect(run).toMatchObject({ status: 'failed', postId: null, modelId: 'black-forest-labs/flux.2-pro' })
    expect(run!.error).toBeString()
    expect(run!.finishedAt).toBeInstanceOf(Date)
  })

  test('a cover failure still publishes the article, without a cover', async () => {
    const s = await site()
    const { db, autopost } = await s.instance()
    await autopost.updateSettings({ isEnabled: true, startTime: '10:00', intervalHours: 1 }, msk('2030-05-10T09:00:00'))
    upstream.failNext('http502', isCover)
    const outcome = await autopost.tick(msk('2030-05-10T10:00:00'))
    expect(outcome.status).toBe('succeeded')
    const [post] = await db.select().from(blogPosts)
    expect(post!.coverImage).toBeNull()
    expect(s.covers()).toEqual([])
  })

  test('switching on, or moving the schedule, does not publish late for a slot that has already passed', async () => {
    const { db, autopost } = await (await site()).instance()
    await autopost.updateSettings({ isEnabled: true }, msk('2030-05-10T10:20:00'))
    expect(await autopost.tick(msk('2030-05-10T10:21:00'))).toEqual({ status: 'idle' })
    await autopost.updateSettings({ startTime: '10:30', intervalHours: 2 }, msk('2030-05-10T10:40:00'))
    expect(await autopost.tick(msk('2030-05-10T10:41:00'))).toEqual({ status: 'idle' })
    expect((await autopost.stats(msk('2030-05-10T10:41:00'))).nextRunTime).toBe(msk('2030-05-10T12:30:00').toISOString())
    await autopost.updateSettings({ isEnabled: false }, msk('2030-05-10T11:00:00'))
    expect(await autopost.tick(msk('2030-05-10T12:30:00'))).toEqual({ status: 'idle' })
    expect((await autopost.stats(msk('2030-05-10T12:30:00'))).nextRunTime).toBeNull()
    expect(await db.select().from(blogPosts)).toEqual([])
  })

  test('settings are validated with Russian messages and keep the spec defaults until changed', async () => {
    const { autopost } = await (await site()).instance()
    expect(await autopost.settings()).toEqual({ isEnabled: false, startTime: '10:00', intervalHours: 1 })
    const refused = async (input: Record<string, unknown>) => {
      try {
        await autopost.updateSettings(input)
        return null
      } catch (e) {
        return e instanceof AppError ? [e.status, e.message] : e
      }
    }
    expect(await refused({ intervalHours: 5 })).toEqual([400, 'Частота публикации может быть 1, 2, 3, 6, 12 или 24 часа'])
    expect(await refused({ intervalHours: '6' })).toEqual([400, 'Частота публикации может быть 1, 2, 3, 6, 12 или 24 часа'])
    expect(await refused({ startTime: '24:00', intervalHours: 1 })).toEqual([400, 'Укажите время начала в формате ЧЧ:ММ, например 10:00'])
    expect(await refused({ startTime: '9:00' })).toEqual([400, 'Укажите время начала в формате ЧЧ:ММ, например 10:00'])
    expect(await refused({ isEnabled: 'yes' })).toEqual([400, 'isEnabled должен быть true или false'])
    expect(await refused({})).toEqual([400, 'Передайте isEnabled или startTime и intervalHours'])
    expect(await autopost.settings()).toEqual({ isEnabled: false, startTime: '10:00', intervalHours: 1 })
    expect(await autopost.updateSettings({ startTime: '07:30', intervalHours: 12 })).toEqual({ isEnabled: false, startTime: '07:30', intervalHours: 12 })
  })

  test('regenerate-image replaces the cover and deletes the old file; a failure keeps the old cover', async () => {
    const s = await site()
    const { autopost } = await s.instance()
    const post = await autopost.runNow()
    const oldName = post.coverImage!.split('/').pop()!
    expect(s.covers()).toEqual([oldName])

    const renewed = await autopost.regenerateCover(post.id)
    const newName = renewed.coverImage!.split('/').pop()!
    expect(newName).not.toBe(oldName)
    expect(s.covers()).toEqual([newName])

    upstream.failNext('http500', isCover)
    const failure = await autopost.regenerateCover(post.id).catch((e) => e)
    expect(failure).toBeInstanceOf(AppError)
    expect([failure.status, failure.message]).toEqual([502, 'Не удалось сгенерировать изображение. Попробуйте позже.'])
    expect(s.covers()).toEqual([newName])
    expect(await autopost.regenerateCover('no-such-post').catch((e) => e.message)).toBe('Статья не найдена')

    await autopost.removePost(post.id)
    expect(s.covers()).toEqual([])
  })

  test('each model gets one article; when all are written a run is skipped, not failed', async () => {
    const { db, autopost, services } = await (await site()).instance()
    const writable = services.catalog.list().filter((m) => m.promptUsd !== '-1').length
    for (let i = 0; i < writable; i++) await autopost.runNow()
    const models = (await db.select({ m: blogPosts.modelId }).from(blogPosts)).map((r) => r.m)
    expect(new Set(models).size).toBe(writable)
    expect(models).not.toContain('openrouter/auto')
    const err = await autopost.runNow().catch((e) => e)
    expect([err.status, err.message]).toEqual([409, 'Все модели каталога уже описаны — писать пока не о чем'])
    expect((await db.select().from(autopostRuns).orderBy(autopostRuns.startedAt, autopostRuns.id)).at(-1)?.status).toBe('skipped')
  }, 30_000)
})
