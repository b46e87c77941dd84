// The Playground against the real built app and the demo upstream: streamed replies and Stop,
// costs, saved history, attachments, image generation with download, the insufficient-balance
// toast, the catalogue link and deleting a chat. Screens at 1280 and 360 px.

import { readFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { apiGet, fileAccount, price, serverEstimate, shoot, spaced, spendBalanceBelow, watchConsole } from './helpers'

const PASSWORD = 'playground-pass-1'
const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')

interface CatalogueModel {
  id: string
  name: string
  context_length: number
  pricing: { prompt: string; completion: string; image: string; request: string }
}

const signIn = fileAccount('playground', PASSWORD)

type Estimate = { maxCost: number | null; affordable: boolean; message: string | null }

const composer = (page: Page) => page.getByRole('textbox', { name: 'Сообщение' })
// The model picker (a searchable combobox since issue 17) keeps the chosen id in data-model-id.
const modelSelect = (page: Page) => page.getByRole('combobox', { name: 'Модель' })
const expectModel = (page: Page, id: string) => expect(modelSelect(page)).toHaveAttribute('data-model-id', id)
async function chooseModel(page: Page, id: string) {
  await modelSelect(page).click()
  await modelSelect(page).fill(id)
  await page.locator(`[role=option][data-model-id="${id}"]`).click()
  await expectModel(page, id)
}
const lastReply = (page: Page) => page.getByTestId('assistant-message').last()

/** Records the last reply's text after every DOM change, to see it grow token by token. */
async function recordReplies(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __snaps: Snap[] }
    w.__snaps = []
    const list = document.querySelector('[data-testid=message-list]')!
    new MutationObserver(() => {
      const replies = list.querySelectorAll('[data-testid=assistant-message]')
      const last = replies[replies.length - 1] as HTMLElement | undefined
      const text = last?.querySelector('[data-testid=markdown]')?.textContent ?? ''
      const field = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Сообщение"]')
      if (last && text)
        w.__snaps.push({ text, status: last.dataset.status ?? '', locked: !!field?.disabled, stop: !!document.querySelector('button[aria-label="Остановить"] svg.animate-spin') })
    }).observe(list, { subtree: true, childList: true, characterData: true })
  })
}
type Snap = { text: string; status: string; locked: boolean; stop: boolean }
const snapshots = (page: Page) => page.evaluate(() => (window as unknown as { __snaps: Snap[] }).__snaps)

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

test.describe.configure({ mode: 'serial' })

test.describe('Playground', () => {
  test('pick a model, send with Enter, watch the reply stream in, see the cost; Shift+Enter; reload and reopen the chat from history', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)
    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Playground' }).click()
    await expect(page).toHaveURL(/\/app\/playground$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Playground' })).toBeVisible()

    // Defaults: openai/gpt-3.5-turbo, temperature 0.7, max tokens 500.
    const models = await apiGet<CatalogueModel[]>(page, '/v1/models')
    const gpt35 = models.find((m) => m.id === 'openai/gpt-3.5-turbo')!
    await expectModel(page, 'openai/gpt-3.5-turbo')
    const info = page.getByTestId('model-info')
    await expect(info).toContainText(gpt35.name)
    await expect(page.getByTestId('model-context')).toHaveText(/16\s385 токенов/)
    expect(spaced(await page.getByTestId('price-prompt').textContent())).toBe(spaced(`${price(Number(gpt35.pricing.prompt) * 1_000_000)} за 1M токенов`))
    expect(spaced(await page.getByTestId('price-completion').textContent())).toBe(spaced(`${price(Number(gpt35.pricing.completion) * 1_000_000)} за 1M токенов`))
    const temperature = page.getByLabel('Температура')
    await expect(temperature).toHaveValue('0.7')
    await expect(temperature).toHaveAttribute('min', '0')
    await expect(temperature).toHaveAttribute('max', '2')
    await expect(temperature).toHaveAttribute('step', '0.1')
    const maxTokens = page.getByLabel('Максимум токенов')
    await expect(maxTokens).toHaveValue('500')
    await expect(maxTokens).toHaveAttribute('min', '100')
    await expect(maxTokens).toHaveAttribute('max', '4000')
    await expect(maxTokens).toHaveAttribute('step', '100')

    // The info panel toggles.
    await info.getByRole('button', { name: 'Скрыть' }).click()
    await expect(page.getByTestId('model-context')).toHaveCount(0)
    await info.getByRole('button', { name: 'Показать' }).click()
    await expect(page.getByTestId('model-context')).toBeVisible()

    // Choose another model from the catalogue list.
    const mini = models.find((m) => m.id === 'openai/gpt-4o-mini')!
    await chooseModel(page, 'openai/gpt-4o-mini')
    await expect(info).toContainText(mini.name)
    await expect(page.getByTestId('chat-title')).toHaveText('Новый чат')
    await shoot(page, 'playground-empty-1280')

    // The demo echoes the question, so a question of many short words gets a reply of about 70 tokens.
    const question = `Привет! Повтори буквы: ${'а б в г д е ж з и к л м н о п р с т у ф х ц ч ш щ э ю я '.repeat(2).trim()}`
    await composer(page).fill(question)
    await expect(page.getByTestId('cost-estimate')).toContainText(/Оценка: до \d+,\d+\s₽/)
    await recordReplies(page)
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await expect(composer(page)).toBeEnabled()
    await expect(composer(page)).toHaveValue('')

    const reply = (await lastReply(page).getByTestId('markdown').textContent())!
    expect(reply).toContain('Привет! Повтори буквы: а б в')
    // Token by token: the text grew through many partial states, each a prefix of the final text,
    // and was visible while the reply was still streaming.
    const snaps = await snapshots(page)
    const distinct = [...new Set(snaps.map((s) => s.text))]
    expect(distinct.length).toBeGreaterThan(5)
    for (const s of distinct) expect(reply.startsWith(s.replace(/\s+$/, '')) || reply === s).toBe(true)
    const partials = snaps.filter((s) => s.status === 'streaming' && s.text.length > 0 && s.text.length < reply.length)
    expect(partials.length).toBeGreaterThan(5)
    // While the reply was on its way the field was locked and the Stop button showed a spinner.
    expect(partials.every((s) => s.locked && s.stop)).toBe(true)

    // The real cost of the reply, as charged (usage.cost_rub), and the chat in the history bar.
    const cost = lastReply(page).getByTestId('reply-cost')
    await expect(cost).toContainText(/Стоимость: \d+,\d{2,6}\s₽/)
    // The chat is titled from its first message: one line, cut at a word near 60 characters (issue 29).
    await expect(page.getByTestId('chat-title')).toHaveText(/^Привет! Повтори буквы: а б в .*…$/)
    const title = (await page.getByTestId('chat-title').textContent())!
    expect(title.length).toBeLessThanOrEqual(61)
    await expect(page.getByTestId('history-chat').first()).toContainText(title)
    // each answer names the model that gave it
    await expect(lastReply(page).getByTestId('reply-model')).toHaveText(mini.name)
    const usage = await apiGet<{ logs: Array<{ cost: number; status: string; model: string }> }>(page, '/api/billing/usage?limit=5')
    expect(usage.logs[0]!.model).toBe('openai/gpt-4o-mini')
    expect(spaced(await cost.textContent())).toContain(spaced(price(usage.logs[0]!.cost)))

    // Shift+Enter adds a line instead of sending.
    await composer(page).fill('строка один')
    await composer(page).press('Shift+Enter')
    await composer(page).pressSequentially('строка два')
    await expect(composer(page)).toHaveValue('строка один\nстрока два')
    await expect(page.getByTestId('user-message')).toHaveCount(1)
    await composer(page).press('Enter')
    await expect(page.getByTestId('user-message')).toHaveCount(2)
    await expect(page.getByTestId('user-message').last().getByTestId('user-text')).toHaveText('строка один\nстрока два')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await shoot(page, 'playground-chat-1280')

    // After a reload the chat is in the history; opening it brings the messages, the model and the costs back.
    await page.reload()
    await expect(page.getByTestId('chat-title')).toHaveText('Новый чат')
    await chooseModel(page, 'openai/gpt-3.5-turbo')
    await page.getByTestId('history-chat').filter({ hasText: title }).getByRole('button', { name: title, exact: true }).click()
    await expect(page.getByTestId('chat-title')).toHaveText(title)
    await expectModel(page, 'openai/gpt-4o-mini')
    await expect(page.getByTestId('user-message')).toHaveCount(2)
    await expect(page.getByTestId('assistant-message')).toHaveCount(2)
    await expect(page.getByTestId('assistant-message').first().getByTestId('markdown')).toHaveText(reply)
    await expect(page.getByTestId('reply-cost')).toHaveCount(2)

    // Choosing another model continues the same chat (issue 29; the spec reset it).
    await chooseModel(page, 'anthropic/claude-3-haiku')
    await expect(page.getByTestId('chat-title')).toHaveText(title)
    await expect(page.getByTestId('user-message')).toHaveCount(2)
    consoleWatch.assertClean()
  })

  test('Stop ends the reply mid-way; only the generated part is billed', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)
    await page.goto('/app/playground')
    // A long prompt of short words makes an echo reply of many short tokens (15 ms each in the demo).
    const words = Array.from({ length: 300 }, (_, i) => 'абвгдежзиклмнопрстуфхцчшщэюя'[i % 28]).join(' ')
    await composer(page).fill(words)
    // The demo quotes only the first 120 characters, so the reply takes about a second: Stop is
    // pressed from inside the page as soon as its first words show, whatever the machine's load.
    await page.evaluate(() => {
      const list = document.querySelector('[data-testid=message-list]')!
      const observer = new MutationObserver(() => {
        const replies = list.querySelectorAll('[data-testid=assistant-message]')
        if (!replies[replies.length - 1]?.textContent?.includes('Демо-ответ')) return
        observer.disconnect()
        document.querySelector<HTMLButtonElement>('button[aria-label="Остановить"]')!.click()
      })
      observer.observe(list, { subtree: true, childList: true, characterData: true })
    })
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'stopped')
    await expect(lastReply(page).getByTestId('reply-stopped')).toHaveText('Остановлено: оплачена только сгенерированная часть')
    const partial = (await lastReply(page).getByTestId('markdown').textContent())!
    expect(partial).not.toContain('OPENROUTER_API_KEY') // the end of the full reply never came
    await expect(composer(page)).toBeEnabled()

    // The gateway settles the cancelled request from what the upstream generated.
    let log: { status: string; completionTokens: number; cost: number } | undefined
    await expect(async () => {
      const usage = await apiGet<{ logs: Array<{ status: string; completionTokens: number; cost: number }> }>(page, '/api/billing/usage?limit=5')
      log = usage.logs.find((l) => l.status === 'cancelled')
      expect(log).toBeDefined()
    }).toPass({ timeout: 15_000 })
    expect(log!.completionTokens).toBeGreaterThan(0)
    expect(log!.completionTokens).toBeLessThan(300)

    // The stopped part is kept in the chat.
    const chats = await apiGet<Array<{ id: string }>>(page, '/api/chats')
    type Saved = { messages: Array<{ role: string; content: string; metadata: { stopped?: boolean } }> }
    await expect.poll(async () => (await apiGet<Saved>(page, `/api/chats/${chats[0]!.id}`)).messages.length).toBe(2)
    const saved = await apiGet<Saved>(page, `/api/chats/${chats[0]!.id}`)
    expect(saved.messages[0]!.content).toBe(words)
    expect(saved.messages[1]).toMatchObject({ role: 'assistant', content: partial.trim(), metadata: { stopped: true } })
    await shoot(page, 'playground-stopped-1280')
    consoleWatch.assertClean()
  })

  test('attach an image, a text file and a PDF; refused files say why; the model gets image, file and text parts', async ({ page }) => {
    test.slow() // a 20 MB file crosses into the browser: slow on a busy machine
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)
    await page.goto('/app/playground?model=openai%2Fgpt-4o-mini')
    await expectModel(page, 'openai/gpt-4o-mini')
    const input = page.getByTestId('file-input')

    // Refused in the browser: too large, wrong type.
    await input.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(20 * 1024 * 1024 + 1) })
    await expect(page.getByRole('alert').filter({ hasText: 'Файл слишком большой (макс. 20MB)' })).toBeVisible()
    await input.setInputFiles({ name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ\x90\x00') })
    await expect(page.getByRole('alert').filter({ hasText: 'Недопустимый тип файла' })).toBeVisible()
    // Refused by the server, which looks at the content: text pretending to be a PNG.
    await input.setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('я не картинка') })
    await expect(page.getByRole('alert').filter({ hasText: 'Содержимое файла не соответствует его типу' })).toBeVisible({ timeout: 15_000 })
    await page.getByRole('button', { name: 'Убрать файл fake.png' }).click()

    await input.setInputFiles([
      { name: 'pixel.png', mimeType: 'image/png', buffer: PNG_1x1 },
      { name: 'заметки.txt', mimeType: 'text/plain', buffer: Buffer.from('Список покупок: молоко, хлеб, сыр') },
      { name: 'договор.pdf', mimeType: 'application/pdf', buffer: PDF },
    ])
    const chips = page.getByTestId('attachment-chip')
    await expect(chips).toHaveCount(3)
    await expect(chips.and(page.locator('[data-status=ready]'))).toHaveCount(3)
    await shoot(page, 'playground-attachments-1280')

    await composer(page).fill('Что в этих файлах?')
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions') && r.method() === 'POST')
    await composer(page).press('Enter')
    const body = JSON.parse((await request).postData()!) as { messages: Array<{ role: string; content: unknown }>; stream: boolean; temperature: number; max_tokens: number }
    expect(body).toMatchObject({ stream: true, temperature: 0.7, max_tokens: 500 })
    const parts = body.messages.at(-1)!.content as Array<Record<string, any>>
    expect(parts[0]).toEqual({ type: 'text', text: 'Что в этих файлах?' })
    expect(parts).toContainEqual({ type: 'text', text: 'Файл «заметки.txt»:\n\nСписок покупок: молоко, хлеб, сыр' })
    const image = parts.find((p) => p.type === 'image_url')!
    expect(image.image_url.url).toBe(`data:image/png;base64,${PNG_1x1.toString('base64')}`)
    const file = parts.find((p) => p.type === 'file')!
    expect(file.file).toEqual({ filename: 'договор.pdf', file_data: `data:application/pdf;base64,${PDF.toString('base64')}` })
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await expect(chips).toHaveCount(0)

    const sent = page.getByTestId('user-message').last()
    await expect(sent.getByTestId('message-image-attachment')).toHaveCount(1)
    await expect(sent.getByTestId('message-file')).toHaveCount(2)
    await expect(sent.getByTestId('message-file').first()).toContainText('заметки.txt')

    // Reopened from history: the attachments are still there and the picture loads (a fresh signed link).
    await page.reload()
    await page.getByTestId('history-chat').first().getByRole('button').first().click()
    const reopened = page.getByTestId('user-message').last()
    await expect(reopened.getByTestId('message-file')).toHaveCount(2)
    const img = reopened.locator('img')
    await expect(img).toHaveCount(1)
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(1)
    await shoot(page, 'playground-attachments-sent-1280')
    consoleWatch.assertClean([/status of 400/])
  })

  test("generate an image: ?model= preselects, the estimate is the server's for the body sent (and follows the quantity), download; no picture → fallback to chat", async ({
    page,
  }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)
    const models = await apiGet<CatalogueModel[]>(page, '/v1/models')
    const gemini = models.find((m) => m.id === 'google/gemini-2.5-flash-image')!
    const asked: Array<{ images: { n: number } }> = []
    page.on('request', (r) => r.url().endsWith('/api/playground/estimate') && asked.push(JSON.parse(r.postData()!)))
    await page.goto(`/app/playground?model=${encodeURIComponent(gemini.id)}`)
    await expectModel(page, gemini.id)
    await expect(page.getByRole('radio', { name: 'Изображение' })).toHaveAttribute('aria-checked', 'true')
    const settings = page.getByTestId('image-settings')
    await expect(settings.getByLabel('Размер')).toHaveValue('1024x1024')
    await expect(settings.getByLabel('Качество')).toHaveValue('standard')
    await expect(settings.getByLabel('Количество')).toHaveValue('1')
    // The figure is the server's bound (POST /api/playground/estimate) for the /v1/images body as it would be sent.
    const imageEstimate = page.getByTestId('image-estimate')
    await expect(imageEstimate).toHaveAttribute('data-state', 'ready')
    const one = await serverEstimate<Estimate>(page, asked.at(-1))
    expect(spaced(await imageEstimate.textContent())).toContain(spaced(`до ${price(one.maxCost!)}`))
    await settings.getByLabel('Количество').selectOption('2')
    await expect(imageEstimate).toHaveAttribute('data-state', 'ready')
    expect(asked.at(-1)!.images.n).toBe(2)
    const two = await serverEstimate<Estimate>(page, asked.at(-1))
    expect(two.maxCost!).toBeGreaterThan(one.maxCost!)
    expect(spaced(await imageEstimate.textContent())).toContain(spaced(`до ${price(two.maxCost!)}`))
    await settings.getByLabel('Количество').selectOption('1')
    await expect(imageEstimate).toHaveAttribute('data-state', 'ready')
    await shoot(page, 'playground-image-settings-1280')

    await composer(page).fill('Кот в скафандре на Луне')
    const sent = page.waitForRequest((r) => r.url().endsWith('/v1/images'))
    await composer(page).press('Enter')
    expect(JSON.parse((await sent).postData()!)).toEqual({
      model: gemini.id,
      prompt: 'Кот в скафандре на Луне',
      size: '1024x1024',
      quality: 'standard',
      n: 1,
      response_format: 'url',
    })
    const picture = page.getByTestId('generated-image')
    await expect(picture).toHaveCount(1, { timeout: 15_000 })
    await expect.poll(() => picture.locator('img').evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true)
    await expect(lastReply(page).getByTestId('reply-cost')).toContainText(/Стоимость: \d+,\d+\s₽/)
    await expect(page.getByTestId('chat-title')).toHaveText('Кот в скафандре на Луне') // titled from its first message (issue 29)

    const [download] = await Promise.all([page.waitForEvent('download'), picture.getByRole('button', { name: 'Скачать' }).click()])
    expect(download.suggestedFilename()).toBe('image-1.png')
    const bytes = readFileSync((await download.path())!)
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    await shoot(page, 'playground-image-1280')

    // Stored as the spec's image message, parsed back when the chat is opened again.
    await page.reload()
    await page.getByTestId('history-chat').first().getByRole('button').first().click()
    await expect(page.getByTestId('generated-image')).toHaveCount(1)
    await expect
      .poll(() =>
        page
          .getByTestId('generated-image')
          .locator('img')
          .evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0),
      )
      .toBe(true)

    // A drawing model that returns no picture (a provider can): the page says so and answers as a chat.
    // (GPT-4o, which only reads pictures, no longer offers image mode at all: playground-layout.e2e.ts.)
    await page.route('**/v1/images', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ created: 1, data: [] }) }))
    await expect(page.getByRole('radio', { name: 'Изображение' })).toHaveAttribute('aria-checked', 'true')
    await composer(page).fill('Нарисуй закат')
    await composer(page).press('Enter')
    await expect(page.getByRole('alert').filter({ hasText: 'Модель не вернула изображение.' })).toBeVisible()
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await expect(lastReply(page).getByTestId('markdown')).toContainText('Нарисуй закат')
    await page.unroute('**/v1/images')
    consoleWatch.assertClean([/status of 400/])
  })

  test('insufficient balance: a toast for 10 s whose button leads to /app/billing; the question returns to the field', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)
    // GPT-4's context caps what a prompt can cost (about 30 ₽ with the answer): first spend the
    // balance below that on pictures (FLUX.2 [pro] × 4, about 14 ₽ a call), through the API.
    const left = await spendBalanceBelow(page, 20)
    expect(left).toBeLessThan(20)
    await page.goto('/app/playground?model=openai%2Fgpt-4')
    await expectModel(page, 'openai/gpt-4')
    // A long text fills GPT-4's whole context: more than is left on the balance. (GPT-4 reads text
    // only, so it is typed in, not attached.)
    const book = `Перескажи эту книгу: ${'Долгая история. '.repeat(3_000)}`
    await composer(page).fill(book)
    // The server's estimate says it before sending: over the balance, with the 402 message as the tooltip.
    const estimateEl = page.getByTestId('cost-estimate')
    await expect(estimateEl).toHaveAttribute('data-state', 'ready', { timeout: 15_000 })
    await expect(estimateEl).toContainText('больше баланса')
    await expect(estimateEl).toHaveAttribute('title', /Недостаточно средств/)
    const estimate = (await estimateEl.textContent())!
    expect(Number(estimate.replace(/[^\d,]/g, '').replace(',', '.'))).toBeGreaterThan(left)
    // Sending is off until the request fits (issue 29), with the way to top up: this prompt alone
    // costs more than the balance, a shorter answer would not help.
    await expect(page.getByRole('button', { name: 'Отправить' })).toBeDisabled()
    await expect(page.getByTestId('balance-warning').getByRole('link', { name: 'Пополнить баланс' })).toBeVisible()
    await expect(page.getByTestId('reduce-tokens')).toHaveCount(0)
    // Should the server refuse anyway (the balance spent in another tab after the estimate), its 402
    // is shown: here the estimate is made to say yes.
    await page.route('**/api/playground/estimate', (route) =>
      route.fulfill({ json: { success: true, data: { maxCost: 1, hold: 1, maxTokens: null, affordable: true, message: null, affordableTokens: null } } }),
    )
    // a changed question (the estimate is asked again; a trailing space would not change it)
    await composer(page).fill(`${book}!`)
    // (the estimate of a whole context's text: slow on a busy machine)
    await expect(estimateEl).toHaveAttribute('data-state', 'ready', { timeout: 15_000 })
    await expect(page.getByRole('button', { name: 'Отправить' })).toBeEnabled()
    await composer(page).press('Enter')

    // the toast (the composer's own warning above the field says the same before sending)
    const toastEl = page.getByRole('region', { name: 'Уведомления' }).getByRole('alert').filter({ hasText: 'Недостаточно средств' })
    await expect(toastEl).toBeVisible()
    const topUp = toastEl.getByRole('link', { name: 'Пополнить баланс' })
    await expect(topUp).toBeVisible()
    await expect(composer(page)).toHaveValue(`${book}!`)
    await expect(page.getByTestId('user-message')).toHaveCount(0)
    await shoot(page, 'playground-insufficient-1280')
    // Longer than the usual 4 s.
    await page.waitForTimeout(5_000)
    await expect(toastEl).toBeVisible()
    await topUp.click()
    await expect(page).toHaveURL(/\/app\/billing$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Баланс' })).toBeVisible()
    consoleWatch.assertClean([/status of 402/])
  })

  test('the catalogue opens a model here; a catalogue failure falls back to three models; an empty reply is an error', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)
    await page.goto('/app/models')
    await page.locator('[data-testid=model-card][data-model-id="anthropic/claude-3-haiku"]').click()
    await expect(page).toHaveURL(/\/app\/playground\?model=anthropic%2Fclaude-3-haiku$/)
    await expectModel(page, 'anthropic/claude-3-haiku')

    // The catalogue cannot be loaded: the spec's message and its fallback list.
    await page.route('**/v1/models', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"message":"down","type":"server_error","code":"x","param":null}}' }),
    )
    await page.goto('/app/playground')
    await expect(page.getByRole('alert').filter({ hasText: 'Не удалось загрузить список моделей. Попробуйте обновить страницу.' })).toBeVisible({ timeout: 15_000 })
    await modelSelect(page).click()
    expect(
      await page
        .getByRole('option')
        .and(page.locator('[data-model-id]'))
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id'))),
    ).toEqual(['anthropic/claude-3-haiku', 'openai/gpt-3.5-turbo', 'openai/gpt-4'])
    await modelSelect(page).press('Escape')
    // the last model chosen in this browser (issue 29), here the one the catalogue opened
    await expectModel(page, 'anthropic/claude-3-haiku')
    await page.unroute('**/v1/models')

    // An answer with no text at all (a provider can send one) is shown as the spec's error.
    await page.route('**/v1/chat/completions', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\ndata: {"choices":[],"usage":{"total_tokens":5,"cost_rub":"0.000001"}}\n\ndata: [DONE]\n\n',
      }),
    )
    await composer(page).fill('Ответь пустотой')
    await composer(page).press('Enter')
    await expect(page.getByRole('alert').filter({ hasText: 'Пустой ответ модели' })).toBeVisible()
    await expect(page.getByTestId('assistant-message')).toHaveCount(0)
    consoleWatch.assertClean([/status of 503/])
  })

  test('delete a chat after «Удалить?»; the phone layout', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 360, height: 780 })
    await signIn(page)
    await page.goto('/app/playground')
    await composer(page).fill('Напиши пример кода на **TypeScript**')
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    const current = page.getByTestId('history-chat').filter({ has: page.locator('[aria-current=true]') })
    await expect(current).toHaveCount(1)
    const withReplies = page.locator(`[data-testid=history-chat][data-chat-id="${await current.getAttribute('data-chat-id')}"]`)
    await expectNoHorizontalScroll(page)
    await shoot(page, 'playground-chat-360')

    // Delete the chat that is open.
    const before = await page.getByTestId('history-chat').count()
    const chip = page.locator(`[data-testid=history-chat][data-chat-id="${await withReplies.getAttribute('data-chat-id')}"]`)
    const title = (await chip.getByRole('button').first().textContent())!.trim()
    await chip.getByRole('button', { name: `Удалить чат «${title}»` }).click()
    const dialog = page.getByRole('dialog', { name: 'Удалить?' })
    await expect(dialog).toBeVisible()
    await shoot(page, 'playground-delete-360')
    await dialog.getByRole('button', { name: 'Отмена' }).click()
    await expect(page.getByTestId('history-chat')).toHaveCount(before)

    await chip.getByRole('button', { name: `Удалить чат «${title}»` }).click()
    await page.getByRole('dialog', { name: 'Удалить?' }).getByRole('button', { name: 'Удалить', exact: true }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Чат удалён' })).toBeVisible()
    await expect(page.getByTestId('history-chat')).toHaveCount(before - 1)
    await expect(chip).toHaveCount(0)
    await expect(page.getByTestId('chat-title')).toHaveText('Новый чат')
    await expect(page.getByTestId('user-message')).toHaveCount(0)

    await page.goto('/app/playground?model=google%2Fgemini-2.5-flash-image')
    // On a phone model and settings are in a drawer, opened by a button above the chat.
    await expect(page.getByTestId('image-settings')).toHaveCount(0)
    await page.getByRole('button', { name: 'Модель и настройки' }).click()
    await expect(page.getByRole('dialog', { name: 'Модель и настройки' }).getByTestId('image-settings')).toBeVisible()
    await expectNoHorizontalScroll(page)
    await shoot(page, 'playground-image-360')
    consoleWatch.assertClean()
  })
})
