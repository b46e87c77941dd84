// Page metadata for search engines and link previews: one table and one set of builders shared by
// the server (src/spa puts them into the HTML it sends, for crawlers without JavaScript) and the
// browser (web/lib/head.ts keeps document.head in step while the visitor navigates). Pure: no DOM.
import { type PublicSeller, sellerParty } from './seller'
import { BRAND, PROVIDER, SUPPORT } from './terms'

export const SITE_NAME = BRAND
export const DEFAULT_TITLE = 'AI Gateway — доступ к 300+ AI-моделям в рублях'
export const DEFAULT_DESCRIPTION =
  'Единый OpenAI-совместимый API и Playground для 300+ AI-моделей: GPT, Claude, Gemini, Llama, генерация изображений. Оплата в рублях российскими картами, только за использование.'
/** The link-preview picture (public/og-image.png, 1200×630). */
export const DEFAULT_IMAGE = '/og-image.png'
export const LOCALE = 'ru_RU'

export interface ArticleMeta {
  publishedTime?: string | null
  modifiedTime?: string | null
  author?: string
  section?: string
  tags?: readonly string[]
}

export interface PageMeta {
  /** The whole <title>. */
  title: string
  description: string
  keywords?: readonly string[]
  /** Canonical path on this site ('/', '/blog/slug'); the query string never belongs here. */
  path: string
  type?: 'website' | 'article'
  /** A site path or an absolute URL. */
  image?: string | null
  imageAlt?: string
  /** Pages behind sign-in, one-time links and unknown paths stay out of search results. */
  noindex?: boolean
  article?: ArticleMeta
  /** schema.org objects, each one <script type="application/ld+json">. */
  jsonLd?: readonly object[]
}

/** One tag of <head> that the metadata produces (title is set separately). */
export type HeadTag = { kind: 'meta'; attrs: Record<string, string> } | { kind: 'link'; attrs: Record<string, string> } | { kind: 'jsonld'; json: object }

export const absoluteUrl = (origin: string, pathOrUrl: string) =>
  /^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : `${origin.replace(/\/+$/, '')}${pathOrUrl.startsWith('/') ? '' : '/'}${pathOrUrl}`

// A title that already names the brand at its end ('… | AI Gateway', '… — AI Gateway', as generated
// articles write their metaTitle) keeps one suffix: never '… | AI Gateway — AI Gateway'.
const BRAND_SUFFIX = new RegExp(`\\s*[|—–-]\\s*${BRAND.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'i')

/** '<title> — AI Gateway', once, whatever suffix the title came with. */
export function withBrand(title: string): string {
  const bare = title.replace(BRAND_SUFFIX, '').trim()
  return bare && bare !== BRAND ? `${bare} — ${BRAND}` : BRAND
}

// ─── structured data ─────────────────────────────────────────────────────────

/** The service as search engines read it; with SELLER_* set, the same party as the offer and the invoices. */
export function organizationLd(origin: string, seller: PublicSeller | null = null) {
  return {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    '@id': `${origin}/#organization`,
    name: BRAND,
    ...(seller ? { legalName: seller.name, taxID: seller.inn } : {}),
    url: `${origin}/`,
    logo: absoluteUrl(origin, '/logo.png'),
    email: PROVIDER.email,
    description: `${seller ? sellerParty(seller) : PROVIDER.status}. ${PROVIDER.upstreamNote}`,
    contactPoint: {
      '@type': 'ContactPoint',
      contactType: 'customer support',
      email: PROVIDER.email,
      availableLanguage: ['Russian'],
      hoursAvailable: {
        '@type': 'OpeningHoursSpecification',
        dayOfWeek: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
        opens: SUPPORT.from,
        closes: SUPPORT.to,
      },
    },
    sameAs: [PROVIDER.messenger.url],
  }
}

/** The site with its search: search engines may offer a box that opens the model catalogue. */
export function websiteLd(origin: string) {
  return {
    '@context': 'https://schema.org',
    '@type': 'WebSite',
    '@id': `${origin}/#website`,
    name: BRAND,
    url: `${origin}/`,
    inLanguage: 'ru-RU',
    publisher: { '@id': `${origin}/#organization` },
    potentialAction: {
      '@type': 'SearchAction',
      target: { '@type': 'EntryPoint', urlTemplate: `${origin}/models?search={search_term_string}` },
      'query-input': 'required name=search_term_string',
    },
  }
}

export function webPageLd(origin: string, type: string, meta: Pick<PageMeta, 'title' | 'description' | 'path'>) {
  return {
    '@context': 'https://schema.org',
    '@type': type,
    name: meta.title,
    description: meta.description,
    url: absoluteUrl(origin, meta.path),
    inLanguage: 'ru-RU',
    isPartOf: { '@type': 'WebSite', name: BRAND, url: `${origin}/` },
  }
}

// ─── static pages ────────────────────────────────────────────────────────────

interface StaticPage {
  title: string
  description: string
  keywords?: readonly string[]
  noindex?: boolean
  /** schema.org type of the page; the landing gets Organization + WebSite instead. */
  schema?: string
}

const LANDING_KEYWORDS = [
  'AI API',
  'API нейросетей',
  'OpenAI API в рублях',
  'ChatGPT API',
  'GPT-4o API',
  'Claude API',
  'Gemini API',
  'Llama API',
  'генерация изображений API',
  'OpenAI-совместимый API',
  'AI-модели',
  'оплата картой РФ',
]

export const STATIC_PAGES: Record<string, StaticPage> = {
  '/': { title: DEFAULT_TITLE, description: DEFAULT_DESCRIPTION, keywords: LANDING_KEYWORDS },
  '/blog': {
    title: withBrand('Блог о новых AI-моделях'),
    description: 'Статьи о новых AI-моделях: возможности, сценарии применения и цены в рублях. Попробуйте каждую модель в Playground AI Gateway.',
    keywords: ['блог AI', 'новые AI-модели', 'обзоры нейросетей', 'LLM', 'генерация изображений'],
    schema: 'Blog',
  },
  '/docs': {
    title: withBrand('Документация API'),
    description:
      'Как подключиться к AI Gateway: API ключи, оплата, запросы через curl и официальные SDK OpenAI для JavaScript и Python, потоковые ответы, генерация изображений, коды ошибок.',
    keywords: ['документация API', 'OpenAI SDK', 'chat completions', 'streaming', 'генерация изображений API', 'insufficient_balance'],
    schema: 'TechArticle',
  },
  '/status': {
    title: withBrand('Состояние сервиса'),
    description: 'Работают ли API, провайдеры моделей и платежи AI Gateway сейчас; сбои и доступность по дням за последние 90 дней.',
    keywords: ['статус AI Gateway', 'доступность API', 'сбои'],
  },
  '/services': {
    title: withBrand('Услуги и цены'),
    description: 'Доступ к AI-моделям по API и в Playground с оплатой в рублях: что входит в услугу, как считается цена, как начать.',
    keywords: ['AI API цены', 'доступ к нейросетям', 'оплата в рублях'],
  },
  '/privacy-policy': {
    title: withBrand('Политика конфиденциальности'),
    description: 'Какие персональные данные обрабатывает AI Gateway, зачем, сколько хранит и как их защищает.',
  },
  '/terms-of-service': {
    title: withBrand('Пользовательское соглашение'),
    description: 'Условия использования сервиса AI Gateway: аккаунт, API ключи, допустимое использование, доступность, ответственность.',
  },
  '/public-offer': {
    title: withBrand('Публичная оферта'),
    description: 'Договор оказания услуг доступа к AI-моделям: предмет, цена и порядок расчётов, пополнение баланса, возврат, ответственность сторон.',
  },
  '/refund-policy': {
    title: withBrand('Политика возврата средств'),
    description: 'Условия и сроки возврата неиспользованного остатка баланса AI Gateway.',
  },
  '/models': {
    title: `Каталог AI-моделей с ценами в рублях | ${BRAND}`,
    description:
      'Все AI-модели AI Gateway с ценами в рублях за 1M токенов и за каждое изображение: GPT, Claude, Gemini, Llama, DeepSeek, генерация изображений, эмбеддинги. Контекст, возможности и пример запроса для каждой.',
    keywords: ['каталог AI-моделей', 'цены AI API в рублях', 'GPT API', 'Claude API', 'Gemini API', 'эмбеддинги API'],
    schema: 'CollectionPage',
  },
  '/login': { title: withBrand('Вход'), description: 'Вход в личный кабинет AI Gateway.' },
  '/register': {
    title: withBrand('Регистрация'),
    description: 'Создайте аккаунт AI Gateway за 30 секунд и получите приветственный бонус на баланс.',
  },
  '/forgot-password': { title: withBrand('Восстановление пароля'), description: 'Восстановление доступа к аккаунту AI Gateway.', noindex: true },
  '/app/dashboard': { title: withBrand('Дашборд'), description: 'Баланс, расходы и быстрый старт в личном кабинете AI Gateway.', noindex: true },
  '/app/playground': {
    title: withBrand('Playground'),
    description: 'Чат с AI-моделями в браузере: файлы, настройки температуры и токенов, цена запроса до отправки.',
    noindex: true,
  },
  '/app/models': {
    title: withBrand('Каталог моделей'),
    description: 'Каталог AI-моделей с ценами в рублях: GPT, Claude, Gemini, Llama, DeepSeek, модели генерации изображений. Поиск и фильтр по провайдерам.',
    keywords: ['каталог AI-моделей', 'цены AI API', 'GPT', 'Claude', 'Gemini', 'Llama'],
    noindex: true,
    schema: 'CollectionPage',
  },
  '/app/api-keys': { title: withBrand('API ключи'), description: 'Создание и управление API ключами AI Gateway.', noindex: true },
  '/app/billing': { title: withBrand('Баланс'), description: 'Баланс, пополнение и история операций AI Gateway.', noindex: true },
  '/app/usage': { title: withBrand('Статистика'), description: 'Статистика использования AI-моделей: расходы, токены, запросы.', noindex: true },
  '/app/activity': { title: withBrand('Журнал запросов'), description: 'Каждый запрос к AI-моделям: модель, ключ, токены, стоимость и её расчёт.', noindex: true },
  '/app/docs': {
    title: withBrand('Документация'),
    description: 'Как подключиться к AI Gateway: API ключи, оплата, запросы через curl и SDK OpenAI, потоковые ответы, генерация изображений, коды ошибок.',
    noindex: true,
    schema: 'TechArticle',
  },
  '/app/admin': { title: withBrand('Админ-панель'), description: 'Администрирование AI Gateway.', noindex: true },
}

/** The canonical form of a path: no query, no trailing slash (except the root). */
export function canonicalPath(path: string): string {
  const bare = path.split(/[?#]/, 1)[0] || '/'
  return bare.length > 1 ? bare.replace(/\/+$/, '') || '/' : '/'
}

/** Metadata of any path that is not a blog post: the static table, else a neutral noindex default. */
export function metaForPath(path: string, origin: string, seller: PublicSeller | null = null): PageMeta {
  const clean = canonicalPath(path)
  const exact = STATIC_PAGES[clean]
  if (clean === '/') {
    return { ...STATIC_PAGES['/']!, path: '/', jsonLd: [organizationLd(origin, seller), websiteLd(origin)] }
  }
  if (exact) {
    const meta: PageMeta = { title: exact.title, description: exact.description, keywords: exact.keywords, path: clean, noindex: exact.noindex }
    return { ...meta, jsonLd: [webPageLd(origin, exact.schema ?? 'WebPage', meta)] }
  }
  if (clean.startsWith('/app/admin')) return { ...pick('/app/admin'), path: clean, noindex: true }
  if (clean.startsWith('/reset-password/')) return { title: withBrand('Новый пароль'), description: 'Смена пароля по ссылке из письма.', path: clean, noindex: true }
  if (clean.startsWith('/verify-email/')) return { title: withBrand('Подтверждение e-mail'), description: 'Подтверждение адреса по ссылке из письма.', path: clean, noindex: true }
  if (clean.startsWith('/invite/')) return { title: withBrand('Приглашение в команду'), description: 'Приглашение в команду по ссылке из письма.', path: clean, noindex: true }
  if (clean.startsWith('/pay/')) return { title: withBrand('Оплата'), description: 'Оплата пополнения баланса.', path: clean, noindex: true }
  if (clean.startsWith('/blog/')) return { ...pick('/blog'), path: clean }
  return { title: DEFAULT_TITLE, description: DEFAULT_DESCRIPTION, path: clean, noindex: true }
}

const pick = (key: string) => {
  const p = STATIC_PAGES[key]!
  return { title: p.title, description: p.description, keywords: p.keywords }
}

// ─── blog posts ──────────────────────────────────────────────────────────────

/** The fields of a published article that its metadata needs (the public Post shape). */
export interface PostForMeta {
  slug: string
  title: string
  description: string
  metaTitle: string
  metaDescription: string
  keywords: readonly string[]
  coverImage: string | null
  modelName: string
  publishedAt: string | null
}

export function postMeta(post: PostForMeta, origin: string): PageMeta {
  const path = `/blog/${post.slug}`
  const title = withBrand(post.metaTitle || post.title)
  const description = post.metaDescription || post.description
  const image = post.coverImage ?? DEFAULT_IMAGE
  return {
    title,
    description,
    keywords: post.keywords,
    path,
    type: 'article',
    image,
    imageAlt: post.title,
    article: { publishedTime: post.publishedAt, modifiedTime: post.publishedAt, author: BRAND, section: post.modelName, tags: post.keywords },
    jsonLd: [
      {
        '@context': 'https://schema.org',
        '@type': 'BlogPosting',
        headline: post.title,
        description,
        image: [absoluteUrl(origin, image)],
        datePublished: post.publishedAt ?? undefined,
        dateModified: post.publishedAt ?? undefined,
        inLanguage: 'ru-RU',
        keywords: post.keywords.join(', ') || undefined,
        about: post.modelName,
        url: absoluteUrl(origin, path),
        mainEntityOfPage: { '@type': 'WebPage', '@id': absoluteUrl(origin, path) },
        author: { '@type': 'Organization', name: BRAND, url: `${origin}/` },
        publisher: {
          '@type': 'Organization',
          name: BRAND,
          url: `${origin}/`,
          logo: { '@type': 'ImageObject', url: absoluteUrl(origin, '/logo.png') },
        },
      },
    ],
  }
}

// ─── tags ────────────────────────────────────────────────────────────────────

/** Every <head> tag the metadata stands for, in a stable order (title excluded). */
export function headTags(meta: PageMeta, origin: string): HeadTag[] {
  const url = absoluteUrl(origin, canonicalPath(meta.path))
  const image = absoluteUrl(origin, meta.image ?? DEFAULT_IMAGE)
  const named = (name: string, content: string): HeadTag => ({ kind: 'meta', attrs: { name, content } })
  const property = (prop: string, content: string): HeadTag => ({ kind: 'meta', attrs: { property: prop, content } })
  const tags: HeadTag[] = [named('description', meta.description)]
  if (meta.keywords?.length) tags.push(named('keywords', meta.keywords.join(', ')))
  tags.push(named('robots', meta.noindex ? 'noindex, nofollow' : 'index, follow, max-image-preview:large'))
  tags.push({ kind: 'link', attrs: { rel: 'canonical', href: url } })
  tags.push(
    property('og:type', meta.type ?? 'website'),
    property('og:site_name', SITE_NAME),
    property('og:locale', LOCALE),
    property('og:title', meta.title),
    property('og:description', meta.description),
    property('og:url', url),
    property('og:image', image),
    property('og:image:alt', meta.imageAlt ?? SITE_NAME),
  )
  const a = meta.article
  if (meta.type === 'article' && a) {
    if (a.publishedTime) tags.push(property('article:published_time', a.publishedTime))
    if (a.modifiedTime) tags.push(property('article:modified_time', a.modifiedTime))
    if (a.author) tags.push(property('article:author', a.author))
    if (a.section) tags.push(property('article:section', a.section))
    for (const tag of a.tags ?? []) tags.push(property('article:tag', tag))
  }
  tags.push(named('twitter:card', 'summary_large_image'), named('twitter:title', meta.title), named('twitter:description', meta.description), named('twitter:image', image))
  for (const json of meta.jsonLd ?? []) tags.push({ kind: 'jsonld', json })
  return tags
}

/** JSON for a <script> element: `<` is escaped so no text can close the element early. */
export const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
