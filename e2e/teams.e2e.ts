// Teams in the browser (issue 23), at 1280×800 and at 360×740: an owner creates a team from the
// context switcher, tops it up and invites a colleague; the colleague registers from the letter's
// link in a second browser and accepts; the owner sets the member's budget; the member spends in
// the Playground until the 402 says which budget and when it resets; the owner sees the usage by
// member and the audit entries. axe (WCAG A/AA, serious and critical) on every team screen.
import { type Browser, expect, type Page, test } from '@playwright/test'
import { ADMIN_EMAIL, apiCustomer, axeClean, loginViaUi, readOutboxLetter, registerViaUi, shoot, signInAsAdmin, uniqueEmail, watchConsole } from './helpers'

const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const
const PASSWORD = 'teams-spec-pass-1'

/** On a phone the sidebar is a drawer: open it before following a link in it. */
async function nav(page: Page, narrow: boolean, name: string) {
  if (narrow) await page.getByRole('button', { name: 'Открыть меню' }).click()
  await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name, exact: true }).click()
}

/** Tops the current team up through the built-in test payment page, as the billing page would. */
async function topUpTeam(page: Page, amount: number) {
  await page.evaluate(async (rub) => {
    const auth = { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' }
    const team = JSON.parse(localStorage.getItem('account-context') ?? '{}').state.teamId as string
    const created = await (await fetch('/api/payments/create', { method: 'POST', headers: { ...auth, 'X-Team-Id': team }, body: JSON.stringify({ amount: rub }) })).json()
    const providerId = new URL(created.data.confirmationUrl).pathname.split('/').pop()
    await fetch(`/api/payments/test/${providerId}/pay`, { method: 'POST' })
  }, amount)
}

async function secondBrowser(browser: Browser, size: (typeof SIZES)[number]) {
  const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, locale: 'ru-RU', timezoneId: 'Europe/Moscow' })
  return { context, page: await context.newPage() }
}

for (const size of SIZES) {
  test(`a team from creation to a member's spent budget, at ${size.width}×${size.height}`, async ({ page, browser }) => {
    test.slow() // two browsers, a payment, an invitation and a dozen requests: more than a minute on a busy machine
    const narrow = size.width < 1024
    const console = watchConsole(page)
    await page.setViewportSize({ width: size.width, height: size.height })
    const team = `Лаборатория ${size.name}`
    const ownerEmail = uniqueEmail('owner')
    await registerViaUi(page, ownerEmail, PASSWORD)

    // The context switcher (header on phones, sidebar on wide screens): «+ Создать команду».
    const switcher = page.getByTestId('account-switcher').filter({ visible: true })
    await expect(switcher).toHaveValue('')
    await expect(switcher.locator('option').first()).toHaveText('Личный аккаунт')
    await switcher.selectOption({ label: '+ Создать команду' })
    const dialog = page.getByRole('dialog', { name: 'Новая команда' })
    await dialog.getByLabel('Название команды').fill(team)
    await dialog.getByRole('button', { name: 'Создать команду' }).click()
    await expect(page).toHaveURL(/\/app\/team$/)
    await expect(page.getByRole('heading', { level: 1, name: team })).toBeVisible()
    await expect(switcher.locator('option:checked')).toContainText(team)
    await topUpTeam(page, 500)
    await page.reload()
    await expect(page.getByTestId('team-balance')).toHaveText(/500,00\s₽/)

    // Invite a colleague as a member.
    const memberEmail = uniqueEmail('member')
    const form = page.getByTestId('invite-form')
    await form.getByLabel('Email').fill(memberEmail)
    await form.getByLabel('Роль').selectOption('member')
    await form.getByRole('button', { name: 'Пригласить' }).click()
    await expect(page.getByText(`Приглашение отправлено на ${memberEmail}`)).toBeVisible()
    await expect(page.getByTestId('invitation-row')).toContainText(memberEmail)
    await shoot(page, `team-settings-${size.name}`)
    await axeClean(page, 'team settings')
    const letter = await readOutboxLetter(memberEmail)
    expect(letter.subject).toBe(`Приглашение в команду «${team}» — AI Gateway`)
    const link = letter.text.match(/https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/)![0]

    // The colleague, in a second browser: the link → register from it → back to it → accept.
    const other = await secondBrowser(browser, size)
    const m = other.page
    await m.goto(new URL(link).pathname)
    await expect(m.getByRole('heading', { name: `Приглашение в команду «${team}»` })).toBeVisible()
    await shoot(m, `team-invite-${size.name}`)
    await axeClean(m, 'invitation page')
    await m.getByRole('link', { name: 'Зарегистрироваться' }).click()
    await expect(m).toHaveURL(/\/register\?next=%2Finvite%2F/)
    await m.getByLabel('Email').fill(memberEmail)
    await m.getByLabel('Пароль', { exact: true }).fill(PASSWORD)
    await m.getByLabel('Подтвердите пароль').fill(PASSWORD)
    await m.getByRole('button', { name: 'Зарегистрироваться' }).click()
    await expect(m).toHaveURL(/\/invite\//)
    await m.getByRole('button', { name: 'Принять приглашение' }).click()
    await expect(m).toHaveURL(/\/app\/team$/)
    await expect(m.getByRole('heading', { level: 1, name: team })).toBeVisible()
    // A member sees neither the billing page nor the team's manager pages.
    if (narrow) await m.getByRole('button', { name: 'Открыть меню' }).click()
    const memberNav = m.getByRole('navigation', { name: 'Основное меню' })
    await expect(memberNav.getByRole('link', { name: 'Playground' })).toBeVisible()
    await expect(memberNav.getByRole('link', { name: 'Баланс', exact: true })).toHaveCount(0)
    await expect(memberNav.getByRole('link', { name: 'Журнал действий' })).toHaveCount(0)
    if (narrow) await m.getByRole('button', { name: 'Закрыть меню' }).click()

    // The owner sets the member's budget: 4 ₽ a day — two or three answers of GPT-4.
    await page.reload()
    const row = page.getByTestId('team-member-row').filter({ hasText: memberEmail })
    await expect(row).toBeVisible()
    await row.getByRole('button', { name: `Бюджет ${memberEmail}` }).click()
    const budget = page.getByRole('dialog', { name: 'Бюджет участника' })
    await budget.getByLabel('Лимит, ₽').fill('4')
    await budget.getByLabel('Период').selectOption('day')
    await shoot(page, `team-budget-dialog-${size.name}`)
    await budget.getByRole('button', { name: 'Сохранить' }).click()
    await expect(budget).toBeHidden()
    await expect(row).toContainText(/из 4\s₽ в день/)

    // The member spends in the Playground until the budget says no: either the Playground's guard
    // (its estimate no longer fits, «Отправить» is off with the server's words) or, when the estimate
    // still fitted, the 402's toast — each naming the budget and its reset.
    await m.goto('/app/playground?model=openai/gpt-4')
    const composer = m.getByRole('textbox', { name: 'Сообщение' })
    const refusal = m.getByRole('region', { name: 'Уведомления' }).getByRole('alert').filter({ hasText: 'Ваш бюджет в команде' })
    const guard = m.getByTestId('balance-warning')
    for (let i = 0; i < 12 && !(await refusal.isVisible()); i++) {
      await composer.fill(`Расскажи о бюджетах, шаг ${i + 1}`)
      await expect(m.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready', { timeout: 15_000 })
      if (await guard.isVisible()) break
      await m.getByRole('button', { name: 'Отправить' }).click()
      await expect(m.getByRole('button', { name: 'Отправить' })).toBeVisible({ timeout: 15_000 })
      await m.waitForTimeout(300)
    }
    const said = (await refusal.isVisible()) ? refusal : guard
    await expect(said).toContainText(new RegExp(`Ваш бюджет в команде «${team}» (исчерпан|не покрывает этот запрос): лимит 4,00 ₽ в день`))
    if (said === guard) await expect(m.getByRole('button', { name: 'Отправить' })).toBeDisabled()
    // Some of it was spent first: the replies are in the chat.
    await expect(m.getByTestId('assistant-message').first()).toBeVisible()
    await expect(said).toContainText(/Бюджет обновится \d\d\.\d\d\.\d{4} 00:00 МСК/)
    await shoot(m, `team-budget-402-${size.name}`)
    await axeClean(m, 'playground with the budget refusal')
    await other.context.close()

    // The owner: usage by member, and the audit log.
    await nav(page, narrow, 'Аналитика команды')
    await expect(page).toHaveURL(/\/app\/team\/analytics$/)
    const byMember = page.getByTestId('usage-by-member-row').filter({ hasText: memberEmail })
    await expect(byMember).toBeVisible()
    await shoot(page, `team-analytics-${size.name}`)
    await axeClean(page, 'team analytics')
    await nav(page, narrow, 'Журнал действий')
    await expect(page).toHaveURL(/\/app\/team\/audit$/)
    for (const action of ['team.created', 'invitation.created', 'member.joined', 'member.budget_changed', 'payment.succeeded'])
      await expect(page.locator(`[data-testid=audit-row][data-action="${action}"]`).first()).toBeVisible()
    await expect(page.locator('[data-testid=audit-row][data-action="member.joined"]').first()).toContainText(memberEmail)
    await shoot(page, `team-audit-${size.name}`)
    await axeClean(page, 'team audit log')
    await nav(page, narrow, 'Вебхук')
    await expect(page.getByRole('heading', { level: 1, name: 'Вебхук команды' })).toBeVisible()
    await axeClean(page, 'team webhook')

    // Back to the personal account: the personal balance, untouched by the team's money.
    await switcher.selectOption({ label: 'Личный аккаунт' })
    await nav(page, narrow, 'Дашборд')
    await expect(page.getByTestId('dashboard-balance')).toContainText(/50,00\s₽/)
    console.assertClean([/402/, /Failed to load resource/])
  })
}

test('the site admin sees the teams and adjusts a team balance', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  const owner = await page.request.post('/api/auth/register', { data: { email: uniqueEmail('team-owner'), password: PASSWORD } })
  const token = (await owner.json()).data.accessToken as string
  const name = `Команда для админа ${Date.now().toString(36)}`
  const created = await page.request.post('/api/teams', { data: { name }, headers: { authorization: `Bearer ${token}` } })
  expect(created.status()).toBe(201)
  await signInAsAdmin(page)
  await page.goto('/app/admin/teams')
  await page.getByRole('searchbox', { name: 'Поиск команд' }).fill(name)
  const row = page.getByTestId('admin-team-row').filter({ hasText: name })
  await expect(row).toBeVisible()
  await row.getByRole('button', { name: `Изменить баланс команды ${name}` }).click()
  const dialog = page.getByRole('dialog', { name: 'Изменение баланса' })
  await expect(dialog).toContainText(`Команда «${name}»`)
  await dialog.getByLabel('Сумма (+ пополнение, - списание)').fill('250')
  await shoot(page, 'admin-team-balance-1280')
  await dialog.getByRole('button', { name: 'Применить' }).click()
  await expect(page.getByText('Баланс обновлен')).toBeVisible()
  await expect(row).toContainText(/250,00\s₽/)
  await axeClean(page, `admin teams (${ADMIN_EMAIL})`)
})

/** A team made through the API: an owner, and each of `roles` joined by its letter's link. */
async function apiTeam(page: Page, name: string, roles: ('admin' | 'member')[]) {
  const request = page.request
  const as = (p: { token: string }) => ({ authorization: `Bearer ${p.token}` })
  const owner = await apiCustomer(request, 'lock-owner', PASSWORD)
  const created = await request.post('/api/teams', { data: { name }, headers: as(owner) })
  expect(created.status()).toBe(201)
  const id = (await created.json()).data.id as string
  const joined = []
  for (const role of roles) {
    const person = await apiCustomer(request, `lock-${role}`, PASSWORD)
    expect((await request.post(`/api/teams/${id}/invitations`, { data: { email: person.email, role }, headers: as(owner) })).status()).toBe(201)
    const token = (await readOutboxLetter(person.email)).text.match(/\/invite\/([A-Za-z0-9_-]+)/)![1]
    expect((await request.post('/api/teams/invitations/accept', { data: { token }, headers: as(person) })).status()).toBe(200)
    joined.push(person)
  }
  const api = async (who: { token: string }, method: 'patch' | 'post', path: string, data: unknown, team = false) => {
    const res = await request[method](path, { data, headers: { ...as(who), ...(team ? { 'X-Team-Id': id } : {}) } })
    expect(res.ok()).toBe(true)
    return (await res.json()).data
  }
  return { id, owner, joined, api }
}

// Issue 33, point 7: what an admin or the owner decided is not offered to the one it restricts —
// the control is there, disabled, with the reason beside it.
for (const size of SIZES) {
  test(`a member sees why a key an admin disabled cannot be re-enabled; an admin, why their budget is the owner's, at ${size.width}×${size.height}`, async ({ page, browser }) => {
    test.slow()
    await page.setViewportSize({ width: size.width, height: size.height })
    const name = `Решения ${size.name}`
    const t = await apiTeam(page, name, ['admin', 'admin', 'member'])
    const [admin, admin2, member] = t.joined as [Awaited<ReturnType<typeof apiCustomer>>, Awaited<ReturnType<typeof apiCustomer>>, Awaited<ReturnType<typeof apiCustomer>>]
    const key = await t.api(member, 'post', '/api/auth/api-keys', { name: 'Бот склада' }, true)
    await t.api(admin, 'patch', `/api/auth/api-keys/${key.id}`, { isActive: false, budget: { limitRub: 5, period: 'day' } }, true)
    await t.api(t.owner, 'patch', `/api/teams/${t.id}/members/${admin.id}`, { budget: { limitRub: 20, period: 'month' } })

    // The member: «Включить» and «Бюджет» are there but off, each with the reason.
    const console = watchConsole(page)
    await loginViaUi(page, member.email, PASSWORD)
    // Into the team on the keys page (the dashboard would first ask for the personal money pages' data).
    await page.goto('/app/api-keys')
    await page.getByTestId('account-switcher').filter({ visible: true }).selectOption(t.id)
    const row = page.getByTestId('api-key-row').filter({ hasText: 'Бот склада' })
    await expect(row.getByRole('button', { name: 'Включить' })).toBeDisabled()
    await expect(row.getByRole('button', { name: 'Бюджет' })).toBeDisabled()
    // Beside the key: in its card on a phone, in a line under its row in the wide table.
    const notes = page.getByTestId('key-lock')
    await expect(notes).toHaveText([
      'Ключ отключил администратор команды — включить его снова может владелец или администратор.',
      'Бюджет ключа задал администратор команды — изменить или снять его может владелец или администратор.',
    ])
    await expect(row.getByRole('button', { name: 'Включить' })).toHaveAccessibleDescription(/Ключ отключил администратор команды/)
    await row.scrollIntoViewIfNeeded()
    await shoot(page, `team-key-locked-${size.name}`)
    await axeClean(page, 'a locked team key')
    console.assertClean()

    // An admin: their own budget is the owner's (off, with the reason); another admin has no role
    // control and no «Исключить»; a member has both.
    const other = await secondBrowser(browser, size)
    const a = other.page
    await loginViaUi(a, admin.email, PASSWORD)
    await a.goto('/app/team')
    await a.getByTestId('account-switcher').filter({ visible: true }).selectOption(t.id)
    const mine = a.getByTestId('team-member-row').filter({ hasText: admin.email })
    await expect(mine.getByRole('button', { name: `Бюджет ${admin.email}` })).toBeDisabled()
    await expect(mine.getByTestId('member-budget-lock')).toHaveText('Ваш бюджет в команде задал владелец команды — изменить или снять его может только владелец.')
    const peer = a.getByTestId('team-member-row').filter({ hasText: admin2.email })
    await expect(peer.getByRole('combobox', { name: `Роль ${admin2.email}` })).toHaveCount(0)
    await expect(peer.getByRole('button', { name: `Исключить ${admin2.email}` })).toHaveCount(0)
    await expect(peer.getByRole('button', { name: `Бюджет ${admin2.email}` })).toBeEnabled()
    const plain = a.getByTestId('team-member-row').filter({ hasText: member.email })
    await expect(plain.getByRole('combobox', { name: `Роль ${member.email}` })).toBeVisible()
    await expect(plain.getByRole('button', { name: `Исключить ${member.email}` })).toBeVisible()
    await mine.scrollIntoViewIfNeeded()
    await shoot(a, `team-admin-budget-locked-${size.name}`)
    await axeClean(a, 'team page with a locked budget')
    // The admin re-enables the member's key: the member's page shows it on, with no lock.
    await a.goto('/app/api-keys')
    const theirs = a.getByTestId('api-key-row').filter({ hasText: 'Бот склада' })
    await theirs.getByRole('button', { name: 'Включить' }).click()
    await expect(theirs.getByRole('button', { name: 'Отключить' })).toBeEnabled()
    await other.context.close()
    await page.reload()
    await expect(row.getByRole('button', { name: 'Отключить' })).toBeEnabled()
    await expect(page.getByTestId('key-lock')).toHaveCount(1)
  })
}
