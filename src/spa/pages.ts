// What the server knows about each page of the SPA: its metadata, the text crawlers get without
// JavaScript, the HTTP status, and which lazily loaded chunk the browser will need for it.
// Keep KNOWN in step with web/app/router.tsx: other paths answer 404 (the SPA then goes home).

import { type BlogPost, blogService } from '../blog/service'
import type { Catalog } from '../catalog/service'
import type { Config } from '../config'
import { docsDocument } from '../content/docs'
import { AUDIENCE, FEATURES, HERO, PRODUCT_CARDS, type TextCard, USE_CASES } from '../content/landing'
import { type LegalSlug, legalDocuments } from '../content/legal'
import { renderMarkdown } from '../content/markdown'
import {
  contextText,
  headlinePrice,
  isEmbeddingModel,
  isSpeechModel,
  isTranscriptionModel,
  MODEL_TYPE_TEXT,
  type Model,
  modelType,
  priceLines,
  priceLineText,
  providerLabel,
  providerOf,
  publicModelHref,
} from '../content/models/catalog'
import { modelMeta, modelsMeta, NOT_FOUND_MODEL_META } from '../content/models/meta'
import { modelSnippets } from '../content/models/snippets'
import { type PublicSeller, publicSeller, sellerFooter } from '../content/seller'
import { metaForPath, type PageMeta, postMeta } from '../content/seo'
import { servicesDocument } from '../content/services'
import { pickShowcase, type ShowcaseModel, splitModelName } from '../content/showcase'
import { averageUptime, formatDay, formatDuration, formatMoscow, formatUptime, STATE_LABELS, STATUS_HEADLINES, STATUS_TEXT } from '../content/status'
import { PROVIDER, SUPPORT } from '../content/terms'
import type { Db } from '../db/types'
import { type Dec, dec } from '../lib/decimal'
import type { Status } from '../status/model'
import { documentHtml, esc, inlineHtml } from './render'

export interface PageDeps {
  config: Pick<Config, 'publicUrl' | 'testPaymentsBanner' | 'markup'> & { seller?: Config['seller'] }
  db: Db
  catalog: Pick<Catalog, 'list' | 'get' | 'toApi'>
  /** The dollar rate: without it there are no ruble prices (the catalogue pages then say so). */
  rates: { current(): Dec | null }
  /** The service's state for /status (absent: the page says it cannot be shown). */
  status?: { current(): Promise<Status> }
}

/** The catalogue as GET /v1/models sends it (ruble prices); empty while the rate is unknown. */
export function publicModels(deps: PageDeps): Model[] {
  const rate = deps.rates.current()
  if (!rate) return []
  const markup = dec(String(deps.config.markup))
  return deps.catalog.list().map((m) => deps.catalog.toApi(m, rate, markup) as Model)
}

/**
 * The landing's nine models with the price each is compared by, in rubles (headlinePrice: per 1M
 * tokens, or per picture drawn); no price while the rate is unknown.
 */
export function showcaseModels(deps: PageDeps): ShowcaseModel[] {
  const rate = deps.rates.current()
  const markup = dec(String(deps.config.markup))
  return pickShowcase(deps.catalog.list()).map((m) => {
    const price = rate ? headlinePrice(deps.catalog.toApi(m, rate, markup) as Model) : ''
    return price ? { id: m.id, name: m.name, price } : { id: m.id, name: m.name }
  })
}

export interface RenderedPage {
  status: number
  meta: PageMeta
  /** Semantic HTML of the page's content (sent inside <noscript>). */
  body: string
  /** Source module of the lazy chunk the page renders (build-manifest.json `lazy` key). */
  chunk?: string
}

/** How many articles /blog lists (the page asks the API for the same number). */
export const BLOG_LIST_LIMIT = 100

const LEGAL: Record<string, LegalSlug> = {
  '/privacy-policy': 'privacy-policy',
  '/terms-of-service': 'terms-of-service',
  '/public-offer': 'public-offer',
  '/refund-policy': 'refund-policy',
}

/** /models and /models/{id}: one lazy chunk (web/app/router.tsx). */
export const PUBLIC_CATALOGUE_CHUNK = 'web/features/models/public-catalogue.tsx'

const CHUNKS: Record<string, string> = {
  '/login': 'web/features/auth/login-page.tsx',
  '/register': 'web/features/auth/register-page.tsx',
  '/forgot-password': 'web/features/auth/forgot-password-page.tsx',
  '/auth/authorize': 'web/features/oauth/authorize-page.tsx',
  '/blog': 'web/features/blog/blog-list-page.tsx',
  '/docs': 'web/features/docs/docs-page.tsx',
  '/services': 'web/features/services/services-page.tsx',
  '/status': 'web/features/status/status-page.tsx',
  '/models': PUBLIC_CATALOGUE_CHUNK,
  ...Object.fromEntries(Object.keys(LEGAL).map((p) => [p, 'web/features/legal/legal-page.tsx'])),
}
const PREFIX_CHUNKS: Array<[prefix: string, chunk: string]> = [
  ['/blog/', 'web/features/blog/blog-post-page.tsx'],
  ['/models/', PUBLIC_CATALOGUE_CHUNK],
  ['/reset-password/', 'web/features/auth/reset-password-page.tsx'],
  ['/verify-email/', 'web/features/auth/verify-email-page.tsx'],
  ['/invite/', 'web/features/teams/invite-page.tsx'],
  ['/pay/test/', 'web/features/payments/test-payment-page.tsx'],
  ['/app/', 'web/app/app-area.tsx'],
]
const KNOWN = new Set(['/', '/app', ...Object.keys(CHUNKS)])

const SITE_LINKS: Array<[string, string]> = [
  ['/', 'Главная'],
  ['/blog', 'Блог'],
  ['/docs', 'Документация'],
  ['/services', 'Услуги'],
  ['/status', 'Состояние сервиса'],
  ['/models', 'Модели'],
  ['/app/playground', 'Playground'],
  ['/public-offer', 'Публичная оферта'],
  ['/terms-of-service', 'Пользовательское соглашение'],
  ['/privacy-policy', 'Политика конфиденциальности'],
  ['/refund-policy', 'Политика возврата'],
  ['/register', 'Регистрация'],
  ['/login', 'Войти'],
]

const longDate = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Moscow' })
const shortDate = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'Europe/Moscow' })
const integer = new Intl.NumberFormat('ru-RU')
const dateHtml = (iso: string | null, format: Intl.DateTimeFormat) => (iso ? `<time datetime="${esc(iso)}">${esc(format.format(new Date(iso)))}</time>` : '')
/** The same readable query values the SPA links use ('/' and ':' kept). */
const queryValue = (value: string) => encodeURIComponent(value).replace(/%2F/gi, '/').replace(/%3A/gi, ':')

function siteNav(): string {
  return `<nav aria-label="Разделы сайта"><ul>${SITE_LINKS.map(([href, label]) => `<li><a href="${href}">${esc(label)}</a></li>`).join('')}</ul></nav>`
}

function providerFooter(seller: PublicSeller | null): string {
  const { who, ids } = sellerFooter(seller)
  return (
    `<footer><p>${esc(who.join(', '))} · ${esc(ids)} · <a href="mailto:${esc(PROVIDER.email)}">${esc(PROVIDER.email)}</a> · ` +
    `${esc(PROVIDER.messenger.name)}: <a href="${esc(PROVIDER.messenger.url)}">${esc(PROVIDER.messenger.handle)}</a> · поддержка ${esc(SUPPORT.hours)}</p>` +
    `<p>${esc(PROVIDER.upstreamNote)}</p><p>© ${PROVIDER.copyrightYear} AI Gateway</p></footer>`
  )
}

const cards = (list: TextCard[]) => `<ul>${list.map((c) => `<li><h3>${esc(c.title)}</h3><p>${inlineHtml(c.text)}</p></li>`).join('')}</ul>`

function postListHtml(posts: BlogPost[]): string {
  return `<ul>${posts
    .map(
      (p) =>
        `<li><article><h3><a href="/blog/${esc(encodeURIComponent(p.slug))}">${esc(p.title)}</a></h3>` +
        `<p>${esc(p.modelName)} · ${dateHtml(p.publishedAt, shortDate)} · просмотров: ${esc(integer.format(p.views))}</p><p>${esc(p.description)}</p></article></li>`,
    )
    .join('')}</ul>`
}

function landingHtml(deps: PageDeps, posts: BlogPost[]): string {
  const models = showcaseModels(deps)
  return [
    `<h1>${esc(HERO.title)}</h1><p>${esc(HERO.lead)}</p><ul>${HERO.facts.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>`,
    `<p><a href="/register">Попробовать бесплатно</a> · <a href="/app/playground">Открыть Playground</a></p>`,
    `<section id="features"><h2>Возможности</h2>${cards(FEATURES)}</section>`,
    `<section id="audience"><h2>Для кого</h2>${cards(AUDIENCE)}</section>`,
    `<section id="models"><h2>Каталог из 300+ моделей</h2><ul>${models
      .map((m) => `<li><a href="${esc(publicModelHref(m.id))}">${esc(splitModelName(m.name).model)}</a> (${esc(m.id)})${m.price ? ` — ${esc(m.price)}` : ''}</li>`)
      .join('')}</ul><p><a href="/models">Смотреть каталог</a></p></section>`,
    `<section id="use-cases"><h2>Применение</h2>${cards(USE_CASES)}</section>`,
    `<section id="playground"><h2>Playground, цены и аналитика</h2><ul>${PRODUCT_CARDS.map(
      (c) => `<li><h3>${esc(c.title)}</h3><p>${esc(c.text)}</p><ul>${c.points.map((p) => `<li>${esc(p)}</li>`).join('')}</ul><a href="${c.href}">${esc(c.cta)}</a></li>`,
    ).join('')}</ul></section>`,
    posts.length ? `<section><h2>Последние статьи о моделях</h2>${postListHtml(posts)}<p><a href="/blog">Все статьи</a></p></section>` : '',
    `<p><a href="/register">Создать аккаунт</a> · <a href="/login">Войти в систему</a></p>`,
  ].join('\n')
}

function postHtml(p: BlogPost): string {
  return (
    `<article><p><a href="/blog">← Все статьи</a></p><p>Обзор модели · ${esc(p.modelName)}</p><h1>${esc(p.title)}</h1><p>${esc(p.description)}</p>` +
    `<p>${dateHtml(p.publishedAt, longDate)} · просмотров: ${esc(integer.format(p.views))}</p>` +
    (p.coverImage ? `<img src="${esc(p.coverImage)}" alt="${esc(`Обложка статьи «${p.title}»`)}">` : '') +
    `\n<div>${renderMarkdown(p.content)}</div>\n` +
    `<p><a href="/app/playground?model=${esc(queryValue(p.modelId))}">Открыть в Playground</a> · <a href="${esc(publicModelHref(p.modelId))}">Найти в каталоге</a></p>` +
    (p.keywords.length ? `<ul>${p.keywords.map((k) => `<li>#${esc(k)}</li>`).join('')}</ul>` : '') +
    `</article>`
  )
}

// ─── public catalogue ────────────────────────────────────────────────────────

const modelPricesHtml = (m: Model) =>
  `<ul>${priceLines(m)
    .map((l) => `<li>${esc(priceLineText(l))}</li>`)
    .join('')}</ul>`

function modelTypeText(m: Model): string {
  if (isEmbeddingModel(m)) return 'Эмбеддинги'
  if (isSpeechModel(m) || isTranscriptionModel(m)) return MODEL_TYPE_TEXT[modelType(m)]
  const parts = [m.capabilities?.image ? 'Генерация изображений' : 'Текст']
  if (m.capabilities?.vision) parts.push('понимает изображения')
  return parts.join(', ')
}

function modelsListHtml(models: Model[]): string {
  if (!models.length) return '<h1>Каталог AI-моделей</h1><p>Каталог обновляется — загляните чуть позже.</p>'
  return (
    `<h1>Каталог AI-моделей с ценами в рублях</h1><p>Моделей: ${esc(integer.format(models.length))}. Цены за 1M токенов, за входное и сгенерированное изображение, за 1M символов озвучки и за минуту распознавания, в рублях.</p>` +
    `<ul>${models
      .map(
        (m) =>
          `<li><article><h2><a href="${esc(publicModelHref(m.id))}">${esc(m.name || m.id)}</a></h2><p>${esc(m.id)} · ${esc(providerLabel(providerOf(m.id)))} · ${esc(modelTypeText(m))}` +
          `${contextText(m.context_length) ? ` · ${esc(contextText(m.context_length)!)}` : ''}</p>${modelPricesHtml(m)}</article></li>`,
      )
      .join('')}</ul>`
  )
}

function modelHtml(m: Model, origin: string): string {
  const snippets = modelSnippets(m, origin)
  return (
    `<article><p><a href="/models">← Все модели</a></p><p>${esc(providerLabel(providerOf(m.id)))}</p><h1>${esc(m.name || m.id)}</h1><p><code>${esc(m.id)}</code></p>` +
    `<p>${m.description ? esc(m.description) : 'Описание не указано.'}</p>` +
    `<h2>Цены в рублях</h2>${modelPricesHtml(m)}` +
    `<h2>Характеристики</h2><ul><li>Тип: ${esc(modelTypeText(m))}</li>${contextText(m.context_length) ? `<li>Контекст: ${esc(integer.format(m.context_length))} токенов</li>` : ''}</ul>` +
    `<h2>Пример запроса</h2>${snippets.map((s) => `<h3>${esc(s.title)}</h3><pre><code>${esc(s.code)}</code></pre>`).join('')}` +
    (isEmbeddingModel(m) ? '' : `<p><a href="/app/playground?model=${esc(queryValue(m.id))}">Попробовать в Playground</a></p>`) +
    `<p><a href="/register">Создать аккаунт</a> · <a href="/docs">Документация</a></p></article>`
  )
}

// ─── status ──────────────────────────────────────────────────────────────────

function statusHtml(s: Status | undefined): string {
  const head = `<h1>${esc(STATUS_TEXT.title)}</h1><p>${esc(STATUS_TEXT.lead)}</p>`
  if (!s) return `${head}<p>Состояние сервиса сейчас не удалось получить.</p>`
  const down = s.days.filter((d) => d.uptime < 1)
  return (
    `${head}<p><strong>${esc(STATUS_HEADLINES[s.status])}</strong> · обновлено ${esc(formatMoscow(s.updatedAt))} МСК</p>` +
    `<h2>${esc(STATUS_TEXT.now)}</h2><ul>${s.components.map((c) => `<li>${esc(c.name)}: ${esc(STATE_LABELS[c.state])}${c.note ? ` (${esc(c.note)})` : ''}</li>`).join('')}</ul>` +
    `<h2>${esc(STATUS_TEXT.uptime)}</h2><p>${esc(formatUptime(averageUptime(s.days)))} в среднем. ${esc(STATUS_TEXT.uptimeNote)}</p>` +
    (down.length ? `<ul>${down.map((d) => `<li>${esc(formatDay(d.date))}: ${esc(formatUptime(d.uptime))}</li>`).join('')}</ul>` : '') +
    `<h2>${esc(STATUS_TEXT.incidents)}</h2>` +
    (s.incidents.length
      ? `<table><thead><tr>${STATUS_TEXT.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${s.incidents
          .map(
            (i) =>
              `<tr><td>${esc(formatMoscow(i.startedAt))}</td><td>${i.endedAt ? esc(formatMoscow(i.endedAt)) : esc(STATUS_TEXT.ongoing)}</td>` +
              `<td>${esc(formatDuration(i.durationSec))}</td><td>${esc(i.what)}</td></tr>`,
          )
          .join('')}</tbody></table>`
      : `<p>${esc(STATUS_TEXT.noIncidents)}</p>`)
  )
}

/** '/models/openai/gpt-4o' or '/models/openai%2Fgpt-4o' → 'openai/gpt-4o' (null: not decodable). */
export function modelIdFromPath(path: string): string | null {
  try {
    return decodeURIComponent(path.slice('/models/'.length))
  } catch {
    return null
  }
}

function chunkFor(path: string): string | undefined {
  return CHUNKS[path] ?? PREFIX_CHUNKS.find(([prefix]) => path.startsWith(prefix) && path.length > prefix.length)?.[1]
}

const isKnown = (path: string) => KNOWN.has(path) || PREFIX_CHUNKS.some(([prefix]) => path.startsWith(prefix) && path.length > prefix.length)

export async function resolvePage(rawPath: string, deps: PageDeps): Promise<RenderedPage> {
  const origin = deps.config.publicUrl
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath
  const chunk = chunkFor(path)
  const seller = publicSeller(deps.config.seller ?? null)
  const wrap = (content: string) => `${content}\n${siteNav()}\n${providerFooter(seller)}`
  const blog = blogService(deps.db)

  if (path.startsWith('/blog/') && path.length > '/blog/'.length) {
    let slug: string
    try {
      slug = decodeURIComponent(path.slice('/blog/'.length))
    } catch {
      slug = ''
    }
    const post = slug && !slug.includes('/') ? await blog.findBySlug(slug) : undefined
    if (!post) {
      return {
        status: 404,
        meta: { title: 'Статья не найдена — AI Gateway', description: 'Такой статьи нет или она снята с публикации.', path, noindex: true },
        body: wrap('<h1>Статья не найдена</h1><p><a href="/blog">Вернуться к блогу</a></p>'),
        chunk,
      }
    }
    return { status: 200, meta: postMeta(post, origin), body: wrap(postHtml(post)), chunk }
  }

  if (path === '/models') {
    const models = publicModels(deps)
    return { status: 200, meta: modelsMeta(models, origin), body: wrap(modelsListHtml(models)), chunk }
  }
  if (path.startsWith('/models/') && path.length > '/models/'.length) {
    const id = modelIdFromPath(path)
    const row = id ? deps.catalog.get(id) : undefined
    const rate = deps.rates.current()
    const model = row && rate ? (deps.catalog.toApi(row, rate, dec(String(deps.config.markup))) as Model) : undefined
    if (!model) {
      return {
        status: 404,
        meta: NOT_FOUND_MODEL_META(path),
        body: wrap('<h1>Модель не найдена</h1><p>Такой модели нет в каталоге или она больше не доступна.</p><p><a href="/models">Все модели</a></p>'),
        chunk,
      }
    }
    return { status: 200, meta: modelMeta(model, origin), body: wrap(modelHtml(model, origin)), chunk }
  }

  const meta = metaForPath(path, origin, seller)
  if (!isKnown(path)) return { status: 404, meta: { ...meta, noindex: true }, body: wrap('<p>Страница не найдена.</p>') }

  let content = '<p>Для работы AI Gateway включите JavaScript в браузере.</p>'
  if (path === '/') content = landingHtml(deps, await blog.list(3))
  else if (path === '/blog') {
    const posts = await blog.list(BLOG_LIST_LIMIT)
    content = `<h1>Статьи о новых AI-моделях</h1>${posts.length ? postListHtml(posts) : '<p>Статей пока нет.</p>'}`
  } else if (LEGAL[path]) content = documentHtml(legalDocuments(seller)[LEGAL[path]!], true)
  else if (path === '/services') content = `${documentHtml(servicesDocument(seller))}<p><a href="/register">Зарегистрироваться</a> · <a href="/docs">Документация</a></p>`
  else if (path === '/docs' || path === '/app/docs') content = documentHtml(docsDocument(origin))
  else if (path === '/status') content = statusHtml(await deps.status?.current().catch(() => undefined))
  return { status: 200, meta, body: wrap(content), chunk }
}
