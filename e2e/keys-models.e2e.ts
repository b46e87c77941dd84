import { expect, type Page, test } from '@playwright/test'
import { registerViaUi, shoot, uniqueEmail, watchConsole } from './helpers'

const PASSWORD = 'keys-models-pass-1'

interface CatalogueModel {
  id: string
  name: string
  description: string
}

/** The catalogue as the page sees it, fetched with the signed-in session's access token. */
async function catalogue(page: Page): Promise<CatalogueModel[]> {
  return page.evaluate(async () => {
    const response = await fetch('/v1/models', { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })
    const body = await response.json()
    return body.data
  })
}

/** The page's search rule: every word of the query occurs in id, name or description. */
function matching(models: CatalogueModel[], query: string): CatalogueModel[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  return models.filter((m) => {
    const text = `${m.id}\n${m.name}\n${m.description ?? ''}`.toLowerCase()
    return words.every((w) => text.includes(w))
  })
}

/** One chat completion (the demo upstream answers locally) authorised by an API key. */
function chatWithKey(page: Page, key: string) {
  return page.request.post('/v1/chat/completions', {
    headers: { Authorization: `Bearer ${key}` },
    data: { model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет!' }] },
  })
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

/** Nothing sticks out of a card (cards clip, so the page itself would not scroll). */
async function expectContained(page: Page, testId: string) {
  const overflows = await page.getByTestId(testId).evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth).filter((d) => d > 0))
  expect(overflows).toEqual([])
}

test.describe('API keys', () => {
  test('create with validation → full key shown once and copied → dismissed for good → rename, disable/enable, limit, delete', async ({ page, context, baseURL }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await registerViaUi(page, uniqueEmail('keys'), PASSWORD)

    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'API ключи' }).click()
    await expect(page).toHaveURL(/\/app\/api-keys$/)
    await expect(page.getByRole('heading', { level: 1, name: 'API ключи' })).toBeVisible()
    await expect(page.getByText('У вас пока нет API ключей')).toBeVisible()
    await expect(page.getByTestId('base-url')).toHaveText(`${baseURL}/v1`)
    await shoot(page, 'api-keys-empty-1280')

    // A blank name never reaches the server.
    const nameInput = page.getByLabel('Название ключа', { exact: true })
    const createButton = page.getByRole('button', { name: 'Создать ключ' })
    await createButton.click()
    await expect(page.getByRole('alert').filter({ hasText: 'Введите название ключа' })).toBeVisible()
    await nameInput.fill('   ')
    await createButton.click()
    await expect(page.getByRole('alert').filter({ hasText: 'Введите название ключа' })).toBeVisible()
    await expect(page.getByTestId('api-key-row')).toHaveCount(0)

    await nameInput.fill('Мой проект')
    await createButton.click()
    const panel = page.getByRole('region', { name: 'Ваш новый API ключ' })
    await expect(panel).toBeVisible()
    await expect(panel).toContainText('Сохраните ключ сейчас — больше он показан не будет.')
    await expect(page.getByRole('alert').filter({ hasText: 'Введите название ключа' })).toHaveCount(0)
    await expect(nameInput).toHaveValue('')
    const key = ((await page.getByTestId('new-api-key').textContent()) ?? '').trim()
    expect(key).toMatch(/^sk-gw-\S{16,}$/)

    // The list shows only the prefix, and the full key starts with it.
    const row = page.getByTestId('api-key-row').filter({ hasText: 'Мой проект' })
    await expect(row).toHaveCount(1)
    await expect(row).toContainText('Активен')
    await expect(row).toContainText('ещё не использовался')
    await expect(row).toContainText('без лимита')
    const shownPrefix = ((await row.locator('code').textContent()) ?? '').trim()
    expect(shownPrefix.endsWith('…')).toBe(true)
    const prefix = shownPrefix.slice(0, -1)
    expect(prefix).toMatch(/^sk-gw-/)
    expect(prefix.length).toBeLessThan(key.length)
    expect(key.startsWith(prefix)).toBe(true)
    await expect(row).not.toContainText(key)
    await shoot(page, 'api-keys-new-key-1280')

    // Copy: the clipboard holds the key; 'Скопировано' stays for 2 seconds, then the label returns.
    // The label changes are timed inside the page, so test-runner latency does not blur the 2 s.
    const copyButton = panel.getByRole('button', { name: 'Копировать' })
    await copyButton.evaluate((button) => {
      const log: Array<[string, number]> = []
      ;(window as unknown as { copyLabels: typeof log }).copyLabels = log
      new MutationObserver(() => log.push([button.textContent ?? '', performance.now()])).observe(button, {
        subtree: true,
        childList: true,
        characterData: true,
      })
    })
    await copyButton.click()
    await expect(panel.getByRole('button', { name: 'Скопировано' })).toBeVisible()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)
    await expect(panel.getByRole('button', { name: 'Копировать' })).toBeVisible({ timeout: 4000 })
    const labels = await page.evaluate(() => (window as unknown as { copyLabels: Array<[string, number]> }).copyLabels)
    const copiedAt = labels.find(([text]) => text.includes('Скопировано'))![1]
    const revertedAt = labels.find(([text, at]) => at > copiedAt && text.includes('Копировать'))![1]
    expect(revertedAt - copiedAt).toBeGreaterThanOrEqual(1950)
    expect(revertedAt - copiedAt).toBeLessThan(2500)

    // Acknowledge: the key leaves the page and does not come back on reload.
    await panel.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()
    await expect(panel).toHaveCount(0)
    await expect(page.getByTestId('new-api-key')).toHaveCount(0)
    expect(await page.content()).not.toContain(key)
    await page.reload()
    await expect(row).toBeVisible()
    expect(await page.content()).not.toContain(key)

    // The key works against the OpenAI-compatible API; the list then shows when it was used.
    expect((await chatWithKey(page, key)).status()).toBe(200)
    await page.reload()
    await expect(row).not.toContainText('ещё не использовался')
    await expect(row).toContainText(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/)

    // Rename inline, with the same name rule.
    await row.getByRole('button', { name: 'Переименовать' }).click()
    const renameInput = page.getByLabel('Новое название ключа')
    await expect(renameInput).toHaveValue('Мой проект')
    await renameInput.fill('  ')
    await page.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByRole('alert').filter({ hasText: 'Введите название ключа' })).toBeVisible()
    await renameInput.fill('Бот поддержки')
    await renameInput.press('Enter')
    const renamed = page.getByTestId('api-key-row').filter({ hasText: 'Бот поддержки' })
    await expect(renamed).toHaveCount(1)
    await expect(page.getByText('Название сохранено')).toBeVisible()
    await expect(page.getByLabel('Новое название ключа')).toHaveCount(0)

    // Disable and enable again.
    await renamed.getByRole('button', { name: 'Отключить' }).click()
    await expect(renamed).toContainText('Отключён')
    await expect(page.getByText('Ключ отключён')).toBeVisible()
    expect((await chatWithKey(page, key)).status()).toBe(401)
    await renamed.getByRole('button', { name: 'Включить' }).click()
    await expect(renamed).toContainText('Активен')
    await expect(renamed.getByRole('button', { name: 'Отключить' })).toBeVisible()

    // Set a budget (a limit with a Moscow calendar period), then clear it.
    await renamed.getByRole('button', { name: 'Бюджет' }).click()
    const limitDialog = page.getByRole('dialog', { name: 'Бюджет ключа' })
    await expect(limitDialog).toBeVisible()
    const limitInput = limitDialog.getByLabel('Лимит, ₽')
    await expect(limitInput).toBeFocused()
    await limitInput.fill('-5')
    await limitDialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(limitDialog.getByRole('alert')).toHaveText('Лимит должен быть положительным числом')
    await limitInput.fill('500')
    await expect(limitDialog.getByLabel('Период')).toHaveValue('month')
    await shoot(page, 'api-keys-limit-dialog-1280')
    await limitDialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(limitDialog).toBeHidden()
    await expect(renamed).toContainText(/\d,\d+\s₽ из 500\s₽ в месяц/)
    await expect(renamed).toContainText(/обновится 01\.\d\d\.\d{4}, 00:00\sМСК/)
    await expect(page.getByText('Бюджет сохранён')).toBeVisible()
    // At 1280 px the whole table fits: no sideways scrolling to reach the actions.
    const table = page.getByRole('table')
    await expect(table).toBeVisible()
    expect(await table.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth)).toBeLessThanOrEqual(0)
    await shoot(page, 'api-keys-list-1280')

    await renamed.getByRole('button', { name: 'Бюджет' }).click()
    await expect(limitInput).toHaveValue('500')
    await limitInput.fill('')
    await limitInput.press('Enter')
    await expect(limitDialog).toBeHidden()
    await expect(renamed).toContainText('без лимита')

    // Delete: cancel first, then confirm.
    await renamed.getByRole('button', { name: 'Удалить' }).click()
    const confirm = page.getByRole('dialog', { name: 'Удаление ключа' })
    await expect(confirm).toContainText('Удалить ключ «Бот поддержки»? Приложения, использующие его, перестанут работать.')
    await shoot(page, 'api-keys-delete-confirm-1280')
    await confirm.getByRole('button', { name: 'Отмена' }).click()
    await expect(confirm).toBeHidden()
    await expect(renamed).toHaveCount(1)
    await renamed.getByRole('button', { name: 'Удалить' }).click()
    await confirm.getByRole('button', { name: 'Удалить' }).click()
    await expect(page.getByText('Ключ удалён')).toBeVisible()
    await expect(page.getByTestId('api-key-row')).toHaveCount(0)
    await expect(page.getByText('У вас пока нет API ключей')).toBeVisible()

    expect((await chatWithKey(page, key)).status()).toBe(401)
    consoleWatch.assertClean()
  })

  test('on a 360 px phone: cards instead of a table, every action reachable, nothing overflows', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 360, height: 780 })
    await registerViaUi(page, uniqueEmail('keys-phone'), PASSWORD)
    await page.goto('/app/api-keys')
    await expect(page.getByText('У вас пока нет API ключей')).toBeVisible()
    await expectNoHorizontalScroll(page)
    await shoot(page, 'api-keys-empty-360')

    const nameInput = page.getByLabel('Название ключа', { exact: true })
    await nameInput.fill('Телеграм-бот')
    await page.getByRole('button', { name: 'Создать ключ' }).click()
    await expect(page.getByRole('region', { name: 'Ваш новый API ключ' })).toBeVisible()
    await nameInput.fill('Скрипт аналитики с очень длинным названием для проверки переносов')
    await page.getByRole('button', { name: 'Создать ключ' }).click()
    await expect(page.getByTestId('api-key-row')).toHaveCount(2)
    await expect(page.getByRole('table')).toHaveCount(0)
    await expectNoHorizontalScroll(page)
    await shoot(page, 'api-keys-new-key-360')

    await page.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()
    const bot = page.getByTestId('api-key-row').filter({ hasText: 'Телеграм-бот' })
    await bot.getByRole('button', { name: 'Отключить' }).click()
    await expect(bot).toContainText('Отключён')
    await bot.getByRole('button', { name: 'Бюджет' }).click()
    const budget = page.getByRole('dialog', { name: 'Бюджет ключа' })
    await budget.getByLabel('Лимит, ₽').fill('1000')
    await budget.getByLabel('Период').selectOption('week')
    await budget.getByRole('button', { name: 'Сохранить' }).click()
    await expect(bot).toContainText(/0,00\s₽ из 1\s000\s₽ в неделю/)
    await expectNoHorizontalScroll(page)
    await expectContained(page, 'api-key-row')
    await shoot(page, 'api-keys-list-360')

    await bot.getByRole('button', { name: 'Удалить' }).click()
    await shoot(page, 'api-keys-delete-confirm-360')
    await page.getByRole('dialog', { name: 'Удаление ключа' }).getByRole('button', { name: 'Удалить' }).click()
    await expect(page.getByTestId('api-key-row')).toHaveCount(1)
    consoleWatch.assertClean()
  })
})

test.describe('Model catalogue', () => {
  test('cards with ruble prices; search narrows and stays in the URL; ?search= preselects; provider chip filters; a card opens the playground', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await registerViaUi(page, uniqueEmail('models'), PASSWORD)

    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Модели' }).click()
    await expect(page).toHaveURL(/\/app\/models$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Модели' })).toBeVisible()
    const cards = page.getByTestId('model-card')
    await expect(cards.first()).toBeVisible()

    const models = await catalogue(page)
    expect(models.length).toBeGreaterThan(1)
    await expect(cards).toHaveCount(models.length)
    await expect(page.getByTestId('models-count')).toContainText(String(models.length))
    for (const card of (await cards.all()).slice(0, 5)) {
      await expect(card).toContainText(/Ввод|Бесплатно|Цена зависит от запроса|за сгенерированное изображение|за входное изображение|за минуту|за 1M символов|Аудио/)
    }
    await expect(cards.first()).toContainText(/\d ₽|Бесплатно|Цена зависит от запроса/)
    await shoot(page, 'models-1280')

    // Typing narrows the cards and keeps ?search= in the address.
    const search = page.getByPlaceholder('Поиск моделей...')
    const target = models[models.length - 1]
    await search.fill(target.id)
    const expected = matching(models, target.id)
    await expect(cards).toHaveCount(expected.length)
    expect(expected.length).toBeLessThan(models.length)
    await expect(cards.filter({ hasText: target.id }).first()).toBeVisible()
    await expect(page).toHaveURL(new RegExp(`[?&]search=${encodeURIComponent(target.id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
    await shoot(page, 'models-search-1280')

    await search.fill('зzz-такой-модели-нет')
    await expect(page.getByText('Ничего не найдено')).toBeVisible()
    await expect(cards).toHaveCount(0)
    await page.getByRole('button', { name: 'Сбросить поиск' }).click()
    await expect(search).toHaveValue('')
    await expect(cards).toHaveCount(models.length)
    await expect(page).toHaveURL(/\/app\/models$/)

    // The site-search link form preselects the query.
    await page.goto('/app/models?search=claude')
    await expect(page.getByPlaceholder('Поиск моделей...')).toHaveValue('claude')
    const claude = matching(models, 'claude')
    if (claude.length > 0) await expect(cards).toHaveCount(claude.length)
    else await expect(page.getByText('Ничего не найдено')).toBeVisible()
    await page.goto('/app/models')

    // A provider chip filters to its models; 'Все' brings everything back.
    const group = page.getByRole('group', { name: 'Провайдеры' })
    const all = group.getByRole('button', { name: /^Все \d+$/ })
    await expect(all).toHaveAttribute('aria-pressed', 'true')
    const chipText = ((await group.getByRole('button', { pressed: false }).first().textContent()) ?? '').trim()
    const chip = group.getByRole('button', { name: chipText, exact: true })
    const chipCount = Number(chipText.match(/ (\d+)$/)?.[1])
    expect(chipCount).toBeGreaterThan(0)
    await chip.click()
    await expect(chip).toHaveAttribute('aria-pressed', 'true')
    await expect(all).toHaveAttribute('aria-pressed', 'false')
    await expect(cards).toHaveCount(chipCount)
    const providers = new Set((await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id') ?? ''))).map((id) => id.split('/')[0]))
    expect(providers.size).toBe(1)
    await shoot(page, 'models-provider-1280')
    await all.click()
    await expect(cards).toHaveCount(models.length)

    // A card is a link to the playground with that model.
    const first = cards.first()
    const id = await first.getAttribute('data-model-id')
    await first.click()
    await expect(page).toHaveURL(/\/app\/playground\?model=/)
    expect(new URL(page.url()).searchParams.get('model')).toBe(id)
    consoleWatch.assertClean()
  })

  test('on a 360 px phone the catalogue fits; a failed load shows the spec message', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 360, height: 780 })
    await registerViaUi(page, uniqueEmail('models-phone'), PASSWORD)
    await page.goto('/app/models')
    await expect(page.getByTestId('model-card').first()).toBeVisible()
    await expectNoHorizontalScroll(page)
    await expectContained(page, 'model-card')
    await shoot(page, 'models-360')
    consoleWatch.assertClean()

    await page.route('**/v1/models', (route) => route.fulfill({ status: 500, body: '' }))
    await page.reload()
    await expect(page.getByText('Не удалось загрузить список моделей. Попробуйте обновить страницу.')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Повторить' })).toBeVisible()
    await shoot(page, 'models-error-360')
  })
})
