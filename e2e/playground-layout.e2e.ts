// The Playground of issue 17 at 1280×800 and 360×740: the conversation fills the viewport with the
// composer on screen (also after a long conversation), model and settings in a column or a phone
// drawer, the history row's scroll hint, the searchable model picker, the system prompt reaching the
// upstream, copy / regenerate / edit-and-resend, copy on code blocks, image mode and attachments
// only for models that take or give pictures, and the warning before a request the balance cannot cover.
import AxeBuilder from '@axe-core/playwright'
import { expect as baseExpect, type Page, test } from '@playwright/test'
import { apiGet, fileAccount, shoot, spaced, spendBalanceBelow, watchConsole } from './helpers'

// Room for a busy machine (the catalogue and the estimate are network round trips).
const expect = baseExpect.configure({ timeout: 15_000 })

/** No serious or critical WCAG 2.x A/AA violation in the playground's states a page-level audit does not reach (open list, drawer, edit form, warning). */
async function expectAccessible(page: Page, include = '[data-testid=playground]') {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).include(include).analyze()
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(blocking.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

const PASSWORD = 'playground-layout-1'
const signIn = fileAccount('pglayout', PASSWORD)

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 360, height: 740 }

const composer = (page: Page) => page.getByRole('textbox', { name: 'Сообщение' })
const picker = (page: Page) => page.getByRole('combobox', { name: 'Модель' })
const lastReply = (page: Page) => page.getByTestId('assistant-message').last()

type ApiModel = { id: string; name: string; pricing: Record<string, string>; capabilities: { image: boolean; vision: boolean; files: boolean; embeddings: boolean } }

/** The picker's options (not those of the native selects elsewhere on the page, such as the voice panel's). */
const pickerOptions = (page: Page) => page.getByRole('listbox').getByRole('option')

/** Picks a model through the picker's search, by keyboard: type, then Enter on the highlighted option. */
async function chooseModel(page: Page, query: string, id: string) {
  await picker(page).click()
  await picker(page).fill(query)
  const option = pickerOptions(page).and(page.locator(`[data-model-id="${id}"]`))
  await expect(option).toBeVisible()
  // arrow to it: the options before it in the filtered list
  const ids = await pickerOptions(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id')))
  for (let i = 0; i < ids.indexOf(id); i++) await picker(page).press('ArrowDown')
  await picker(page).press('Enter')
  await expect(picker(page)).toHaveAttribute('data-model-id', id)
}

/** The element's box lies wholly inside the viewport, and the page itself does not scroll. */
async function expectOnScreen(page: Page, testId: string) {
  const viewport = page.viewportSize()!
  const box = (await page.getByTestId(testId).boundingBox())!
  expect(box.y).toBeGreaterThanOrEqual(0)
  expect(box.x).toBeGreaterThanOrEqual(0)
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height)
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width)
  const scroll = await page.evaluate(() => ({
    y: window.scrollY,
    extra: document.documentElement.scrollHeight - window.innerHeight,
    wide: document.documentElement.scrollWidth - window.innerWidth,
  }))
  expect(scroll).toEqual({ y: 0, extra: expect.any(Number), wide: expect.any(Number) })
  expect(scroll.extra).toBeLessThanOrEqual(0)
  expect(scroll.wide).toBeLessThanOrEqual(0)
}

/** A saved chat of `pairs` questions and answers, made through the API (as the page saves them). */
async function seedChat(page: Page, title: string, pairs: number) {
  return page.evaluate(
    async ({ title, pairs }) => {
      const headers = { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' }
      const chat = (await (await fetch('/api/chats', { method: 'POST', headers, body: JSON.stringify({ title, model: 'openai/gpt-3.5-turbo' }) })).json()).data
      for (let i = 1; i <= pairs; i++) {
        await fetch(`/api/chats/${chat.id}/messages`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ role: 'user', content: `Вопрос номер ${i}: расскажи что-нибудь длинное` }),
        })
        const answer = Array.from({ length: 6 }, (_, k) => `Строка ${k + 1} ответа ${i}.`).join('\n\n')
        await fetch(`/api/chats/${chat.id}/messages`, { method: 'POST', headers, body: JSON.stringify({ role: 'assistant', content: answer }) })
      }
      return chat.id as string
    },
    { title, pairs },
  )
}

test.describe.configure({ mode: 'serial', timeout: 120_000 })

test.describe('Playground layout and features (issue 17)', () => {
  test('1280×800: the composer is on screen (also after a long conversation), the side column, the history row hint', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(DESKTOP)
    await signIn(page)
    await page.goto('/app/playground')
    await expect(picker(page)).toHaveAttribute('data-model-id', 'openai/gpt-3.5-turbo')
    await expectOnScreen(page, 'composer')
    // model info and settings in the column beside the chat, no drawer button
    await expect(page.getByRole('complementary', { name: 'Модель и настройки' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Модель и настройки' })).toHaveCount(0)
    await shoot(page, 'pg-layout-empty-1280')

    // Ten chats with long titles overflow the row: a hint on the right, then on the left after scrolling.
    for (let i = 10; i >= 1; i--) await seedChat(page, `Длинный разговор номер ${i} о моделях и ценах`, i === 1 ? 14 : 1)
    await page.reload()
    const right = page.getByTestId('history-hint-right')
    await expect(page.getByTestId('history-chat')).toHaveCount(10)
    await expect(right).toHaveAttribute('data-visible', 'true')
    await expect(page.getByTestId('history-hint-left')).toHaveAttribute('data-visible', 'false')
    await expect(right.getByRole('button', { name: 'Прокрутить историю вправо' })).toBeVisible()
    await shoot(page, 'pg-layout-history-hint-1280')
    await expectAccessible(page)
    await right.getByRole('button', { name: 'Прокрутить историю вправо' }).click()
    await expect(page.getByTestId('history-hint-left')).toHaveAttribute('data-visible', 'true')
    const scrolled = await page.getByTestId('chat-history').evaluate((el) => el.scrollLeft)
    expect(scrolled).toBeGreaterThan(0)

    // A long conversation: only the message list scrolls, the composer stays in view.
    await page.getByTestId('chat-history').evaluate((el) => el.scrollTo({ left: 0 }))
    await page.getByRole('button', { name: 'Длинный разговор номер 1 о моделях и ценах', exact: true }).click()
    await expect(page.getByTestId('user-message')).toHaveCount(14)
    await expectOnScreen(page, 'composer')
    const list = await page.getByTestId('message-list').evaluate((el) => ({ scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, scrollTop: el.scrollTop }))
    expect(list.scrollHeight).toBeGreaterThan(list.clientHeight * 2)
    // scrolled to the newest message
    expect(list.scrollTop + list.clientHeight).toBeGreaterThanOrEqual(list.scrollHeight - 2)
    await shoot(page, 'pg-layout-long-1280')
    consoleWatch.assertClean()
  })

  test('the picker: search by name and provider with prices, arrows, Enter and Escape; choosing a model continues the chat', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(DESKTOP)
    await signIn(page)
    const models = await apiGet<ApiModel[]>(page, '/v1/models')
    await page.goto('/app/playground')
    await expect(picker(page)).toHaveValue(models.find((m) => m.id === 'openai/gpt-3.5-turbo')!.name)

    // Open with the keyboard; every chat model is offered (embedding models are not for chatting).
    await picker(page).focus()
    await picker(page).press('ArrowDown')
    await expect(picker(page)).toHaveAttribute('aria-expanded', 'true')
    // (speech models too: the Playground voices what is typed; transcription models listen through the microphone instead)
    const chatModels = models.filter((m) => !m.capabilities.embeddings && !(m.capabilities as { transcription?: boolean }).transcription)
    await expect(pickerOptions(page)).toHaveCount(chatModels.length)
    // each option names its provider and price
    const haiku = models.find((m) => m.id === 'anthropic/claude-3-haiku')!
    const haikuOption = page.locator('[role=option][data-model-id="anthropic/claude-3-haiku"]')
    await expect(haikuOption).toContainText('Anthropic')
    await expect(haikuOption).toContainText(/\d[\d\s]*,\d+\s₽ \/ \d[\d\s]*,\d+\s₽ за 1M токенов/)
    // by provider
    await picker(page).fill('anthropic')
    await expect(pickerOptions(page)).toHaveCount(1)
    await expect(pickerOptions(page)).toContainText(haiku.name)
    // by name, several words, any case
    await picker(page).fill('gpt 4O')
    const ids = await pickerOptions(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id')))
    expect(ids.sort()).toEqual(['openai/gpt-4o', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini-tts'])
    await picker(page).fill('нет такой модели')
    await expect(page.getByRole('listbox')).toContainText('Ничего не найдено')
    await shoot(page, 'pg-picker-empty-1280')

    // Escape closes the list and keeps the model.
    await picker(page).fill('flux')
    await shoot(page, 'pg-picker-search-1280')
    await expectAccessible(page)
    await picker(page).press('Escape')
    await expect(page.getByRole('listbox')).toHaveCount(0)
    await expect(picker(page)).toHaveAttribute('data-model-id', 'openai/gpt-3.5-turbo')

    // A conversation, then another model by the keyboard: the chat goes on (issue 29; the spec reset it).
    await composer(page).fill('Привет')
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await chooseModel(page, 'haiku', 'anthropic/claude-3-haiku')
    await expect(picker(page)).toHaveValue(haiku.name)
    await expect(page.getByTestId('model-info')).toContainText(haiku.name)
    await expect(page.getByTestId('chat-title')).toHaveText('Привет')
    await expect(page.getByTestId('user-message')).toHaveCount(1)
    // by the mouse
    await picker(page).click()
    await page.locator('[role=option][data-model-id="openai/gpt-4"]').click()
    await expect(picker(page)).toHaveAttribute('data-model-id', 'openai/gpt-4')
    consoleWatch.assertClean()
  })

  test('the system prompt goes first in the request, the upstream counts it, and the estimate includes it', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(DESKTOP)
    await signIn(page)
    await page.goto('/app/playground')
    const question = 'Сколько будет два плюс два?' // 27 characters
    type Log = { promptTokens: number; model: string }
    const promptTokensOfLast = async () => (await apiGet<{ logs: Log[] }>(page, '/api/billing/usage?limit=1')).logs[0]!.promptTokens

    await composer(page).fill(question)
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    const without = await promptTokensOfLast()

    await page.getByRole('button', { name: 'Новый чат' }).click()
    const system = 'Ты вежливый помощник. Отвечай одним словом и всегда по-русски.' // 62 characters
    await page.getByRole('button', { name: 'Системный промпт' }).click()
    await page.getByRole('textbox', { name: 'Системный промпт' }).fill(system)
    await expectAccessible(page)
    const estimates: Array<{ chat: { messages: Array<{ role: string; content: unknown }> } }> = []
    page.on('request', (r) => r.url().endsWith('/api/playground/estimate') && estimates.push(JSON.parse(r.postData()!)))
    await composer(page).fill(question)
    await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready')
    expect(estimates.at(-1)!.chat.messages[0]).toEqual({ role: 'system', content: system })
    await shoot(page, 'pg-system-prompt-1280')

    const sent = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions') && r.method() === 'POST')
    await composer(page).press('Enter')
    const body = JSON.parse((await sent).postData()!) as { messages: Array<{ role: string; content: unknown }> }
    expect(body.messages).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: question },
    ])
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    // The demo upstream counts ceil(characters / 4) + 4 per message: the system message is there.
    await expect.poll(promptTokensOfLast).not.toBe(without)
    const withSystem = await promptTokensOfLast()
    expect(withSystem - without).toBe(Math.ceil((question.length + system.length) / 4) - Math.ceil(question.length / 4) + 4)
    // the estimate of the next question carries the system prompt too
    await composer(page).fill('И ещё вопрос')
    await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready')
    expect(estimates.at(-1)!.chat.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    consoleWatch.assertClean()
  })

  test('copy, regenerate and edit-and-resend on messages; copy on a code block', async ({ page, context }) => {
    const consoleWatch = watchConsole(page)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await page.setViewportSize(DESKTOP)
    await signIn(page)
    await page.goto('/app/playground')
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText())

    await composer(page).fill('Первый вопрос')
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await composer(page).fill('Второй вопрос')
    await composer(page).press('Enter')
    await expect(page.getByTestId('assistant-message')).toHaveCount(2)
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    const firstReply = page.getByTestId('assistant-message').first()
    // only the last reply can be regenerated
    await expect(firstReply.getByRole('button', { name: 'Повторить' })).toHaveCount(0)

    // Copy a reply and a question.
    const reply = (await lastReply(page).getByTestId('markdown').textContent())!
    await lastReply(page).getByRole('button', { name: 'Копировать сообщение' }).click()
    await expect(lastReply(page).getByRole('button', { name: 'Скопировано' })).toBeVisible()
    expect(await clipboard()).toBe(reply.trim())
    await page.getByTestId('user-message').first().getByRole('button', { name: 'Копировать сообщение' }).click()
    expect(await clipboard()).toBe('Первый вопрос')

    // Regenerate: the conversation up to the last question is sent again; the old reply is replaced.
    const again = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions') && r.method() === 'POST')
    await lastReply(page).getByRole('button', { name: 'Повторить' }).click()
    const regenerated = JSON.parse((await again).postData()!) as { messages: Array<{ role: string; content: string }> }
    expect(regenerated.messages.map((m) => [m.role, m.role === 'user' ? m.content : ''])).toEqual([
      ['user', 'Первый вопрос'],
      ['assistant', ''],
      ['user', 'Второй вопрос'],
    ])
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await expect(page.getByTestId('assistant-message')).toHaveCount(2)
    await expect(page.getByTestId('user-message')).toHaveCount(2)
    const chats = await apiGet<Array<{ id: string }>>(page, '/api/chats?limit=1')
    type Saved = { messages: Array<{ role: string; content: string }> }
    const saved = () => apiGet<Saved>(page, `/api/chats/${chats[0]!.id}`)
    await expect.poll(async () => (await saved()).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])

    // Edit the first question: it is resent with the new text and everything after it goes.
    const first = page.getByTestId('user-message').first()
    await first.getByRole('button', { name: 'Изменить' }).click()
    const field = page.getByRole('textbox', { name: 'Изменить сообщение' })
    await expect(field).toBeFocused()
    await expect(field).toHaveValue('Первый вопрос')
    await shoot(page, 'pg-edit-1280')
    await expectAccessible(page)
    await field.fill('Исправленный первый вопрос')
    const edited = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions') && r.method() === 'POST')
    await page.getByTestId('user-message').first().getByRole('button', { name: 'Отправить' }).click()
    expect((JSON.parse((await edited).postData()!) as { messages: unknown[] }).messages).toEqual([{ role: 'user', content: 'Исправленный первый вопрос' }])
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await expect(page.getByTestId('user-message')).toHaveCount(1)
    await expect(page.getByTestId('user-text')).toHaveText('Исправленный первый вопрос')
    await expect(lastReply(page).getByTestId('markdown')).toContainText('Исправленный первый вопрос')
    await expect.poll(async () => (await saved()).messages.map((m) => m.content.slice(0, 26))).toEqual(['Исправленный первый вопрос', expect.stringContaining('Демо-ответ')])
    // Escape leaves an edit without sending
    await page.getByTestId('user-message').first().getByRole('button', { name: 'Изменить' }).click()
    await page.getByRole('textbox', { name: 'Изменить сообщение' }).press('Escape')
    await expect(page.getByRole('textbox', { name: 'Изменить сообщение' })).toHaveCount(0)

    // A code block in a reply has its own copy button. (The demo echoes the question on one line,
    // so this reply is served by the test: a provider's answer with a fenced block.)
    const code = 'const total = items.reduce((sum, x) => sum + x, 0)\nconsole.log(total)'
    const answer = `Вот пример:\n\n\`\`\`js\n${code}\n\`\`\`\n\nИ ещё \`inline\`.`
    await page.route('**/v1/chat/completions', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: answer }, finish_reason: null }] })}\n\ndata: {"choices":[],"usage":{"total_tokens":30,"cost_rub":"0.000100"}}\n\ndata: [DONE]\n\n`,
      }),
    )
    await composer(page).fill('Покажи пример кода')
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    const block = lastReply(page).locator('.code-block')
    await expect(block).toHaveCount(1)
    await expect(block).toContainText('js')
    await block.getByRole('button', { name: 'Копировать код' }).click()
    await expect(block.getByRole('button', { name: 'Скопировано' })).toHaveText('Скопировано')
    expect(await clipboard()).toBe(code)
    await shoot(page, 'pg-code-copy-1280')
    await expectAccessible(page)
    // on a phone the code scrolls sideways, by the keyboard too
    await page.setViewportSize(PHONE)
    await expect(block.locator('pre')).toHaveAttribute('tabindex', '0')
    await expectAccessible(page)
    await page.setViewportSize(DESKTOP)
    await page.unroute('**/v1/chat/completions')
    consoleWatch.assertClean()
  })

  test('image mode only for models that draw; attachments only for models that read pictures or files', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(DESKTOP)
    await signIn(page)
    const models = await apiGet<ApiModel[]>(page, '/v1/models')
    const imageRadio = page.getByRole('radio', { name: 'Изображение' })
    const attach = page.getByRole('button', { name: 'Прикрепить файл' })

    // Vision-only models read pictures but answer in text: no image mode, but attachments.
    for (const id of ['openai/gpt-4o', 'anthropic/claude-3-haiku']) {
      const model = models.find((m) => m.id === id)!
      expect(model.capabilities).toMatchObject({ image: false, vision: true })
      await page.goto(`/app/playground?model=${encodeURIComponent(id)}`)
      await expect(picker(page)).toHaveAttribute('data-model-id', id)
      await expect(page.getByRole('radiogroup', { name: 'Режим' })).toHaveCount(0)
      await expect(imageRadio).toHaveCount(0)
      await expect(attach).toBeVisible()
    }
    // Claude 3 Haiku reads pictures but not PDFs: the picker offers no PDFs and a PDF is refused.
    await expect(page.getByTestId('file-input')).not.toHaveAttribute('accept', /pdf/)
    await page.getByTestId('file-input').setInputFiles({ name: 'отчёт.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') })
    await expect(page.getByRole('alert').filter({ hasText: 'Эта модель не читает PDF' })).toBeVisible()
    await expect(page.getByTestId('attachment-chip')).toHaveCount(0)

    // A text-only model: no attachments, no image mode.
    await chooseModel(page, 'gpt-3.5', 'openai/gpt-3.5-turbo')
    await expect(attach).toHaveCount(0)
    await expect(page.getByTestId('file-input')).toHaveCount(0)
    await expect(imageRadio).toHaveCount(0)
    await shoot(page, 'pg-text-only-1280')

    // Models that draw: image mode offered (and chosen).
    for (const id of models.filter((m) => m.capabilities.image).map((m) => m.id)) {
      await page.goto(`/app/playground?model=${encodeURIComponent(id)}`)
      await expect(picker(page)).toHaveAttribute('data-model-id', id)
      await expect(imageRadio).toHaveAttribute('aria-checked', 'true')
    }
    await shoot(page, 'pg-image-model-1280')
    consoleWatch.assertClean()
  })

  test('360×740: the composer is on screen, model and settings in a drawer (focus, Escape, close), the history hint', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(PHONE)
    await signIn(page)
    await seedChat(page, 'Короткий разговор с телефона', 1)
    await seedChat(page, 'Длинный разговор с телефона', 14)
    await page.goto('/app/playground')
    await expect(page.getByTestId('chat-title')).toBeVisible()
    await expectOnScreen(page, 'composer')
    await expect(page.getByRole('complementary', { name: 'Модель и настройки' })).toHaveCount(0)
    await expect(page.getByTestId('history-hint-right')).toHaveAttribute('data-visible', 'true')
    await shoot(page, 'pg-layout-empty-360')

    // The drawer: opened by its button, focus inside, Escape closes and gives the focus back.
    const open = page.getByRole('button', { name: 'Модель и настройки' })
    await open.click()
    const drawer = page.getByRole('dialog', { name: 'Модель и настройки' })
    await expect(drawer).toBeVisible()
    await expect(open).toHaveAttribute('aria-expanded', 'true')
    expect(await drawer.evaluate((d) => d.contains(document.activeElement))).toBe(true)
    await expect(drawer.getByTestId('model-info')).toBeVisible()
    await expect(drawer.getByLabel('Температура')).toBeVisible()
    await shoot(page, 'pg-drawer-360')
    await expectAccessible(page, '[data-testid=settings-drawer]')
    await page.keyboard.press('Escape')
    await expect(drawer).toBeHidden()
    await expect(open).toBeFocused()

    // Choose a model in the drawer (Escape in the picker closes only its list), then close by the button.
    await open.click()
    await picker(page).click()
    await picker(page).fill('mini')
    await picker(page).press('Escape')
    await expect(page.getByRole('listbox')).toHaveCount(0)
    await expect(drawer).toBeVisible()
    await chooseModel(page, 'mini', 'openai/gpt-4o-mini')
    await shoot(page, 'pg-drawer-picked-360')
    await expectAccessible(page, '[data-testid=settings-drawer]')
    await drawer.getByRole('button', { name: 'Закрыть' }).click()
    await expect(drawer).toBeHidden()
    await expect(page.getByText('openai/gpt-4o-mini', { exact: true })).toBeVisible()

    // A long conversation on the phone: the composer is still on screen.
    await page.getByRole('button', { name: 'Длинный разговор с телефона', exact: true }).click()
    await expect(page.getByTestId('user-message')).toHaveCount(14)
    await expectOnScreen(page, 'composer')
    await composer(page).fill('Ещё вопрос с телефона')
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 })
    await expectOnScreen(page, 'composer')
    await shoot(page, 'pg-layout-long-360')
    consoleWatch.assertClean()
  })

  test("a request the balance cannot cover: a warning with the top-up link before sending, the server's 402 after", async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(DESKTOP)
    await signIn(page)
    // Spend the balance below what a long GPT-4 prompt can cost, on pictures through the API.
    const left = await spendBalanceBelow(page, 20)
    expect(left).toBeLessThan(20)
    await page.goto('/app/playground?model=openai%2Fgpt-4')
    await expect(picker(page)).toHaveAttribute('data-model-id', 'openai/gpt-4')
    const warning = page.getByTestId('balance-warning')
    await composer(page).fill('Коротко')
    await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready')
    await expect(warning).toHaveCount(0)

    // A text long enough to fill GPT-4's context costs more than is left.
    await composer(page).fill(`Перескажи: ${'Долгая история. '.repeat(3_000)}`)
    await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready', { timeout: 15_000 })
    await expect(warning).toBeVisible()
    const figure = spaced(await page.getByTestId('cost-estimate').textContent()).match(/до ([\d ]+,\d+ ₽)/)![1]!
    expect(spaced(await warning.textContent())).toContain(`Не хватает баланса: запрос может стоить до ${figure}`)
    // the server's own explanation, as its 402 will give it
    await expect(warning).toContainText('Недостаточно средств')
    const topUp = warning.getByRole('link', { name: 'Пополнить баланс' })
    await expect(topUp).toHaveAttribute('href', '/app/billing')
    await expectOnScreen(page, 'composer')
    await shoot(page, 'pg-over-balance-1280')
    await expectAccessible(page)

    // Sending is not blocked: the server refuses with 402 and its message is shown with the same link.
    await composer(page).press('Enter')
    const toastEl = page
      .getByRole('alert')
      .filter({ hasText: 'Недостаточно средств' })
      .filter({ has: page.getByRole('link', { name: 'Пополнить баланс' }) })
      .last()
    await expect(toastEl).toBeVisible()
    await expect(page.getByTestId('user-message')).toHaveCount(0)

    // On the phone the warning and its link fit above the composer.
    await page.setViewportSize(PHONE)
    await expect(warning).toBeVisible()
    await expect(warning.getByRole('link', { name: 'Пополнить баланс' })).toBeVisible()
    await expectOnScreen(page, 'composer')
    await shoot(page, 'pg-over-balance-360')
    await topUp.click()
    await expect(page).toHaveURL(/\/app\/billing$/)
    expect(spaced(await page.getByRole('heading', { level: 1 }).textContent())).toBe('Баланс')
    consoleWatch.assertClean([/status of 402/])
  })
})
