// The self-writing blog. Each minute `tick(now)` asks whether a schedule slot is due; the first
// instance to insert the slot's run row owns it (a unique index), so a second instance or a
// restart can never publish twice for one slot. A run picks the newest catalogue model without an
// article, has a text model write it through our own upstream client (platform spend, billed to
// nobody), draws a cover (optional: a failed cover still publishes) and publishes in one
// transaction with the run's outcome — a failed run leaves no post behind.

import { isVariable, rubPrice } from '../catalog/pricing'
import type { RateProvider } from '../catalog/rate'
import type { ModelRow } from '../catalog/schema'
import type { Catalog } from '../catalog/service'
import { canOutputImages } from '../catalog/service'
import type { Config } from '../config'
import { PER_INPUT_IMAGE, PER_OUTPUT_IMAGE } from '../content/format'
import { dueSlot, isInterval, nextRunTime, START_TIME_RE } from '../content/schedule'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { add, ceilUnits, dec, mul } from '../lib/decimal'
import { AppError, badRequest, conflict, notFound } from '../lib/errors'
import type { UpstreamClient } from '../upstream/client'
import { ARTICLE_FORMAT, type Article, ArticleParseError, articleMessages, coverPrompt, isWritable, modelKind, type PriceLine, parseArticle, slugify, uniqueSlug } from './article'
import { createCoverStore } from './covers'
import type { AutopostRunRow } from './schema'
import { type BlogPost, blogStore, postToApi } from './store'

export type AutopostDeps = { config: Config; db: Db; upstream: UpstreamClient; catalog: Catalog; rates: RateProvider }

export const SETTINGS_MESSAGES = {
  isEnabled: 'isEnabled должен быть true или false',
  startTime: 'Укажите время начала в формате ЧЧ:ММ, например 10:00',
  interval: 'Частота публикации может быть 1, 2, 3, 6, 12 или 24 часа',
  empty: 'Передайте isEnabled или startTime и intervalHours',
} as const

/** A model the job failed on this many times is skipped, so one broken model cannot stall the blog. */
const MAX_FAILURES_PER_MODEL = 3
const ARTICLE_MAX_TOKENS = 4000

export type RunOutcome =
  | { status: 'idle' | 'taken' | 'busy' }
  | { status: 'skipped'; reason: string }
  | { status: 'failed'; error: string }
  | { status: 'succeeded'; post: BlogPost }

/** A failure during a run, with what the upstream had already charged us by then. */
class RunError extends Error {
  constructor(
    message: string,
    readonly costNanoUsd = 0,
  ) {
    super(message)
  }
}

type Usage = { cost?: unknown; prompt_tokens?: unknown; completion_tokens?: unknown }

export function autopostService({ config, db, upstream, catalog, rates }: AutopostDeps) {
  const store = blogStore(db)
  const covers = createCoverStore(config.uploadsDir)
  const markup = dec(String(config.markup))
  // Longer than any run can take (two upstream calls), so only a crashed run is still 'running' then.
  const abandonedAfterMs = 2 * config.upstreamTimeoutMs + 10 * 60_000
  /** One article at a time in this process: two parallel runs would pick the same model. */
  let writing = false

  /** USD the upstream charged, in nano-dollars: its reported cost, else tokens × the model's prices. */
  function costNano(model: ModelRow, usage: Usage | undefined): number {
    try {
      if (typeof usage?.cost === 'number' && Number.isFinite(usage.cost) && usage.cost >= 0) return ceilUnits(dec(usage.cost), 9)
      if (!usage || [model.promptUsd, model.completionUsd, model.requestUsd].some(isVariable)) return 0
      const tokens = (v: unknown) => dec(typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0)
      const usd = add(add(mul(dec(model.promptUsd), tokens(usage.prompt_tokens)), mul(dec(model.completionUsd), tokens(usage.completion_tokens))), dec(model.requestUsd))
      return ceilUnits(usd, 9)
    } catch {
      return 0
    }
  }

  /** One non-streamed completion; any upstream failure becomes a RunError carrying its cost. */
  async function complete(model: ModelRow, body: Record<string, unknown>, what: string) {
    let res: Response
    try {
      res = await upstream.chat({ ...body, model: model.id, stream: false }, AbortSignal.timeout(config.upstreamTimeoutMs))
    } catch (e) {
      throw new RunError(`${what}: провайдер недоступен (${(e as Error).message})`)
    }
    const json = (await res.json().catch(() => null)) as {
      error?: { message?: string }
      choices?: Array<{ error?: { message?: string }; message?: { content?: string | null; images?: Array<{ image_url?: { url?: string } }> } }>
      usage?: Usage
    } | null
    const cost = costNano(model, json?.usage)
    // A 200 can still carry an error (protocols.md 1.3), at the top level or in the choice.
    const err = !res.ok ? (json?.error ?? { message: res.statusText }) : (json?.error ?? json?.choices?.[0]?.error)
    if (!json || err) throw new RunError(`${what}: ${model.id} ответил ошибкой ${res.status}${err?.message ? ` (${err.message})` : ''}`, cost)
    const message = json.choices?.[0]?.message
    const images = (message?.images ?? []).map((im) => im.image_url?.url).filter((u): u is string => typeof u === 'string')
    return { content: typeof message?.content === 'string' ? message.content : '', images, costNanoUsd: cost }
  }

  /** The configured model when the catalogue has it and it fits, else the cheapest one that fits. */
  function chooseModel(preferred: string, fits: (m: ModelRow) => boolean): ModelRow | undefined {
    const wanted = catalog.get(preferred)
    if (wanted && fits(wanted)) return wanted
    return [...catalog.list()].filter(fits).sort((a, b) => Number(a.completionUsd) - Number(b.completionUsd))[0]
  }
  const writerModel = () => chooseModel(config.autopostTextModel, (m) => m.outputModalities.includes('text') && !canOutputImages(m) && isWritable(m) && !m.id.endsWith(':free'))
  const painterModel = () => chooseModel(config.autopostImageModel, (m) => canOutputImages(m) && isWritable(m))

  /** The newest catalogue model that has no article, is not being written now and has not failed too often. */
  async function pickSubject(): Promise<ModelRow | undefined> {
    const [written, failing, running] = await Promise.all([store.modelIdsWithPosts(), store.modelIdsFailedAtLeast(MAX_FAILURES_PER_MODEL), store.runningModelIds()])
    return catalog.list().find((m) => isWritable(m) && !written.has(m.id) && !failing.has(m.id) && !running.has(m.id))
  }

  /** What customers pay, in rubles as the catalogue shows it, by the kind of model; null without a rate. */
  function pricesOf(m: ModelRow): PriceLine {
    const rate = rates.current()
    if (!rate) return null
    const rub = (usd: string, per = 1) => Number(rubPrice(usd, rate, markup)) * per
    const money = (n: number) => n.toLocaleString('ru-RU', { maximumFractionDigits: n < 1 ? 4 : 2 })
    const kind = modelKind(m)
    if (kind === 'image') {
      const drawn = Number(m.imageOutputUsd) > 0
      const picture = rub(drawn ? m.imageOutputUsd : m.imageUsd)
      return picture > 0 ? `${money(picture)} ₽ ${drawn ? PER_OUTPUT_IMAGE : PER_INPUT_IMAGE}` : null
    }
    const input = rub(m.promptUsd, 1_000_000)
    if (kind === 'embeddings') return input > 0 ? `${money(input)} ₽ за 1 млн входных токенов` : 'бесплатно'
    const output = rub(m.completionUsd, 1_000_000)
    if (input === 0 && output === 0) return 'бесплатно'
    return `${money(input)} ₽ за 1 млн входных и ${money(output)} ₽ за 1 млн выходных токенов`
  }

  /** Draws and stores a cover; returns its file name and cost. */
  async function drawCover(title: string, modelName: string) {
    const painter = painterModel()
    if (!painter) throw new RunError('в каталоге нет модели, которая рисует изображения')
    const modalities = painter.outputModalities.includes('text') ? ['image', 'text'] : ['image']
    const answer = await complete(painter, { messages: [{ role: 'user', content: coverPrompt(title, modelName) }], modalities, image_config: { aspect_ratio: '16:9' } }, 'обложка')
    for (const url of answer.images) {
      const name = await covers.saveDataUrl(url)
      if (name) return { name, costNanoUsd: answer.costNanoUsd, model: painter.id }
    }
    throw new RunError(`обложка: ${painter.id} не вернул изображение`, answer.costNanoUsd)
  }

  async function publish(run: AutopostRunRow, subject: ModelRow, article: Article, cover: string | null, cost: number, now: Date): Promise<BlogPost> {
    const id = newId()
    const base = slugify(article.title)
    await tx(db, async (q) => {
      const s = blogStore(q)
      // A slug another instance takes meanwhile is not an error: the insert skips it and the next one is tried.
      for (let attempt = 0; ; attempt++) {
        const taken = await s.slugsStartingLike(base)
        const slug = uniqueSlug(base, (candidate) => taken.has(candidate))
        const inserted = await s.insert({
          id,
          slug,
          ...article,
          coverImage: cover,
          modelId: subject.id,
          modelName: subject.name,
          views: 0,
          publishedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        if (inserted) break
        if (attempt >= 4) throw new Error(`no free address for ${base}`)
      }
      await s.updateRun(run.id, { status: 'succeeded', postId: id, costNanoUsd: cost, finishedAt: now })
    })
    return postToApi((await store.byId(id))!)
  }

  /** Writes, illustrates and publishes one article for an already claimed run. */
  async function writeArticle(run: AutopostRunRow): Promise<RunOutcome> {
    const label = run.kind === 'scheduled' ? `slot ${new Date(run.slot!).toISOString()}` : 'manual run'
    let cost = 0
    let cover: string | null = null
    try {
      const subject = await pickSubject()
      if (!subject) {
        const reason = 'все модели каталога уже описаны'
        await store.updateRun(run.id, { status: 'skipped', error: reason, finishedAt: new Date() })
        console.log(`[autopost] ${label}: nothing to write, ${reason}`)
        return { status: 'skipped', reason }
      }
      await store.updateRun(run.id, { modelId: subject.id })
      const writer = writerModel()
      if (!writer) throw new RunError('в каталоге нет текстовой модели, которая могла бы написать статью')
      console.log(`[autopost] ${label}: writing about ${subject.id} with ${writer.id}`)
      const answer = await complete(
        writer,
        {
          messages: articleMessages(subject, `${config.publicUrl}/v1`, pricesOf(subject)),
          response_format: ARTICLE_FORMAT,
          max_tokens: ARTICLE_MAX_TOKENS,
          temperature: 0.7,
        },
        'статья',
      )
      cost += answer.costNanoUsd
      const article = parseArticle(answer.content)
      try {
        const drawn = await drawCover(article.title, subject.name)
        cost += drawn.costNanoUsd
        cover = drawn.name
      } catch (e) {
        if (e instanceof RunError) cost += e.costNanoUsd
        console.warn(`[autopost] ${label}: publishing without a cover — ${(e as Error).message}`)
      }
      const post = await publish(run, subject, article, cover, cost, new Date())
      console.log(`[autopost] ${label}: published /blog/${post.slug} about ${subject.id} (cover: ${cover ? 'yes' : 'no'}, cost $${(cost / 1e9).toFixed(6)})`)
      return { status: 'succeeded', post }
    } catch (e) {
      covers.remove(cover)
      if (e instanceof RunError) cost += e.costNanoUsd
      const error = e instanceof RunError || e instanceof ArticleParseError ? e.message : `внутренняя ошибка: ${(e as Error).message}`
      await store.updateRun(run.id, { status: 'failed', error: error.slice(0, 500), costNanoUsd: cost, finishedAt: new Date() })
      console.error(`[autopost] ${label}: failed, nothing published — ${error}`)
      return { status: 'failed', error }
    }
  }

  /** Claims a run row and writes the article, one at a time in this process. */
  async function run(kind: 'scheduled' | 'manual', now: Date, slot: Date | null): Promise<RunOutcome> {
    if (writing) return { status: 'busy' }
    const row: AutopostRunRow = {
      id: newId(),
      kind,
      slot: slot ? +slot : null,
      status: 'running',
      modelId: null,
      postId: null,
      error: null,
      costNanoUsd: 0,
      startedAt: now,
      finishedAt: null,
    }
    // Taken before the claim is awaited, so a second call in this process meanwhile answers 'busy'.
    writing = true
    try {
      // Only the instance whose run row was inserted runs the slot (a unique slot, ON CONFLICT DO NOTHING).
      if (!(await store.claimRun(row))) return { status: 'taken' }
      console.log(`[autopost] ${kind === 'scheduled' ? `slot ${slot!.toISOString()}` : 'manual run'} started`)
      return await writeArticle(row)
    } finally {
      writing = false
    }
  }

  async function settingsToApi() {
    const s = await store.settings()
    return { isEnabled: s.isEnabled, startTime: s.startTime, intervalHours: s.intervalHours }
  }

  return {
    covers,

    /** The cron's entry point, once a minute; `now` is injectable so tests control the clock. */
    async tick(now = new Date()): Promise<RunOutcome> {
      const abandoned = await store.failAbandonedRuns(new Date(+now - abandonedAfterMs), now)
      if (abandoned) console.warn(`[autopost] marked ${abandoned} run(s) cut short by a restart as failed`)
      const slot = dueSlot(now, await store.settings())
      // Busy with a manual run: leave the slot unclaimed, a later tick inside the grace window takes it.
      if (!slot || writing) return { status: slot ? 'busy' : 'idle' }
      return run('scheduled', now, slot)
    },

    /** "Publish now" from the admin page: the same run, outside the schedule. */
    async runNow(now = new Date()): Promise<BlogPost> {
      const outcome = await run('manual', now, null)
      switch (outcome.status) {
        case 'succeeded':
          return outcome.post
        case 'skipped':
          throw conflict('Все модели каталога уже описаны — писать пока не о чем')
        case 'failed':
          throw new AppError(502, `Статья не опубликована: ${outcome.error}`)
        default:
          throw conflict('Статья уже пишется — подождите, пока она будет опубликована')
      }
    },

    settings: settingsToApi,

    /** Either {isEnabled} or {startTime, intervalHours} (both forms may be combined); validated here for Russian messages. */
    async updateSettings(input: { isEnabled?: unknown; startTime?: unknown; intervalHours?: unknown }, now = new Date()) {
      const current = await store.settings()
      const set: Parameters<typeof store.updateSettings>[0] = { updatedAt: now }
      if (input.isEnabled === undefined && input.startTime === undefined && input.intervalHours === undefined) throw badRequest(SETTINGS_MESSAGES.empty)
      if (input.isEnabled !== undefined) {
        if (typeof input.isEnabled !== 'boolean') throw badRequest(SETTINGS_MESSAGES.isEnabled)
        set.isEnabled = input.isEnabled
      }
      if (input.startTime !== undefined) {
        if (typeof input.startTime !== 'string' || !START_TIME_RE.test(input.startTime.trim())) throw badRequest(SETTINGS_MESSAGES.startTime)
        set.startTime = input.startTime.trim()
      }
      if (input.intervalHours !== undefined) {
        if (!isInterval(input.intervalHours)) throw badRequest(SETTINGS_MESSAGES.interval)
        set.intervalHours = input.intervalHours
      }
      // Switching on, or moving the schedule, starts it afresh: a slot that has already passed is not published late.
      const switchedOn = set.isEnabled === true && !current.isEnabled
      const moved = (set.startTime ?? current.startTime) !== current.startTime || (set.intervalHours ?? current.intervalHours) !== current.intervalHours
      if (switchedOn || moved) set.activeSince = now
      const s = await store.updateSettings(set)
      console.log(`[autopost] settings: ${s.isEnabled ? 'on' : 'off'}, from ${s.startTime} every ${s.intervalHours} h (Moscow time)`)
      return settingsToApi()
    },

    async stats(now = new Date()) {
      const { total, published } = await store.counts()
      const last = await store.lastArticleRun()
      const settings = await store.settings()
      // nextRunTime asks about one slot at most: the due one.
      const due = dueSlot(now, settings)
      const dueTaken = due ? await store.slotTaken(due) : false
      const next = nextRunTime(now, settings, (slot) => +slot === +due! && dueTaken)
      return {
        totalPosts: total,
        publishedPosts: published,
        lastRunTime: last?.startedAt.toISOString() ?? null,
        nextRunTime: next?.toISOString() ?? null,
        lastRun: last ? { status: last.status, modelId: last.modelId, postId: last.postId, error: last.error, finishedAt: last.finishedAt?.toISOString() ?? null } : null,
      }
    },

    /** Draws a new cover for an article and deletes the old file; a failure keeps the old cover. */
    async regenerateCover(postId: string, now = new Date()): Promise<BlogPost> {
      const post = await store.byId(postId)
      if (!post) throw notFound('Статья не найдена')
      const row: AutopostRunRow = {
        id: newId(),
        kind: 'cover',
        slot: null,
        status: 'running',
        modelId: post.modelId,
        postId,
        error: null,
        costNanoUsd: 0,
        startedAt: now,
        finishedAt: null,
      }
      await store.claimRun(row)
      let drawn: Awaited<ReturnType<typeof drawCover>>
      try {
        drawn = await drawCover(post.title, post.modelName)
      } catch (e) {
        const message = (e as Error).message
        await store.updateRun(row.id, { status: 'failed', error: message.slice(0, 500), costNanoUsd: e instanceof RunError ? e.costNanoUsd : 0, finishedAt: new Date() })
        console.error(`[autopost] new cover for /blog/${post.slug} failed — ${message}`)
        throw new AppError(502, 'Не удалось сгенерировать изображение. Попробуйте позже.')
      }
      const swapped = await store.replaceCover(postId, drawn.name, new Date())
      await store.updateRun(row.id, { status: 'succeeded', costNanoUsd: drawn.costNanoUsd, finishedAt: new Date() })
      if (!swapped) {
        covers.remove(drawn.name)
        throw notFound('Статья не найдена')
      }
      covers.remove(swapped.previous)
      console.log(`[autopost] new cover for /blog/${post.slug} drawn by ${drawn.model}`)
      return postToApi((await store.byId(postId))!)
    },

    /** Deletes an article and its cover file. */
    async removePost(postId: string) {
      const removed = await store.remove(postId)
      if (!removed) throw notFound('Статья не найдена')
      covers.remove(removed.coverImage)
      console.log(`[autopost] article /blog/${removed.slug} deleted`)
    },
  }
}

export type AutopostService = ReturnType<typeof autopostService>
