// Issue 29 outside the Playground, at 1280×800 and 360×740: one price unit on every page that
// shows prices (per 1M tokens, pictures by direction); an admin's reason in the customer's history;
// the admin user list (confirmation, last activity) and a user's page; sessions with device and
// IP; one dismissible line per notice (one at a time on a phone), none of the admin's own
// low-balance banner on the admin pages; the same public header everywhere; the refund card on
// test top-ups; the docs on the bonus. axe on the new admin page.
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { registerViaUi, SHOTS, signInAsAdmin, spaced, uniqueEmail, watchConsole } from './helpers'

const VIEWPORTS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const
const PASSWORD = 'money-edges-pass-1'
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })

async function expectAccessible(page: Page) {
  await page.evaluate(() => document.fonts.ready)
  await page.mouse.move(0, 0)
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

/** The page's visible text: no «1K», no picture price without its direction. */
async function expectOneUnit(page: Page, where: string) {
  const text = spaced(await page.locator('body').innerText())
  expect(text, where).not.toMatch(/за 1K|1K токенов|за 1 ?000 токенов|за 1 тыс/)
  expect(text, where).not.toMatch(/за изображение/i)
  expect(text, where).not.toMatch(/за шт\./)
}

for (const vp of VIEWPORTS) {
  test.describe(`issue 29 edges, ${vp.name}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } })

    test('one price unit on every page that shows prices: per 1M tokens, pictures by direction', async ({ page }) => {
      test.slow()
      const consoleWatch = watchConsole(page)
      // public pages
      await page.goto('/')
      await expect(page.getByTestId('showcase-price').first()).toContainText('₽')
      await expectOneUnit(page, 'landing')
      for (const path of ['/models', '/models/openai/gpt-4o', '/models/black-forest-labs/flux.2-pro', '/docs']) {
        await page.goto(path)
        await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
        if (path.startsWith('/models')) await expect(page.locator('body')).toContainText(path.includes('flux') ? /за сгенерированное изображение/i : 'за 1M токенов')
        await expectOneUnit(page, path)
      }
      await shot(page, `one-unit-docs-${vp.name}`)
      // signed in: the catalogue, the picker, the model panel, the docs
      await registerViaUi(page, uniqueEmail(`unit${vp.name}`), PASSWORD)
      await page.goto('/app/models')
      await expect(page.getByTestId('model-card').first()).toBeVisible()
      await expect(page.locator('[data-testid=model-card][data-model-id="openai/gpt-4o"]')).toContainText('за 1M токенов')
      await expect(page.locator('[data-testid=model-card][data-model-id="openai/gpt-4o"]')).toContainText(/за входное изображение/i)
      await expectOneUnit(page, '/app/models')
      await shot(page, `one-unit-app-models-${vp.name}`)
      await page.goto('/app/playground')
      if (vp.width < 1024) {
        await page.getByRole('button', { name: 'Модель и настройки' }).click()
        await page.getByTestId('model-info').getByRole('button', { name: 'Показать' }).click()
      }
      await expect(page.getByTestId('price-prompt')).toContainText('за 1M токенов')
      await page.getByRole('combobox', { name: 'Модель' }).click()
      await expect(page.locator('[role=option][data-model-id="openai/gpt-4o"]')).toContainText('за 1M токенов')
      await expect(page.locator('[role=option][data-model-id="black-forest-labs/flux.2-pro"]')).toContainText('за сгенерированное изображение')
      await expectOneUnit(page, 'playground picker')
      await page.keyboard.press('Escape')
      await page.goto('/app/docs')
      await expect(page.locator('body')).toContainText('после подтверждения на баланс начисляется приветственный бонус')
      await expectOneUnit(page, '/app/docs')
      // balances and totals with two decimals
      await expect(page.getByTestId(vp.width < 1024 ? 'header-balance' : 'sidebar-balance')).toHaveText(/^\D*\d[\d\s]*,\d{2}\s₽$/)
      consoleWatch.assertClean()
    })

    test('the admin list shows confirmation and last activity and opens a user’s page; the reason reaches the customer’s history; no admin low-balance banner', async ({
      page,
      browser,
    }) => {
      test.slow()
      const consoleWatch = watchConsole(page)
      // a customer with a request behind them
      const customer = await browser.newPage({ viewport: { width: vp.width, height: vp.height }, locale: 'ru-RU' })
      const email = uniqueEmail(`reason${vp.name}`)
      await registerViaUi(customer, email, PASSWORD)
      await customer.evaluate(async () => {
        await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Привет' }] }),
        })
      })

      // the admin's own balance is low: the banner shows on their pages, not on the admin pages
      await page.route('**/api/billing/balance', async (route) => {
        const response = await route.fetch()
        const body = await response.json()
        await route.fulfill({ response, json: { ...body, data: { ...body.data, balance: 2.5, isLow: true } } })
      })
      await signInAsAdmin(page)
      // (the balance passes through the route above: slow on a busy machine)
      await expect(page.getByTestId('low-balance-banner')).toBeVisible({ timeout: 15_000 })
      await page.goto('/app/admin/users')
      await expect(page.getByRole('heading', { level: 1, name: 'Пользователи' })).toBeVisible()
      await expect(page.getByTestId('low-balance-banner')).toHaveCount(0)
      await page.getByRole('searchbox', { name: 'Поиск по email' }).fill(email)
      const row = page.getByTestId('admin-user-row').filter({ hasText: email })
      await expect(page.getByTestId('admin-user-row')).toHaveCount(1)
      await expect(row.getByTestId('admin-user-verified')).toHaveText(/e-mail (не )?подтверждён/)
      await expect(row.getByTestId('admin-user-active')).toContainText(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/)
      await shot(page, `admin-users-${vp.name}`)
      await row.getByTestId('admin-user-link').click()
      await expect(page).toHaveURL(/\/app\/admin\/users\/[\w-]+$/)
      await expect(page.getByRole('heading', { level: 1, name: email })).toBeVisible()
      await expect(page.getByTestId('low-balance-banner')).toHaveCount(0)
      await expect(page.getByTestId('admin-user-request')).toHaveCount(1)
      await expect(page.getByTestId('admin-user-request')).toContainText('openai/gpt-4o-mini')
      await expect(page.getByTestId('admin-user-ledger').getByTestId('transaction-row').first()).toBeVisible()
      await expectAccessible(page)

      // a correction with its reason, made from the user's page
      await page.getByRole('button', { name: 'Изменить баланс' }).click()
      const dialog = page.getByRole('dialog', { name: 'Изменение баланса' })
      await dialog.getByLabel('Сумма (+ пополнение, - списание)').fill('25,5')
      await dialog.getByTestId('balance-reason').fill('Компенсация за сбой 12 мая')
      await expect(dialog).toContainText('«Корректировка администратора: Компенсация за сбой 12 мая»')
      await shot(page, `admin-reason-dialog-${vp.name}`)
      await dialog.getByRole('button', { name: 'Применить' }).click()
      await expect(dialog).toBeHidden()
      await expect(page.getByTestId('admin-user-ledger').getByTestId('transaction-row').first()).toContainText('Корректировка администратора: Компенсация за сбой 12 мая')
      await shot(page, `admin-user-page-${vp.name}`)

      // the customer reads it in Russian, in the API and on the billing page
      const history = await customer.evaluate(
        async () => (await (await fetch('/api/billing/transactions?limit=50', { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })).json()).data,
      )
      expect(history[0]).toMatchObject({ type: 'admin', amount: '+25.50', description: 'Корректировка администратора: Компенсация за сбой 12 мая' })
      await customer.goto('/app/billing')
      await expect(customer.getByTestId('transaction-list')).toContainText('Корректировка администратора: Компенсация за сбой 12 мая')
      await expect(customer.getByTestId('transaction-list')).toContainText('+25,50 ₽')
      await shot(customer, `customer-reason-${vp.name}`)
      await customer.close()
      consoleWatch.assertClean()
    })

    test('sessions show the device and IP of their sign-in; notices are one line each, one at a time on a phone', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      const email = uniqueEmail(`session${vp.name}`)
      await registerViaUi(page, email, PASSWORD)
      await page.route('**/api/billing/balance', async (route) => {
        const response = await route.fetch()
        const body = await response.json()
        await route.fulfill({ response, json: { ...body, data: { ...body.data, balance: 3.5, isLow: true } } })
      })
      await page.goto('/app/account')
      const row = page.getByTestId('session-row').first()
      await expect(row.getByTestId('session-device')).toHaveText('Chrome, Linux')
      await expect(row.getByTestId('session-ip')).toHaveText('127.0.0.1')
      // notices: the low balance and the demo; each a single line, and only the first on a phone
      const low = page.getByTestId('low-balance-banner')
      const demo = page.getByTestId('demo-banner')
      await expect(low).toBeVisible()
      for (const banner of vp.width < 640 ? [low] : [low, demo]) {
        await expect(banner).toBeVisible()
        expect((await banner.boundingBox())!.height).toBeLessThanOrEqual(44)
      }
      if (vp.width < 640) {
        await expect(demo).toHaveCount(0)
        await low.getByRole('button', { name: 'Скрыть предупреждение' }).click()
        await expect(demo).toBeVisible() // the next one, once the first is closed
      }
      await shot(page, `session-device-${vp.name}`)
      consoleWatch.assertClean()
    })

    test('the same header on every public page; the refund card on test top-ups', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      const items: string[][] = []
      for (const path of ['/', '/blog', '/models', '/docs', '/services', '/privacy-policy', '/status']) {
        await page.goto(path)
        await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
        if (vp.width < 1024) {
          await page.getByRole('button', { name: 'Открыть меню' }).click()
          items.push(await page.getByRole('navigation', { name: 'Меню' }).getByRole('link').allInnerTexts())
        } else items.push(await page.getByRole('navigation', { name: 'Разделы сайта' }).getByRole('link').allInnerTexts())
      }
      expect(items[0]).toEqual(['Возможности', 'Для кого', 'Модели', 'Playground', 'Применение', 'Блог'])
      for (const list of items) expect(list).toEqual(items[0])

      // a test top-up: the refund card says it does not count
      await registerViaUi(page, uniqueEmail(`refund${vp.name}`), PASSWORD)
      await page.evaluate(async () => {
        const auth = { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' }
        const created = (await (await fetch('/api/payments/create', { method: 'POST', headers: auth, body: JSON.stringify({ amount: 500 }) })).json()).data
        const id = String(created.confirmationUrl).split('/').pop()
        await fetch(`/api/payments/test/${id}/pay`, { method: 'POST' })
      })
      await page.goto('/app/billing')
      await expect(page.getByTestId('refund-test-note')).toContainText('Тестовые пополнения не учитываются')
      await expect(page.getByTestId('refund-test-note')).toContainText('У вас таких пополнений: 1')
      await page.getByTestId('refund-section').scrollIntoViewIfNeeded()
      await shot(page, `refund-test-note-${vp.name}`)
      consoleWatch.assertClean()
    })
  })
}
