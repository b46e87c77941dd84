// The public site in Chromium: landing, blog, docs, legal pages, header/footer links, the
// sanitised article, the view counter, keyboard use and the bundle split.
import { expect, type Page, test } from '@playwright/test'
import { type SeededPost, seedPosts } from './blog-seed'
import { registerViaUi, shoot as shootShared, spaced, uniqueEmail, watchConsole } from './helpers'

/** The browser runs in Moscow time (playwright.config.ts): expected dates are formatted there too, not in the runner's zone. */
const MOSCOW = 'Europe/Moscow'

/** shoot(), plus a copy in PUBLIC_SHOTS_DIR when set (test-results/ is shared with other runs). */
async function shoot(page: Page, name: string) {
  await shootShared(page, name)
  if (process.env.PUBLIC_SHOTS_DIR) await page.screenshot({ path: `${process.env.PUBLIC_SHOTS_DIR}/${name}.png`, fullPage: true })
}

const ARTICLE = `Модель **GPT-4o** понимает текст и изображения и отвечает заметно быстрее предшественниц.

## Что умеет

- отвечает на вопросы и пишет тексты;
- разбирает фотографии, схемы и скриншоты;
- переводит и редактирует.

## Цены

| Что | Цена |
|---|---|
| 1 000 токенов запроса | 0,29 ₽ |
| 1 000 токенов ответа | 1,17 ₽ |

## Пример запроса

\`\`\`python
reply = client.chat.completions.create(model="openai/gpt-4o", messages=[{"role": "user", "content": "Привет"}])
\`\`\`

> Попробуйте модель в Playground — первые запросы оплатит приветственный бонус.

Подробнее — в [документации](/docs) и на [сайте OpenAI](https://openai.com).`

// Every payload would set window.__pwned (or open a dialog) if it ran.
const XSS = [
  'Текст со скриптом <script>window.__pwned = "script"</script> внутри абзаца.',
  '',
  '<script>window.__pwned = "block-script"</script>',
  '',
  '<img src="/no-such-image.png" onerror="window.__pwned = \'onerror\'">',
  '',
  '<a href="javascript:window.__pwned=\'raw-link\'" id="raw-link">сырая ссылка</a>',
  '',
  "[markdown-ссылка](javascript:window.__pwned='md-link') и [ещё одна](JaVaScRiPt:alert(1))",
  '',
  "![картинка](javascript:window.__pwned='md-img')",
  '',
  '<svg onload="window.__pwned = \'svg\'"><circle r="4"/></svg> <iframe src="javascript:window.__pwned=\'iframe\'"></iframe>',
  '',
  '[безопасная ссылка](https://example.com/page)',
].join('\n')

let posts: SeededPost[] = []
let xss: SeededPost
let counter: SeededPost
let article: SeededPost
let hadPostsBefore = false

test.beforeAll(async ({ request }) => {
  const before = await request.get('/api/blog/posts?limit=1')
  hadPostsBefore = ((await before.json()).data as unknown[]).length > 0
})

/** Articles for the whole file, seeded once (after the empty-state check). */
function seedOnce() {
  if (posts.length) return
  const day = 86_400_000
  const at = (daysAgo: number) => new Date(Date.now() - daysAgo * day).toISOString()
  posts = seedPosts([
    {
      title: 'GPT-4o: мультимодальная модель OpenAI',
      slug: 'e2e-gpt-4o',
      description: 'Что умеет GPT-4o, где она полезна и сколько стоит в рублях.',
      content: ARTICLE,
      keywords: ['GPT-4o', 'OpenAI', 'мультимодальность'],
      modelId: 'openai/gpt-4o',
      modelName: 'OpenAI: GPT-4o',
      views: 15320,
      publishedAt: at(1),
      cover: true,
    },
    {
      title: 'Claude 3 Haiku: быстрые ответы за копейки',
      slug: 'e2e-claude-haiku',
      description: 'Самая быстрая модель семейства Claude 3 — для чат-ботов и массовой обработки текстов.',
      modelId: 'anthropic/claude-3-haiku',
      modelName: 'Anthropic: Claude 3 Haiku',
      views: 87,
      publishedAt: at(2),
    },
    {
      title: 'Очень длинный заголовок статьи о новой модели генерации изображений, который не помещается в одну строку',
      slug: 'e2e-long-title',
      description: 'Проверка переносов: длинный заголовок, длинное описание и узкий экран телефона шириной 360 пикселей.',
      modelId: 'black-forest-labs/flux.2-pro',
      modelName: 'Black Forest Labs: FLUX.2 [pro]',
      views: 3,
      publishedAt: at(3),
      cover: true,
    },
    { title: 'XSS-проверка', slug: 'e2e-xss', description: 'Статья со скриптами в markdown.', content: XSS, publishedAt: at(10) },
    { title: 'Счётчик просмотров', slug: 'e2e-views', description: 'Для проверки счётчика.', views: 1234, publishedAt: at(11) },
    { title: 'Черновик e2e', slug: 'e2e-draft', publishedAt: null },
  ])
  article = posts[0]!
  xss = posts.find((p) => p.slug === 'e2e-xss')!
  counter = posts.find((p) => p.slug === 'e2e-views')!
}

async function noHorizontalScroll(page: Page, name: string) {
  const { scroll, client, culprits } = await page.evaluate(() => {
    const client = document.documentElement.clientWidth
    const culprits = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > client + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)}`)
    return { scroll: document.documentElement.scrollWidth, client, culprits }
  })
  expect(scroll, `${name} is wider than the ${client}px viewport: ${culprits.join(' | ')}`).toBeLessThanOrEqual(client)
}

test('without articles the landing hides the blog teaser and /blog shows its empty state', async ({ page }) => {
  test.skip(hadPostsBefore, 'another spec published articles first')
  const consoleWatch = watchConsole(page)
  await page.goto('/')
  await expect(page.getByTestId('showcase-models').getByRole('listitem')).toHaveCount(9)
  await expect(page.getByTestId('latest-posts')).toHaveCount(0)
  await expect(page.getByText('Последние статьи о моделях')).toHaveCount(0)
  await page.goto('/blog')
  await expect(page.getByRole('heading', { name: 'Статей пока нет' })).toBeVisible()
  await shoot(page, 'public-blog-empty')
  consoleWatch.assertClean()
})

test('every public page renders without console errors at 1280 and 360 px', async ({ page }) => {
  test.slow() // twenty page loads with full-page shots: a minute is too little on a busy machine
  seedOnce()
  const consoleWatch = watchConsole(page)
  const pages: Array<[name: string, path: string, heading: string | RegExp]> = [
    ['landing', '/', 'Доступ к 300+ AI-моделям в рублях'],
    ['blog', '/blog', 'Статьи о новых AI-моделях'],
    ['post', `/blog/${article.slug}`, article.title],
    ['post-missing', '/blog/no-such-article', 'Статья не найдена'],
    ['docs', '/docs', 'Документация'],
    ['services', '/services', 'Услуги'],
    ['public-offer', '/public-offer', 'Публичная оферта'],
    ['terms', '/terms-of-service', 'Пользовательское соглашение'],
    ['privacy', '/privacy-policy', 'Политика конфиденциальности'],
    ['refund', '/refund-policy', 'Политика возврата средств'],
  ]
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 800 })
    for (const [name, path, heading] of pages) {
      await page.goto(path)
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
      if (name === 'landing') {
        await expect(page.getByTestId('showcase-models').getByRole('listitem')).toHaveCount(9)
        await expect(page.getByTestId('latest-posts')).toBeVisible()
      }
      if (name === 'post' || name === 'blog' || name === 'landing') {
        // lazy covers below the fold: load them all so the full-page screenshot shows them
        await page.evaluate(() => {
          for (const i of document.querySelectorAll('img')) i.loading = 'eager'
        })
        await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0))
      }
      await noHorizontalScroll(page, `${name} at ${width}px`)
      await shoot(page, `public-${name}-${width}`)
    }
  }
  // the missing article's API answer is a 404 the page handles ('Статья не найдена')
  consoleWatch.assertClean([/404/])
})

test('the landing: nine catalogue models, the three newest articles, the calls to action', async ({ page, request }) => {
  seedOnce()
  await page.goto('/')
  const catalogue = ((await (await request.get('/v1/models')).json()).data as Array<{ id: string }>).map((m) => m.id)
  const shown = page.getByTestId('showcase-models').getByRole('link')
  await expect(shown).toHaveCount(9)
  for (const href of await shown.evaluateAll((links) => links.map((a) => a.getAttribute('href')!))) {
    const id = decodeURIComponent(new URL(href, 'http://x').pathname.replace(/^\/models\//, ''))
    expect(catalogue).toContain(id)
  }
  await expect(page.getByRole('link', { name: /Смотреть каталог/ })).toHaveAttribute('href', '/models')

  const teaser = page.getByTestId('latest-posts')
  await expect(teaser.getByRole('article')).toHaveCount(3)
  const newest = await (await request.get('/api/blog/posts?limit=3')).json()
  for (const post of newest.data as Array<{ slug: string; title: string }>)
    await expect(teaser.getByRole('link', { name: post.title })).toHaveAttribute('href', `/blog/${post.slug}`)
  await expect(teaser.getByRole('link', { name: 'Все статьи' })).toHaveAttribute('href', '/blog')

  await expect(page.getByRole('link', { name: 'Попробовать бесплатно' })).toHaveAttribute('href', '/register')
  await expect(page.getByRole('link', { name: 'Открыть Playground' }).first()).toHaveAttribute('href', '/app/playground')
  await expect(page.getByRole('link', { name: 'Создать аккаунт' })).toHaveAttribute('href', '/register')
  await expect(page.getByRole('link', { name: 'Войти в систему' })).toHaveAttribute('href', '/login')
  for (const id of ['features', 'audience', 'models', 'playground', 'use-cases']) await expect(page.locator(`section#${id}`)).toHaveCount(1)
})

test('all header and footer links resolve', async ({ page, request }) => {
  seedOnce()
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/')
  const header = page.getByRole('banner')
  const footer = page.getByTestId('site-footer')
  const headerLinks = await header.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')!))
  const footerLinks = await footer.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')!))
  expect(headerLinks).toEqual(expect.arrayContaining(['/', '/#features', '/#audience', '/#models', '/#playground', '/#use-cases', '/blog', '/login', '/register']))
  for (const href of ['/services', '/privacy-policy', '/terms-of-service', '/public-offer', '/refund-policy', '/', '/models', '/app/playground', '/app/docs', '/blog', '/status'])
    expect(footerLinks).toContain(href)
  await expect(footer).toContainText('Самозанятый')
  await expect(footer).toContainText('ИНН предоставляется по запросу')
  await expect(footer).toContainText('© 2025')
  await expect(footer).toContainText('стороннего сервиса маршрутизации')

  for (const href of new Set([...headerLinks, ...footerLinks])) {
    if (href.startsWith('mailto:')) continue
    if (href.startsWith('http')) {
      expect(href).toMatch(/^https:\/\/t\.me\//)
      continue
    }
    if (href.startsWith('/#')) {
      await expect(page.locator(`#${href.slice(2)}`)).toHaveCount(1)
      continue
    }
    // the server knows the page (not 404), and the SPA keeps it (unknown paths go home)
    expect((await request.get(href)).status(), href).toBe(200)
    await page.goto(href)
    // the signed-in area sends a visitor to sign in, with the page to return to (?next=)
    const expected = href.startsWith('/app/') ? /\/login(\?next=[^&]+)?$/ : new RegExp(`${href.replace(/[/]/g, '\\/')}$`)
    await expect(page, href).toHaveURL(expected)
    await expect(page.locator('#root')).not.toBeEmpty()
  }

  // in-app navigation: a section link from another page lands on the landing at that section
  await page.goto('/blog')
  await page.getByRole('banner').getByRole('link', { name: 'AI Gateway' }).click()
  await expect(page).toHaveURL(/\/$/)
  await page.goto('/services')
  await page.getByRole('banner').getByRole('link', { name: 'Применение' }).click()
  await expect(page).toHaveURL(/\/#use-cases$/)
  await expect(page.locator('#use-cases')).toBeInViewport()

  // the phone menu carries the same links
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto('/')
  const menuButton = page.getByRole('button', { name: 'Открыть меню' })
  await menuButton.click()
  const menu = page.getByRole('navigation', { name: 'Меню' })
  await expect(menu.getByRole('link', { name: 'Применение' })).toBeVisible()
  // both sign-in links stay in the bar itself at phone width
  await expect(page.getByRole('banner').getByRole('link', { name: 'Войти', exact: true })).toBeVisible()
  await expect(page.getByRole('banner').getByRole('link', { name: 'Регистрация' })).toBeVisible()
  await shoot(page, 'public-menu-360')
  await menu.getByRole('link', { name: 'Блог' }).click()
  await expect(page).toHaveURL(/\/blog$/)
  await expect(menu).toBeHidden()
})

test('the blog list and an article as the spec describes them', async ({ page }) => {
  seedOnce()
  await page.goto('/blog')
  const card = page.getByRole('article').filter({ hasText: article.title })
  await expect(card.locator('img')).toHaveAttribute('src', article.coverImage!) // decorative: alt="" (the title is the card's name)
  await expect(card).toContainText('OpenAI: GPT-4o')
  await expect(card).toContainText(article.description)
  await expect(card).toContainText(new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: MOSCOW }).format(new Date(article.publishedAt!)))
  // 15 320 seeded, plus the view of the screenshot test's opening
  expect(spaced(await card.textContent())).toMatch(/Просмотров: 15 32\d/)
  await expect(page.getByText('Черновик e2e')).toHaveCount(0)

  await card.getByRole('link', { name: article.title }).click()
  await expect(page).toHaveURL(`/blog/${article.slug}`)
  await expect(page.getByRole('heading', { level: 1, name: article.title })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Все статьи' })).toHaveAttribute('href', '/blog')
  await expect(page.getByText('Обзор модели')).toBeVisible()
  await expect(
    page.getByText(new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric', timeZone: MOSCOW }).format(new Date(article.publishedAt!))),
  ).toBeVisible()
  await expect(page.getByRole('img', { name: `Обложка статьи «${article.title}»` })).toBeVisible()
  const body = page.getByTestId('article-body')
  await expect(body.getByRole('heading', { level: 2, name: 'Что умеет' })).toBeVisible()
  await expect(body.getByRole('table')).toBeVisible()
  await expect(body.getByRole('link', { name: 'сайте OpenAI' })).toHaveAttribute('rel', 'noopener noreferrer nofollow')
  await expect(page.getByRole('link', { name: 'Открыть в Playground' })).toHaveAttribute('href', '/app/playground?model=openai/gpt-4o')
  await expect(page.getByRole('link', { name: 'Найти в каталоге' })).toHaveAttribute('href', '/models/openai/gpt-4o')
  for (const tag of ['#GPT-4o', '#OpenAI', '#мультимодальность']) await expect(page.getByText(tag, { exact: true })).toBeVisible()

  // metadata follows the SPA's navigation, not only the server's first page
  await expect(page).toHaveTitle('GPT-4o: мультимодальная модель OpenAI — AI Gateway')
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', new RegExp(`/blog/${article.slug}$`))
  const ld = await page.locator('script[type="application/ld+json"]').allTextContents()
  expect(ld.map((t) => JSON.parse(t)['@type'])).toEqual(['BlogPosting'])
  await page.getByRole('link', { name: 'Все статьи' }).click()
  await expect(page).toHaveTitle('Блог о новых AI-моделях — AI Gateway')

  await page.goto('/blog/no-such-article')
  await expect(page.getByRole('heading', { name: 'Статья не найдена' })).toBeVisible()
  await page.getByRole('link', { name: 'Вернуться к блогу' }).click()
  await expect(page).toHaveURL(/\/blog$/)
})

test('an article with <script>, onerror and javascript: links renders without running any of it', async ({ page }) => {
  seedOnce()
  const dialogs: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  const consoleWatch = watchConsole(page)
  await page.goto(`/blog/${xss.slug}`)
  const body = page.getByTestId('article-body')
  await expect(body).toContainText('Текст со скриптом')
  await expect(body).toContainText('<script>window.__pwned = "script"</script>') // shown as text
  await expect(body.getByRole('link', { name: 'безопасная ссылка' })).toHaveAttribute('href', 'https://example.com/page')
  // the would-be links are plain text: there is nothing to click
  await expect(body.getByRole('link', { name: 'markdown-ссылка' })).toHaveCount(0)
  expect(await body.locator('script, iframe, svg, [onerror], [onload], [onclick]').count()).toBe(0)
  expect(await body.locator('a[href^="javascript" i], img[src^="javascript" i]').count()).toBe(0)
  await page.waitForTimeout(300)
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
  expect(dialogs).toEqual([])
  await shoot(page, 'public-post-xss')
  consoleWatch.assertClean()
})

test('each opening of an article counts one view', async ({ page, request }) => {
  seedOnce()
  const views: string[] = []
  page.on('request', (r) => r.method() === 'POST' && r.url().endsWith(`/api/blog/posts/${counter.slug}/view`) && views.push(r.url()))
  const counted = page.waitForResponse((r) => r.url().endsWith(`/api/blog/posts/${counter.slug}/view`))
  await page.goto(`/blog/${counter.slug}`)
  expect((await (await counted).json()).data).toEqual({ views: 1235, counted: true })
  await expect(page.getByTestId('post-views')).toHaveText(/1\s235/)
  await page.waitForTimeout(500)
  expect(views).toHaveLength(1)
  expect((await (await request.get(`/api/blog/posts/${counter.slug}`)).json()).data.views).toBe(1235)

  // opening it again (SPA navigation away and back) sends one more view; the server counts one
  // per visitor per half hour, so the same browser cannot inflate the figure
  await page.getByRole('link', { name: 'Все статьи' }).click()
  await page.getByRole('link', { name: counter.title }).click()
  await expect(page.getByTestId('post-views')).toHaveText(/1\s235/)
  await expect.poll(() => views.length).toBe(2)
  await page.waitForTimeout(300)
  expect(views).toHaveLength(2)
  expect((await (await request.get(`/api/blog/posts/${counter.slug}`)).json()).data.views).toBe(1235)
})

test('the docs have this server’s address in every example and code that copies', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const consoleWatch = watchConsole(page)
  await page.goto('/docs')
  for (const name of ['Начало работы', 'API ключи', 'Оплата и баланс', 'Использование API', 'Генерация изображений', 'Модели', 'Коды ошибок'])
    await expect(page.getByRole('heading', { level: 2, name })).toBeVisible()
  await expect(page.getByText(`curl ${baseURL}/v1/chat/completions`).first()).toBeVisible()
  await expect(page.getByText(`baseURL: '${baseURL}/v1'`).first()).toBeVisible()
  await expect(page.getByText(`base_url="${baseURL}/v1"`).first()).toBeVisible()
  await expect(page.getByRole('cell', { name: 'insufficient_balance' })).toBeVisible()
  const firstCopy = page.getByRole('button', { name: 'Копировать' }).first()
  await firstCopy.click()
  await expect(page.getByRole('button', { name: 'Скопировано' })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`curl ${baseURL}/v1/chat/completions`)
  consoleWatch.assertClean()
})

test('keyboard: skip link, visible focus, menu by keyboard', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/')
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Перейти к содержимому' })
  await expect(skip).toBeFocused()
  await expect(skip).toBeVisible()
  await page.keyboard.press('Enter')
  await expect(page.locator('main#main')).toBeFocused()
  await page.keyboard.press('Tab')
  const focused = page.locator(':focus')
  await expect(focused).toHaveAttribute('href', '/register')
  const outline = await focused.evaluate((el) => getComputedStyle(el).outlineStyle)
  expect(outline).not.toBe('none')
  await shoot(page, 'public-focus')

  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto('/blog')
  const menuButton = page.getByRole('button', { name: 'Открыть меню' })
  await menuButton.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('navigation', { name: 'Меню' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('navigation', { name: 'Меню' })).toBeHidden()
})

test('signed in, the header shows the e-mail and the dashboard button; the landing never loads /app code', async ({ page }) => {
  const scripts: string[] = []
  const calls: string[] = []
  page.on('response', (r) => r.request().resourceType() === 'script' && scripts.push(new URL(r.url()).pathname))
  page.on('request', (r) => ['fetch', 'xhr'].includes(r.resourceType()) && calls.push(new URL(r.url()).pathname))
  await page.goto('/')
  await expect(page.getByTestId('showcase-models')).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(scripts.some((s) => s.includes('app-area'))).toBe(false)
  // the nine models come inline with the page; only the blog teaser is fetched, and the health the
  // demo banner reads (is the upstream the demo?)
  expect([...calls].sort()).toEqual(['/api/blog/posts', '/api/health'])
  const manifest = await (await page.request.get('/build-manifest.json')).status()
  expect(manifest).toBe(404)

  const email = uniqueEmail('public')
  await registerViaUi(page, email, 'public-site-pass-1')
  await page.goto('/')
  const header = page.getByRole('banner')
  await expect(header.getByTestId('header-email')).toHaveText(email)
  await expect(header.getByTestId('header-email')).toHaveAttribute('href', '/app/dashboard')
  await expect(header.getByRole('link', { name: 'Панель управления' })).toHaveAttribute('href', '/app/dashboard')
  await expect(header.getByRole('link', { name: 'Регистрация' })).toHaveCount(0)
  await shoot(page, 'public-landing-signed-in')
  await header.getByRole('link', { name: 'Панель управления' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)
  expect(scripts.some((s) => s.includes('app-area'))).toBe(true) // loaded now, on demand

  // the signed-in documentation: same text, this server's address
  await page.goto('/app/docs')
  await expect(page.getByRole('heading', { level: 1, name: 'Документация' })).toBeVisible()
  await expect(page.getByRole('heading', { level: 2, name: 'Коды ошибок' })).toBeVisible()
  await expect(page).toHaveTitle('Документация — AI Gateway')
  await shoot(page, 'public-app-docs-1280')
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto('/')
  await expect(page.getByRole('banner').getByRole('link', { name: 'Панель управления' })).toBeVisible()
  await noHorizontalScroll(page, 'signed-in landing at 360px')
  await shoot(page, 'public-landing-signed-in-360')
})
