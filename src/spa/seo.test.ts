// What a search engine or a link preview gets without running JavaScript: the real server, plain
// HTTP fetches (like curl), articles seeded through the blog's store on the server's database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { seedBlogPost } from '../blog/store'
import { LEGAL_DOCUMENTS } from '../content/legal'
import { renderMarkdown, safeUrl } from '../content/markdown'
import { headlinePrice, type Model } from '../content/models/catalog'
import { pickShowcase, splitModelName } from '../content/showcase'
import { AVAILABILITY_PERCENT, LIABILITY_CAP_DAYS, MARKUP_PERCENT, MIN_AGE, REFUND, RETENTION, TOP_UP, WELCOME_BONUS_RUB } from '../content/terms'
import { openDatabase } from '../db/client'
import { startServer, type TestServer } from '../test-support/server'

const PUBLIC_URL = 'https://gateway.example.ru'
let server: TestServer

beforeAll(async () => {
  server = await startServer({ PUBLIC_URL })
})
afterAll(() => server.stop())

/** The server's database: its PostgreSQL URL in the PostgreSQL run, else its SQLite file. */
const serverDatabase = (s: { dataDir: string; databaseUrl?: string }) => s.databaseUrl ?? join(s.dataDir, 'gateway.db')

async function seed(...posts: Parameters<typeof seedBlogPost>[1][]) {
  const { db, close } = openDatabase(serverDatabase(server))
  try {
    const seeded = []
    for (const p of posts) seeded.push(await seedBlogPost(db, p))
    return seeded
  } finally {
    await close()
  }
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

/** The page as a crawler sees it: status, head metadata, JSON-LD objects and the <noscript> text. */
async function crawl(path: string) {
  const res = await fetch(server.url + path, { headers: { 'user-agent': 'Googlebot/2.1' } })
  const html = await res.text()
  const head = html.slice(0, html.indexOf('</head>'))
  const meta = (attr: 'name' | 'property', key: string) => {
    const m = new RegExp(`<meta ${attr}="${key.replace(/[:.]/g, '\\$&')}" content="([^"]*)"`).exec(head)
    return m ? decode(m[1]!) : undefined
  }
  const all = (attr: 'name' | 'property', key: string) =>
    [...head.matchAll(new RegExp(`<meta ${attr}="${key.replace(/[:.]/g, '\\$&')}" content="([^"]*)"`, 'g'))].map((m) => decode(m[1]!))
  const jsonLd = [...head.matchAll(/<script type="application\/ld\+json" data-seo>([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!))
  return {
    status: res.status,
    html,
    head,
    title: decode(/<title>([^<]*)<\/title>/.exec(head)?.[1] ?? ''),
    titles: head.match(/<title>/g)?.length ?? 0,
    description: meta('name', 'description'),
    descriptions: head.match(/<meta name="description"/g)?.length ?? 0,
    keywords: meta('name', 'keywords'),
    robots: meta('name', 'robots'),
    canonical: decode(/<link rel="canonical" href="([^"]*)"/.exec(head)?.[1] ?? ''),
    og: (key: string) => meta('property', `og:${key}`),
    twitter: (key: string) => meta('name', `twitter:${key}`),
    article: (key: string) => all('property', `article:${key}`),
    jsonLd,
    noscript: /<noscript>([\s\S]*?)<\/noscript>/.exec(html)?.[1] ?? '',
  }
}

describe('landing without JavaScript', () => {
  test('title, description, keywords, canonical, Open Graph, Twitter and Organization + WebSite JSON-LD with the site search', async () => {
    const page = await crawl('/')
    expect(page.status).toBe(200)
    expect(page.title).toBe('AI Gateway — доступ к 300+ AI-моделям в рублях')
    expect([page.titles, page.descriptions]).toEqual([1, 1]) // the shell's own title/description were replaced, not duplicated
    expect(page.description).toContain('300+ AI-моделей')
    expect(page.keywords).toContain('OpenAI API в рублях')
    expect(page.robots).toBe('index, follow, max-image-preview:large')
    expect(page.canonical).toBe(`${PUBLIC_URL}/`)
    expect(page.og('type')).toBe('website')
    expect(page.og('title')).toBe(page.title)
    expect(page.og('description')).toBe(page.description)
    expect(page.og('url')).toBe(`${PUBLIC_URL}/`)
    expect(page.og('image')).toBe(`${PUBLIC_URL}/og-image.png`)
    expect(page.og('locale')).toBe('ru_RU')
    expect(page.twitter('card')).toBe('summary_large_image')
    expect(page.twitter('title')).toBe(page.title)

    const org = page.jsonLd.find((j) => j['@type'] === 'Organization')
    const site = page.jsonLd.find((j) => j['@type'] === 'WebSite')
    expect(org).toMatchObject({ '@context': 'https://schema.org', name: 'AI Gateway', url: `${PUBLIC_URL}/` })
    // the pictures the tags point at exist (served from public/ at the site root)
    for (const url of [page.og('image')!, org.logo as string]) {
      const res = await fetch(server.url + new URL(url).pathname)
      expect([url, res.status, res.headers.get('content-type')]).toEqual([url, 200, 'image/png'])
    }
    expect(site.potentialAction).toEqual({
      '@type': 'SearchAction',
      target: { '@type': 'EntryPoint', urlTemplate: `${PUBLIC_URL}/models?search={search_term_string}` },
      'query-input': 'required name=search_term_string',
    })
  })

  test('the text carries the hero, nine real catalogue models, up to three latest posts and the provider facts', async () => {
    const day = 86_400_000
    await seed(
      { title: 'Пост номер один', slug: 'landing-1', publishedAt: new Date(Date.now() - 4 * day) },
      { title: 'Пост номер два', slug: 'landing-2', publishedAt: new Date(Date.now() - 3 * day) },
      { title: 'Пост номер три', slug: 'landing-3', publishedAt: new Date(Date.now() - 2 * day) },
      { title: 'Пост номер четыре', slug: 'landing-4', publishedAt: new Date(Date.now() - 1 * day) },
      { title: 'Черновик для лендинга', slug: 'landing-draft', publishedAt: null },
    )
    const page = await crawl('/')
    expect(page.noscript).toContain('<h1>Доступ к 300+ AI-моделям в рублях</h1>')
    const catalogue = (await (await fetch(`${server.url}/v1/models`)).json()).data as Model[]
    const nine = pickShowcase(catalogue)
    expect(nine).toHaveLength(9)
    for (const m of nine) {
      expect(catalogue.some((c) => c.id === m.id)).toBe(true)
      expect(page.noscript).toContain(`>${splitModelName(m.name).model.replace(/&/g, '&amp;')}</a>`)
    }
    // the same nine go inline to the landing's script, so it need not fetch the whole catalogue
    const island = JSON.parse(/<script type="application\/json" id="showcase-data">([^<]*)<\/script>/.exec(page.html)![1]!)
    // each with its ruble price as the catalogue compares models (issue 29: the teaser shows ruble prices)
    expect(island).toEqual(nine.map((m) => ({ id: m.id, name: m.name, price: headlinePrice(m) })))
    expect(island.every((m: { price: string }) => /₽ (за 1M токенов|за сгенерированное изображение)|₽ за 1M символов|₽ за минуту|Бесплатно|зависит от запроса/.test(m.price))).toBe(
      true,
    )
    expect(page.noscript).toContain(`(${nine[0]!.id}) — ${headlinePrice(nine[0]!)}`)
    expect(page.noscript).toContain('Последние статьи о моделях')
    expect(page.noscript).toContain('Пост номер четыре')
    expect(page.noscript).toContain('Пост номер два')
    expect(page.noscript).not.toContain('Пост номер один') // only three
    expect(page.noscript).not.toContain('Черновик')
    expect(page.noscript).toContain('Самозанятый')
    expect(page.noscript).toContain('ИНН предоставляется по запросу')
    expect(page.noscript).toContain('© 2025 AI Gateway')
  })
})

describe('blog article without JavaScript', () => {
  test('metadata, BlogPosting JSON-LD and the article text', async () => {
    const [post] = await seed({
      title: 'GPT-4o: что умеет новая модель',
      slug: 'gpt-4o-review',
      description: 'Короткое описание статьи.',
      metaTitle: 'GPT-4o — обзор и цены в рублях',
      metaDescription: 'Обзор GPT-4o: возможности, сценарии и цены.',
      keywords: ['GPT-4o', 'OpenAI', 'мультимодальность'],
      modelId: 'openai/gpt-4o',
      modelName: 'OpenAI: GPT-4o',
      content: '## Возможности\n\nМодель **понимает изображения** и отвечает быстро.\n\n- пункт первый\n- пункт второй',
      views: 1234,
      publishedAt: new Date('2025-11-21T09:00:00Z'),
    })
    const page = await crawl('/blog/gpt-4o-review')
    expect(page.status).toBe(200)
    expect(page.title).toBe('GPT-4o — обзор и цены в рублях — AI Gateway')
    expect(page.description).toBe('Обзор GPT-4o: возможности, сценарии и цены.')
    expect(page.keywords).toBe('GPT-4o, OpenAI, мультимодальность')
    expect(page.canonical).toBe(`${PUBLIC_URL}/blog/gpt-4o-review`)
    expect(page.og('type')).toBe('article')
    expect(page.og('url')).toBe(`${PUBLIC_URL}/blog/gpt-4o-review`)
    expect(page.og('title')).toBe(page.title)
    expect(page.twitter('description')).toBe(page.description)
    expect(page.article('published_time')).toEqual([post!.publishedAt!])
    expect(page.article('tag')).toEqual(['GPT-4o', 'OpenAI', 'мультимодальность'])
    const ld = page.jsonLd.find((j) => j['@type'] === 'BlogPosting')
    expect(ld).toMatchObject({
      headline: 'GPT-4o: что умеет новая модель',
      datePublished: post!.publishedAt,
      url: `${PUBLIC_URL}/blog/gpt-4o-review`,
      publisher: { '@type': 'Organization', name: 'AI Gateway' },
      keywords: 'GPT-4o, OpenAI, мультимодальность',
    })
    expect(page.noscript).toContain('<h1>GPT-4o: что умеет новая модель</h1>')
    expect(page.noscript).toContain('<strong>понимает изображения</strong>')
    expect(page.noscript).toContain('<li>пункт второй</li>')
    expect(page.noscript).toContain('21 ноября 2025 г.')
    expect(page.noscript).toContain('просмотров: 1\u00a0234')
    expect(page.noscript).toContain('href="/app/playground?model=openai/gpt-4o"')
    expect(page.noscript).toContain('href="/models/openai/gpt-4o"')
    expect(page.noscript).toContain('<li>#мультимодальность</li>')
    // the browser will need the article's chunk: it is preloaded
    expect(page.head).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/blog-post-page-[a-z0-9]+\.js">/)
  })

  test('a missing or unpublished article answers 404 and stays out of the index', async () => {
    await seed({ title: 'Ещё черновик', slug: 'draft-404', publishedAt: null })
    for (const path of ['/blog/no-such-article', '/blog/draft-404']) {
      const page = await crawl(path)
      expect(page.status).toBe(404)
      expect(page.title).toBe('Статья не найдена — AI Gateway')
      expect(page.robots).toBe('noindex, nofollow')
      expect(page.noscript).toContain('Статья не найдена')
    }
  })

  test('scripts, event handlers and javascript: links in the markdown never reach the HTML; metadata is escaped', async () => {
    await seed({
      title: 'XSS "><script>alert(1)</script>',
      slug: 'xss-post',
      description: 'Описание с </script><script>alert(2)</script>',
      metaDescription: '"><img src=x onerror=alert(3)>',
      keywords: ['</script><script>alert(4)</script>'],
      content: [
        'Текст <script>alert(5)</script> и <img src="x" onerror="alert(6)">',
        '',
        '<script>alert(7)</script>',
        '',
        '[ссылка](javascript:alert(8)) [ещё](JAVASCRIPT:alert(9)) ![картинка](javascript:alert(10)) <a href="javascript:alert(11)">raw</a>',
        '',
        '[нормальная](https://example.com/page)',
      ].join('\n'),
    })
    const page = await crawl('/blog/xss-post')
    expect(page.status).toBe(200)
    expect(page.title).toBe('XSS "><script>alert(1)</script> — AI Gateway')
    expect(page.description).toBe('"><img src=x onerror=alert(3)>')
    const ld = page.jsonLd.find((j) => j['@type'] === 'BlogPosting')
    expect(ld.headline).toBe('XSS "><script>alert(1)</script>')
    expect(page.jsonLd.every((j) => typeof j === 'object')).toBe(true)
    // exactly the shell's module script and the JSON-LD blocks, nothing injected
    const scripts = page.html.match(/<script\b[^>]*>/g) ?? []
    const allowed = ['<script type="application/ld+json" data-seo>', '<script type="application/json" id="showcase-data">']
    expect(scripts.every((s) => s.startsWith('<script type="module"') || allowed.includes(s))).toBe(true)
    expect(page.html).not.toMatch(/<script>alert/)
    expect(page.html).not.toMatch(/<img[^>]*onerror/i)
    expect(page.html).not.toMatch(/href="javascript:/i)
    expect(page.html).not.toMatch(/src="javascript:/i)
    expect(page.noscript).toContain('<a href="https://example.com/page" target="_blank" rel="noopener noreferrer nofollow">нормальная</a>')
    expect(page.noscript).toContain('&lt;script&gt;alert(5)&lt;/script&gt;')
  })
})

describe('other pages without JavaScript', () => {
  test('/app/models: its own title, description, canonical without the query, Open Graph, JSON-LD, noindex', async () => {
    const page = await crawl('/app/models?search=gpt')
    expect(page.status).toBe(200)
    expect(page.title).toBe('Каталог моделей — AI Gateway')
    expect(page.description).toContain('Каталог AI-моделей с ценами в рублях')
    expect(page.canonical).toBe(`${PUBLIC_URL}/app/models`)
    expect(page.og('title')).toBe('Каталог моделей — AI Gateway')
    expect(page.og('url')).toBe(`${PUBLIC_URL}/app/models`)
    expect(page.robots).toBe('noindex, nofollow')
    expect(page.jsonLd).toEqual([expect.objectContaining({ '@type': 'CollectionPage', url: `${PUBLIC_URL}/app/models` })])
  })

  test('the blog list, docs, services and legal pages carry their text', async () => {
    await seed({ title: 'Статья для списка', slug: 'list-post' })
    const blog = await crawl('/blog')
    expect([blog.status, blog.canonical]).toEqual([200, `${PUBLIC_URL}/blog`])
    expect(blog.noscript).toContain('<a href="/blog/list-post">Статья для списка</a>')

    const docs = await crawl('/docs')
    expect(docs.title).toBe('Документация API — AI Gateway')
    expect(docs.noscript).toContain(`curl ${PUBLIC_URL}/v1/chat/completions`)
    expect(docs.noscript).toContain('insufficient_balance')

    const services = await crawl('/services')
    expect(services.noscript).toContain('href="/register"')
    expect(services.noscript).toContain('href="/docs"')

    const offer = await crawl('/public-offer')
    expect(offer.title).toBe('Публичная оферта — AI Gateway')
    for (const text of [`${MARKUP_PERCENT}%`, `${WELCOME_BONUS_RUB} ₽`, `${TOP_UP.minRub} ₽`, `${AVAILABILITY_PERCENT}%`, `${LIABILITY_CAP_DAYS} дней`, `${MIN_AGE} лет`])
      expect(offer.noscript).toContain(text)
    const refund = await crawl('/refund-policy')
    for (const text of [
      `${REFUND.windowDays} дней`,
      `${REFUND.reviewWorkingDays} рабочих дней`,
      `${REFUND.payoutWorkingDays} рабочих дней`,
      `не менее ${REFUND.paymentFeeMinRub} ₽`,
    ])
      expect(refund.noscript).toContain(text)
    const privacy = await crawl('/privacy-policy')
    expect(privacy.noscript).toContain(`${RETENTION.backupsDays} дней`)
  })

  test('pages and the build files travel gzip-compressed to browsers that accept it', async () => {
    const page = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'gzip' } })
    expect(page.headers.get('content-encoding')).toBe('gzip')
    const html = await page.text()
    for (const asset of html.match(/\/assets\/[\w.-]+\.(?:js|css)/g)!) {
      const res = await fetch(server.url + asset, { headers: { 'accept-encoding': 'gzip' } })
      expect([asset, res.status, res.headers.get('content-encoding'), res.headers.get('cache-control')]).toEqual([asset, 200, 'gzip', 'public, max-age=31536000, immutable'])
      // (the landing's entry script is small: it imports its chunks)
      expect((await res.text()).length).toBeGreaterThan(100)
    }
    const plain = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'identity' } })
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect((await fetch(`${server.url}/assets/..%2Fbuild-manifest.json`)).status).toBe(404)
  })

  test("the landing is its own light entry: `/` loads landing.html's script and stylesheet, every other page the SPA's", async () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dir, '../../dist/web/build-manifest.json'), 'utf8')) as Record<'entry' | 'landing', { js: string[]; css: string[] }>
    const assets = async (path: string) => [...(await (await fetch(server.url + path)).text()).matchAll(/(?:src|href)="\/(assets\/[\w.-]+\.(?:js|css))"/g)].map((m) => m[1])
    const landing = await assets('/')
    expect(landing).toContain(manifest.landing.js[0])
    expect(landing).toContain(manifest.landing.css[0])
    expect(landing).not.toContain(manifest.entry.js[0])
    expect(landing).not.toContain(manifest.entry.css[0])
    for (const path of ['/blog', '/models', '/login']) {
      const spa = await assets(path)
      expect(spa).toContain(manifest.entry.js[0])
      expect(spa).not.toContain(manifest.landing.js[0])
    }
    expect((await fetch(`${server.url}/landing.html`)).headers.get('content-type')).toContain('text/html')
    expect(await assets('/landing.html')).toContain(manifest.entry.js[0])
  })

  test('unknown paths answer 404 with noindex; files from the build stay private', async () => {
    const page = await crawl('/no/such/page')
    expect([page.status, page.robots]).toEqual([404, 'noindex, nofollow'])
    expect((await fetch(`${server.url}/build-manifest.json`)).status).toBe(404)
  })
})

describe('sitemap.xml and robots.txt', () => {
  test('the sitemap lists the public pages and every published article with its date, no drafts', async () => {
    const [published] = await seed(
      { title: 'Для карты сайта', slug: 'sitemap-post', publishedAt: new Date('2025-10-05T12:00:00Z'), updatedAt: new Date('2025-10-07T08:00:00Z') },
      { title: 'Черновик карты', slug: 'sitemap-draft', publishedAt: null },
    )
    const res = await fetch(`${server.url}/sitemap.xml`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/xml')
    const xml = await res.text()
    expect(xml).toStartWith('<?xml version="1.0" encoding="UTF-8"?>')
    for (const path of ['/', '/blog', '/docs', '/services', '/public-offer', '/terms-of-service', '/privacy-policy', '/refund-policy'])
      expect(xml).toContain(`<loc>${PUBLIC_URL}${path}</loc>`)
    expect(xml).toContain(`<url><loc>${PUBLIC_URL}/blog/${published!.slug}</loc><lastmod>2025-10-07</lastmod>`)
    expect(xml).toContain(`<loc>${PUBLIC_URL}/blog/gpt-4o-review</loc>`)
    expect(xml).not.toContain('sitemap-draft')
    expect(xml).not.toContain('/app/')
  })

  test('robots.txt keeps /app and /api out and points at the sitemap', async () => {
    const res = await fetch(`${server.url}/robots.txt`)
    expect(res.headers.get('content-type')).toContain('text/plain')
    const lines = (await res.text()).split('\n')
    expect(lines).toContain('User-agent: *')
    expect(lines).toContain('Disallow: /app')
    expect(lines).toContain('Disallow: /api')
    expect(lines).toContain(`Sitemap: ${PUBLIC_URL}/sitemap.xml`)
  })
})

describe('markdown rendering (shared by the server and the browser)', () => {
  test('raw HTML is shown as text, unsafe URLs are dropped, safe markdown stays', () => {
    const html = renderMarkdown(
      '# Заголовок\n\n<script>alert(1)</script>\n\nТекст <img src=x onerror="alert(2)"> <b onclick="x()">жирный</b>\n\n' +
        '[a](javascript:alert(3)) [b](jAvAsCrIpT:alert(4)) [c](data:text/html,<script>alert(5)</script>) [d](vbscript:x) ' +
        '![e](javascript:alert(6)) ![f](data:image/svg+xml,<svg onload=alert(7)>) <javascript:alert(8)>\n\n' +
        '[ok](https://example.com "t") [rel](/blog) [mail](mailto:a@b.ru) ![img](https://example.com/a.png)',
    )
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/<img[^>]+onerror/i)
    expect(html).not.toMatch(/<b onclick/i)
    expect(html).not.toMatch(/(href|src)="(javascript|data|vbscript):/i)
    expect(html).toContain('<h2>Заголовок</h2>') // the page title is the only h1
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('<a href="https://example.com" title="t" target="_blank" rel="noopener noreferrer nofollow">ok</a>')
    expect(html).toContain('<a href="/blog">rel</a>')
    expect(html).toContain('<a href="mailto:a@b.ru">mail</a>')
    expect(html).toContain('<img src="https://example.com/a.png" alt="img" loading="lazy">')
  })

  test('safeUrl sees through case, whitespace and control characters', () => {
    for (const bad of [
      'javascript:x',
      ' JavaScript:x',
      'java\tscript:x',
      'java\nscript:x',
      '\u0001javascript:x',
      'data:text/html,x',
      '//evil.example/x',
      '/\\evil.example/x',
      '\\\\evil.example',
    ])
      expect(safeUrl(bad)).toBeNull()
    expect(safeUrl('https://example.com/x')).toBe('https://example.com/x')
    expect(safeUrl('/blog/x')).toBe('/blog/x')
    expect(safeUrl('#part')).toBe('#part')
    expect(safeUrl('mailto:a@b.ru', 'image')).toBeNull()
  })

  test('every legal document states its terms from src/content/terms.ts', () => {
    const text = JSON.stringify(LEGAL_DOCUMENTS)
    for (const term of [
      `наценка Сервиса ${MARKUP_PERCENT}%`,
      'ЦБ РФ',
      `бонус ${WELCOME_BONUS_RUB} ₽`,
      `превышает ${REFUND.minRemainderRub} ₽`,
      `не более ${REFUND.windowDays} дней`,
      'нет активных API ключей',
      `${REFUND.paymentFeePercentMin}–${REFUND.paymentFeePercentMax}%`,
      'не менее чем за 7 дней',
      'не менее чем за 14 дней',
      `${AVAILABILITY_PERCENT}%`,
      '1 год',
      '5 лет',
      `${RETENTION.backupsDays} дней`,
      `последние ${LIABILITY_CAP_DAYS} дней`,
      `${MIN_AGE} лет`,
      'по будним дням с 10:00 до 19:00 по московскому времени',
      'Система быстрых платежей',
      'электронные кошельки',
      'в течение 10 рабочих дней',
    ])
      expect(text).toContain(term)
  })
})
