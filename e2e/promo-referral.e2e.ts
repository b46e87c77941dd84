// Promo codes and referrals in the browser (issue 37), at 1280×800 and 360×740: the «Промокод» field
// on the billing page redeeming a code the admin made through the API, the «Пригласите друзей» block
// on the account page (off on the shared server, with a link on a server of its own where
// REFERRAL_BONUS_RUB is set, and a friend registering by it), and the admin's «Промокоды» page.
import { mkdirSync } from 'node:fs'
import { type APIRequestContext, expect, type Page, test } from '@playwright/test'
import { ADMIN_EMAIL, ADMIN_PASSWORD, axeClean, registerViaUi, signInAsAdmin, spaced, startOwnServer, uniqueEmail, watchConsole } from './helpers'

const PASSWORD = 'promo-referral-pass-1'
const SHOTS = '/tmp/shots'
mkdirSync(SHOTS, { recursive: true })

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 360, height: 740 } },
] as const

let serial = 0
const freshCode = (tag: string) => `${tag}-${Date.now().toString(36)}-${++serial}`.toUpperCase()

/** The admin's session token (registering the admin first if no spec has yet), through the API. */
async function adminToken(request: APIRequestContext, base = '') {
  const registered = await request.post(`${base}/api/auth/register`, { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  expect([201, 409]).toContain(registered.status())
  const login = await request.post(`${base}/api/auth/login`, { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  expect(login.status()).toBe(200)
  return (await login.json()).data.accessToken as string
}

async function createCode(request: APIRequestContext, token: string, body: { code: string; amountRub: number; maxUses: number; expiresAt: string | null }) {
  const res = await request.post('/api/admin/promo-codes', { data: body, headers: { Authorization: `Bearer ${token}` } })
  expect(res.status()).toBe(201)
  return (await res.json()).data as { id: string; code: string }
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })

for (const size of SIZES) {
  test.describe(`${size.name} ${size.viewport.width}×${size.viewport.height}`, () => {
    test.use({ viewport: size.viewport })

    test('the «Промокод» field redeems a code the admin made; a second try and an unknown code are refused in Russian', async ({ page }) => {
      const problems = watchConsole(page)
      const token = await adminToken(page.request)
      const { code } = await createCode(page.request, token, { code: freshCode('E2E'), amountRub: 150, maxUses: 10, expiresAt: null })
      await registerViaUi(page, uniqueEmail('promo'), PASSWORD)
      await page.goto('/app/billing')
      const form = page.getByTestId('promo-form')
      await expect(form.getByRole('heading', { name: 'Промокод' })).toBeVisible()
      await shot(page, `promo-billing-${size.name}`)

      const field = form.getByLabel('Промокод')
      await field.fill('NO-SUCH-CODE')
      await form.getByRole('button', { name: 'Активировать' }).click()
      await expect(form.getByRole('alert')).toHaveText('Промокод не найден. Проверьте, правильно ли он введён')

      await field.fill(code.toLowerCase())
      await expect(form.getByRole('alert')).toHaveCount(0) // typing clears the error
      await form.getByRole('button', { name: 'Активировать' }).click()
      await expect(form.getByRole('status')).toHaveText(`Промокод ${code} активирован: 150,00 ₽ зачислено на баланс`)
      await expect(field).toHaveValue('')
      // The balance (50 ₽ welcome bonus + 150 ₽) and the history show it without a reload.
      await expect.poll(async () => spaced(await page.getByTestId('billing-balance').textContent())).toBe('200,00 ₽')
      await expect(page.getByTestId('transaction-list').getByText(`Промокод ${code}`)).toBeVisible()
      await expectNoHorizontalScroll(page)
      await shot(page, `promo-redeemed-${size.name}`)

      await field.fill(code)
      await form.getByRole('button', { name: 'Активировать' }).click()
      await expect(form.getByRole('alert')).toHaveText('Вы уже активировали этот промокод')
      await form.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/promo-refused-${size.name}.png` })
      await axeClean(page, `billing with promo ${size.name}`)
      problems.assertClean([/401/, /Failed to load resource/])
    })

    test('the referral block says the programme is off when REFERRAL_BONUS_RUB is 0', async ({ page }) => {
      await registerViaUi(page, uniqueEmail('ref-off'), PASSWORD)
      await page.goto('/app/account')
      const block = page.getByTestId('referral-section')
      await expect(block.getByRole('heading', { name: 'Пригласите друзей' })).toBeVisible()
      await expect(block.getByTestId('referral-off')).toHaveText('Реферальная программа сейчас не действует.')
      await expect(block.getByTestId('referral-link')).toHaveCount(0)
      await block.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/referral-off-${size.name}.png` })
    })

    test('the admin’s «Промокоды» page creates, lists and disables codes', async ({ page }) => {
      const problems = watchConsole(page)
      await signInAsAdmin(page)
      await page.goto('/app/admin/promo-codes')
      await expect(page.getByRole('heading', { name: 'Промокоды', level: 1 })).toBeVisible()
      const create = page.getByTestId('promo-create')
      const code = freshCode('ADM')
      // A mistake is answered by the server in Russian.
      await create.getByLabel('Код').fill('ab')
      await create.getByLabel('Сумма, ₽').fill('300')
      await create.getByLabel('Активаций').fill('25')
      await create.getByRole('button', { name: 'Создать промокод' }).click()
      await expect(create.getByRole('alert')).toHaveText('Код промокода — от 3 до 32 символов: латинские буквы, цифры, «-» и «_»')
      await create.getByLabel('Код').fill(code)
      await create.getByLabel('Действует до').fill('2099-12-31')
      await create.getByRole('button', { name: 'Создать промокод' }).click()
      const row = page.getByTestId('promo-row').filter({ hasText: code })
      await expect(row).toBeVisible()
      await expect(row).toContainText('Действует')
      await expect(row.getByTestId('promo-uses')).toHaveText('0 из 25')
      expect(spaced(await row.textContent())).toContain('300,00 ₽')
      expect(spaced(await row.textContent())).toContain('31.12.2099')
      await expect(create.getByLabel('Код')).toHaveValue('')
      await expectNoHorizontalScroll(page)
      await shot(page, `admin-promo-${size.name}`)

      await row.getByRole('button', { name: `Отключить промокод ${code}` }).click()
      const dialog = page.getByRole('dialog', { name: 'Отключить промокод' })
      await expect(dialog).toContainText(`Промокод ${code} перестанет активироваться`)
      await page.screenshot({ path: `${SHOTS}/admin-promo-disable-${size.name}.png` })
      await dialog.getByRole('button', { name: 'Отключить' }).click()
      await expect(row).toContainText('Отключён')
      await expect(row.getByRole('button', { name: /Отключить/ })).toHaveCount(0)
      await axeClean(page, `admin promo ${size.name}`)
      problems.assertClean([/401/, /Failed to load resource/])
    })
  })
}

test.describe('with REFERRAL_BONUS_RUB set', () => {
  let server: Awaited<ReturnType<typeof startOwnServer>>
  test.beforeAll(async () => {
    server = await startOwnServer('referral', {
      REFERRAL_BONUS_RUB: '100',
      REQUIRE_EMAIL_VERIFICATION: 'false',
      AUTH_RATE_LIMIT_SCALE: '20',
      JWT_SECRET: 'e2e-referral-secret-0123456789-abcdefghijklmnop',
    })
  })
  test.afterAll(() => server?.stop())

  for (const size of SIZES) {
    test(`${size.name}: the account page shows the link with a copy button, the rules and what it brought; a friend registers by it`, async ({ page, browser, context }) => {
      test.setTimeout(90_000)
      await page.setViewportSize(size.viewport)
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseURL })
      const problems = watchConsole(page)
      await page.goto(`${server.baseURL}/register`)
      const email = uniqueEmail('referrer')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Пароль', { exact: true }).fill(PASSWORD)
      await page.getByLabel('Подтвердите пароль').fill(PASSWORD)
      await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
      await expect(page).toHaveURL(/\/app\/dashboard$/)
      await page.goto(`${server.baseURL}/app/account`)

      const block = page.getByTestId('referral-section')
      const link = block.getByTestId('referral-link')
      await expect(link).toHaveValue(new RegExp(`^${server.baseURL}/r/[A-Z2-9]{8}$`))
      const url = await link.inputValue()
      expect(spaced(await block.textContent())).toContain('вы оба получите по 100,00 ₽')
      expect(spaced(await block.textContent())).toContain('на 500,00 ₽ или больше')
      expect(spaced(await block.textContent())).toContain('не больше 10 бонусов в календарный месяц')
      await block.getByRole('button', { name: 'Скопировать ссылку' }).click()
      await expect(block.getByRole('button', { name: 'Скопировано' })).toBeVisible()
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url)
      await expectNoHorizontalScroll(page)
      await block.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/referral-${size.name}.png` })
      await shot(page, `account-referral-${size.name}`)

      // A friend opens the link in another browser: the registration page, then an account referred by it.
      const friend = await browser.newContext({ viewport: size.viewport })
      const friendPage = await friend.newPage()
      await friendPage.goto(url)
      await expect(friendPage).toHaveURL(`${server.baseURL}/register`)
      await friendPage.getByLabel('Email').fill(uniqueEmail('friend'))
      await friendPage.getByLabel('Пароль', { exact: true }).fill(PASSWORD)
      await friendPage.getByLabel('Подтвердите пароль').fill(PASSWORD)
      await friendPage.getByRole('button', { name: 'Зарегистрироваться' }).click()
      await expect(friendPage).toHaveURL(/\/app\/dashboard$/)
      await friend.close()

      await page.reload()
      await expect(block.getByTestId('referral-figures')).toContainText('Зарегистрировались1')
      await axeClean(page, `account referral ${size.name}`)
      problems.assertClean([/401/, /Failed to load resource/])
    })
  }
})
