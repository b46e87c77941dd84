// Issue 17, the first week of a customer: /app/account (password, sessions, deletion), the return
// to the page after signing in (?next=), the day-grouped money history and the mobile header's balance.
import { expect, type Page, test } from '@playwright/test'
import { loginViaUi, registerViaUi, shoot, spaced, uniqueEmail, watchConsole } from './helpers'

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const

const PASSWORD = 'first-week-pass-1'
const accessToken = (page: Page) => page.evaluate(() => localStorage.getItem('accessToken')!)

async function apiLogin(page: Page, email: string, password: string) {
  const res = await page.request.post('/api/auth/login', { data: { email, password } })
  return { status: res.status(), body: await res.json() }
}

for (const size of SIZES) {
  test.describe(`${size.name} ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } })
    // Whole journeys (several sign-ins, argon2 hashes, /v1 requests): more than the default minute on a busy box.
    test.describe.configure({ timeout: 150_000 })

    test('account: change the password, end other sessions, delete the account', async ({ page }) => {
      const console = watchConsole(page)
      const email = uniqueEmail(`account-${size.name}`)
      await registerViaUi(page, email, PASSWORD)
      // A second device.
      const other = (await apiLogin(page, email, PASSWORD)).body.data

      if (size.name === 'mobile') {
        await page.getByRole('button', { name: 'Открыть меню' }).click()
      }
      await page.getByTestId('sidebar-account').click()
      await expect(page).toHaveURL(/\/app\/account$/)
      await expect(page.getByRole('heading', { name: 'Аккаунт', level: 1 })).toBeVisible()
      await expect(page.getByTestId('account-email-address')).toHaveText(email)
      // This server does not ask for confirmation, so the address stays unconfirmed and says so.
      await expect(page.getByTestId('account-email')).toContainText('Адрес не подтверждён')
      await expect(page.getByTestId('session-row')).toHaveCount(2)
      await expect(page.locator('[data-testid="session-row"][data-current="true"]')).toContainText('это устройство')
      await expect(page.getByTestId('account-delete-balance')).toContainText('автоматически не возвращается')
      await shoot(page, `account-${size.name}`)

      // Change of password: the other device is signed out, this one stays.
      const form = page.getByTestId('account-password')
      await form.getByLabel('Текущий пароль').fill(PASSWORD)
      await form.getByLabel('Новый пароль', { exact: true }).fill('second-week-pass-2')
      await form.getByLabel('Повторите новый пароль').fill('second-week-pass-2')
      await form.getByRole('button', { name: 'Изменить пароль' }).click()
      await expect(page.getByText('Пароль изменён. На других устройствах нужно войти заново')).toBeVisible()
      await expect(page.getByTestId('session-row')).toHaveCount(1)
      const otherProfile = await page.request.get('/api/auth/profile', { headers: { authorization: `Bearer ${other.accessToken}` } })
      expect(otherProfile.status()).toBe(401)
      expect((await apiLogin(page, email, PASSWORD)).status).toBe(401)

      // Sign out everywhere, then in with the new password.
      await page.getByRole('button', { name: 'Выйти на всех устройствах' }).click()
      await expect(page).toHaveURL(/\/login/)
      await loginViaUi(page, email, 'second-week-pass-2')

      // Delete the account: the button waits for the e-mail typed.
      await page.goto('/app/account')
      const del = page.getByTestId('account-delete')
      await expect(del.getByRole('button', { name: 'Удалить аккаунт' })).toBeDisabled()
      await del.getByLabel('Введите e-mail аккаунта для подтверждения').fill(email)
      await del.getByRole('button', { name: 'Удалить аккаунт' }).click()
      await expect(page).toHaveURL(/\/$/)
      await page.goto('/login')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Пароль').fill('second-week-pass-2')
      await page.getByRole('button', { name: 'Войти' }).click()
      await expect(page.getByText('Неверный email или пароль')).toBeVisible()
      await expect(page).toHaveURL(/\/login/)
      console.assertClean([/401/, /Failed to load resource/])
    })

    test('signing in returns to the page the visitor was sent away from', async ({ page }) => {
      const email = uniqueEmail(`next-${size.name}`)
      const reg = await page.request.post('/api/auth/register', { data: { email, password: PASSWORD } })
      expect(reg.status()).toBe(201)
      const target = '/app/playground?model=openai/gpt-4o-mini'
      await page.goto(target)
      await expect(page).toHaveURL(/\/login\?next=/)
      expect(new URL(page.url()).searchParams.get('next')).toBe(target)
      // The way to registration and back keeps it.
      await page.getByRole('link', { name: 'Зарегистрироваться' }).click()
      await expect(page).toHaveURL(/\/register\?next=/)
      expect(new URL(page.url()).searchParams.get('next')).toBe(target)
      await page.getByRole('link', { name: 'Войти' }).click()
      expect(new URL(page.url()).searchParams.get('next')).toBe(target)
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Пароль').fill(PASSWORD)
      await page.getByRole('button', { name: 'Войти' }).click()
      await expect(page).toHaveURL((url) => url.pathname + url.search === '/app/playground?model=openai/gpt-4o-mini')

      // Another origin is never a destination.
      for (const evil of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
        await page.evaluate(() => localStorage.clear())
        await page.goto(`/login?next=${encodeURIComponent(evil)}`)
        await page.getByLabel('Email').fill(email)
        await page.getByLabel('Пароль').fill(PASSWORD)
        await page.getByRole('button', { name: 'Войти' }).click()
        await expect(page).toHaveURL(/\/app\/dashboard$/)
      }
    })

    test('money history: a day of requests is one line that opens; the mobile header shows the balance', async ({ page }) => {
      const email = uniqueEmail(`history-${size.name}`)
      await page.goto(`/register?next=${encodeURIComponent('/app/billing')}`)
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Пароль', { exact: true }).fill(PASSWORD)
      await page.getByLabel('Подтвердите пароль').fill(PASSWORD)
      await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
      await expect(page).toHaveURL(/\/app\/billing$/)

      const token = await accessToken(page)
      const created = await page.request.post('/api/auth/api-keys', { headers: { Authorization: `Bearer ${token}` }, data: { name: 'История' } })
      const key = (await created.json()).data.key as string
      for (let i = 0; i < 3; i++) {
        const r = await page.request.post('/v1/chat/completions', {
          headers: { Authorization: `Bearer ${key}` },
          data: { model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: `Привет ${i}` }], max_tokens: 30 },
        })
        expect(r.status()).toBe(200)
      }
      await page.reload()
      const day = page.locator('[data-testid="transaction-row"][data-kind="usageDay"]')
      await expect(day).toHaveCount(1)
      await expect(day).toContainText('Оплата запросов к API')
      await expect(day.getByTestId('usage-day-count')).toHaveText('3 запроса')
      await expect(page.locator('[data-testid="transaction-row"][data-type="bonus"]')).toContainText('Приветственный бонус')
      await day.getByRole('button').click()
      await expect(day.getByTestId('usage-day-charge')).toHaveCount(3)
      await expect(day.getByTestId('usage-day-charge').first()).toContainText('Запрос к модели')
      await shoot(page, `billing-history-${size.name}`)

      const header = page.getByTestId('header-balance')
      if (size.name === 'mobile') {
        await expect(header).toBeVisible()
        const balance = spaced(await page.getByTestId('sidebar-balance').textContent())
        expect(spaced(await header.textContent())).toBe(balance)
        await page.evaluate(() => window.scrollTo(0, 0))
        await page.screenshot({ path: `test-results/screens/mobile-header-${size.name}.png` })
      } else {
        await expect(header).toBeHidden()
      }

      // The dashboard: the recent list groups the same way, the quick start ticks key and request.
      await page.goto('/app/dashboard')
      await expect(page.locator('[data-testid="transaction-row"][data-kind="usageDay"]')).toContainText('3 запроса')
      await expect(page.locator('[data-step="key"]')).toHaveAttribute('data-done', 'true')
      await expect(page.locator('[data-step="request"]')).toHaveAttribute('data-done', 'true')
      await expect(page.locator('[data-step="topup"]')).toHaveAttribute('data-done', 'false')
    })
  })
}
