import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { apiGet, fileAccount, price, rubles, shoot, spaced, watchConsole } from './helpers'

const PASSWORD = 'billing-usage-pass-1'

const integer = (value: number) => new Intl.NumberFormat('ru-RU').format(value)

/** Records the user's succeeded test-page payments as card payments through the real provider (bun:sqlite, so through bun). */
function markPaymentsAsCard(userId: string) {
  const script = `import { Database } from 'bun:sqlite'
const db = new Database(process.env.E2E_DATA_DIR + '/gateway.db')
db.run("update payments set provider = 'yookassa' where user_id = ? and status = 'succeeded'", [process.argv.at(-1)])
db.close()`
  execFileSync('bun', ['-e', script, userId], { env: process.env })
}

interface UsageTotals {
  totalCost: number
  totalTokens: number
  totalRequests: number
}

/** A few chat completions through the OpenAI-compatible API (the e2e server runs the demo upstream). */
async function chat(page: Page, token: string, count: number): Promise<string> {
  const models = await page.request.get('/v1/models', { headers: { Authorization: `Bearer ${token}` } })
  const list = ((await models.json()).data as Array<{ id: string }>).map((m) => m.id)
  const model = list.find((id) => id === 'openai/gpt-3.5-turbo') ?? list.find((id) => !/image/.test(id))!
  for (let i = 0; i < count; i++) {
    const response = await page.request.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer ${token}` },
      data: { model, messages: [{ role: 'user', content: `Привет! Запрос ${i + 1}` }], max_tokens: 100 },
    })
    expect(response.status()).toBe(200)
  }
  return model
}

const accessToken = (page: Page) => page.evaluate(() => localStorage.getItem('accessToken')!)

/**
 * The server allows 10 registrations per IP per hour and the whole suite shares one server, so
 * this file registers one account and the later tests sign in to it. The account starts with
 * only the welcome bonus; each test below leaves it in a state the next one expects (tests run
 * in file order on one worker; after a failure the worker restarts and registers afresh).
 */
const signIn = fileAccount('billing', PASSWORD)

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

/** Chooses an amount, goes to the test payment page and presses one of its two buttons. */
async function payThroughTestPage(page: Page, amount: { quick?: RegExp; typed?: string }, button: 'Оплатить' | 'Отменить', shot?: string) {
  if (amount.quick) await page.getByRole('group', { name: 'Быстрый выбор суммы' }).getByRole('button', { name: amount.quick }).click()
  if (amount.typed) await page.getByLabel('Сумма пополнения, ₽').fill(amount.typed)
  await page.getByRole('button', { name: 'Перейти к оплате' }).click()
  await expect(page).toHaveURL(/\/pay\/test\/[^/]+$/)
  await expect(page.getByText('тестовый режим', { exact: true })).toBeVisible()
  await expect(page.getByText(/Настоящие деньги не списываются/)).toBeVisible()
  if (shot) await shoot(page, shot)
  const paymentPage = page.url()
  await page.getByRole('button', { name: button, exact: true }).click()
  await expect(page).toHaveURL(/\/app\/billing\?payment=[^&]+$/)
  return paymentPage
}

test.describe('Billing', () => {
  test('top up 500 on the test payment page → success banner, 550 ₽, the top-up in the history; a canceled payment; refund and alert settings', async ({ page }) => {
    test.slow() // a dozen steps with two payments: more than a minute on a busy CI machine
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)

    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Баланс' }).click()
    await expect(page).toHaveURL(/\/app\/billing$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Баланс' })).toBeVisible()
    await expect(page.getByTestId('billing-balance')).toHaveText(/50,00\s₽/)
    await expect(page.getByTestId('payments-test-mode')).toContainText('настоящие деньги не списываются')
    await expect(page.getByTestId('transaction-row').first()).toContainText('Бонус')
    await expect(page.getByText('Платежей пока не было')).toBeVisible()
    // 50 ₽ is above the 'running low' level (about 100 typical requests).
    await expect(page.getByTestId('low-balance-banner')).toHaveCount(0)

    // Nothing was paid by card yet: no refund, and the page says why.
    const refund = page.getByTestId('refund-section')
    const before = await apiGet<{ eligible: boolean; reasons: string[] }>(page, '/api/payments/refund-request')
    expect(before.eligible).toBe(false)
    expect(before.reasons.length).toBeGreaterThan(0)
    for (const reason of before.reasons) await expect(refund.getByTestId('refund-reasons')).toContainText(reason)
    await expect(refund.getByRole('button', { name: /Запросить возврат/ })).toHaveCount(0)

    // The spec's limits are checked before anything is sent.
    const amount = page.getByLabel('Сумма пополнения, ₽')
    const submit = page.getByRole('button', { name: 'Перейти к оплате' })
    await amount.fill('99')
    await submit.click()
    await expect(page.getByRole('alert').filter({ hasText: 'Минимальная сумма пополнения: 100 RUB' })).toBeVisible()
    await amount.fill('abc')
    await submit.click()
    await expect(page.getByRole('alert').filter({ hasText: 'Минимальная сумма пополнения: 100 RUB' })).toBeVisible()
    await amount.fill('1000001')
    await submit.click()
    await expect(page.getByRole('alert').filter({ hasText: 'Максимальная сумма пополнения: 1,000,000 RUB' })).toBeVisible()
    await shoot(page, 'billing-validation-1280')
    await amount.fill('')
    await expect(page).toHaveURL(/\/app\/billing$/)

    // A quick amount fills the field; the test payment page shows it and 'Оплатить' pays.
    await page.getByRole('button', { name: /^500\s₽$/ }).click()
    await expect(amount).toHaveValue('500')
    await expect(page.getByRole('button', { name: /^500\s₽$/ })).toHaveAttribute('aria-pressed', 'true')
    await page.getByRole('button', { name: 'Перейти к оплате' }).click()
    await expect(page).toHaveURL(/\/pay\/test\/[^/]+$/)
    const paidPage = page.url()
    await expect(page.getByText('тестовый режим', { exact: true })).toBeVisible()
    await expect(page.getByTestId('test-payment-amount')).toHaveText(/500,00\s₽/)
    await expect(page.getByText('Пополнение баланса', { exact: false }).first()).toBeVisible()
    await shoot(page, 'test-payment-1280')
    await page.getByRole('button', { name: 'Оплатить', exact: true }).click()

    await expect(page).toHaveURL(/\/app\/billing\?payment=[^&]+$/)
    const outcome = page.getByTestId('payment-outcome')
    await expect(outcome).toContainText('Оплата прошла успешно')
    await expect(outcome).toContainText(/Баланс пополнен на 500,00\s₽/)
    await expect(page.getByTestId('sidebar-balance')).toHaveText(/550,00\s₽/)
    await expect(page.getByTestId('billing-balance')).toHaveText(/550,00\s₽/)
    const topUp = page.getByTestId('transaction-row').first()
    await expect(topUp).toHaveAttribute('data-type', 'topup')
    await expect(topUp).toContainText('Пополнение')
    await expect(topUp).toContainText(/\+500,00\s₽/)
    await expect(topUp).toContainText(/550,00\s₽/)
    await expect(page.getByTestId('payment-row').first()).toContainText('Оплачен')
    await shoot(page, 'billing-paid-1280')

    // The API agrees with the page.
    const balance = await apiGet<{ balance: number }>(page, '/api/billing/balance')
    expect(balance.balance).toBe(550)

    // The finished payment cannot be paid twice; an unknown one is 'not found'.
    await page.goto(paidPage)
    await expect(page.getByRole('heading', { name: 'Платёж уже оплачен' })).toBeVisible()
    await page.goto('/pay/test/no-such-payment')
    await expect(page.getByRole('heading', { name: 'Платёж не найден' })).toBeVisible()
    await shoot(page, 'test-payment-not-found-1280')
    await page.getByRole('link', { name: 'К странице баланса' }).click()
    await expect(page).toHaveURL(/\/app\/billing$/)
    await expect(page.getByTestId('payment-outcome')).toHaveCount(0)

    // 'Отменить' on the test page: the banner says canceled, the money stays where it was.
    await payThroughTestPage(page, { typed: '1 000' }, 'Отменить')
    await expect(outcome).toContainText('Платёж отменён')
    await expect(outcome).toContainText('Оплата отменена на тестовой странице')
    await expect(page.getByTestId('payment-row').first()).toContainText('Отменён')
    await expect(page.getByTestId('payment-row').first()).toContainText(/1\s000,00\s₽/)
    await expect(page.getByTestId('sidebar-balance')).toHaveText(/550,00\s₽/)
    await expect(page.getByTestId('transaction-row').first()).toContainText(/\+500,00\s₽/)
    await shoot(page, 'billing-canceled-1280')
    await outcome.getByRole('button', { name: 'Скрыть сообщение' }).click()
    await expect(outcome).toHaveCount(0)
    await expect(page).toHaveURL(/\/app\/billing$/)

    // Low-balance e-mail: set, shown, turned off.
    const alert = page.getByTestId('balance-alert')
    const threshold = alert.getByLabel('Порог, ₽')
    await threshold.fill('0')
    await alert.getByRole('button', { name: 'Сохранить' }).click()
    await expect(alert.getByRole('alert')).toHaveText('Порог должен быть числом от 1 до 1 000 000 ₽')
    await threshold.fill('200')
    await alert.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByText('Уведомление сохранено')).toBeVisible()
    await expect(alert).toContainText(/ниже 200,00\s₽/)
    expect((await apiGet<{ alertThreshold: number | null }>(page, '/api/billing/balance')).alertThreshold).toBe(200)
    await alert.getByRole('button', { name: 'Отключить' }).click()
    await expect(page.getByText('Уведомление отключено')).toBeVisible()
    await expect(alert).toContainText('Сейчас выключено')
    expect((await apiGet<{ alertThreshold: number | null }>(page, '/api/billing/balance')).alertThreshold).toBeNull()

    // Refund: test-page money is not card money, so the 500 ₽ paid on the test page is not refundable…
    await expect(refund).toContainText('больше 100 ₽')
    await expect(refund).toContainText('14 дней')
    const testOnly = await apiGet<{ eligible: boolean; remainder: number; reasons: string[] }>(page, '/api/payments/refund-request')
    expect(testOnly).toMatchObject({ eligible: false, remainder: 0 })
    expect(testOnly.reasons).toContain('Возвращаются только средства, внесённые картой, а пополнений картой не было')
    await expect(refund.getByTestId('refund-reasons')).toContainText('пополнений картой не было')
    await expect(refund.getByRole('button', { name: /Запросить возврат/ })).toHaveCount(0)
    // …so, for the request form, that payment is recorded as a real provider's (the e2e server has
    // only the test page). No API keys and a fresh top-up: a request can be made.
    markPaymentsAsCard((await apiGet<{ user: { id: string } }>(page, '/api/auth/profile')).user.id)
    await page.reload()
    const refundable = await apiGet<{ eligible: boolean; remainder: number }>(page, '/api/payments/refund-request')
    expect(refundable.eligible).toBe(true)
    await refund.getByLabel(/Причина возврата/).fill('Проект закрыт')
    const requestButton = refund.getByRole('button', { name: /Запросить возврат/ })
    expect(spaced(await requestButton.textContent())).toBe(spaced(`Запросить возврат ${price(refundable.remainder)}`))
    await requestButton.click()
    await expect(page.getByText('Заявка на возврат отправлена')).toBeVisible()
    await expect(refund.getByTestId('refund-status')).toContainText('на рассмотрении')
    await expect(refund.getByRole('button', { name: /Запросить возврат/ })).toHaveCount(0)
    await shoot(page, 'billing-refund-1280')
    // The one expected failure: the unknown test payment's 404.
    consoleWatch.assertClean([/status of 404 \(Not Found\)/])
  })

  test('a payment still pending on return is polled until it is paid; the low-balance banner follows the server', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)

    // Back from the payment page before the provider has answered: the page waits and asks again.
    const created = await page.evaluate(async () => {
      const response = await fetch('/api/payments/create', {
        method: 'POST',
        headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ amount: 100, returnUrl: `${location.origin}/app/billing` }),
      })
      return (await response.json()).data as { id: string; confirmationUrl: string }
    })
    await page.goto(`/app/billing?payment=${created.id}`)
    const outcome = page.getByTestId('payment-outcome')
    await expect(outcome).toContainText('Ожидаем подтверждение оплаты')
    await expect(outcome).toContainText(/100,00\s₽/)
    await expect(page.getByTestId('payment-row').first()).toContainText('Ожидает оплаты')
    await shoot(page, 'billing-pending-1280')
    const providerId = new URL(created.confirmationUrl).pathname.split('/').pop()!
    expect((await page.request.post(`/api/payments/test/${providerId}/pay`)).status()).toBe(200)
    await expect(outcome).toContainText('Оплата прошла успешно', { timeout: 10_000 })
    await expect(page.getByTestId('payment-row').first()).toContainText('Оплачен')
    const { balance } = await apiGet<{ balance: number }>(page, '/api/billing/balance')
    expect(spaced(await page.getByTestId('sidebar-balance').textContent())).toBe(
      spaced(`${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(balance)} ₽`),
    )

    // The banner follows the server's isLow flag (this account is far from low, so the answer is stubbed).
    await page.route('**/api/billing/balance', async (route) => {
      const response = await route.fetch()
      const body = await response.json()
      await route.fulfill({ response, json: { ...body, data: { ...body.data, balance: 3.5, isLow: true } } })
    })
    await page.goto('/app/dashboard')
    const banner = page.getByTestId('low-balance-banner')
    await expect(banner).toContainText('Баланс заканчивается')
    await expect(banner).toContainText(/3,50\s₽/)
    await shoot(page, 'low-balance-banner-1280')
    await banner.getByRole('link', { name: 'Пополнить баланс' }).click()
    await expect(page).toHaveURL(/\/app\/billing$/)
    await expect(banner).toBeVisible()
    await expect(banner.getByRole('link', { name: 'Пополнить баланс' })).toHaveCount(0)
    await banner.getByRole('button', { name: 'Скрыть предупреждение' }).click()
    await expect(banner).toHaveCount(0)
    consoleWatch.assertClean()
  })
})

test.describe('Usage and dashboard', () => {
  test('after a few chat requests: chart, top models, recent requests, filters, CSV download; dashboard cards equal the API', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signIn(page)

    // Before any request (the account has only paid so far): an empty state, no export.
    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Статистика' }).click()
    await expect(page).toHaveURL(/\/app\/usage$/)
    await expect(page.getByTestId('usage-empty')).toContainText('За этот период запросов нет')
    await expect(page.getByRole('button', { name: 'Скачать CSV' })).toBeDisabled()
    await shoot(page, 'usage-empty-1280')

    // Three requests from the web session and one with an API key.
    const token = await accessToken(page)
    const model = await chat(page, token, 3)
    const created = await page.request.post('/api/auth/api-keys', { headers: { Authorization: `Bearer ${token}` }, data: { name: 'Скрипт отчётов' } })
    const key = (await created.json()).data.key as string
    await chat(page, key, 1)

    await page.reload()
    await expect(page.getByTestId('usage-chart').locator('svg')).toBeVisible()
    const all = await apiGet<UsageTotals>(page, '/api/billing/usage?limit=20')
    expect(all.totalRequests).toBe(4)
    await expect(page.getByTestId('usage-total-requests')).toHaveText('4')
    expect(spaced(await page.getByTestId('usage-total-tokens').textContent())).toBe(spaced(integer(all.totalTokens)))
    expect(spaced(await page.getByTestId('usage-total-cost').textContent())).toBe(spaced(rubles(all.totalCost))) // a total: two decimals (issue 29)
    await expect(page.getByTestId('usage-bar')).toHaveCount(1)
    await expect(page.getByTestId('top-model').first()).toContainText(model)

    const rows = page.getByTestId('usage-log-row')
    await expect(rows).toHaveCount(4)
    await expect(rows.first()).toContainText('Скрипт отчётов')
    await expect(rows.filter({ hasText: 'Веб-сессия' })).toHaveCount(3)
    await expect(rows.first()).toContainText(model)
    await expect(rows.first()).toContainText(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/)

    // Pointing at today's bar shows its figures.
    const bar = page.getByTestId('usage-bar').first()
    const box = (await bar.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    const tooltip = page.getByTestId('usage-tooltip')
    await expect(tooltip).toContainText('Запросы')
    await expect(tooltip).toContainText('4')
    await shoot(page, 'usage-1280')
    await page.mouse.move(5, 5)
    await expect(tooltip).toHaveCount(0)

    // The period switch: all four periods include today's requests.
    for (const label of ['7 дней', '90 дней', 'Всё время', '30 дней']) {
      await page.getByRole('group', { name: 'Период' }).getByRole('button', { name: label }).click()
      await expect(page.getByRole('button', { name: label })).toHaveAttribute('aria-pressed', 'true')
      await expect(page.getByTestId('usage-total-requests')).toHaveText('4')
    }

    // Filters: by key, then by model.
    await page.getByLabel('API ключ').selectOption({ label: 'Скрипт отчётов' })
    await expect(page.getByTestId('usage-total-requests')).toHaveText('1')
    await expect(rows).toHaveCount(1)
    await page.getByLabel('API ключ').selectOption({ label: 'Все ключи' })
    await page.getByLabel('Модель').selectOption(model)
    await expect(page.getByTestId('usage-total-requests')).toHaveText('4')
    await page.getByLabel('Модель').selectOption({ label: 'Все модели' })

    // CSV: a real download with the server's file name, a BOM and the header row.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Скачать CSV' }).click()])
    expect(download.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}\.csv$/)
    const bytes = readFileSync((await download.path())!)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const lines = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n')
    expect(lines[0]).toContain('Модель')
    expect(lines[0]).toContain('Стоимость')
    expect(lines).toHaveLength(1 + 4)
    expect(lines.slice(1).join('\n')).toContain(model)

    // Dashboard: the four cards are the API's all-time figures.
    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Дашборд' }).click()
    const [usage, money] = await Promise.all([apiGet<UsageTotals>(page, '/api/billing/usage'), apiGet<{ balance: number }>(page, '/api/billing/balance')])
    await expect(page.getByTestId('dashboard-requests')).toHaveText(integer(usage.totalRequests))
    expect(spaced(await page.getByTestId('dashboard-spent').textContent())).toBe(spaced(rubles(usage.totalCost)))
    expect(spaced(await page.getByTestId('dashboard-tokens').textContent())).toBe(spaced(integer(usage.totalTokens)))
    expect(spaced(await page.getByTestId('dashboard-balance').textContent())).toBe(
      spaced(`${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(money.balance)} ₽`),
    )
    await expect(page.getByText('—', { exact: true })).toHaveCount(0)
    await expect(page.getByText(`curl ${new URL(page.url()).origin}/v1/chat/completions`, { exact: false })).toBeVisible()
    await shoot(page, 'dashboard-usage-1280')
    consoleWatch.assertClean()
  })

  test('on a 360 px phone: billing, the test payment page, usage and dashboard fit the screen', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 360, height: 780 })
    await signIn(page)
    await chat(page, await accessToken(page), 2)
    const usage = await apiGet<UsageTotals & { logs: unknown[] }>(page, '/api/billing/usage?limit=20')

    await page.goto('/app/billing')
    await expect(page.getByTestId('transaction-row').first()).toBeVisible()
    await expectNoHorizontalScroll(page)
    await shoot(page, 'billing-360')

    await payThroughTestPage(page, { quick: /^1\s000\s₽$/ }, 'Оплатить', 'test-payment-360')
    await expect(page.getByTestId('payment-outcome')).toContainText('Оплата прошла успешно')
    await expectNoHorizontalScroll(page)
    await shoot(page, 'billing-paid-360')

    await page.goto('/app/usage')
    await expect(page.getByTestId('usage-chart').locator('svg')).toBeVisible()
    await expect(page.getByTestId('usage-log-row')).toHaveCount(usage.logs.length)
    await expectNoHorizontalScroll(page)
    // A tap shows the day's figures too.
    await page.getByTestId('usage-chart').scrollIntoViewIfNeeded()
    const bar = (await page.getByTestId('usage-bar').first().boundingBox())!
    await page.mouse.click(bar.x + bar.width / 2, bar.y + bar.height / 2)
    await expect(page.getByTestId('usage-tooltip')).toBeVisible()
    await page.evaluate(() => window.scrollTo(0, 0)) // the sticky phone header would land mid-page in a full-page shot
    await shoot(page, 'usage-360')

    await page.goto('/app/dashboard')
    await expect(page.getByTestId('dashboard-requests')).toHaveText(integer(usage.totalRequests))
    await expectNoHorizontalScroll(page)
    await shoot(page, 'dashboard-360')
    consoleWatch.assertClean()
  })
})
