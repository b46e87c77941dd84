// The protocols our customers' tools speak, as a browser sees them: a page on another origin
// calling /v1 with an API key (CORS preflight, x-request-id readable), the docs sections for
// Claude Code, Codex CLI, AI SDK, LangChain, Responses, embeddings and costs, and embedding models
// in the catalogue.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type APIRequestContext, expect as baseExpect, type Page, test } from '@playwright/test'
import { loginViaUi, price, SHOTS, shoot, spaced, uniqueEmail, watchConsole } from './helpers'

const PASSWORD = 'protocols-pass-1'

// Generous waits: these pages render long documents and the suite often shares the machine.
const expect = baseExpect.configure({ timeout: 15_000 })
test.describe.configure({ timeout: 180_000 })

interface CatalogueModel {
  id: string
  pricing: { prompt: string; completion: string }
  capabilities: { image: boolean; embeddings?: boolean }
}

/** A customer made through the API, with one API key. */
async function customerWithKey(request: APIRequestContext) {
  const email = uniqueEmail('protocols')
  const registered = await request.post('/api/auth/register', { data: { email, password: PASSWORD } })
  expect(registered.status()).toBe(201)
  const token = (await registered.json()).data.accessToken as string
  const created = await request.post('/api/auth/api-keys', { headers: { Authorization: `Bearer ${token}` }, data: { name: 'Сайт партнёра' } })
  expect(created.status()).toBe(201)
  const key = (await created.json()).data.key as string
  expect(key).toMatch(/^sk-gw-/)
  return { email, key }
}

/** A web page of somebody else's site: its own origin, on a free loopback port. */
async function otherSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><html lang="ru"><head><title>Сайт партнёра</title></head><body><h1>Сайт партнёра</h1></body></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  // 'localhost' and another port: a different origin from the app's http://127.0.0.1:<port>.
  return { origin: `http://localhost:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

test('a page on another origin calls /v1 with an API key: the preflight passes, the answer and x-request-id are readable', async ({ page, request, baseURL }) => {
  const { key } = await customerWithKey(request)
  const site = await otherSite()
  try {
    // Preflights are not page requests for Playwright; the browser's own network log shows them.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.enable')
    const preflights: string[] = []
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.request.method === 'OPTIONS') preflights.push(e.request.url)
    })

    await page.goto(site.origin)
    await expect(page.getByRole('heading', { name: 'Сайт партнёра' })).toBeVisible()
    expect(await page.evaluate(() => location.origin)).not.toBe(new URL(baseURL!).origin)

    const prompt = 'Привет с другого сайта!'
    const chat = await page.evaluate(
      async ({ app, key, prompt }) => {
        const response = await fetch(`${app}/v1/chat/completions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: prompt }] }),
        })
        const body = await response.json()
        return {
          status: response.status,
          requestId: response.headers.get('x-request-id'),
          text: body.choices?.[0]?.message?.content as string,
          cost: body.usage?.cost as number,
          costRub: body.usage?.cost_rub as string,
        }
      },
      { app: baseURL!, key, prompt },
    )
    expect(chat.status).toBe(200)
    expect(chat.text).toContain('Демо-ответ')
    expect(chat.text).toContain(prompt)
    expect(chat.requestId).toMatch(/^req_/)
    expect(chat.cost).toBeGreaterThan(0)
    expect(Number(chat.costRub)).toBe(chat.cost)
    await expect.poll(() => preflights.filter((u) => u.endsWith('/v1/chat/completions')).length).toBeGreaterThan(0)

    // Claude Code's headers cross too: x-api-key and anthropic-version are allowed by the preflight;
    // a request id of the caller's comes back.
    const messages = await page.evaluate(
      async ({ app, key }) => {
        const response = await fetch(`${app}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-request-id': 'partner-trace-1' },
          body: JSON.stringify({ model: 'anthropic/claude-3-haiku', max_tokens: 100, messages: [{ role: 'user', content: 'Привет!' }] }),
        })
        const body = await response.json()
        return { status: response.status, requestId: response.headers.get('x-request-id'), type: body.type, text: body.content?.[0]?.text as string }
      },
      { app: baseURL!, key },
    )
    expect(messages).toMatchObject({ status: 200, requestId: 'partner-trace-1', type: 'message' })
    expect(messages.text).toContain('Демо-ответ')

    // The browser really enforces CORS here: the account API (not /v1) stays closed to other sites.
    const closed = await page.evaluate(async (app) => {
      try {
        await fetch(`${app}/api/auth/profile`, { headers: { Authorization: 'Bearer x' } })
        return 'readable'
      } catch (e) {
        return (e as Error).name
      }
    }, baseURL!)
    expect(closed).toBe('TypeError')
    await cdp.detach()
  } finally {
    await site.close()
  }
})

test('the docs have the sections for Claude Code, Codex CLI, AI SDK, LangChain, Responses, embeddings and costs, at 1280 and 360 px', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const consoleWatch = watchConsole(page)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/docs')
  const toc = page.getByRole('navigation', { name: 'Разделы документации' })
  for (const [name, id] of [
    ['Responses API', 'responses-api'],
    ['Responses API по WebSocket', 'responses-websocket'],
    ['Claude Code', 'claude-code'],
    ['Codex CLI', 'codex-cli'],
    ['Vercel AI SDK', 'vercel-ai-sdk'],
    ['LangChain', 'langchain'],
    ['Эмбеддинги', 'embeddings'],
    ['Стоимость запроса', 'request-cost'],
    ['CORS и x-request-id', 'cors'],
  ]) {
    await expect(page.getByRole('heading', { level: 2, name, exact: true })).toBeVisible()
    await expect(toc.getByRole('link', { name, exact: true })).toHaveAttribute('href', `#${id}`)
  }

  // This server's address in the new examples.
  const claude = page.locator('section#claude-code')
  await expect(claude.getByText(`export ANTHROPIC_BASE_URL="${baseURL}"`)).toBeVisible()
  await expect(claude.getByText(`curl ${baseURL}/v1/messages`)).toBeVisible()
  await expect(claude).toContainText('anthropic-version: 2023-06-01')
  await expect(claude).toContainText('billing_error')
  await expect(page.locator('section#codex-cli')).toContainText(`base_url = "${baseURL}/v1"`)
  await expect(page.locator('section#codex-cli')).toContainText('wire_api = "responses"')
  await expect(page.locator('section#vercel-ai-sdk')).toContainText('createOpenRouter')
  await expect(page.locator('section#langchain')).toContainText(`configuration: { baseURL: '${baseURL}/v1' }`)
  await expect(page.locator('section#langchain')).toContainText(`base_url="${baseURL}/v1"`)
  await expect(page.locator('section#responses-api')).toContainText('client.responses.create')
  await expect(page.locator('section#responses-api')).toContainText('previous_response_id: first.id')
  const socket = page.locator('section#responses-websocket')
  await expect(socket).toContainText('new ResponsesWS(client)')
  await socket.getByRole('tab', { name: 'wscat' }).click()
  await expect(socket.getByRole('tabpanel')).toContainText(`wscat -c ${baseURL!.replace(/^http/, 'ws')}/v1/responses`)
  await expect(socket.getByRole('table')).toContainText('response_already_in_flight')
  await expect(page.locator('section#embeddings')).toContainText(`curl ${baseURL}/v1/embeddings`)
  await expect(page.locator('section#request-cost')).toContainText(`${baseURL}/v1/generation?id=`)
  await expect(page.locator('section#request-cost')).toContainText(`curl ${baseURL}/v1/key`)

  // A table-of-contents link jumps to its section; the Claude Code block copies its environment.
  await toc.getByRole('link', { name: 'Claude Code', exact: true }).click()
  await expect(page).toHaveURL(/#claude-code$/)
  await expect(page.getByRole('heading', { level: 2, name: 'Claude Code' })).toBeInViewport()
  // The page is long: the viewport, not a full-page shot (that takes half a minute in software rendering).
  await page.screenshot({ path: `${SHOTS}/docs-claude-code-1280.png` })
  await claude.getByRole('figure').first().getByRole('button', { name: 'Копировать' }).click()
  await expect(claude.getByRole('button', { name: 'Скопировано' })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`ANTHROPIC_BASE_URL="${baseURL}"`)

  // One example in several languages is one block with tabs; a chosen language holds across the page.
  const embeddings = page.locator('section#embeddings')
  const pythonTab = embeddings.getByRole('tab', { name: 'Python' })
  await expect(embeddings.getByRole('tab', { name: 'curl' })).toHaveAttribute('aria-selected', 'true')
  await pythonTab.click()
  await expect(pythonTab).toHaveAttribute('aria-selected', 'true')
  await expect(embeddings.getByRole('tabpanel')).toContainText('result = client.embeddings.create(')
  await expect(embeddings.getByRole('tabpanel')).toBeVisible()
  await expect(page.locator('section#images').getByRole('tab', { name: 'Python' })).toHaveAttribute('aria-selected', 'true')
  await embeddings.getByRole('figure').first().getByRole('button', { name: 'Копировать' }).click()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('client.embeddings.create(')

  // What each new section looks like: viewport shots from its start. Not element shots of whole sections:
  // on CI the stability wait before one of them got no animation frame for three minutes and timed out.
  const shootSections = async (ids: string[], width: number, screens: number) => {
    for (const id of ids) {
      for (let screen = 1; screen <= screens; screen++) {
        await page.evaluate(
          ({ id, scroll }) => {
            document.getElementById(id)!.scrollIntoView()
            window.scrollBy(0, scroll)
          },
          { id, scroll: (screen - 1) * 640 },
        )
        await page.screenshot({ path: `${SHOTS}/docs-${id}-${width}${screens > 1 ? `-${screen}` : ''}.png` })
      }
    }
  }
  await shootSections(['responses-api', 'responses-websocket', 'codex-cli', 'vercel-ai-sdk', 'langchain', 'embeddings', 'request-cost', 'cors'], 1280, 1)

  // A phone: nothing sticks out sideways, long code scrolls inside its block.
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto('/docs#claude-code')
  await expect(page.getByRole('heading', { level: 2, name: 'Claude Code' })).toBeInViewport()
  await expectNoHorizontalScroll(page)
  await page.screenshot({ path: `${SHOTS}/docs-claude-code-360.png` })
  // What a phone shows: two screens from the start of each new section.
  await shootSections(['responses-api', 'responses-websocket', 'claude-code', 'codex-cli', 'vercel-ai-sdk', 'langchain', 'embeddings', 'request-cost', 'cors'], 360, 2)
  await page.goto('/docs')
  await expect(page.getByRole('navigation', { name: 'Разделы документации' })).toBeVisible()
  await page.screenshot({ path: `${SHOTS}/docs-top-360.png` })
  consoleWatch.assertClean()
})

test('the catalogue shows embedding models with «Эмбеддинги», a price per 1M input tokens and no Playground; the type chip filters them', async ({ page, request }) => {
  const consoleWatch = watchConsole(page)
  const models = (await (await request.get('/v1/models')).json()).data as CatalogueModel[]
  const embedders = models.filter((m) => m.capabilities.embeddings)
  expect(embedders.map((m) => m.id)).toContain('openai/text-embedding-3-small')

  const { email } = await customerWithKey(request)
  await page.setViewportSize({ width: 1280, height: 800 })
  await loginViaUi(page, email, PASSWORD)
  await page.goto('/app/models')
  const cards = page.getByTestId('model-card')
  await expect(cards).toHaveCount(models.length)

  const small = models.find((m) => m.id === 'openai/text-embedding-3-small')!
  const card = page.locator('[data-testid=model-card][data-model-id="openai/text-embedding-3-small"]')
  await expect(card).toContainText('Эмбеддинги')
  expect(spaced(await card.textContent())).toContain(spaced(`Ввод${price(Number(small.pricing.prompt) * 1e6)} за 1M токенов`))
  await expect(card).not.toContainText('Вывод')
  await expect(card).not.toContainText('Playground')
  expect(await card.evaluate((el) => el.tagName)).toBe('ARTICLE')
  await expect(card.getByRole('link', { name: 'Пример запроса' })).toHaveAttribute('href', '/app/docs#embeddings')

  // Chat models unchanged: a link into the Playground, input and output prices, no type badge of embeddings.
  const chat = page.locator('[data-testid=model-card][data-model-id="openai/gpt-4o-mini"]')
  await expect(chat).toHaveAttribute('href', '/app/playground?model=openai%2Fgpt-4o-mini')
  await expect(chat).toContainText('Вывод')
  await expect(chat).toContainText('В Playground')
  await expect(chat).not.toContainText('Эмбеддинги')

  // The type chip: only embedding models, kept in the address, and undone by 'Все типы'.
  const types = page.getByRole('group', { name: 'Тип модели' })
  const chip = types.getByRole('button', { name: `Эмбеддинги ${embedders.length}`, exact: true })
  await chip.click()
  await expect(chip).toHaveAttribute('aria-pressed', 'true')
  await expect(cards).toHaveCount(embedders.length)
  await expect(page).toHaveURL(/[?&]type=embeddings/)
  expect((await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id')))).sort()).toEqual(embedders.map((m) => m.id).sort())
  await shoot(page, 'models-embeddings-1280')

  await page.reload()
  await expect(cards).toHaveCount(embedders.length)
  await page.setViewportSize({ width: 360, height: 740 })
  await expectNoHorizontalScroll(page)
  await shoot(page, 'models-embeddings-360')
  await page.setViewportSize({ width: 1280, height: 800 })

  await types.getByRole('button', { name: /^Все типы \d+$/ }).click()
  await expect(cards).toHaveCount(models.length)
  await expect(page).toHaveURL(/\/app\/models$/)

  // 'Пример запроса' opens the docs at the embeddings section.
  await card.getByRole('link', { name: 'Пример запроса' }).click()
  await expect(page).toHaveURL(/\/app\/docs#embeddings$/)
  await expect(page.getByRole('heading', { level: 2, name: 'Эмбеддинги' })).toBeInViewport()
  consoleWatch.assertClean()
})
