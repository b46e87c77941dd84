// The «Подтвердите e-mail» banner and the test-payments banner, against a server of this file's own:
// NODE_ENV=production with ALLOW_TEST_PAYMENTS=true and REQUIRE_EMAIL_VERIFICATION=true (the shared
// e2e server runs with confirmation off, so the other journeys get their bonus at registration).

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { shoot, startOwnServer, uniqueEmail, watchConsole } from './helpers'

let server: Awaited<ReturnType<typeof startOwnServer>>
let baseURL = ''
let dataDir = ''

test.beforeAll(async () => {
  server = await startOwnServer('verify', {
    NODE_ENV: 'production',
    ALLOW_TEST_PAYMENTS: 'true',
    REQUIRE_EMAIL_VERIFICATION: 'true',
    JWT_SECRET: 'e2e-verify-secret-0123456789-abcdefghijklmnop',
  })
  ;({ baseURL, dataDir } = server)
})

test.afterAll(() => server?.stop())

/** The letters this server wrote to its outbox for `to`, oldest first. */
async function letters(to: string, count: number): Promise<Array<{ subject: string; text: string }>> {
  const dir = join(dataDir, 'outbox')
  for (let i = 0; i < 100; i++) {
    const found = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
          .filter((l) => l.to === to)
      : []
    if (found.length >= count) return found
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`fewer than ${count} letters for ${to}`)
}

test('test-payments banner on the site, sign-in screens and app; «Подтвердите e-mail» until the link is followed, then the bonus', async ({ page }) => {
  const consoleWatch = watchConsole(page)
  const banner = page.getByTestId('test-payments-banner')
  const TEST_MODE = 'Тестовый режим оплаты: деньги не списываются, пополнения ненастоящие'

  await page.goto(`${baseURL}/`)
  await expect(banner).toContainText(TEST_MODE)
  await page.goto(`${baseURL}/blog`)
  await expect(banner).toContainText(TEST_MODE)

  await page.goto(`${baseURL}/register`)
  await expect(banner).toContainText(TEST_MODE)
  await expect(page.getByText('после подтверждения e-mail по ссылке из письма')).toBeVisible()
  const email = uniqueEmail('verify')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Пароль', { exact: true }).fill('verify-pass-42')
  await page.getByLabel('Подтвердите пароль').fill('verify-pass-42')
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)

  const verify = page.getByTestId('email-verification-banner')
  await expect(verify).toContainText('Подтвердите e-mail')
  await expect(verify).toContainText(email)
  await expect(banner).toContainText(TEST_MODE)
  await expect(page.getByTestId('sidebar-balance')).toHaveText(/0,00\s₽/)
  await shoot(page, 'email-verification-banner-1280')

  // Send again: a second letter, and the button says it went.
  await verify.getByRole('button', { name: 'Отправить письмо ещё раз' }).click()
  await expect(verify.getByRole('button', { name: 'Письмо отправлено' })).toBeDisabled()
  await expect(page.getByText(`Письмо со ссылкой для подтверждения отправлено на ${email}`)).toBeVisible()
  const sent = await letters(email, 2)
  expect(sent.every((l) => l.subject === 'Подтвердите e-mail — AI Gateway')).toBe(true)

  await page.setViewportSize({ width: 360, height: 780 })
  await page.reload() // a fresh narrow layout (no sidebar mid-transition, no toast)
  await expect(verify.getByRole('button', { name: 'Отправить письмо ещё раз' })).toBeVisible()
  await shoot(page, 'email-verification-banner-360')
  await page.setViewportSize({ width: 1280, height: 800 })

  const link = sent[1]!.text.match(/https?:\/\/\S+\/verify-email\/[\w-]+/)![0]
  expect(link.startsWith(`${baseURL}/verify-email/`)).toBe(true)
  await page.goto(link)
  await expect(page.getByRole('heading', { name: 'E-mail подтверждён' })).toBeVisible()
  await expect(page.getByTestId('verify-email-result')).toHaveText('Спасибо! Приветственный бонус зачислен на ваш баланс.')
  await expect(banner).toContainText(TEST_MODE)
  await shoot(page, 'email-verified')

  await page.getByRole('link', { name: 'Перейти в панель управления' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)
  await expect(page.getByTestId('sidebar-balance')).toHaveText(/50,00\s₽/)
  await expect(verify).toHaveCount(0)

  // The older link now only says the address is confirmed: no second bonus.
  await page.goto(sent[0]!.text.match(/https?:\/\/\S+\/verify-email\/[\w-]+/)![0])
  await expect(page.getByRole('heading', { name: 'E-mail уже подтверждён' })).toBeVisible()
  await page.goto(`${baseURL}/app/dashboard`)
  await expect(page.getByTestId('sidebar-balance')).toHaveText(/50,00\s₽/)
  consoleWatch.assertClean()
})
