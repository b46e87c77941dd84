// The public catalogue without JavaScript: /models and /models/{id} as a crawler fetches them from
// the real server (demo catalogue), the sitemap, and the escaping of hostile catalogue text.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ModelRow } from '../catalog/schema'
import type { Db } from '../db/types'
import { dec } from '../lib/decimal'
import { startServer, type TestServer } from '../test-support/server'
import { type PageDeps, resolvePage } from './pages'
import { headHtml } from './render'

const PUBLIC_URL = 'https://gateway.example.ru'
let server: TestServer

beforeAll(async () => {
  server = await startServer({ PUBLIC_URL })
})
afterAll(() => server.stop())

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

async function crawl(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, { headers: { 'user-agent': 'Googlebot/2.1', ...headers } })
  const html = await res.text()
  const head = html.slice(0, html.indexOf('</head>'))
  return {
    status: res.status,
    html,
    title: decode(/<title>([^<]*)<\/title>/.exec(head)?.[1] ?? ''),
    titles: head.match(/<title>/g)?.length ?? 0,
    description: decode(/<meta name="description" content="([^"]*)"/.exec(head)?.[1] ?? ''),
    robots: /<meta name="robots" content="([^"]*)"/.exec(head)?.[1],
    canonical: decode(/<link rel="canonical" href="([^"]*)"/.exec(head)?.[1] ?? ''),
    jsonLd: [...head.matchAll(/<script type="application\/ld\+json" data-seo>([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!)),
    noscript: decode(/<noscript>([\s\S]*?)<\/noscript>/.exec(html)?.[1] ?? ''),
    head,
  }
}

const catalogue = async () => (await (await fetch(`${server.url}/v1/models`)).json()).data as Array<{ id: string; name: string }>

describe('/models without JavaScript', () => {
  test('every model with its name, link and ruble prices; its own title, canonical from PUBLIC_URL, ItemList JSON-LD, the chunk preloaded', async () => {
    const page = await crawl('/models', { host: 'evil.example.com', 'x-forwarded-host': 'evil.example.com' })
    expect(page.status).toBe(200)
    expect(page.title).toBe('Каталог AI-моделей с ценами в рублях | AI Gateway')
    expect(page.titles).toBe(1)
    expect(page.title).not.toContain('— AI Gateway')
    expect(page.robots).toContain('index, follow')
    expect(page.canonical).toBe(`${PUBLIC_URL}/models`)
    expect(page.html).not.toContain('evil.example.com')
    const models = await catalogue()
    expect(models.length).toBeGreaterThan(5)
    for (const m of models) {
      expect(page.noscript).toContain(m.name)
      expect(page.noscript).toContain(`href="/models/${m.id}"`)
    }
    expect(page.noscript).toContain('за 1M токенов')
    expect(page.noscript).toMatch(/\d ₽/)
    expect(page.noscript).toContain('За сгенерированное изображение:')
    const list = page.jsonLd.find((j) => j['@type'] === 'ItemList')
    expect(list.numberOfItems).toBe(models.length)
    expect(list.itemListElement[0].url).toStartWith(`${PUBLIC_URL}/models/`)
    expect(page.head).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/public-catalogue-[a-z0-9]+\.js">/)
  })
})

describe('/models/{id} without JavaScript', () => {
  test('openai/gpt-4o: its own title (brand once), description, canonical, Product JSON-LD with a RUB offer, prices, code, Playground link', async () => {
    const page = await crawl('/models/openai/gpt-4o')
    expect(page.status).toBe(200)
    expect(page.title).toBe('OpenAI: GPT-4o — цены в рублях | AI Gateway')
    expect(page.title.match(/AI Gateway/g)).toHaveLength(1)
    expect(page.description).toContain('OpenAI: GPT-4o')
    expect(page.description).toContain('₽ за 1M токенов')
    expect(page.canonical).toBe(`${PUBLIC_URL}/models/openai/gpt-4o`)
    const product = page.jsonLd.find((j) => j['@type'] === 'Product')
    expect(product).toMatchObject({ name: 'OpenAI: GPT-4o', sku: 'openai/gpt-4o', url: `${PUBLIC_URL}/models/openai/gpt-4o` })
    expect(product.offers).toMatchObject({ '@type': 'Offer', priceCurrency: 'RUB' })
    expect(Number(product.offers.price)).toBeGreaterThan(0)
    expect(page.noscript).toContain('<h1>OpenAI: GPT-4o</h1>')
    expect(page.noscript).toMatch(/Ввод: [\d\s,]+ ₽ за 1M токенов/)
    expect(page.noscript).toContain(`curl ${PUBLIC_URL}/v1/chat/completions`)
    expect(page.noscript).toContain('"model": "openai/gpt-4o"')
    expect(page.noscript).toContain('href="/app/playground?model=openai/gpt-4o"')
    expect(page.noscript).toContain('Попробовать в Playground')
  })

  test('an encoded slash and an id with ":" are the same pages', async () => {
    const encoded = await crawl('/models/openai%2Fgpt-4o')
    expect(encoded.status).toBe(200)
    expect(encoded.canonical).toBe(`${PUBLIC_URL}/models/openai/gpt-4o`)
    const free = await crawl('/models/meta-llama/llama-3.1-8b-instruct:free')
    expect(free.status).toBe(200)
    expect(free.noscript).toContain('Цена: Бесплатно')
    expect(free.canonical).toBe(`${PUBLIC_URL}/models/meta-llama/llama-3.1-8b-instruct:free`)
  })

  test('embedding and image models: their own request, no Playground for embeddings', async () => {
    const models = (await (await fetch(`${server.url}/v1/models`)).json()).data as Array<{ id: string; capabilities: { image: boolean; embeddings?: boolean } }>
    const embedding = models.find((m) => m.capabilities.embeddings)!
    const image = models.find((m) => m.capabilities.image)!
    const e = await crawl(`/models/${embedding.id}`)
    expect(e.noscript).toContain(`${PUBLIC_URL}/v1/embeddings`)
    expect(e.noscript).not.toContain('Попробовать в Playground')
    const i = await crawl(`/models/${image.id}`)
    expect(i.noscript).toContain(`${PUBLIC_URL}/v1/images`)
    expect(i.noscript).toContain('За сгенерированное изображение:')
  })

  test('an unknown model answers 404 with a not-found page, noindex', async () => {
    const page = await crawl('/models/nobody/none')
    expect(page.status).toBe(404)
    expect(page.title).toBe('Модель не найдена | AI Gateway')
    expect(page.robots).toBe('noindex, nofollow')
    expect(page.noscript).toContain('<h1>Модель не найдена</h1>')
    expect(page.noscript).toContain('href="/models"')
    expect((await crawl('/models/%E0%A4%A')).status).toBe(404)
  })
})

test('the sitemap lists /models and every model page; robots.txt does not block them', async () => {
  const xml = await (await fetch(`${server.url}/sitemap.xml`)).text()
  expect(xml).toContain(`<loc>${PUBLIC_URL}/models</loc>`)
  for (const m of await catalogue()) expect(xml).toContain(`<loc>${PUBLIC_URL}/models/${m.id.replace(/&/g, '&amp;')}</loc>`)
  const robots = await (await fetch(`${server.url}/robots.txt`)).text()
  expect(robots).toContain('Allow: /models')
  expect(robots).not.toMatch(/^Disallow: \/models/m)
})

test('hostile catalogue text is escaped in the title, head, JSON-LD and page text', async () => {
  const evil = '</script><script>alert(1)</script><img src=x onerror=alert(2)>"\''
  const row = { id: 'evil/model"<x>', name: evil, description: evil } as unknown as ModelRow
  const deps: PageDeps = {
    config: { publicUrl: PUBLIC_URL, testPaymentsBanner: false, markup: 1.2 } as PageDeps['config'],
    db: {} as Db,
    rates: { current: () => dec('90') },
    catalog: {
      list: () => [row],
      get: (id: string) => (id === row.id ? row : undefined),
      toApi: () => ({
        id: row.id,
        object: 'model',
        created: 1,
        owned_by: 'evil',
        name: evil,
        description: evil,
        context_length: 1000,
        pricing: { prompt: '0.000001', completion: '0.000002', image: '0', request: '0' },
        capabilities: { image: false, vision: false, embeddings: false },
      }),
    } as unknown as PageDeps['catalog'],
  }
  for (const path of ['/models', `/models/${encodeURIComponent(row.id)}`]) {
    const page = await resolvePage(path, deps)
    expect(page.status).toBe(200)
    const html = headHtml(page.meta, PUBLIC_URL) + page.body
    expect(html).not.toContain('<script>alert')
    expect(html).not.toContain('<img src=x')
    expect(html).not.toMatch(/<\/script><script>/)
    expect(page.body).toContain('&lt;/script&gt;')
  }
})
