// Issue 29 in the Playground, at 1280×800 and 360×740: «Отправить» off while the server's estimate
// says the money does not cover the request, with the reason and one way out («Уменьшить ответ до N
// токенов» that then works); a refusal from the server shown once; a change of model inside a chat
// (each answer labelled, the chat titled from its first message and following the model, the last
// model remembered); a comparison of three models streamed side by side with each one's cost and
// time; a generated picture scrolled into view whole; the catalogue's comparison. axe on what is new.
import AxeBuilder from '@axe-core/playwright'
import { type APIRequestContext, expect, type Page, test } from '@playwright/test'
import { ADMIN_EMAIL, ADMIN_PASSWORD, apiGet, registerViaUi, SHOTS, spaced, uniqueEmail, watchConsole } from './helpers'

const VIEWPORTS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const
const PASSWORD = 'guard-compare-pass-1'

const composer = (page: Page) => page.getByRole('textbox', { name: 'Сообщение' })
const lastReply = (page: Page) => page.getByTestId('assistant-message').last()

/** axe (WCAG 2.x A and AA): no serious or critical violation on what is shown now (or inside `include`). */
async function expectAccessible(page: Page, include?: string) {
  await page.evaluate(() => document.fonts.ready)
  await page.mouse.move(0, 0)
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
  if (include) builder = builder.include(include)
  const { violations } = await builder.analyze()
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

const shot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage })

/** The admin's access token (the account is registered by whichever spec runs first). */
async function adminToken(request: APIRequestContext): Promise<string> {
  await request.post('/api/auth/register', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  const res = await request.post('/api/auth/login', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  return (await res.json()).data.accessToken
}

/** Sets the signed-in customer's balance to `rub` by an admin correction. */
async function setBalance(page: Page, rub: number) {
  const token = await adminToken(page.request)
  const me = await apiGet<{ user: { id: string; balance: number } }>(page, '/api/auth/profile')
  const balance = await apiGet<{ balance: number }>(page, '/api/billing/balance')
  const res = await page.request.post(`/api/admin/users/${me.user.id}/balance`, {
    headers: { authorization: `Bearer ${token}` },
    data: { amount: Math.round((rub - balance.balance) * 1e6) / 1e6, description: 'Подготовка теста' },
  })
  expect(res.status()).toBe(200)
}

/** On a phone model and settings are in a drawer. */
async function openSettings(page: Page, wide: boolean) {
  if (!wide) await page.getByRole('button', { name: 'Модель и настройки' }).click()
}
async function closeSettings(page: Page, wide: boolean) {
  if (!wide) await page.keyboard.press('Escape')
}

async function chooseModel(page: Page, wide: boolean, query: string, id: string) {
  await openSettings(page, wide)
  const picker = page.getByRole('combobox', { name: 'Модель' })
  await picker.click()
  await picker.fill(query)
  await page.locator(`[role=option][data-model-id="${id}"]`).click()
  await expect(picker).toHaveAttribute('data-model-id', id)
  await closeSettings(page, wide)
}

for (const vp of VIEWPORTS) {
  const wide = vp.width >= 1024
  test.describe(`Playground, issue 29, ${vp.name}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } })

    test('«Отправить» is off with the reason while the estimate exceeds the balance; «Уменьшить ответ до N токенов» makes it fit; a server refusal is one toast', async ({
      page,
    }) => {
      test.slow() // an account, an admin correction and two exchanges on a busy machine
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail(`guard${vp.name}`), PASSWORD)
      await setBalance(page, 1)
      await page.goto('/app/playground?model=openai%2Fgpt-4')
      await composer(page).fill('Расскажи подробно историю вычислительной техники')
      // GPT-4 at 500 tokens of answer costs more than 1 ₽: refused before sending, with the way out
      const warning = page.getByTestId('balance-warning')
      await expect(warning).toBeVisible({ timeout: 15_000 })
      // the estimate of the question as typed (one of the model's first, shorter, may show first)
      await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready', { timeout: 15_000 })
      const send = page.getByRole('button', { name: 'Отправить' })
      await expect(send).toBeDisabled()
      await expect(warning.getByTestId('send-blocked-reason')).toContainText('Не хватает баланса: запрос может стоить до')
      const reduce = warning.getByTestId('reduce-tokens')
      await expect(reduce).toHaveText(/^Уменьшить ответ до \d[\d\s]* токен(а|ов)$/)
      const n = Number(
        spaced(await reduce.textContent())
          .match(/до ([\d ]+) токен/)![1]!
          .replace(/\s/g, ''),
      )
      expect(n).toBeGreaterThanOrEqual(16)
      expect(n).toBeLessThan(500)
      // one action only: the balance link is not offered beside a shorter answer
      await expect(warning.getByRole('link', { name: 'Пополнить баланс' })).toHaveCount(0)
      // Enter does not send either
      await composer(page).press('Enter')
      await expect(page.getByTestId('user-message')).toHaveCount(0)
      await shot(page, `guard-blocked-${vp.name}`)
      await expect(async () => expectAccessible(page)).toPass()

      await reduce.click()
      await expect(warning).toHaveCount(0, { timeout: 15_000 })
      await expect(send).toBeEnabled()
      await openSettings(page, wide)
      await expect(page.getByRole('slider', { name: 'Максимум токенов' })).toHaveValue(String(n))
      await closeSettings(page, wide)
      const sent = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'))
      await send.click()
      expect(JSON.parse((await sent).postData()!).max_tokens).toBe(n)
      await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
      await expect(lastReply(page).getByTestId('reply-cost')).toBeVisible()
      const after = await apiGet<{ balance: number }>(page, '/api/billing/balance')
      expect(after.balance).toBeGreaterThanOrEqual(0)
      await shot(page, `guard-reduced-${vp.name}`)

      // The server refuses anyway (the estimate said yes a moment ago): its message shows once,
      // however many times the customer tries again.
      await page.route('**/api/playground/estimate', (route) =>
        route.fulfill({ json: { success: true, data: { maxCost: 0.01, hold: 0.01, maxTokens: null, affordable: true, message: null, affordableTokens: null } } }),
      )
      await page.route('**/v1/chat/completions', (route) =>
        route.fulfill({
          status: 402,
          contentType: 'application/json',
          body: JSON.stringify({
            error: {
              message: 'Недостаточно средств на балансе для этого запроса. Пополните баланс.',
              type: 'insufficient_balance',
              code: 'insufficient_balance',
              param: null,
              action: { label: 'Пополнить баланс', url: '/app/billing' },
            },
          }),
        }),
      )
      for (let i = 0; i < 3; i++) {
        await composer(page).fill(`Ещё вопрос ${i}`)
        await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready')
        await composer(page).press('Enter')
        await expect(composer(page)).toHaveValue(`Ещё вопрос ${i}`) // nothing answered: the question is back in the field
      }
      const toasts = page.getByRole('region', { name: 'Уведомления' }).getByRole('alert').filter({ hasText: 'Недостаточно средств на балансе' })
      await expect(toasts).toHaveCount(1)
      await expect(toasts.getByRole('link', { name: 'Пополнить баланс' })).toBeVisible()
      await shot(page, `guard-one-toast-${vp.name}`)
      consoleWatch.assertClean([/status of 402/])
    })

    test('a change of model continues the chat: each answer labelled, titled from the first message, the chat and the browser remember the model', async ({ page }) => {
      test.slow()
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail(`switch${vp.name}`), PASSWORD)
      const models = await apiGet<Array<{ id: string; name: string }>>(page, '/v1/models')
      const name = (id: string) => models.find((m) => m.id === id)!.name
      await page.goto('/app/playground')
      await expect(
        page
          .getByRole('combobox', { name: 'Модель' })
          .or(page.getByRole('button', { name: 'Модель и настройки' }))
          .first(),
      ).toBeVisible()
      const first = 'Что такое квантовая запутанность? Объясни коротко и понятно, пожалуйста, для школьника восьмого класса'
      await composer(page).fill(first)
      await composer(page).press('Enter')
      await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
      const title = page.getByTestId('chat-title')
      await expect(title).toHaveText(/^Что такое квантовая запутанность\? Объясни коротко.*…$/)
      const titled = (await title.textContent())!
      expect(titled.length).toBeLessThanOrEqual(61)

      await chooseModel(page, wide, 'haiku', 'anthropic/claude-3-haiku')
      // the conversation stays on screen
      await expect(page.getByTestId('user-message')).toHaveCount(1)
      await expect(title).toHaveText(titled)
      await composer(page).fill('А теперь одним предложением')
      const sent = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'))
      await composer(page).press('Enter')
      const body = JSON.parse((await sent).postData()!) as { model: string; messages: Array<{ role: string }> }
      // the next answer comes from the new model, with the whole conversation
      expect(body.model).toBe('anthropic/claude-3-haiku')
      expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
      await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
      const labels = page.getByTestId('reply-model')
      await expect(labels).toHaveText([name('openai/gpt-3.5-turbo'), name('anthropic/claude-3-haiku')])
      await expect(page.getByTestId('reply-time')).toHaveCount(2)
      await shot(page, `switch-chat-${vp.name}`)

      // The saved chat follows the latest answer's model; the next visit opens with the last model.
      await expect
        .poll(async () => (await apiGet<Array<{ title: string; model: string }>>(page, '/api/chats?limit=10')).find((c) => c.title === titled)?.model)
        .toBe('anthropic/claude-3-haiku')
      await page.reload()
      await expect(title).toHaveText('Новый чат')
      await openSettings(page, wide)
      await expect(page.getByRole('combobox', { name: 'Модель' })).toHaveAttribute('data-model-id', 'anthropic/claude-3-haiku')
      await closeSettings(page, wide)
      await chooseModel(page, wide, 'gpt-4o-mini', 'openai/gpt-4o-mini')
      await page.getByTestId('history-chat').filter({ hasText: titled }).getByRole('button', { name: titled, exact: true }).click()
      await expect(title).toHaveText(titled)
      await expect(page.getByTestId('reply-model')).toHaveText([name('openai/gpt-3.5-turbo'), name('anthropic/claude-3-haiku')])
      await openSettings(page, wide)
      await expect(page.getByRole('combobox', { name: 'Модель' })).toHaveAttribute('data-model-id', 'anthropic/claude-3-haiku')
      await closeSettings(page, wide)
      consoleWatch.assertClean()
    })

    test('«Сравнить»: one question to three models, streamed side by side (stacked on a phone), each with its cost and time', async ({ page }) => {
      test.slow()
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail(`compare${vp.name}`), PASSWORD)
      await page.goto('/app/playground')
      await page.getByRole('group', { name: 'Вид Playground' }).getByRole('button', { name: 'Сравнить' }).click()
      const columns = page.getByTestId('compare-column')
      await expect(columns).toHaveCount(3)
      const ids = await columns.evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id')))
      expect(new Set(ids).size).toBe(3)
      // side by side on a wide screen, one under another on a phone
      const boxes = await Promise.all((await columns.all()).map((c) => c.boundingBox()))
      if (wide) expect(new Set(boxes.map((b) => Math.round(b!.y))).size).toBe(1)
      else for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.y).toBeGreaterThan(boxes[i - 1]!.y + boxes[i - 1]!.height - 1)

      // a long echo (about 70 tokens each): the three streams overlap even when a busy machine starts them apart
      const question = `Сравни: ${'кошки собаки хомяки попугаи рыбки '.repeat(14).trim()}`
      await composer(page).fill(question)
      const estimate = page.getByTestId('cost-estimate')
      await expect(estimate).toHaveAttribute('data-state', 'ready')
      await expect(estimate).toContainText(/Оценка: до \d[\d\s]*,\d+\s₽/)
      // Streams side by side: every column is streaming at one moment.
      await page.evaluate(() => {
        const w = window as unknown as { __together: number }
        w.__together = 0
        // the whole page: the view may be laid out anew when sending starts (an observer left on a detached node sees nothing)
        new MutationObserver(() => {
          const streaming = document.querySelectorAll('[data-testid=compare-column] [data-testid=assistant-message][data-status=streaming] [data-testid=markdown]').length
          w.__together = Math.max(w.__together, streaming)
        }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
      })
      const before = (await apiGet<{ balance: number }>(page, '/api/billing/balance')).balance
      await composer(page).press('Enter')
      for (const column of await columns.all()) {
        await expect(column.getByTestId('assistant-message')).toHaveAttribute('data-status', 'done', { timeout: 30_000 })
        await expect(column.getByTestId('reply-cost')).toContainText(/Стоимость: \d+,\d+\s₽/)
        await expect(column.getByTestId('reply-time')).toHaveText(/^\d+(,\d)?\sс$/)
        await expect(column.getByTestId('compare-summary')).toHaveText(/^\d+,\d+\s₽ · \d+(,\d)?\sс$/)
      }
      expect(await page.evaluate(() => (window as unknown as { __together: number }).__together)).toBe(3)
      // the three requests were charged, each under its own model
      const usage = await apiGet<{ logs: Array<{ model: string; cost: number }> }>(page, '/api/billing/usage?limit=3')
      expect(usage.logs.map((l) => l.model).sort()).toEqual([...ids].sort())
      const charged = usage.logs.reduce((s, l) => s + l.cost, 0)
      await expect.poll(async () => before - (await apiGet<{ balance: number }>(page, '/api/billing/balance')).balance).toBeCloseTo(charged, 5)
      await page.evaluate(() => window.scrollTo(0, 0))
      await shot(page, `compare-3-${vp.name}`, !wide)
      await expect(async () => expectAccessible(page, '[data-testid=compare-view]')).toPass()
      consoleWatch.assertClean()
    })
  })
}

test('a generated picture is brought into view whole once it has loaded (360×740, after a conversation)', async ({ page }) => {
  test.slow()
  const consoleWatch = watchConsole(page)
  await page.setViewportSize({ width: 360, height: 740 })
  await registerViaUi(page, uniqueEmail('picture'), PASSWORD)
  await page.goto('/app/playground')
  for (const q of ['Первый вопрос о маяках и морских картах', 'Второй вопрос о штормах и навигации']) {
    await composer(page).fill(q)
    await composer(page).press('Enter')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
  }
  // the same chat goes on with a model that draws
  await chooseModel(page, false, 'flux', 'black-forest-labs/flux.2-pro')
  await page.getByRole('textbox', { name: 'Сообщение' }).fill('Маяк на скале в шторм')
  await composer(page).press('Enter')
  const figure = page.getByTestId('generated-image').last()
  await expect(figure.locator('img')).toBeVisible({ timeout: 30_000 })
  await expect.poll(() => figure.locator('img').evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true)
  // the whole figure (picture and its download bar) inside the conversation's visible area
  await expect
    .poll(async () =>
      page.evaluate(() => {
        const list = document.querySelector('[data-testid=message-list]')!.getBoundingClientRect()
        const figures = document.querySelectorAll('[data-testid=generated-image]')
        const fig = figures[figures.length - 1]!.getBoundingClientRect()
        return fig.top >= list.top - 1 && fig.bottom <= list.bottom + 1
      }),
    )
    .toBe(true)
  await expect(figure.getByRole('button', { name: 'Скачать' })).toBeInViewport()
  await expect(page.getByTestId('user-message')).toHaveCount(3)
  await shot(page, 'picture-in-view-360')
  consoleWatch.assertClean()
})

test.describe('catalogue comparison', () => {
  for (const vp of VIEWPORTS) {
    test(`tick models to see prices per 1M, context, modalities and a typical request side by side; on to the Playground (${vp.name})`, async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await page.setViewportSize({ width: vp.width, height: vp.height })
      // the public catalogue, without an account
      await page.goto('/models')
      const toggle = (id: string) => page.locator(`li:has([data-model-id="${id}"])`).getByTestId('compare-toggle')
      await toggle('openai/gpt-4o').check()
      await expect(page.getByTestId('compare-tray')).toBeVisible()
      await expect(page.getByTestId('compare-tray').getByRole('button', { name: /^Сравнить/ })).toBeDisabled()
      await toggle('anthropic/claude-3-haiku').check()
      await toggle('black-forest-labs/flux.2-pro').check()
      await expect(page).toHaveURL(
        /compare=openai%2Fgpt-4o%2Canthropic%2Fclaude-3-haiku%2Cblack-forest-labs%2Fflux\.2-pro|compare=openai\/gpt-4o,anthropic\/claude-3-haiku,black-forest-labs\/flux\.2-pro/,
      )
      await page.getByTestId('compare-tray').getByRole('button', { name: 'Сравнить 3 из 4' }).click()
      const dialog = page.getByRole('dialog', { name: 'Сравнение моделей' })
      await expect(dialog).toBeVisible()
      await expect(dialog.getByTestId('compare-model')).toHaveCount(3)
      await expect(dialog).toContainText('Типичный запрос — вопрос с контекстом на 1 000 токенов и ответ на 500 токенов')
      await expect(dialog.getByTestId('compare-prompt')).toContainText('Ввод, за 1M токенов')
      await expect(dialog.getByTestId('compare-context')).toContainText('128K контекст')
      await expect(dialog.getByTestId('compare-typical')).toContainText('1 000 + 500 токенов')
      await expect(dialog.getByTestId('compare-typical')).toContainText('1 картинка')
      await expect(dialog).toContainText('За сгенерированное изображение')
      await expect(dialog).not.toContainText('1K')
      await shot(page, `catalogue-compare-${vp.name}`)
      await expect(async () => expectAccessible(page, 'dialog')).toPass()
      // text models go on to the Playground's comparison (FLUX draws only: it stays behind)
      await dialog.getByRole('link', { name: /сравнить ответы в Playground/i }).click()
      await expect(page).toHaveURL(/\/login\?next=/)
      consoleWatch.assertClean()
    })
  }

  test('from the signed-in catalogue the Playground opens the comparison with those models', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 800 })
    await registerViaUi(page, uniqueEmail('catcompare'), PASSWORD)
    await page.goto('/app/models?compare=openai%2Fgpt-4o-mini,mistralai%2Fmistral-small')
    await expect(page.getByTestId('compare-tray')).toContainText('Mistral Small')
    await page.getByTestId('compare-tray').getByRole('button', { name: 'Сравнить 2 из 4' }).click()
    await page.getByRole('dialog', { name: 'Сравнение моделей' }).getByRole('link', { name: 'Сравнить ответы в Playground' }).click()
    await expect(page).toHaveURL(/\/app\/playground\?compare=/)
    await expect(page.getByTestId('compare-column')).toHaveCount(2)
    expect(await page.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-model-id')))).toEqual([
      'openai/gpt-4o-mini',
      'mistralai/mistral-small',
    ])
    consoleWatch.assertClean()
  })
})
