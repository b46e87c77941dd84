// Issue 29, point 2: the activity log at 1280×800 and 360×740 — 100 requests paged through with
// «Показать ещё», a row's detail panel whose charge equals its ledger row, the filters, axe.
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { apiCustomer, loginViaUi, SHOTS, spaced, watchConsole } from './helpers'

const PASSWORD = 'activity-spec-pass-1'
const SIZES = [
  { width: 1280, height: 800 },
  { width: 360, height: 740 },
] as const

/** The exact rubles of a ledger amount as the panel writes them ('0,000123 ₽'). */
const exact = (rub: number) => `${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(rub)} ₽`

/** No serious or critical axe violation (WCAG 2.0/2.1 A and AA, as e2e/a11y.e2e.ts checks). */
async function axeClean(page: Page, include?: string) {
  await page.mouse.move(0, 0)
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
  if (include) builder = builder.include(include)
  const { violations } = await builder.analyze()
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

let account: { email: string; token: string } | null = null

/** One customer with 100 requests: 99 in parallel batches, then one more with another model (the newest). */
async function customerWithRequests(page: Page) {
  if (account) return account
  const c = await apiCustomer(page.request, 'activity', PASSWORD)
  const key = await page.request.post('/api/auth/api-keys', { headers: { Authorization: `Bearer ${c.token}` }, data: { name: 'журнал' } })
  expect(key.status()).toBe(201)
  const secret = (await key.json()).data.key as string
  const ask = async (model: string, n: number) => {
    const res = await page.request.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer ${secret}` },
      data: { model, messages: [{ role: 'user', content: `Запрос ${n}` }], max_tokens: 20 },
    })
    expect(res.status()).toBe(200)
  }
  for (let b = 0; b < 9; b++) await Promise.all(Array.from({ length: 11 }, (_, i) => ask('openai/gpt-3.5-turbo', b * 11 + i)))
  await ask('anthropic/claude-3-haiku', 100)
  account = { email: c.email, token: c.token }
  return account
}

for (const size of SIZES) {
  test(`activity log ${size.width}×${size.height}: 100 requests paged, the detail's charge is its ledger row, filters, axe`, async ({ page }) => {
    test.slow() // 100 requests, two pages and two axe passes: more than a minute on a busy machine
    const consoleWatch = watchConsole(page)
    await page.setViewportSize(size)
    const c = await customerWithRequests(page)
    await loginViaUi(page, c.email, PASSWORD)

    // The sidebar's link (on a phone inside the menu).
    if (size.width < 1024) await page.getByRole('button', { name: 'Открыть меню' }).click()
    await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Журнал запросов' }).click()
    await expect(page).toHaveURL(/\/app\/activity$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Журнал запросов' })).toBeVisible()

    const rows = page.getByTestId('activity-row')
    await expect(rows).toHaveCount(50)
    await expect(rows.first()).toContainText('anthropic/claude-3-haiku')
    await page.getByRole('button', { name: 'Показать ещё' }).click()
    await expect(rows).toHaveCount(100)
    await expect(page.getByRole('button', { name: 'Показать ещё' })).toHaveCount(0)
    const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))
    expect(new Set(ids).size).toBe(100)
    await expect(page.getByTestId('activity-count')).toHaveText('Показано: 100')
    await page.screenshot({ path: `${SHOTS}/activity-list-${size.width}.png` }) // the viewport: 100 rows are a very long page
    await axeClean(page)

    // The newest request's panel: its charge and its ledger operation are the newest usage row of the history.
    await rows.first().getByRole('button').first().click()
    const panel = page.getByRole('dialog', { name: 'Запрос' })
    await expect(panel).toBeVisible()
    await expect(panel.getByTestId('activity-cost')).not.toHaveText('—')
    const history = await page.request.get('/api/billing/transactions?limit=5', { headers: { Authorization: `Bearer ${c.token}` } })
    const ledger = ((await history.json()).data as Array<{ type: string; amount: string }>).find((t) => t.type === 'usage')!
    const charged = -Number(ledger.amount)
    expect(charged).toBeGreaterThan(0)
    expect(spaced(await panel.getByTestId('activity-cost').textContent())).toBe(spaced(exact(charged)))
    expect(spaced(await panel.getByTestId('activity-ledger').textContent())).toBe(spaced(`\u2212${exact(charged)}`))
    await expect(panel).toContainText('anthropic/claude-3-haiku')
    await expect(panel).toContainText('Chat Completions')
    await expect(panel.getByTestId('activity-request-id')).toContainText(/req_/)
    await expect(panel.getByTestId('activity-formula')).toHaveText(/^\$[\d.]+ × [\d.]+ ₽\/\$ × [\d.]+ = [\d\s,]+ ₽$/)
    await page.screenshot({ path: `${SHOTS}/activity-detail-${size.width}.png` })
    await axeClean(page, 'dialog[open]')
    await page.keyboard.press('Escape')
    await expect(panel).toBeHidden()

    // A filter narrows the list to the one claude request; the CSV downloads the filtered set.
    await page.getByLabel('Модель').selectOption('anthropic/claude-3-haiku')
    await expect(rows).toHaveCount(1)
    await page.screenshot({ path: `${SHOTS}/activity-filtered-${size.width}.png`, fullPage: true })
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Скачать CSV' }).click()
    const file = await download
    expect(file.suggestedFilename()).toMatch(/^activity-\d{4}-\d{2}-\d{2}\.csv$/)
    const csv = await (await file.createReadStream()).toArray()
    const lines = Buffer.concat(csv).toString('utf8').trim().split('\r\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain('anthropic/claude-3-haiku')
    await page.getByRole('button', { name: 'Сбросить фильтры' }).click()
    await expect(rows).toHaveCount(50)
    consoleWatch.assertClean()
  })
}

test("in a team at 1280×800: the whole team's requests with their member, the member filter, the detail", async ({ page }) => {
  const consoleWatch = watchConsole(page)
  await page.setViewportSize(SIZES[0])
  const owner = await apiCustomer(page.request, 'activity-team', PASSWORD)
  const auth = { Authorization: `Bearer ${owner.token}` }
  const team = (await (await page.request.post('/api/teams', { headers: auth, data: { name: 'Журнал команды' } })).json()).data as { id: string }
  const inTeam = { ...auth, 'X-Team-Id': team.id }
  // A card top-up of the team through the built-in test payment page.
  const payment = (await (await page.request.post('/api/payments/create', { headers: inTeam, data: { amount: 100 } })).json()).data
  expect((await page.request.post(`/api/payments/test/${new URL(payment.confirmationUrl).pathname.split('/').pop()}/pay`)).status()).toBe(200)
  const key = (await (await page.request.post('/api/auth/api-keys', { headers: inTeam, data: { name: 'командный' } })).json()).data.key as string
  for (let i = 0; i < 3; i++) {
    const res = await page.request.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer ${key}` },
      data: { model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: `Команда ${i}` }], max_tokens: 20 },
    })
    expect(res.status()).toBe(200)
  }

  await loginViaUi(page, owner.email, PASSWORD)
  await page.getByTestId('account-switcher').filter({ visible: true }).selectOption({ label: 'Журнал команды · Владелец' })
  await page.getByRole('navigation', { name: 'Основное меню' }).getByRole('link', { name: 'Журнал запросов' }).click()
  await expect(page.getByText('Запросы всех участников команды «Журнал команды».')).toBeVisible()
  const rows = page.getByTestId('activity-row')
  await expect(rows).toHaveCount(3)
  await expect(page.getByRole('columnheader', { name: 'Ключ · участник' })).toBeVisible()
  await expect(rows.first()).toContainText(owner.email)
  await expect(page.getByLabel('Участник')).toBeVisible()
  await rows.first().getByRole('button').first().click()
  const panel = page.getByRole('dialog', { name: 'Запрос' })
  await expect(panel).toContainText(`Участник${owner.email}`)
  await expect(panel.getByTestId('activity-ledger')).toContainText('−')
  await page.screenshot({ path: `${SHOTS}/activity-team-1280.png` })
  consoleWatch.assertClean()
})
