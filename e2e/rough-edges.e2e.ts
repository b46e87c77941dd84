// Issue 17, points 5 (the demo banner), 6 (admin fixes) and 8 (small items), at 1280×800 and 360×740:
// each rough edge the walk-through found, asserted as the customer or admin meets it.
import { type APIRequestContext, expect as baseExpect, type Page, test } from '@playwright/test'
import { dailySlots } from '../src/content/schedule'
import { ADMIN_EMAIL, ADMIN_PASSWORD, apiCustomer, registerViaUi, shoot, signInAsAdmin, spaced, uniqueEmail, watchConsole } from './helpers'

const PASSWORD = 'rough-edges-pass-1'

// Room for a busy machine: lazy screens can take several seconds to arrive when the CPU is shared.
const expect = baseExpect.configure({ timeout: 20_000 })
test.describe.configure({ timeout: 180_000 })

const VIEWPORTS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const

/** ru-RU rubles to the micro-ruble, as the web's formatRublesExact writes them. */
const exactRubles = (n: number) => `${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(n)} ₽`

const customer = (request: APIRequestContext, tag: string) => apiCustomer(request, tag, PASSWORD)

/** The admin's access token without the browser (the page stays a visitor's). */
async function adminApiToken(request: APIRequestContext): Promise<string> {
  const res = await request.post('/api/auth/register', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  expect([201, 409]).toContain(res.status())
  const login = await request.post('/api/auth/login', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  expect(login.status()).toBe(200)
  return (await login.json()).data.accessToken
}

const sessionToken = (page: Page) => page.evaluate(() => localStorage.getItem('accessToken') as string)

/** One chat request through the gateway, billed like any other. */
async function chat(request: APIRequestContext, token: string) {
  const res = await request.post('/v1/chat/completions', {
    headers: { authorization: `Bearer ${token}` },
    data: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Привет' }] },
  })
  expect(res.status()).toBe(200)
}

async function balanceOf(request: APIRequestContext, token: string): Promise<number> {
  const res = await request.get('/api/billing/balance', { headers: { authorization: `Bearer ${token}` } })
  return (await res.json()).data.balance
}

async function expectNoHorizontalScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
}

for (const vp of VIEWPORTS) {
  test.describe(`at ${vp.width}×${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } })

    test('demo banner: one line for visitors and customers, dismissed for good; the operator hint only for admins', async ({ page, context }) => {
      const consoleWatch = watchConsole(page)
      // A visitor on the public site: the short line, no operator setting.
      await page.goto('/')
      const banner = page.getByTestId('demo-banner')
      await expect(banner).toBeVisible()
      await expect(banner).toContainText('Демо-режим: ответы моделей имитируются')
      await expect(banner).not.toContainText('OPENROUTER_API_KEY')
      const notice = page.getByTestId('demo-banner-notice')
      const lineHeight = await notice.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight))
      expect((await notice.boundingBox())!.height).toBeLessThanOrEqual(lineHeight + 1) // one line, not five
      expect((await banner.boundingBox())!.height).toBeLessThanOrEqual(44)
      await shoot(page, `rough-banner-visitor-${vp.name}`)

      // A customer: the same line in the app, and closing it is remembered across reloads and pages.
      await registerViaUi(page, uniqueEmail('banner'), PASSWORD)
      await expect(banner).toBeVisible()
      await expect(banner).not.toContainText('OPENROUTER_API_KEY')
      await expect(page.getByTestId('demo-banner-admin')).toHaveCount(0)
      expect((await notice.boundingBox())!.height).toBeLessThanOrEqual(lineHeight + 1)
      await shoot(page, `rough-banner-customer-${vp.name}`)
      await banner.getByRole('button', { name: 'Скрыть уведомление о демо-режиме' }).click()
      await expect(banner).toBeHidden()
      await page.reload()
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
      await expect(banner).toBeHidden()
      await page.goto('/models')
      await expect(page.getByTestId('model-card').first()).toBeVisible()
      await expect(banner).toBeHidden()

      // An admin (another browser, the banner not dismissed there) sees how to switch the demo off.
      const adminPage = await context.browser()!.newPage({ viewport: { width: vp.width, height: vp.height }, locale: 'ru-RU', baseURL: new URL(page.url()).origin })
      await signInAsAdmin(adminPage)
      const adminBanner = adminPage.getByTestId('demo-banner')
      await expect(adminBanner).toContainText('Демо-режим: ответы моделей имитируются')
      await expect(adminPage.getByTestId('demo-banner-admin')).toContainText('OPENROUTER_API_KEY')
      await shoot(adminPage, `rough-banner-admin-${vp.name}`)
      await adminPage.close()
      consoleWatch.assertClean()
    })

    test('admin: an over-deduction keeps «Применить» off with one formatted reason; a refusal from the server is one error', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      const target = await customer(page.request, 'deduct')
      await chat(page.request, target.token) // a fractional balance, as after real use
      const balance = await balanceOf(page.request, target.token)
      expect(balance).toBeLessThan(50)
      expect(Number.isInteger(balance * 100)).toBe(false)

      await signInAsAdmin(page)
      await page.goto('/app/admin/users')
      await page.getByPlaceholder('Поиск по email...').fill(target.email)
      const row = page.getByTestId('admin-user-row').filter({ hasText: target.email })
      await expect(page.getByTestId('admin-user-row')).toHaveCount(1)
      await row.getByRole('button', { name: `Изменить баланс ${target.email}` }).click()
      const dialog = page.getByRole('dialog', { name: 'Изменение баланса' })
      const amount = dialog.getByLabel('Сумма (+ пополнение, - списание)')
      const apply = dialog.getByRole('button', { name: 'Применить' })

      await amount.fill('-100')
      await expect(apply).toBeDisabled()
      const alerts = dialog.getByRole('alert')
      await expect(alerts).toHaveCount(1)
      const reason = spaced(await alerts.textContent())
      expect(reason).toContain(`Нельзя списать больше, чем есть на балансе: сейчас на нём ${spaced(exactRubles(balance))}`)
      expect(reason).not.toContain(String(balance)) // never the raw «49.998789 ₽»
      await shoot(page, `rough-over-deduction-${vp.name}`)

      // Within the balance the button comes back; «Списать весь остаток» fills the exact amount.
      await amount.fill('-1')
      await expect(apply).toBeEnabled()
      await expect(alerts).toHaveCount(0)
      await amount.fill('-100')
      await dialog.getByRole('button', { name: 'Списать весь остаток' }).click()
      await expect(amount).toHaveValue(String(-balance))
      await expect(apply).toBeEnabled()

      // The balance changes behind the dialog's back: the server refuses, and that is said once.
      const adminToken = await sessionToken(page)
      const spent = await page.request.post(`/api/admin/users/${target.id}/balance`, { headers: { authorization: `Bearer ${adminToken}` }, data: { amount: -1 } })
      expect(spent.status()).toBe(200)
      await apply.click()
      const refusal = page.getByRole('region', { name: 'Уведомления' }).getByText(/Ошибка обновления баланса/)
      await expect(refusal).toHaveCount(1)
      const refusalText = spaced(await refusal.textContent())
      expect(refusalText).toContain(`сейчас на нём ${spaced(exactRubles(balance - 1))}`)
      expect(refusalText).not.toMatch(/\d\.\d/)
      await expect(dialog.getByRole('alert')).toHaveCount(0)
      await expect(dialog).toBeVisible()
      expect(await balanceOf(page.request, target.token)).toBeCloseTo(balance - 1, 6)
      consoleWatch.assertClean([/Failed to load resource.*400/])
    })

    test('admin blog: the schedule text names the same times as «Ближайшая»', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await signInAsAdmin(page)
      const token = await sessionToken(page)
      const headers = { authorization: `Bearer ${token}` }
      const before = (await (await page.request.get('/api/blog/admin/autopost/settings', { headers })).json()).data
      try {
        await page.goto('/app/admin/blog')
        const banner = page.getByTestId('autopost-banner')
        await expect(page.getByRole('heading', { level: 1, name: 'Блог' })).toBeVisible()
        for (const schedule of [
          { startTime: '10:00', intervalHours: 1 },
          { startTime: '10:00', intervalHours: 6 },
          { startTime: '08:30', intervalHours: 12 },
        ]) {
          const res = await page.request.patch('/api/blog/admin/autopost/settings', { headers, data: { ...schedule, isEnabled: true } })
          expect(res.status()).toBe(200)
          await page.reload()
          await expect(banner).toContainText('Автопостинг активен')
          const slots = dailySlots(schedule.startTime, schedule.intervalHours)
          const sentence = spaced(await page.getByTestId('autopost-next').textContent())
          const next = spaced(await page.getByTestId('autopost-next-run').textContent())
          const nextTime = /(\d\d:\d\d) МСК\.$/.exec(next)?.[1]
          expect(nextTime, next).toBeTruthy()
          // The nearest publication is one of the times the sentence states, never «в 10:00» next to «01:00».
          expect(slots).toContain(nextTime)
          if (slots.length <= 4) for (const slot of slots) expect(sentence).toContain(slot)
          else expect(sentence).toMatch(new RegExp(`${slots[0]}, ${slots[1]} … ${slots.at(-1)}`))
          expect(sentence).not.toContain('затем')
          await expect(page.getByTestId('autopost-schedule')).toContainText(sentence.replace(/^Статьи выходят /, '').replace(/ \(московское время\)\.$/, ''))
        }
        // The frequency is the app's styled drop-down, not the browser's bare one.
        const frequency = page.getByLabel('Частота')
        expect(await frequency.evaluate((el) => getComputedStyle(el).appearance)).toBe('none')
        await shoot(page, `rough-autopost-${vp.name}`)
      } finally {
        await page.request.patch('/api/blog/admin/autopost/settings', { headers, data: before })
      }
      consoleWatch.assertClean()
    })

    test('titles carry the brand once; legal tables fit the screen; the money formats group digits', async ({ page, request }) => {
      const consoleWatch = watchConsole(page)

      // An article whose generated metaTitle may already end in «| AI Gateway» (the demo writer's does).
      const adminHeaders = { authorization: `Bearer ${await adminApiToken(request)}` }
      const run = await request.post('/api/blog/admin/autopost/run', { headers: adminHeaders })
      expect(run.status()).toBe(200)
      const post = (await run.json()).data as { slug: string; metaTitle: string }
      const titled = ['/', '/models', '/models/openai/gpt-4o', '/privacy-policy', '/blog', `/blog/${post.slug}`, '/login']
      for (const path of titled) {
        const html = await (await request.get(path)).text()
        const served = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? ''
        expect(served.match(/AI Gateway/g), `${path}: ${served}`).toHaveLength(1)
        await page.goto(path)
        await expect(page.locator('h1').first()).toBeVisible()
        const title = await page.title()
        expect(title.match(/AI Gateway/g), `${path}: ${title}`).toHaveLength(1)
      }

      // Legal pages and services: nothing cut off at either width.
      for (const path of ['/privacy-policy', '/terms-of-service', '/public-offer', '/refund-policy', '/services']) {
        await page.goto(path)
        await expect(page.locator('h1').first()).toBeVisible()
        await expectNoHorizontalScroll(page)
        const clipped = await page.evaluate(() =>
          [...document.querySelectorAll('main table, main [data-testid="doc-table-stacked"]')]
            .filter((el) => (el as HTMLElement).offsetParent !== null)
            .filter((el) => {
              const box = el.getBoundingClientRect()
              const frame = el.parentElement!.getBoundingClientRect()
              return box.right > window.innerWidth + 0.5 || box.width > frame.width + 0.5
            })
            .map((el) => el.outerHTML.slice(0, 80)),
        )
        expect(clipped, path).toEqual([])
      }
      await page.goto('/privacy-policy')
      if (vp.width < 640) {
        await expect(page.getByTestId('doc-table-stacked')).toBeVisible()
        await expect(page.getByTestId('doc-table-stacked')).toContainText('Срок хранения')
        await page.getByTestId('doc-table-stacked').scrollIntoViewIfNeeded()
      } else {
        await expect(page.getByRole('table')).toBeVisible()
        await page.getByRole('table').scrollIntoViewIfNeeded()
      }
      await page.screenshot({ path: `test-results/screens/rough-legal-table-${vp.name}.png` })

      // The test payment page: «1 000,00 ₽», with a group separator, in the amount and the description.
      const payer = await customer(request, 'payer')
      const created = await request.post('/api/payments/create', { headers: { authorization: `Bearer ${payer.token}` }, data: { amount: 1000 } })
      expect(created.status()).toBe(200)
      const { confirmationUrl } = (await created.json()).data as { confirmationUrl: string }
      await page.goto(new URL(confirmationUrl).pathname)
      await expect(page.getByTestId('test-payment-amount')).toHaveText('1\u00a0000,00 ₽')
      await expect(page.getByText('Пополнение баланса на 1\u00a0000,00 ₽')).toBeVisible()
      await expect(page.getByText('1000,00')).toHaveCount(0)
      await shoot(page, `rough-test-payment-${vp.name}`)
      consoleWatch.assertClean()
    })

    test('usage: the count over the list is the list; providers and context read as names and millions', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail('usage'), PASSWORD)
      const token = await sessionToken(page)
      for (let i = 0; i < 3; i++) await chat(page.request, token)
      await page.goto('/app/usage')
      const rows = page.getByTestId('usage-log-row')
      await expect(rows).toHaveCount(3)
      await expect(page.getByTestId('usage-log-count')).toHaveText('3 запроса')
      expect(await page.getByLabel('Модель').evaluate((el) => getComputedStyle(el).appearance)).toBe('none')
      await shoot(page, `rough-usage-${vp.name}`)

      // Provider names and context sizes, in the app's catalogue and the public one.
      for (const path of ['/app/models', '/models']) {
        await page.goto(path)
        const flux = page.locator('[data-testid="model-card"][data-model-id="black-forest-labs/flux.2-pro"]')
        await expect(flux).toContainText('Black Forest Labs')
        await expect(page.getByText(/Black-forest-labs/)).toHaveCount(0) // case-sensitive: the id black-forest-labs/… stays
        const auto = page.locator('[data-testid="model-card"][data-model-id="openrouter/auto"]')
        await expect(auto).toContainText('2M контекст')
        await expect(page.getByText(/\d\s000K/)).toHaveCount(0)
        await expect(page.locator('[data-testid="model-card"][data-model-id="openai/gpt-4o"]')).toContainText('128K контекст')
      }
      await page.locator('[data-testid="model-card"][data-model-id="openrouter/auto"]').scrollIntoViewIfNeeded()
      await page.screenshot({ path: `test-results/screens/rough-models-context-${vp.name}.png` })
      consoleWatch.assertClean()
    })
  })
}
