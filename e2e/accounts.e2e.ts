import { expect, test } from '@playwright/test'
import { expiredAccessToken, loginViaUi, readOutboxLetter, registerViaUi, shoot, uniqueEmail, watchConsole } from './helpers'

const PASSWORD = 'first-password-1'

test('register → dashboard with 50 ₽ → logout → login → reload keeps the session → expired token renewed silently', async ({ page }) => {
  const consoleWatch = watchConsole(page)
  const email = uniqueEmail('journey')

  await registerViaUi(page, email, PASSWORD)
  const balance = page.getByTestId('sidebar-balance')
  await expect(balance).toHaveText(/50,00\s₽/)
  await expect(page.getByText(email).first()).toBeVisible()
  await expect(page.getByText('Админ-панель')).toHaveCount(0)
  // No OPENROUTER_API_KEY in the e2e server: the demo upstream must be labelled as such.
  await expect(page.getByTestId('demo-banner')).toContainText('Демо-режим')
  await shoot(page, 'dashboard-1280')

  await page.getByRole('button', { name: 'Выйти' }).click()
  await expect(page).toHaveURL(/\/login$/)
  expect(await page.evaluate(() => [localStorage.getItem('accessToken'), localStorage.getItem('refreshToken')])).toEqual([null, null])

  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Пароль').fill(PASSWORD)
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)

  await page.reload()
  await expect(page).toHaveURL(/\/app\/dashboard$/)
  await expect(balance).toHaveText(/50,00\s₽/)
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('auth-storage')!))
  expect(stored.version).toBe(0)
  expect(stored.state.isAuthenticated).toBe(true)
  expect(stored.state.accessToken).toBe(await page.evaluate(() => localStorage.getItem('accessToken')))

  // Replace the access token with an expired one: the next API call gets 401, renews, repeats.
  const expired = expiredAccessToken(stored.state.user.id)
  await page.evaluate((token) => {
    localStorage.setItem('accessToken', token)
    const s = JSON.parse(localStorage.getItem('auth-storage')!)
    s.state.accessToken = token
    localStorage.setItem('auth-storage', JSON.stringify(s))
  }, expired)
  const renewed = page.waitForResponse((r) => r.url().endsWith('/api/auth/refresh') && r.status() === 200)
  await page.reload()
  await renewed
  await expect(page).toHaveURL(/\/app\/dashboard$/)
  await expect(balance).toHaveText(/50,00\s₽/)
  const after = await page.evaluate(() => localStorage.getItem('accessToken'))
  expect(after).not.toBe(expired)
  consoleWatch.assertClean([/401/])
})

test('forgot and reset password through the outbox letter; the link works once', async ({ page }) => {
  const email = uniqueEmail('reset')
  await registerViaUi(page, email, PASSWORD)
  await page.getByRole('button', { name: 'Выйти' }).click()

  await page.goto('/forgot-password')
  await page.getByRole('button', { name: 'Отправить ссылку' }).click()
  await expect(page.getByText('Введите email')).toBeVisible()
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Отправить ссылку' }).click()
  await expect(page.getByText('Письмо отправлено')).toBeVisible()
  await shoot(page, 'forgot-sent')

  const letter = await readOutboxLetter(email)
  expect(letter.subject).toBe('Восстановление пароля — AI Gateway')
  const link = letter.text.match(/http:\/\/127\.0\.0\.1:\d+\/reset-password\/[A-Za-z0-9_-]+/)![0]

  await page.goto(link)
  await expect(page.getByText('Ссылка действительна в течение 1 часа')).toBeVisible()
  const newPassword = page.getByLabel('Новый пароль')
  await newPassword.fill('12345')
  await page.getByLabel('Подтвердите пароль').fill('12345')
  await page.getByRole('button', { name: 'Сменить пароль' }).click()
  await expect(page.getByText('Пароль должен быть не менее 6 символов')).toBeVisible()

  await newPassword.fill('second-password')
  await page.getByLabel('Подтвердите пароль').fill('second-passwor')
  await page.getByRole('button', { name: 'Сменить пароль' }).click()
  await expect(page.getByText('Пароли не совпадают')).toBeVisible()

  await expect(newPassword).toHaveAttribute('type', 'password')
  await page.getByRole('button', { name: 'Показать пароль' }).first().click()
  await expect(newPassword).toHaveAttribute('type', 'text')
  await page.getByLabel('Подтвердите пароль').fill('second-password')
  await shoot(page, 'reset-form')
  await page.getByRole('button', { name: 'Сменить пароль' }).click()
  await expect(page.getByText('Пароль успешно изменён')).toBeVisible()
  await shoot(page, 'reset-done')
  await expect(page).toHaveURL(/\/login$/, { timeout: 6000 })

  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Пароль').fill('second-password')
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)

  // The same link a second time is refused with the server's message.
  await page.getByRole('button', { name: 'Выйти' }).click()
  await page.goto(link)
  await page.getByLabel('Новый пароль').fill('third-password')
  await page.getByLabel('Подтвердите пароль').fill('third-password')
  await page.getByRole('button', { name: 'Сменить пароль' }).click()
  await expect(page.getByText('Ссылка для сброса пароля недействительна или устарела').first()).toBeVisible()
})

test('form validation, guards and redirects', async ({ page }) => {
  await page.goto('/app/dashboard')
  // The guard remembers where the visitor was going (issue 17: signing in returns there).
  await expect(page).toHaveURL(/\/login\?next=%2Fapp%2Fdashboard$/)
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page.getByText('Заполните все поля').first()).toBeVisible()
  await page.getByLabel('Email').fill('nobody@e2e.ru')
  await page.getByLabel('Пароль').fill('wrong-password')
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page.getByText('Неверный email или пароль').first()).toBeVisible()
  await shoot(page, 'login-error')

  await page.goto('/register')
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
  await expect(page.getByText('Заполните все поля').first()).toBeVisible()
  await page.getByLabel('Email').fill(uniqueEmail('v'))
  await page.getByLabel('Пароль', { exact: true }).fill('short')
  await page.getByLabel('Подтвердите пароль').fill('short')
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
  await expect(page.getByText('Пароль должен содержать минимум 8 символов')).toBeVisible()
  await page.getByLabel('Пароль', { exact: true }).fill('long-enough-1')
  await page.getByLabel('Подтвердите пароль').fill('long-enough-2')
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
  await expect(page.getByText('Пароли не совпадают')).toBeVisible()

  await page.goto('/no/such/page')
  await expect(page).toHaveURL(/\/$/)
})

test('admins see the admin group; /app redirects to the dashboard', async ({ page }) => {
  // The admin account is shared by the specs on this server (ADMIN_EMAILS): whoever comes first makes it.
  const res = await page.request.post('/api/auth/register', { data: { email: 'admin@e2e.ru', password: PASSWORD } })
  expect([201, 409]).toContain(res.status())
  await loginViaUi(page, 'admin@e2e.ru', PASSWORD)
  await expect(page.getByText('Админ-панель')).toBeVisible()
  await page.goto('/app')
  await expect(page).toHaveURL(/\/app\/dashboard$/)
  await shoot(page, 'dashboard-admin')
})

test('screenshots of every account page at 1280 and 360 px', async ({ page }) => {
  const consoleWatch = watchConsole(page)
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 800 })
    for (const [name, path] of [
      ['login', '/login'],
      ['register', '/register'],
      ['forgot', '/forgot-password'],
      ['reset', '/reset-password/some-token'],
      ['home', '/'],
    ] as const) {
      await page.goto(path)
      // The auth screens are a lazy chunk: wait for the page itself, not the loading spinner.
      await expect(page.locator('h1').first()).toBeVisible()
      await shoot(page, `${name}-${width}`)
    }
  }
  await registerViaUi(page, uniqueEmail('narrow'), PASSWORD)
  await expect(page.getByRole('heading', { name: 'Дашборд' })).toBeVisible()
  await shoot(page, 'dashboard-360')
  consoleWatch.assertClean()
})
