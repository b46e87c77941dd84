// The public catalogue as a visitor without an account uses it: /models at desktop and phone width
// (no horizontal scroll), the type filters and price sorting, a model's page, its code copied, and
// «Попробовать в Playground» leading to sign-in.
import { expect as baseExpect, type Page, test } from '@playwright/test'
import { watchConsole } from './helpers'

const SHOTS = '/tmp/pw-catalogue/screens'
// The machine that runs these is shared and busy: the lazy chunk and /v1/models may take a while.
const expect = baseExpect.configure({ timeout: 20_000 })
type ApiModel = { id: string; name: string; pricing: Record<string, string>; capabilities: { image: boolean; vision?: boolean; embeddings?: boolean } }

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
const cardIds = (page: Page) => page.getByTestId('model-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-model-id')!))

for (const size of [
  { width: 1280, height: 800 },
  { width: 360, height: 740 },
]) {
  test(`/models and a model page at ${size.width}×${size.height}: no horizontal scroll, prices in rubles`, async ({ page, request }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(size)
    const models = (await (await request.get('/v1/models')).json()).data as ApiModel[]
    await page.goto('/models')
    await expect(page.getByRole('heading', { level: 1, name: 'AI-модели с ценами в рублях' })).toBeVisible()
    await expect(page.getByTestId('model-card')).toHaveCount(models.length)
    await expect(page.getByTestId('model-card').first()).toContainText('₽')
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/models-${size.width}.png`, fullPage: true })
    await page.screenshot({ path: `${SHOTS}/models-${size.width}-top.png` })

    await page.goto('/models/openai/gpt-4o')
    await expect(page.getByRole('heading', { level: 1, name: 'OpenAI: GPT-4o' })).toBeVisible()
    await expect(page.getByTestId('model-prices')).toContainText('за 1M токенов')
    await expect(page).toHaveTitle('OpenAI: GPT-4o — цены в рублях | AI Gateway')
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/model-gpt-4o-${size.width}.png`, fullPage: true })
    await page.screenshot({ path: `${SHOTS}/model-gpt-4o-${size.width}-top.png` })
    consoleWatch.assertClean()
  })
}

test('filters, sorting, a model page, its code copied, and «Попробовать в Playground» → sign-in', async ({ page, context, request, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
  const consoleWatch = watchConsole(page)
  await page.setViewportSize({ width: 1280, height: 800 })
  const models = (await (await request.get('/v1/models')).json()).data as ApiModel[]
  await page.goto('/models')
  await expect(page.getByTestId('model-card')).toHaveCount(models.length)
  const filters = page.getByRole('group', { name: 'Фильтр' })

  await filters.getByRole('button', { name: /Генерация изображений/ }).click()
  const images = models.filter((m) => m.capabilities.image).map((m) => m.id)
  await expect(page.getByTestId('model-card')).toHaveCount(images.length)
  expect((await cardIds(page)).sort()).toEqual([...images].sort())
  await expect(page).toHaveURL(/filter=image/)

  await filters.getByRole('button', { name: /Эмбеддинги/ }).click()
  const embeddings = models.filter((m) => m.capabilities.embeddings).map((m) => m.id)
  await expect(page.getByTestId('model-card')).toHaveCount(embeddings.length)
  expect((await cardIds(page)).sort()).toEqual([...embeddings].sort())

  await filters.getByRole('button', { name: /^Все/ }).click()
  await page.getByRole('combobox', { name: 'Сортировка' }).selectOption('price')
  await expect(page).toHaveURL(/sort=price/)
  const sorted = await cardIds(page)
  expect(sorted).toHaveLength(models.length)
  // free models come first, a priced chat model before the dearest one
  const free = models.filter((m) => ['prompt', 'completion', 'image', 'request'].every((k) => Number(m.pricing[k]) === 0)).map((m) => m.id)
  expect(sorted.slice(0, free.length).sort()).toEqual([...free].sort())
  expect(sorted.indexOf('openai/gpt-4o-mini')).toBeLessThan(sorted.indexOf('openai/gpt-4'))

  // the card opens the model's page (client-side), with its own title
  await page.locator('[data-testid=model-card][data-model-id="openai/gpt-4o-mini"]').click() // not its voice namesakes (gpt-4o-mini-tts, -transcribe)
  await expect(page).toHaveURL(/\/models\/openai\/gpt-4o-mini$/)
  await expect(page.getByRole('heading', { level: 1, name: 'OpenAI: GPT-4o-mini' })).toBeVisible()
  await expect(page).toHaveTitle('OpenAI: GPT-4o-mini — цены в рублях | AI Gateway')
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', `${baseURL}/models/openai/gpt-4o-mini`)

  const curl = page.getByRole('figure').filter({ hasText: 'curl' }).first()
  await curl.getByRole('button', { name: 'Копировать' }).click()
  await expect(curl.getByRole('button', { name: 'Скопировано' })).toBeVisible()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  expect(copied).toContain(`${baseURL}/v1/chat/completions`)
  expect(copied).toContain('"model": "openai/gpt-4o-mini"')

  await page.getByRole('link', { name: 'Попробовать в Playground' }).click()
  await expect(page).toHaveURL(/\/login/)
  consoleWatch.assertClean([/401/])
})

test('an embedding model page: the /v1/embeddings request, no Playground; an unknown model: not found', async ({ page, request }) => {
  const models = (await (await request.get('/v1/models')).json()).data as ApiModel[]
  const embedding = models.find((m) => m.capabilities.embeddings)!
  await page.goto(`/models/${embedding.id}`)
  await expect(page.getByRole('heading', { level: 1, name: embedding.name })).toBeVisible()
  await expect(page.getByRole('figure').first()).toContainText('/v1/embeddings')
  await expect(page.getByRole('link', { name: 'Попробовать в Playground' })).toHaveCount(0)

  const response = await page.goto('/models/nobody/none')
  expect(response!.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'Модель не найдена' })).toBeVisible()
})

test('the landing links to the public catalogue and its model pages', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('link', { name: /Смотреть каталог/ })).toHaveAttribute('href', '/models')
  const first = page.getByTestId('showcase-models').getByRole('link').first()
  await expect(first).toHaveAttribute('href', /^\/models\/[^?]+$/)
  await first.click()
  await expect(page.getByTestId('model-page')).toBeVisible()
})
