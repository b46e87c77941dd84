// Key policies (issue 36), at 1280×800 and 360×740: a key made with limits through the form says them
// in one line, its /v1/models lists only what it may call, and «Ограничения…» changes them (kept
// after a reload; a wrong value gets its message in the dialog); a management key wears its mark and
// is refused on /v1; a key made for an app through «Войти через AI Gateway» names the app, a key past
// its date says «Истёк»; the team owner sets the team's policy and a member's new key takes its
// defaults; the member's attempt to loosen what the owner set is refused by the server, in the dialog.
// «Ответ по средствам» (issue 37): switched on for a key in its dialog and for the whole team on its
// card, kept after a reload, said in the key's summary and to the member.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { expect as baseExpect, type Locator, type Page, test } from '@playwright/test'
import { apiGet, axeClean, fileAccount, loginViaUi, readOutboxLetter, spaced, uniqueEmail, watchConsole } from './helpers'

// The machine that runs these is shared and busy: the lazy chunks may take a while.
const expect = baseExpect.configure({ timeout: 20_000 })
const SHOTS = '/tmp/shots'
mkdirSync(SHOTS, { recursive: true })

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const
const PASSWORD = 'key-policies-pass-1'

type ApiKey = {
  id: string
  name: string
  kind: 'inference' | 'management'
  rpmLimit: number | null
  tpmLimit: number | null
  allowedModels: string[] | null
  allowedIps: string[] | null
  expiresAt: string | null
  fitToBalance: boolean
  locked: { policy: string | null }
}
type Team = { id: string; name: string }

const signIn = fileAccount('key-policies', PASSWORD)
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
const nextYear = new Date().getFullYear() + 1
const EXPIRY = `${nextYear}-01-31`

/** On a phone the sidebar is a drawer: open it before following a link in it. */
async function nav(page: Page, narrow: boolean, name: string) {
  if (narrow) await page.getByRole('button', { name: 'Открыть меню' }).click()
  await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name, exact: true }).click()
}

/** A JSON call with the page's session (and team, when given), answering `data`. */
function apiCall<T>(page: Page, method: string, path: string, body?: unknown, teamId?: string): Promise<{ status: number; data: T; error?: string }> {
  return page.evaluate(
    async ({ method, path, body, teamId }) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' }
      if (teamId) headers['X-Team-Id'] = teamId
      const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      const json = await response.json()
      return { status: response.status, data: json.data, error: json.error }
    },
    { method, path, body, teamId },
  ) as Promise<{ status: number; data: T; error?: string }>
}

const row = (page: Page, name: string) => page.getByTestId('api-key-row').filter({ hasText: name })
const summaryOf = async (locator: Locator) => spaced(await locator.getByTestId('key-policy-summary').textContent())

/** The new-key form: its «Ограничения» opened. */
async function openLimits(page: Page) {
  const form = page.getByTestId('create-key-form')
  const toggle = form.getByRole('button', { name: /^Ограничения/ })
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
  await expect(toggle).toHaveAttribute('aria-expanded', 'true')
  return form
}

for (const size of SIZES) {
  test(`a key with limits at ${size.width}×${size.height}: made through the form, summarised, limited on /v1/models, edited and kept after a reload`, async ({ page }) => {
    const consoleWatch = watchConsole(page)
    const narrow = size.width < 1024
    await page.setViewportSize(size)
    await signIn(page)
    await nav(page, narrow, 'API ключи')
    await expect(page).toHaveURL(/\/app\/api-keys$/)

    const name = `Лимиты ${size.name} ${Date.now().toString(36)}`
    await page.getByLabel('Название ключа', { exact: true }).fill(name)
    const form = await openLimits(page)
    await expect(form.getByRole('radio', { name: 'Обычный' })).toBeChecked()
    await form.getByLabel('Запросов в минуту').fill('60')
    await form.getByLabel('Токенов в минуту').fill('100 000')
    // a model as a chip (Enter), two networks as a comma list (the button)
    const models = form.getByLabel('Разрешённые модели')
    await models.fill('openai/*')
    await models.press('Enter')
    await expect(form.getByRole('button', { name: 'Убрать openai/*' })).toBeVisible()
    await expect(models).toHaveValue('')
    await form.getByLabel('Разрешённые IP-адреса и сети').fill('127.0.0.0/8, 10.0.0.0/8')
    await form.getByRole('button', { name: 'Добавить адрес' }).click()
    await expect(form.getByRole('button', { name: 'Убрать 127.0.0.0/8' })).toBeVisible()
    await expect(form.getByRole('button', { name: 'Убрать 10.0.0.0/8' })).toBeVisible()
    await form.getByLabel('Действует до').fill(EXPIRY)
    // «Ответ по средствам» is there, off
    await expect(form.getByRole('switch', { name: 'Ответ по средствам' })).not.toBeChecked()
    const summary = `60 запр/мин · 100 000 ток/мин · модели: openai/* · IP: 127.0.0.0/8, 10.0.0.0/8 · до 31.01.${nextYear}`
    await expect.poll(async () => spaced(await form.getByTestId('new-key-limits-summary').textContent())).toBe(summary)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await form.screenshot({ path: `${SHOTS}/key-create-limits-${size.name}.png` })
    await axeClean(page, 'new key form with limits')

    await page.getByRole('button', { name: 'Создать ключ' }).click()
    await expect(page.getByRole('region', { name: 'Ваш новый API ключ' })).toBeVisible()
    const secret = (await page.getByTestId('new-api-key').textContent())!.trim()
    await page.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()
    // the form is back to its start
    await expect(form.getByRole('button', { name: /^Ограничения/ })).toHaveAttribute('aria-expanded', 'false')

    const item = row(page, name)
    expect(await summaryOf(item)).toBe(summary)
    await expect(item.getByTestId('key-kind-badge')).toHaveCount(0)
    await expect(item.getByTestId('key-expired-badge')).toHaveCount(0)
    const made = (await apiGet<ApiKey[]>(page, '/api/auth/api-keys')).find((k) => k.name === name)!
    expect(made).toMatchObject({ kind: 'inference', rpmLimit: 60, tpmLimit: 100000, allowedModels: ['openai/*'], allowedIps: ['127.0.0.0/8', '10.0.0.0/8'], fitToBalance: false })
    // «до 31.01» is through that Moscow day
    expect(new Date(made.expiresAt!).toISOString()).toBe(new Date(`${EXPIRY}T23:59:59.999+03:00`).toISOString())

    // The key's own /v1/models lists only what it may call, and says its limits in the headers.
    const listed = await page.request.get('/v1/models', { headers: { Authorization: `Bearer ${secret}` } })
    expect(listed.status()).toBe(200)
    expect(listed.headers()['x-ratelimit-limit-requests']).toBe('60')
    const ids = ((await listed.json()).data as { id: string }[]).map((m) => m.id)
    expect(ids.length).toBeGreaterThan(0)
    expect(ids.every((id) => id.startsWith('openai/'))).toBe(true)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/key-list-limits-${size.name}.png`, fullPage: true })

    // «Ограничения…»: the fields hold the policy; a wrong value is refused in the dialog.
    await item.getByRole('button', { name: 'Ограничения' }).click()
    const dialog = page.getByRole('dialog', { name: 'Ограничения ключа' })
    await expect(dialog.getByLabel('Запросов в минуту')).toHaveValue('60')
    await expect(dialog.getByLabel('Токенов в минуту')).toHaveValue('100000')
    await expect(dialog.getByRole('button', { name: 'Убрать openai/*' })).toBeVisible()
    await expect(dialog.getByLabel('Действует до')).toHaveValue(EXPIRY)
    await expect(dialog.getByTestId('key-policy-lock')).toHaveCount(0)
    await dialog.getByLabel('Запросов в минуту').fill('шесть')
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(dialog.getByRole('alert')).toContainText('Запросов в минуту: введите целое число больше нуля')
    await expect(dialog.getByLabel('Запросов в минуту')).toHaveAttribute('aria-invalid', 'true')
    // the server's own check, its message in the dialog
    await dialog.getByLabel('Запросов в минуту').fill('60')
    await dialog.getByLabel('Разрешённые IP-адреса и сети').fill('офис')
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(dialog.getByRole('alert')).toContainText('Некорректный IP-адрес или сеть «офис»')
    await expect(dialog).toBeVisible()
    await expect(dialog.getByLabel('Разрешённые IP-адреса и сети')).toHaveAttribute('aria-invalid', 'true')
    await dialog.getByLabel('Разрешённые IP-адреса и сети').fill('')

    // Change the rate, add a model pattern (typed, not yet a chip: saving takes it too), clear the expiry.
    await dialog.getByLabel('Запросов в минуту').fill('120')
    await dialog.getByLabel('Разрешённые модели').fill('anthropic/*')
    await dialog.getByRole('button', { name: 'Бессрочно' }).click()
    await expect(dialog.getByLabel('Действует до')).toHaveValue('')
    await expect(dialog.getByText('Пусто — ключ действует бессрочно.')).toBeVisible()
    // «Ответ по средствам»: off, with its hint; switched on
    const fit = dialog.getByRole('switch', { name: 'Ответ по средствам' })
    await expect(fit).not.toBeChecked()
    await expect(dialog.getByText('Если средств не хватает на max_tokens, ответ укорачивается (не меньше 16 токенов) вместо ошибки 402')).toBeVisible()
    await fit.click()
    await expect(fit).toBeChecked()
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/key-policy-dialog-${size.name}.png` })
    await dialog.getByRole('button', { name: 'Сохранить' }).scrollIntoViewIfNeeded()
    await page.screenshot({ path: `${SHOTS}/fit-key-dialog-${size.name}.png` })
    await axeClean(page, 'key policy dialog')
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(dialog).toHaveCount(0)
    await expect(page.getByText('Ограничения сохранены')).toBeVisible()
    const changed = `120 запр/мин · 100 000 ток/мин · модели: openai/*, anthropic/* · IP: 127.0.0.0/8, 10.0.0.0/8 · по средствам`
    await expect.poll(() => summaryOf(item)).toBe(changed)

    await page.reload()
    await expect(row(page, name).getByTestId('key-policy-summary')).toBeVisible()
    expect(await summaryOf(row(page, name))).toBe(changed)
    const saved = (await apiGet<ApiKey[]>(page, '/api/auth/api-keys')).find((k) => k.id === made.id)!
    expect(saved).toMatchObject({ rpmLimit: 120, tpmLimit: 100000, allowedModels: ['openai/*', 'anthropic/*'], expiresAt: null, fitToBalance: true })
    const relisted = ((await (await page.request.get('/v1/models', { headers: { Authorization: `Bearer ${secret}` } })).json()).data as { id: string }[]).map((m) => m.id)
    expect(relisted.some((id) => id.startsWith('anthropic/'))).toBe(true)
    expect(relisted.every((id) => id.startsWith('openai/') || id.startsWith('anthropic/'))).toBe(true)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await row(page, name).screenshot({ path: `${SHOTS}/key-row-edited-${size.name}.png` })
    await row(page, name).screenshot({ path: `${SHOTS}/fit-key-row-${size.name}.png` })
    // the dialog, opened again after the reload, holds it on
    await row(page, name).getByRole('button', { name: 'Ограничения' }).click()
    const reopened = page.getByRole('dialog', { name: 'Ограничения ключа' })
    await expect(reopened.getByRole('switch', { name: 'Ответ по средствам' })).toBeChecked()
    await reopened.getByRole('button', { name: 'Отмена' }).click()
    await expect(reopened).toHaveCount(0)
    consoleWatch.assertClean([/status of 400/])
  })

  test(`a management key at ${size.width}×${size.height}: made with its kind, marked in the list, refused on /v1, accepted by the keys API; an app's key and an expired one say so`, async ({
    page,
  }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(size)
    await signIn(page)
    await page.goto('/app/api-keys')
    const name = `Управление ${size.name} ${Date.now().toString(36)}`
    await page.getByLabel('Название ключа', { exact: true }).fill(name)
    const form = page.getByTestId('create-key-form')
    await form.getByRole('radio', { name: 'Управляющий' }).check()
    // no residency and no /v1 limits for a key that never calls /v1
    await expect(form.getByLabel('Хранение данных', { exact: true })).toHaveCount(0)
    await openLimits(page)
    await expect(form.getByLabel('Запросов в минуту')).toHaveCount(0)
    await expect(form.getByRole('switch', { name: 'Ответ по средствам' })).toHaveCount(0)
    await expect(form.getByLabel('Разрешённые IP-адреса и сети')).toBeVisible()
    await form.screenshot({ path: `${SHOTS}/key-create-management-${size.name}.png` })
    await page.getByRole('button', { name: 'Создать ключ' }).click()
    const panel = page.getByRole('region', { name: 'Ваш новый API ключ' })
    await expect(panel).toContainText(`Управляющий ключ «${name}» создан`)
    const secret = (await page.getByTestId('new-api-key').textContent())!.trim()
    await panel.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()

    const item = row(page, name)
    await expect(item.getByTestId('key-kind-badge')).toHaveText('Управляющий')
    // no residency and no budget for a key that spends nothing
    await expect(item.getByRole('button', { name: 'Хранение данных' })).toHaveCount(0)
    await expect(item.getByRole('button', { name: 'Бюджет' })).toHaveCount(0)
    await expect(item).toContainText('не расходует баланс')
    expect((await apiGet<ApiKey[]>(page, '/api/auth/api-keys')).find((k) => k.name === name)!.kind).toBe('management')
    const v1 = await page.request.get('/v1/models', { headers: { Authorization: `Bearer ${secret}` } })
    expect(v1.status()).toBe(403)
    expect((await v1.json()).error.code).toBe('management_key_not_allowed')
    const keysApi = await page.request.get('/api/auth/api-keys', { headers: { Authorization: `Bearer ${secret}` } })
    expect(keysApi.status()).toBe(200)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await item.screenshot({ path: `${SHOTS}/key-row-management-${size.name}.png` })

    // its «Ограничения»: addresses and expiry only
    await item.getByRole('button', { name: 'Ограничения' }).click()
    const dialog = page.getByRole('dialog', { name: 'Ограничения ключа' })
    await expect(dialog.getByLabel('Разрешённые IP-адреса и сети')).toBeVisible()
    await expect(dialog.getByLabel('Токенов в минуту')).toHaveCount(0)
    await expect(dialog.getByRole('switch', { name: 'Ответ по средствам' })).toHaveCount(0)
    await axeClean(page, 'management key policy dialog')
    await dialog.getByRole('button', { name: 'Отмена' }).click()
    await expect(dialog).toHaveCount(0)

    // A key an app got through «Войти через AI Gateway» names the app; a key past its date says «Истёк».
    const origin = `https://app-${size.name}.example.ru`
    const verifier = `${'v'.repeat(30)}-${Date.now().toString(36)}-${'w'.repeat(20)}`
    const approved = await apiCall<{ redirectUrl: string }>(page, 'POST', '/api/auth/authorize', {
      callbackUrl: `${origin}/callback`,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      budgetRub: 100,
    })
    expect(approved.status).toBe(200)
    const code = new URL(approved.data.redirectUrl).searchParams.get('code')
    expect((await page.request.post('/api/v1/auth/keys', { data: { code, code_verifier: verifier } })).status()).toBe(200)
    // a key whose date comes in two seconds (the server takes only a future one)
    const lapsed = `Истёкший ${size.name} ${Date.now().toString(36)}`
    const soon = new Date(Date.now() + 2_000)
    expect((await apiCall(page, 'POST', '/api/auth/api-keys', { name: lapsed, expiresAt: soon.toISOString() })).status).toBe(201)
    await page.waitForTimeout(Math.max(0, soon.getTime() - Date.now()) + 500)
    await page.reload()
    const app = page.getByTestId('api-key-row').filter({ hasText: origin })
    await expect(app.getByTestId('key-app-origin')).toHaveText(`Приложение: ${origin}`)
    const old = row(page, lapsed)
    await expect(old.getByTestId('key-expired-badge')).toHaveText('Истёк')
    await expect(old.getByTestId('key-policy-summary')).toHaveText(`до ${soon.toLocaleDateString('ru-RU', { timeZone: 'Europe/Moscow' })}`)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/key-list-app-expired-${size.name}.png`, fullPage: true })
    consoleWatch.assertClean()
  })

  test(`the team's key policy at ${size.width}×${size.height}: the owner sets it, a member's key takes it, the member cannot loosen it`, async ({ page }) => {
    test.slow() // a second account through an invitation
    const consoleWatch = watchConsole(page)
    const narrow = size.width < 1024
    await page.setViewportSize(size)
    await signIn(page)
    const teamName = `Политика ${size.name} ${Date.now().toString(36)}`
    const created = await apiCall<Team>(page, 'POST', '/api/teams', { name: teamName })
    expect(created.status).toBe(201)
    const team = created.data

    // A member, through an invitation accepted by API.
    const memberEmail = uniqueEmail('key-policies-member')
    expect((await apiCall(page, 'POST', `/api/teams/${team.id}/invitations`, { email: memberEmail, role: 'member' })).status).toBe(201)
    const token = (await readOutboxLetter(memberEmail)).text.match(/\/invite\/([A-Za-z0-9_-]+)/)![1]
    const registered = await page.request.post('/api/auth/register', { data: { email: memberEmail, password: PASSWORD } })
    expect(registered.status()).toBe(201)
    const memberToken = (await registered.json()).data.accessToken as string
    expect((await page.request.post('/api/teams/invitations/accept', { headers: { Authorization: `Bearer ${memberToken}` }, data: { token } })).status()).toBe(200)

    // The owner sets the team's models and the defaults of new keys.
    await page.reload()
    await page.getByTestId('account-switcher').filter({ visible: true }).selectOption(team.id)
    await nav(page, narrow, 'Команда')
    const card = page.getByTestId('team-key-policy')
    await expect(card.getByRole('heading', { name: 'Политика ключей' })).toBeVisible()
    await expect(card.getByRole('button', { name: 'Сохранить' })).toBeDisabled()
    await card.getByLabel('Разрешённые модели команды').fill('openai/*, anthropic/*')
    await card.getByRole('button', { name: 'Добавить модель команды' }).click()
    const defaults = card.getByRole('group', { name: 'Новые ключи по умолчанию' })
    await defaults.getByLabel('Запросов в минуту').fill('30')
    await defaults.getByLabel('Разрешённые модели').fill('openai/*')
    await defaults.getByLabel('Срок действия новых ключей, дней').fill('30')
    const teamFit = card.getByRole('switch', { name: 'Ответ по средствам для всей команды' })
    await expect(teamFit).not.toBeChecked()
    await teamFit.click()
    await expect(teamFit).toBeChecked()
    await card.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await card.screenshot({ path: `${SHOTS}/team-key-policy-${size.name}.png` })
    await card.screenshot({ path: `${SHOTS}/fit-team-${size.name}.png` })
    await axeClean(page, 'team key policy')
    await card.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByText('Политика ключей сохранена')).toBeVisible()
    await expect(card.getByRole('button', { name: 'Сохранить' })).toBeDisabled()
    expect(await overflow(page)).toBeLessThanOrEqual(0)

    await page.reload()
    await expect(card.getByRole('button', { name: 'Убрать anthropic/*' })).toBeVisible()
    await expect(card.getByRole('group', { name: 'Новые ключи по умолчанию' }).getByLabel('Запросов в минуту')).toHaveValue('30')
    await expect(card.getByRole('group', { name: 'Новые ключи по умолчанию' }).getByLabel('Срок действия новых ключей, дней')).toHaveValue('30')
    await expect(card.getByRole('switch', { name: 'Ответ по средствам для всей команды' })).toBeChecked()
    const policy = (
      await apiGet<{ policy: { allowedModels: string[]; keyDefaults: { rpmLimit: number; expiresInDays: number }; fitToBalance: boolean } }>(page, `/api/teams/${team.id}`)
    ).policy
    expect(policy.allowedModels).toEqual(['openai/*', 'anthropic/*'])
    expect(policy.fitToBalance).toBe(true)
    expect(policy.keyDefaults).toMatchObject({ rpmLimit: 30, allowedModels: ['openai/*'], expiresInDays: 30 })

    // The member: the defaults are announced on the keys page and a new key takes them.
    await page.getByTestId('account-switcher').filter({ visible: true }).selectOption({ label: 'Личный аккаунт' })
    await page.evaluate(() => localStorage.clear())
    await loginViaUi(page, memberEmail, PASSWORD)
    await page.goto('/app/team')
    await page.getByTestId('teams-list').getByRole('listitem').filter({ hasText: teamName }).getByRole('button', { name: 'Перейти в команду' }).click()
    await expect(page.getByRole('heading', { level: 1, name: teamName })).toBeVisible()
    const readOnly = page.getByTestId('team-key-policy')
    await expect(readOnly.getByTestId('team-key-policy-value')).toContainText('openai/*, anthropic/*')
    await expect(readOnly.getByTestId('team-key-policy-value')).toContainText('30 запр/мин · модели: openai/* · срок 30 дней')
    await expect(readOnly.getByTestId('team-fit-to-balance-value')).toHaveText('включён для всех запросов команды')
    await expect(readOnly.getByRole('switch')).toHaveCount(0)
    await readOnly.screenshot({ path: `${SHOTS}/fit-team-readonly-${size.name}.png` })
    await expect(readOnly.getByRole('textbox')).toHaveCount(0)
    await expect(readOnly.getByRole('button')).toHaveCount(0)
    await axeClean(page, 'team key policy, read-only')

    await nav(page, narrow, 'API ключи')
    await expect(page.getByTestId('team-key-defaults-hint')).toContainText('30 запр/мин · модели: openai/* · срок 30 дней')
    await expect(page.getByTestId('team-key-defaults-hint')).toContainText('openai/*, anthropic/*')
    await page.getByLabel('Название ключа', { exact: true }).fill('Ключ участника')
    await page.getByRole('button', { name: 'Создать ключ' }).click()
    await page.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()
    const mine = row(page, 'Ключ участника')
    await expect(mine.getByTestId('key-policy-summary')).toContainText('30 запр/мин · модели: openai/* · до ')
    await page.screenshot({ path: `${SHOTS}/member-keys-${size.name}.png`, fullPage: true })
    expect(await overflow(page)).toBeLessThanOrEqual(0)

    // Loosening what the owner set is refused, in the dialog; tightening is allowed.
    await mine.getByRole('button', { name: 'Ограничения' }).click()
    const dialog = page.getByRole('dialog', { name: 'Ограничения ключа' })
    await expect(dialog.getByTestId('key-policy-lock')).toBeVisible()
    // the team's «по средствам» is said beside the key's own switch
    await expect(dialog.getByTestId('fit-to-balance')).toContainText('Команда уже включила ответ по средствам')
    await dialog.getByLabel('Запросов в минуту').fill('')
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(dialog.getByRole('alert')).toContainText('Недостаточно прав')
    await expect(dialog).toBeVisible()
    await page.screenshot({ path: `${SHOTS}/member-loosen-refused-${size.name}.png` })
    await axeClean(page, 'key policy dialog, refused')
    await dialog.getByLabel('Запросов в минуту').fill('10')
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(dialog).toHaveCount(0)
    await expect(mine.getByTestId('key-policy-summary')).toContainText('10 запр/мин')
    const teamKeys = await apiCall<ApiKey[]>(page, 'GET', '/api/auth/api-keys', undefined, team.id)
    expect(teamKeys.data.find((k) => k.name === 'Ключ участника')!.rpmLimit).toBe(10)
    consoleWatch.assertClean([/status of 403/, /401/])
  })
}
