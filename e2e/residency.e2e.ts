// «Данные остаются в России» (issue 35), at 1280×800 and 360×740: the catalogues' filter «Только с
// хранением данных в РФ» and the badge (the e2e server lists sber/gigachat-2-max from a Russian
// upstream, e2e/upstreams.json); an API key made «Только в РФ» wears its mark and says so to the
// API, and can be changed back; the team owner binds the team to Russia and it stays after a reload,
// a plain member sees it read-only; the admin sees every upstream with its protocol and residency.
import { mkdirSync } from 'node:fs'
import { expect as baseExpect, type Page, test } from '@playwright/test'
import { apiGet, axeClean, fileAccount, loginViaUi, readOutboxLetter, signInAsAdmin, uniqueEmail, watchConsole } from './helpers'

// The machine that runs these is shared and busy: the lazy chunks and /v1/models may take a while.
const expect = baseExpect.configure({ timeout: 20_000 })
const SHOTS = '/tmp/shots'
mkdirSync(SHOTS, { recursive: true })

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const
const PASSWORD = 'residency-spec-pass-1'
const RU_MODEL = 'sber/gigachat-2-max'
const FILTER = 'Только с хранением данных в РФ'
const BADGE = 'Данные остаются в России'

type ApiModel = { id: string; data_residency: ('ru' | 'foreign')[] }
type ApiKey = { id: string; name: string; residency: 'any' | 'ru' }
type Team = { id: string; name: string; residency: 'any' | 'ru' }

const signIn = fileAccount('residency', PASSWORD)
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
const card = (page: Page, id: string) => page.locator(`[data-testid=model-card][data-model-id="${id}"]`)

/** On a phone the sidebar is a drawer: open it before following a link in it. */
async function nav(page: Page, narrow: boolean, name: string) {
  if (narrow) await page.getByRole('button', { name: 'Открыть меню' }).click()
  await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name, exact: true }).click()
}

/** A JSON call with the page's session (and team, when given), answering `data`. */
function apiCall<T>(page: Page, method: string, path: string, body?: unknown, teamId?: string): Promise<{ status: number; data: T }> {
  return page.evaluate(
    async ({ method, path, body, teamId }) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' }
      if (teamId) headers['X-Team-Id'] = teamId
      const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      return { status: response.status, data: (await response.json()).data }
    },
    { method, path, body, teamId },
  ) as Promise<{ status: number; data: T }>
}

test.describe('the catalogues', () => {
  let foreignOnly: string
  test.beforeAll(async ({ request }) => {
    const models = (await (await request.get('/v1/models')).json()).data as ApiModel[]
    expect(models.find((m) => m.id === RU_MODEL)?.data_residency).toEqual(['ru'])
    foreignOnly = models.find((m) => m.id === 'openai/gpt-4o' && !m.data_residency.includes('ru'))!.id
  })

  for (const size of SIZES) {
    test(`/models and /app/models at ${size.width}×${size.height}: «${FILTER}» keeps the Russian model, the badge explains`, async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await page.setViewportSize(size)

      // The public catalogue: the badge is on the Russian model only.
      await page.goto('/models')
      await expect(card(page, RU_MODEL)).toBeVisible()
      const badge = card(page, RU_MODEL).getByTestId('ru-data-badge')
      await expect(badge).toHaveText(BADGE)
      await expect(badge).toHaveAttribute('title', /Все провайдеры этой модели хранят и обрабатывают данные в России/)
      await expect(card(page, foreignOnly).getByTestId('ru-data-badge')).toHaveCount(0)

      const filter = page.getByRole('checkbox', { name: new RegExp(FILTER) })
      await filter.check()
      await expect(page).toHaveURL(/[?&]ru=1/)
      await expect(card(page, RU_MODEL)).toBeVisible()
      await expect(card(page, foreignOnly)).toHaveCount(0)
      // every card left wears the badge
      const cards = page.getByTestId('model-card')
      await expect(cards).toHaveCount(await page.getByTestId('ru-data-badge').count())
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.screenshot({ path: `${SHOTS}/public-catalogue-ru-${size.name}.png`, fullPage: true })
      await axeClean(page, 'public catalogue, filter on')

      // the filter survives a reload, as the others do
      await page.reload()
      await expect(page.getByRole('checkbox', { name: new RegExp(FILTER) })).toBeChecked()
      await expect(card(page, foreignOnly)).toHaveCount(0)

      // The model's page says it too.
      await card(page, RU_MODEL).click()
      await expect(page).toHaveURL(/\/models\/sber\/gigachat-2-max$/)
      await expect(page.getByTestId('model-page').getByTestId('ru-data-badge')).toHaveText(BADGE)
      await expect(page.getByTestId('ru-data-note')).toHaveText('Все провайдеры этой модели хранят и обрабатывают данные в России.')
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.screenshot({ path: `${SHOTS}/model-page-ru-${size.name}.png`, fullPage: true })

      // The signed-in catalogue.
      await signIn(page)
      await page.goto('/app/models')
      await expect(card(page, foreignOnly)).toBeVisible()
      await expect(card(page, RU_MODEL).getByTestId('ru-data-badge')).toBeVisible()
      await page.getByRole('checkbox', { name: new RegExp(FILTER) }).check()
      await expect(page).toHaveURL(/\/app\/models\?(.*&)?ru=1/)
      await expect(card(page, RU_MODEL)).toBeVisible()
      await expect(card(page, foreignOnly)).toHaveCount(0)
      await expect(page.getByTestId('models-count')).toContainText(String(await page.getByTestId('model-card').count()))
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.screenshot({ path: `${SHOTS}/app-catalogue-ru-${size.name}.png`, fullPage: true })
      await axeClean(page, 'app catalogue, filter on')
      await page.reload()
      await expect(page.getByRole('checkbox', { name: new RegExp(FILTER) })).toBeChecked()
      await expect(card(page, foreignOnly)).toHaveCount(0)
      // «Сбросить фильтры» takes it off
      await page.getByRole('button', { name: 'Сбросить фильтры' }).click()
      await expect(page.getByRole('checkbox', { name: new RegExp(FILTER) })).not.toBeChecked()
      await expect(card(page, foreignOnly)).toBeVisible()
      consoleWatch.assertClean([/401/])
    })
  }
})

for (const size of SIZES) {
  test(`a «Только в РФ» key at ${size.width}×${size.height}: created with it, marked, told to the API, changed back`, async ({ page }) => {
    const consoleWatch = watchConsole(page)
    const narrow = size.width < 1024
    await page.setViewportSize(size)
    await signIn(page)
    await nav(page, narrow, 'API ключи')
    await expect(page).toHaveURL(/\/app\/api-keys$/)

    const name = `Хранилище ${size.name} ${Date.now().toString(36)}`
    await page.getByLabel('Название ключа', { exact: true }).fill(name)
    const residency = page.getByLabel('Хранение данных', { exact: true })
    await expect(residency).toHaveValue('any')
    await expect(residency.locator('option')).toHaveText(['Любые провайдеры', 'Только в РФ (152-ФЗ)'])
    await residency.selectOption({ label: 'Только в РФ (152-ФЗ)' })
    await expect(page.getByTestId('key-residency-hint')).toContainText('только к провайдерам, которые хранят и обрабатывают данные в России')
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/key-create-ru-${size.name}.png`, fullPage: true })
    await axeClean(page, 'key form')
    await page.getByRole('button', { name: 'Создать ключ' }).click()
    await expect(page.getByRole('region', { name: 'Ваш новый API ключ' })).toBeVisible()
    const secret = (await page.getByTestId('new-api-key').textContent())!.trim()
    await page.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()

    const row = page.getByTestId('api-key-row').filter({ hasText: name })
    await expect(row.getByTestId('ru-only-badge')).toHaveText('Только РФ')
    const keys = await apiGet<ApiKey[]>(page, '/api/auth/api-keys')
    const made = keys.find((k) => k.name === name)!
    expect(made.residency).toBe('ru')
    // the key's own /v1/models lists only models with a Russian provider
    const listed = (await (await page.request.get('/v1/models', { headers: { Authorization: `Bearer ${secret}` } })).json()).data as ApiModel[]
    expect(listed.map((m) => m.id)).toContain(RU_MODEL)
    expect(listed.every((m) => m.data_residency.includes('ru'))).toBe(true)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/key-list-ru-${size.name}.png`, fullPage: true })

    // Edit it: the dialog shows the current choice; «Любые провайдеры» takes the mark off.
    await row.getByRole('button', { name: 'Хранение данных' }).click()
    const dialog = page.getByRole('dialog', { name: 'Хранение данных' })
    await expect(dialog.getByRole('radio', { name: 'Только в РФ (152-ФЗ)' })).toBeChecked()
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: `${SHOTS}/key-dialog-${size.name}.png` })
    await axeClean(page, 'key residency dialog')
    await dialog.getByRole('radio', { name: 'Любые провайдеры' }).check()
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(dialog).toHaveCount(0)
    await expect(page.getByText('Ключ работает с любыми провайдерами')).toBeVisible()
    await expect(row.getByTestId('ru-only-badge')).toHaveCount(0)
    expect((await apiGet<ApiKey[]>(page, '/api/auth/api-keys')).find((k) => k.id === made.id)!.residency).toBe('any')

    // …and back again, and after a reload the mark is still there.
    await row.getByRole('button', { name: 'Хранение данных' }).click()
    await dialog.getByRole('radio', { name: 'Только в РФ (152-ФЗ)' }).check()
    await dialog.getByRole('button', { name: 'Сохранить' }).click()
    await expect(row.getByTestId('ru-only-badge')).toBeVisible()
    await page.reload()
    await expect(page.getByTestId('api-key-row').filter({ hasText: name }).getByTestId('ru-only-badge')).toBeVisible()
    expect((await apiGet<ApiKey[]>(page, '/api/auth/api-keys')).find((k) => k.id === made.id)!.residency).toBe('ru')

    // A wrong value from elsewhere is the server's to refuse, in Russian.
    const bad = await apiCall<unknown>(page, 'PATCH', `/api/auth/api-keys/${made.id}`, { residency: 'eu' })
    expect(bad.status).toBe(400)
    consoleWatch.assertClean([/status of 400/])
  })
}

for (const size of SIZES) {
  test(`the team owner keeps the team's data in Russia at ${size.width}×${size.height}; a member sees it read-only`, async ({ page }) => {
    test.slow() // a second account through an invitation
    const consoleWatch = watchConsole(page)
    const narrow = size.width < 1024
    await page.setViewportSize(size)
    await signIn(page)
    const teamName = `Данные ${size.name} ${Date.now().toString(36)}`
    const created = await apiCall<Team>(page, 'POST', '/api/teams', { name: teamName })
    expect(created.status).toBe(201)
    const team = created.data
    expect(team.residency).toBe('any')

    // A member, through an invitation accepted by API.
    const memberEmail = uniqueEmail('residency-member')
    expect((await apiCall(page, 'POST', `/api/teams/${team.id}/invitations`, { email: memberEmail, role: 'member' })).status).toBe(201)
    const token = (await readOutboxLetter(memberEmail)).text.match(/\/invite\/([A-Za-z0-9_-]+)/)![1]
    const registered = await page.request.post('/api/auth/register', { data: { email: memberEmail, password: PASSWORD } })
    expect(registered.status()).toBe(201)
    const memberToken = (await registered.json()).data.accessToken as string
    const accepted = await page.request.post('/api/teams/invitations/accept', { headers: { Authorization: `Bearer ${memberToken}` }, data: { token } })
    expect(accepted.status()).toBe(200)

    // The owner switches to the team and opens its page.
    await page.reload()
    await page.getByTestId('account-switcher').filter({ visible: true }).selectOption(team.id)
    await nav(page, narrow, 'Команда')
    await expect(page.getByRole('heading', { level: 1, name: teamName })).toBeVisible()
    const section = page.getByTestId('team-residency')
    await expect(section.getByRole('heading', { name: 'Хранение данных команды' })).toBeVisible()
    await expect(section).toContainText('Действует для всех ключей команды и для Playground в контексте команды')
    await expect(section.getByRole('radio', { name: 'Любые провайдеры' })).toBeChecked()
    await expect(section.getByRole('button', { name: 'Сохранить' })).toBeDisabled()
    await section.getByRole('radio', { name: 'Только в РФ (152-ФЗ)' }).check()
    await section.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByText('Запросы команды идут только к провайдерам в РФ')).toBeVisible()
    await expect(section.getByTestId('ru-only-badge')).toBeVisible()
    expect((await apiGet<Team[]>(page, '/api/teams')).find((t) => t.id === team.id)!.residency).toBe('ru')
    expect(await overflow(page)).toBeLessThanOrEqual(0)

    await page.reload()
    await expect(section.getByRole('radio', { name: 'Только в РФ (152-ФЗ)' })).toBeChecked()
    await expect(section.getByRole('button', { name: 'Сохранить' })).toBeDisabled()
    await section.evaluate((el) => el.scrollIntoView({ block: 'center' }))
    await section.screenshot({ path: `${SHOTS}/team-residency-${size.name}.png` })
    await axeClean(page, 'team residency')
    // The team's log says who changed it, from what to what.
    await page.goto('/app/team/audit')
    const entry = page.getByText('Хранение данных команды изменено').filter({ visible: true }).first()
    await expect(entry).toBeVisible()
    await expect(page.getByText('Любые провайдеры → Только в РФ (152-ФЗ)').filter({ visible: true }).first()).toBeVisible()
    // the team's keys wear the mark: the team binds them whatever the key says
    await nav(page, narrow, 'API ключи')
    await page.getByLabel('Название ключа', { exact: true }).fill('Ключ команды')
    await expect(page.getByTestId('key-residency-hint')).toContainText('Команда разрешает только провайдеров в России')
    await page.getByRole('button', { name: 'Создать ключ' }).click()
    await page.getByRole('button', { name: 'Понятно, я сохранил ключ' }).click()
    await expect(page.getByTestId('api-key-row').filter({ hasText: 'Ключ команды' }).getByTestId('ru-only-badge')).toBeVisible()

    // The member sees the setting, not the controls.
    await page.getByTestId('account-switcher').filter({ visible: true }).selectOption({ label: 'Личный аккаунт' })
    await page.evaluate(() => localStorage.clear())
    await loginViaUi(page, memberEmail, PASSWORD)
    // from the team list rather than the dashboard (whose money panels a member may not read)
    await page.goto('/app/team')
    await page.getByTestId('teams-list').getByRole('listitem').filter({ hasText: teamName }).getByRole('button', { name: 'Перейти в команду' }).click()
    await expect(page.getByRole('heading', { level: 1, name: teamName })).toBeVisible()
    const readOnly = page.getByTestId('team-residency')
    await expect(readOnly.getByTestId('team-residency-value')).toContainText('Сейчас: Только в РФ (152-ФЗ)')
    await expect(readOnly.getByRole('radio')).toHaveCount(0)
    await expect(readOnly.getByRole('button', { name: 'Сохранить' })).toHaveCount(0)
    await axeClean(page, 'team residency, read-only')
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    consoleWatch.assertClean([/401/])
  })
}

for (const size of SIZES) {
  test(`the admin sees every upstream with its protocol and residency at ${size.width}×${size.height}`, async ({ page }) => {
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(size)
    await signInAsAdmin(page)
    // One answered request this month, so the split below has a row of the router's.
    await page.evaluate(async () => {
      await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'Привет' }] }),
      })
    })
    await page.goto('/app/admin')
    const card = page.getByTestId('breaker-card')
    await expect(card.getByTestId('upstreams-summary')).toHaveText('2 провайдера, в России — 1')

    const primary = card.getByTestId('breaker-primary')
    await expect(primary).toHaveAttribute('data-state', 'closed')
    await expect(primary.getByTestId('upstream-kind')).toHaveText('OpenRouter-совместимый роутер')
    await expect(primary.getByTestId('upstream-residency')).toHaveText('За рубежом')
    await expect(primary.getByTestId('upstream-models')).toHaveText('весь каталог')

    const ru = card.getByTestId('breaker-ruagg')
    await expect(ru).toContainText('ruagg')
    await expect(ru).toContainText('127.0.0.1:9')
    await expect(ru.getByTestId('upstream-kind')).toHaveText('OpenAI-совместимый')
    await expect(ru.getByTestId('upstream-residency')).toHaveText('Россия')
    await expect(ru.getByTestId('upstream-models')).toHaveText('1')
    await expect(ru).toContainText('Принимает запросы')
    await expect(ru.getByTestId('upstream-token')).toHaveCount(0) // only GigaChat has one
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await card.evaluate((el) => el.scrollIntoView({ block: 'center' }))
    await card.screenshot({ path: `${SHOTS}/admin-upstreams-${size.name}.png` })
    await axeClean(page, 'admin upstreams')
    // This month's money per upstream, under the all-time totals: each upstream's row, or the empty state.
    const split = page.getByTestId('finance-by-upstream')
    await expect(split.getByRole('heading', { name: 'Провайдеры в этом месяце' })).toBeVisible()
    const router = split.getByTestId('finance-upstream-primary')
    await expect(router).toContainText('Основной провайдер моделей')
    await expect(router).toContainText(/\d+ запрос/)
    await expect(router).toContainText('выручка')
    await split.scrollIntoViewIfNeeded()
    await split.screenshot({ path: `${SHOTS}/admin-split-${size.name}.png` })
    consoleWatch.assertClean()
  })
}
