import { type APIRequestContext, expect, type Page, test } from '@playwright/test'
import { ADMIN_EMAIL, apiCustomer, registerViaUi, SHOTS, shoot, signInAsAdmin, spaced, uniqueEmail, watchConsole } from './helpers'

const PASSWORD = 'admin-spec-pass-1'

const customer = (request: APIRequestContext, tag: string) => apiCustomer(request, tag, PASSWORD)

const toast = (page: Page, text: string | RegExp) => page.getByRole('region', { name: 'Уведомления' }).getByText(text).first()

/** Screenshots show the page, not the stack of toasts that the steps before left on top of it. */
async function clearToasts(page: Page) {
  const close = page.getByRole('button', { name: 'Закрыть уведомление' })
  for (let i = 0; i < 10 && (await close.count()) > 0; i++)
    await close
      .first()
      .click({ timeout: 1000 })
      .catch(() => {})
}

async function screen(page: Page, name: string) {
  await clearToasts(page)
  await shoot(page, name)
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

test.describe('admin area', () => {
  test('stats page, then users: search, top up, deduct, a refused deduction, delete', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    const target = await customer(page.request, 'target')
    const victim = await customer(page.request, 'victim')
    await signInAsAdmin(page)

    // The admin group in the sidebar leads to the admin dashboard.
    await page.getByRole('button', { name: 'Админ-панель' }).first().click()
    await page.locator('#sidebar-admin-links').getByRole('link', { name: 'Дашборд' }).click()
    await expect(page).toHaveURL(/\/app\/admin$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Админ-панель' })).toBeVisible()
    await expect(page.getByTestId('upstream-card')).toContainText('демо-режим')
    await expect(page.getByTestId('upstream-card')).toContainText('Безлимитный режим')
    await expect(page.getByTestId('upstream-limit')).toHaveText('Без лимита')
    const users = Number((await page.getByTestId('stat-users').innerText()).replace(/\D/g, ''))
    expect(users).toBeGreaterThanOrEqual(3)
    await expect(page.getByTestId('stat-balance')).toContainText('₽')
    await expect(page.getByTestId('finance-panel')).toContainText('Доходы и расходы')
    await expect(page.getByTestId('finance-panel')).toContainText('в рублях')
    await expect(page.getByTestId('finance-panel')).toContainText('В долларах США')
    await expect(page.getByTestId('finance-cost')).toContainText('$')
    await screen(page, 'admin-dashboard-1280')

    // Users: the tile's link, search by a part of the address.
    await page.getByTestId('stat-users-tile').getByRole('link', { name: 'Пользователи' }).click()
    await expect(page).toHaveURL(/\/app\/admin\/users$/)
    await expect(page.getByTestId('admin-user-row').first()).toBeVisible()
    await screen(page, 'admin-users-1280')
    const search = page.getByPlaceholder('Поиск по email...')
    await search.fill(target.email.split('@')[0]!.toUpperCase())
    await expect(page.getByTestId('admin-user-row')).toHaveCount(1)
    await expect(page.getByTestId('admin-users-total')).toContainText('Найдено: 1')
    const row = page.getByTestId('admin-user-row').filter({ hasText: target.email })
    await expect(row.getByTestId('admin-user-balance')).toHaveText('50,00 ₽')

    // Top up.
    await row.getByRole('button', { name: `Изменить баланс ${target.email}` }).click()
    const dialog = page.getByRole('dialog', { name: 'Изменение баланса' })
    await expect(dialog).toContainText(target.email)
    await expect(dialog).toContainText('Текущий баланс: 50,00 ₽')
    const amount = dialog.getByLabel('Сумма (+ пополнение, - списание)')
    const apply = dialog.getByRole('button', { name: 'Применить' })
    await expect(apply).toBeDisabled()
    await amount.fill('150')
    await expect(dialog).toContainText('После изменения: 200,00 ₽')
    await screen(page, 'admin-balance-dialog-1280')
    await apply.click()
    await expect(toast(page, 'Баланс обновлен')).toBeVisible()
    await expect(dialog).toBeHidden()
    await expect(row.getByTestId('admin-user-balance')).toHaveText('200,00 ₽')

    // A decimal comma is the decimal separator (issue 22: «30,5» was read as 305): +30,5 then -30,5 ₽.
    for (const [typed, after] of [
      ['30,5', '230,50 ₽'],
      ['-30,5', '200,00 ₽'],
    ]) {
      await row.getByRole('button', { name: `Изменить баланс ${target.email}` }).click()
      await amount.fill(typed!)
      await expect(dialog).toContainText(`После изменения: ${after}`)
      await apply.click()
      await expect(toast(page, 'Баланс обновлен')).toBeVisible()
      await expect(row.getByTestId('admin-user-balance')).toHaveText(after!)
    }

    // Anything ambiguous is refused with a reason, never guessed: «Применить» stays off.
    await row.getByRole('button', { name: `Изменить баланс ${target.email}` }).click()
    for (const typed of ['1.000,5', '1,2,3', '30,5 руб', 'abc', '--5', '0,1234567']) {
      await amount.fill(typed)
      await expect(apply).toBeDisabled()
      await expect(dialog.getByTestId('balance-amount-invalid')).toHaveText('Введите сумму числом: например, 30,5 или -100 (до 6 знаков после запятой)')
      await expect(amount).toHaveAttribute('aria-invalid', 'true')
    }
    // Half a number on its way is not scolded, only not applied yet.
    for (const typed of ['-', '30,']) {
      await amount.fill(typed)
      await expect(apply).toBeDisabled()
      await expect(dialog.getByTestId('balance-amount-invalid')).toHaveCount(0)
    }
    await amount.fill('abc')
    await screen(page, 'admin-balance-dialog-invalid-1280')
    await page.setViewportSize({ width: 360, height: 740 })
    await screen(page, 'admin-balance-dialog-invalid-360')
    await page.setViewportSize({ width: 1280, height: 900 })
    await amount.fill('1 000,25')
    await expect(dialog.getByTestId('balance-amount-invalid')).toHaveCount(0)
    await expect(dialog).toContainText(/После изменения: 1\s200,25 ₽/)
    await dialog.getByRole('button', { name: 'Отмена' }).click()

    // Deduct.
    await row.getByRole('button', { name: `Изменить баланс ${target.email}` }).click()
    await amount.fill('-30.5')
    await apply.click()
    await expect(toast(page, 'Баланс обновлен')).toBeVisible()
    await expect(row.getByTestId('admin-user-balance')).toHaveText('169,50 ₽')

    // More than there is: «Применить» stays off with one reason beside the field, the balance unchanged.
    await row.getByRole('button', { name: `Изменить баланс ${target.email}` }).click()
    await amount.fill('-1000')
    await expect(apply).toBeDisabled()
    await expect(dialog.getByRole('alert')).toHaveCount(1)
    expect(spaced(await dialog.getByRole('alert').textContent())).toContain('Нельзя списать больше, чем есть на балансе: сейчас на нём 169,50 ₽')
    await dialog.getByRole('button', { name: 'Отмена' }).click()
    await expect(row.getByTestId('admin-user-balance')).toHaveText('169,50 ₽')
    const balance = await page.request.get('/api/billing/balance', { headers: { authorization: `Bearer ${target.token}` } })
    expect((await balance.json()).data.balance).toBe(169.5)
    const history = await page.request.get('/api/billing/transactions?limit=50', { headers: { authorization: `Bearer ${target.token}` } })
    expect((await history.json()).data.slice(0, 4).map((t: { type: string; amount: string }) => [t.type, t.amount])).toEqual([
      ['admin', '-30.50'],
      ['admin', '-30.50'],
      ['admin', '+30.50'],
      ['admin', '+150.00'],
    ])

    // Delete: confirmation with the address, then access ends at once.
    await search.fill(victim.email)
    const victimRow = page.getByTestId('admin-user-row').filter({ hasText: victim.email })
    await expect(page.getByTestId('admin-user-row')).toHaveCount(1)
    await victimRow.getByRole('button', { name: `Удалить ${victim.email}` }).click()
    const confirm = page.getByRole('dialog', { name: 'Удаление пользователя' })
    await expect(confirm).toContainText(`Удалить пользователя ${victim.email}?`)
    await confirm.getByRole('button', { name: 'Удалить' }).click()
    await expect(toast(page, 'Пользователь удален')).toBeVisible()
    await expect(page.getByTestId('admin-user-row')).toHaveCount(0)
    await expect(page.getByText(`Никого не нашлось по запросу «${victim.email}»`)).toBeVisible()
    const gone = await page.request.get('/api/auth/profile', { headers: { authorization: `Bearer ${victim.token}` } })
    expect(gone.status()).toBe(401)

    // The admin's own row cannot be deleted.
    await search.fill(ADMIN_EMAIL)
    await expect(page.getByRole('button', { name: `Удалить ${ADMIN_EMAIL}` })).toBeDisabled()
    await expect(page.getByRole('heading', { name: 'Заявки на возврат' })).toBeVisible()

    await page.setViewportSize({ width: 360, height: 740 })
    await search.fill('')
    await expect(page.getByTestId('admin-user-row').first()).toBeVisible()
    await expectNoHorizontalScroll(page)
    await screen(page, 'admin-users-360')
    await page.goto('/app/admin')
    await expect(page.getByTestId('stat-users')).toBeVisible()
    await expectNoHorizontalScroll(page)
    await screen(page, 'admin-dashboard-360')
    // The refused deduction is a 400 the page handles; the browser still logs the failed request.
    consoleWatch.assertClean([/status of 400/])
  })

  test('«Не покрыто клиентами»: 0 ₽ calmly on a fresh server; red, with the requests in Moscow time, when there are some', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signInAsAdmin(page)
    const adminGet = (path: string) => page.evaluate(async (p) => (await fetch(p, { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })).json(), path)

    // A fresh server: every request was covered by its customer.
    const stats = await adminGet('/api/admin/stats')
    expect(stats.data.finance).toMatchObject({ uncoveredCost: 0, uncoveredRequests: 0 })
    expect(await adminGet('/api/admin/uncovered?limit=50')).toEqual({ success: true, total: 0, requests: 0, data: [] })
    await page.goto('/app/admin')
    const card = page.getByTestId('uncovered-card')
    await expect(card.getByRole('heading', { name: 'Не покрыто клиентами' })).toBeVisible({ timeout: 15_000 })
    await expect(page.getByTestId('stat-uncovered')).toHaveText('0,00 ₽')
    await expect(page.getByTestId('stat-uncovered-requests')).toHaveText('0 запросов')
    await expect(card).toHaveAttribute('data-state', 'clear')
    await expect(card).toContainText('Каждый запрос оплачен клиентом полностью')
    await expect(page.getByTestId('uncovered-row')).toHaveCount(0)
    await card.screenshot({ path: `${SHOTS}/admin-uncovered-clear-1280.png` })

    // Some requests cost more than was charged (the server's answers, patched): the card turns red and lists them.
    const rows = [
      {
        id: 'u2',
        usageId: 'l2',
        userId: 'x2',
        email: 'client@e2e.ru',
        model: 'black-forest-labs/flux.2-pro',
        upstreamId: 'gen-2',
        held: 3.51,
        cost: 3.5156,
        charged: 3.51,
        uncovered: 0.0056,
        createdAt: '2025-11-21T11:05:00.000Z',
      },
      {
        id: 'u1',
        usageId: 'l1',
        userId: 'x1',
        email: null,
        model: 'openai/gpt-4o-mini',
        upstreamId: null,
        held: 0.0012,
        cost: 0.00125,
        charged: 0.0012,
        uncovered: 0.00005,
        createdAt: '2025-11-20T21:30:00.000Z',
      },
    ]
    await page.route('**/api/admin/stats', async (route) => {
      const response = await route.fetch()
      const body = await response.json()
      body.data.finance.uncoveredCost = 0.00565
      body.data.finance.uncoveredRequests = 2
      await route.fulfill({ response, json: body })
    })
    await page.route('**/api/admin/uncovered?*', (route) => route.fulfill({ json: { success: true, total: 0.00565, requests: 2, data: rows } }))
    await page.reload()
    await expect(card).toHaveAttribute('data-state', 'uncovered')
    await expect(page.getByTestId('stat-uncovered')).toHaveText('0,005650 ₽')
    await expect(page.getByTestId('stat-uncovered-requests')).toHaveText('2 запроса')
    const listed = page.getByTestId('uncovered-row')
    await expect(listed).toHaveCount(2)
    await expect(card.locator('thead th')).toHaveText(['Дата (МСК)', 'E-mail и модель', 'Зарезервировано', 'Стоимость', 'Списано', 'Не покрыто'])
    // 11:05 UTC is 14:05 in Moscow; 21:30 UTC on the 20th is already the 21st there. Amounts to the micro-ruble.
    const cells = async (i: number) => (await listed.nth(i).locator('td').allInnerTexts()).map(spaced)
    expect(await cells(0)).toEqual(['21.11.2025, 14:05', 'client@e2e.ru black-forest-labs/flux.2-pro', '3,51 ₽', '3,5156 ₽', '3,51 ₽', '0,0056 ₽'])
    expect(await cells(1)).toEqual(['21.11.2025, 00:30', 'аккаунт удалён openai/gpt-4o-mini', '0,0012 ₽', '0,00125 ₽', '0,0012 ₽', '0,00005 ₽'])
    await card.screenshot({ path: `${SHOTS}/admin-uncovered-red-1280.png` })

    await page.setViewportSize({ width: 360, height: 740 })
    await expect(listed).toHaveCount(2)
    await expect(listed.nth(0)).toContainText('21.11.2025, 14:05 МСК')
    expect(spaced(await listed.nth(0).getByTestId('uncovered-amount').textContent())).toBe('0,0056 ₽')
    await expectNoHorizontalScroll(page)
    await card.screenshot({ path: `${SHOTS}/admin-uncovered-red-360.png` })
    consoleWatch.assertClean()
  })

  test('blog: start and stop autopost, change the schedule, publish, regenerate an image, delete an article', async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 900 })
    await signInAsAdmin(page)
    // Start from an empty blog: other specs on this shared server (a11y) seed articles of their own.
    await page.evaluate(async () => {
      const headers = { Authorization: `Bearer ${localStorage.getItem('accessToken')}` }
      const posts = (await (await fetch('/api/blog/admin/posts', { headers })).json()).data as Array<{ id: string }>
      for (const p of posts) await fetch(`/api/blog/admin/posts/${p.id}`, { method: 'DELETE', headers })
    })
    await page.goto('/app/admin/blog')
    await expect(page.getByRole('heading', { level: 1, name: 'Блог' })).toBeVisible()
    await expect(page.getByTestId('autopost-last-run')).toHaveText('Никогда')
    const banner = page.getByTestId('autopost-banner')
    await expect(banner).toContainText('Автопостинг остановлен')
    await expect(page.getByTestId('autopost-schedule')).toHaveText('Текущее расписание: каждый час: 00:00, 01:00 … 23:00')

    // Start: the banner, the next-run sentence and the warning.
    await banner.getByRole('button', { name: 'Запустить' }).click()
    await expect(toast(page, 'Настройки обновлены')).toBeVisible()
    await expect(banner).toContainText('Автопостинг активен')
    await expect(page.getByTestId('autopost-next')).toHaveText('Статьи выходят каждый час: 00:00, 01:00 … 23:00 (московское время).')
    await expect(page.getByRole('note')).toContainText('без проверки')

    // Change the schedule.
    await page.getByLabel('Время начала').fill('08:30')
    await page.getByLabel('Частота').selectOption({ label: 'Каждые 6 часов' })
    await expect(page.getByLabel('Частота').locator('option')).toHaveText(['Каждый час', 'Каждые 2 часа', 'Каждые 3 часа', 'Каждые 6 часов', 'Каждые 12 часов', 'Раз в сутки'])
    await page.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByTestId('autopost-schedule')).toHaveText('Текущее расписание: ежедневно в 02:30, 08:30, 14:30 и 20:30')
    await expect(page.getByTestId('autopost-next')).toContainText('Статьи выходят ежедневно в 02:30, 08:30, 14:30 и 20:30')
    await expect(page.getByRole('button', { name: 'Сохранить' })).toBeDisabled()

    // Stop.
    await banner.getByRole('button', { name: 'Остановить' }).click()
    await expect(banner).toContainText('Автопостинг остановлен')
    await expect(page.getByRole('note')).toBeHidden()
    const settings = await page.evaluate(async () => {
      const res = await fetch('/api/blog/admin/autopost/settings', { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })
      return (await res.json()).data
    })
    expect(settings).toEqual({ isEnabled: false, startTime: '08:30', intervalHours: 6 })

    // Two articles written now by the (demo) models.
    for (let i = 0; i < 2; i++) {
      await page.getByRole('button', { name: 'Опубликовать сейчас' }).click()
      await expect(toast(page, /Статья опубликована/).first()).toBeVisible()
    }
    const rows = page.getByTestId('admin-post-row')
    await expect(rows).toHaveCount(2)
    await expect(page.getByTestId('autopost-total')).toHaveText('2')
    await expect(page.getByTestId('autopost-last-run')).not.toHaveText('Никогда')
    const first = rows.first()
    const title = (await first.getByRole('link').innerText()).trim()
    const cover = first.locator('img')
    await expect(cover).toHaveJSProperty('complete', true)
    const before = await cover.getAttribute('src')
    expect(before).toMatch(/^\/blog-images\//)
    await screen(page, 'admin-blog-1280')

    // Regenerate the cover.
    await first.getByRole('button', { name: `Регенерировать изображение: ${title}` }).click()
    const ask = page.getByRole('dialog', { name: 'Новая обложка' })
    await expect(ask).toContainText('Регенерировать изображение для этой статьи?')
    await ask.getByRole('button', { name: 'Сгенерировать' }).click()
    await expect(toast(page, 'Изображение успешно сгенерировано')).toBeVisible()
    await expect(first.locator('img')).not.toHaveAttribute('src', before!)

    // Delete it.
    await first.getByRole('button', { name: `Удалить статью: ${title}` }).click()
    const del = page.getByRole('dialog', { name: 'Удаление статьи' })
    await expect(del).toContainText('Удалить статью?')
    await del.getByRole('button', { name: 'Удалить' }).click()
    await expect(toast(page, 'Статья удалена')).toBeVisible()
    await expect(rows).toHaveCount(1)
    await expect(page.getByTestId('autopost-total')).toHaveText('1')
    const publicList = await (await page.request.get('/api/blog/posts?limit=10')).json()
    expect(publicList.data.map((p: { title: string }) => p.title)).not.toContain(title)

    await page.setViewportSize({ width: 360, height: 740 })
    await expect(rows).toHaveCount(1)
    await expectNoHorizontalScroll(page)
    await screen(page, 'admin-blog-360')
    consoleWatch.assertClean()

    // Leave the shared server's blog as it was: other specs may expect its empty state.
    const left = await page.evaluate(async () => {
      const headers = { Authorization: `Bearer ${localStorage.getItem('accessToken')}` }
      const posts = (await (await fetch('/api/blog/admin/posts', { headers })).json()).data as Array<{ id: string }>
      for (const p of posts) await fetch(`/api/blog/admin/posts/${p.id}`, { method: 'DELETE', headers })
      return (await (await fetch('/api/blog/admin/posts', { headers })).json()).data.length
    })
    expect(left).toBe(0)
  })

  test('a normal user has no admin group and is sent away from /app/admin', async ({ page }) => {
    await registerViaUi(page, uniqueEmail('plain'), PASSWORD)
    await expect(page.getByRole('button', { name: 'Админ-панель' })).toHaveCount(0)
    await expect(page.getByRole('link', { name: 'Пользователи' })).toHaveCount(0)
    for (const path of ['/app/admin', '/app/admin/users', '/app/admin/blog']) {
      await page.goto(path)
      await expect(page).toHaveURL(/\/app\/dashboard$/)
    }
    // The server says no too, whatever the page does.
    const status = await page.evaluate(async () => {
      const res = await fetch('/api/admin/stats', { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })
      return res.status
    })
    expect(status).toBe(403)
  })
})
