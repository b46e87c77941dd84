// The status page (issue 26): the state now, the incidents the breakers recorded (two instances'
// rows about one outage merged), uptime per day as bars; at 1280×800 and 360×740, axe clean; the
// footer links to it; the admin sees each upstream's breaker on the dashboard.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { shoot, signInAsAdmin } from './helpers'

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const

const DAY = 86_400_000
const iso = (t: number) => new Date(t).toISOString()

/** Yesterday's outage seen by two instances, and a short one three weeks ago. */
function seedIncidents() {
  const yesterday = Date.now() - DAY
  const incidents = [
    { upstream: 'primary', startedAt: iso(yesterday), endedAt: iso(yesterday + 42 * 60_000), reason: 'HTTP 503', instance: 'e2e-a' },
    { upstream: 'primary', startedAt: iso(yesterday + 60_000), endedAt: iso(yesterday + 45 * 60_000), reason: 'нет соединения', instance: 'e2e-b' },
    { upstream: 'primary', startedAt: iso(Date.now() - 21 * DAY), endedAt: iso(Date.now() - 21 * DAY + 5 * 60_000), reason: 'HTTP 502' },
  ]
  execFileSync('bun', [fileURLToPath(new URL('./seed-incidents.ts', import.meta.url))], { input: JSON.stringify(incidents), env: process.env })
}

async function axeClean(page: Page, include?: string) {
  await page.evaluate(() => document.fonts.ready)
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
  if (include) builder = builder.include(include)
  const { violations } = await builder.analyze()
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

test.beforeAll(async ({ request }) => {
  seedIncidents()
  // /api/status is cached for a few seconds: wait for the seeded incidents to show.
  await expect
    .poll(async () => (await (await request.get('/api/status')).json()).data.incidents.length, { timeout: 15_000, intervals: [500, 1000, 2000] })
    .toBeGreaterThanOrEqual(2)
})

for (const size of SIZES) {
  test(`/status at ${size.width}×${size.height}: the state, merged incidents, daily bars; axe clean`, async ({ page }) => {
    await page.setViewportSize({ width: size.width, height: size.height })
    await page.goto('/')
    await page.getByTestId('site-footer').getByRole('link', { name: 'Состояние сервиса' }).click()
    await expect(page).toHaveURL(/\/status$/)
    await expect(page).toHaveTitle('Состояние сервиса — AI Gateway')
    await expect(page.getByRole('heading', { level: 1, name: 'Состояние сервиса' })).toBeVisible()
    await expect(page.getByTestId('status-banner')).toContainText('Все системы работают')
    const components = page.getByTestId('status-components')
    await expect(components).toContainText('API и сайт')
    await expect(components).toContainText('Основной провайдер моделей')
    await expect(components).toContainText('Платежи')
    await expect(page.getByTestId('status-bars').locator('span')).toHaveCount(90)
    // The two instances' rows about yesterday's outage are one incident, with both reasons.
    const merged = 'Основной провайдер моделей: HTTP 503, нет соединения'
    if (size.name === 'desktop') {
      const table = page.getByTestId('status-incidents')
      await expect(table.getByRole('row')).toHaveCount(3) // the head and two incidents
      await expect(table.getByRole('row').nth(1)).toContainText(merged)
      await expect(table.getByRole('row').nth(1)).toContainText('45 мин')
    } else await expect(page.getByTestId('status-incident-cards').getByRole('listitem').first()).toContainText(merged)
    await axeClean(page)
    await shoot(page, `status-${size.name}`)
  })
}

test('the admin dashboard shows each upstream’s breaker and its latest errors; axe clean', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await signInAsAdmin(page)
  await page.goto('/app/admin')
  const card = page.getByTestId('breaker-card')
  await expect(card).toContainText('Доступность провайдеров')
  await expect(card.getByTestId('breaker-primary')).toHaveAttribute('data-state', 'closed')
  await expect(card).toContainText('Принимает запросы')
  await expect(card).toContainText('демо-режим')
  await axeClean(page, '[data-testid="breaker-card"]')
  await card.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/screens/admin-breaker-desktop.png', clip: (await card.boundingBox())! })
  await page.setViewportSize({ width: 360, height: 740 })
  await expect(card).toBeVisible()
  await card.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/screens/admin-breaker-mobile.png', clip: (await card.boundingBox())! })
})
