// The Content-Security-Policy in Chromium: the landing, the docs, the signed-in app and the API
// reference at /api/docs render under their policies with nothing refused, and load nothing from
// another origin (the API reference used to come from a CDN).
import { expect, type Page, test } from '@playwright/test'
import { registerViaUi, SHOTS, uniqueEmail, watchConsole } from './helpers'

declare global {
  interface Window {
    __csp: string[]
  }
}

/**
 * Records every CSP violation (the page's own securitypolicyviolation events, and Chromium's
 * console reports), every console error and every request that leaves the origin.
 */
function watchPolicy(page: Page, origin: string) {
  const console: string[] = []
  const external: string[] = []
  page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && console.push(m.text()))
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== origin) external.push(r.url())
  })
  return {
    async assertClean(where: string) {
      const events = await page.evaluate(() => window.__csp)
      expect(events, `${where}: securitypolicyviolation events`).toEqual([])
      expect(console, `${where}: console reports`).toEqual([])
      expect(external, `${where}: requests to other origins`).toEqual([])
    },
  }
}

// Many pages per test, and the API reference parses a 4 MB bundle: more time than the default.
test.describe.configure({ timeout: 180_000 })

test.beforeEach(async ({ page }) => {
  // Injected by the browser itself, so the page's own CSP does not apply to this script.
  await page.addInitScript(() => {
    window.__csp = []
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`))
  })
})

/** A screenshot in test-results/screens, and in SECURITY_SHOTS_DIR when set (test-results/ is shared with other runs). */
async function shot(page: Page, name: string, fullPage = true) {
  for (const dir of [SHOTS, process.env.SECURITY_SHOTS_DIR]) if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage })
}

async function policyOf(page: Page, path: string) {
  const res = await page.request.get(path)
  return res.headers()['content-security-policy'] ?? ''
}

test('the public pages render under their CSP with nothing refused', async ({ page, baseURL }) => {
  const consoleWatch = watchConsole(page)
  const policy = watchPolicy(page, new URL(baseURL!).origin)
  expect(await policyOf(page, '/')).toContain("script-src 'self'")

  await page.goto('/')
  await expect(page.getByRole('heading', { level: 1, name: 'Доступ к 300+ AI-моделям в рублях' })).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('showcase-models').getByRole('listitem')).toHaveCount(9)
  await page.waitForLoadState('networkidle')
  await policy.assertClean('/')
  await shot(page, 'security-landing')

  for (const [path, heading] of [
    ['/docs', 'Документация'],
    ['/blog', 'Статьи о новых AI-моделях'],
    ['/login', 'Вход в аккаунт'],
  ] as const) {
    await page.goto(path)
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible({ timeout: 20_000 })
    await page.waitForLoadState('networkidle')
    await policy.assertClean(path)
  }
  consoleWatch.assertClean()
})

test('the signed-in app renders under the CSP: dashboard, playground, models, keys, billing, usage, docs', async ({ page, baseURL }) => {
  const consoleWatch = watchConsole(page)
  const policy = watchPolicy(page, new URL(baseURL!).origin)
  await registerViaUi(page, uniqueEmail('csp'), 'csp-pass-12345')
  expect(await policyOf(page, '/app/dashboard')).toContain("style-src 'self'")

  await page.goto('/app/dashboard')
  await expect(page.getByRole('heading', { level: 1, name: 'Дашборд' })).toBeVisible({ timeout: 20_000 })
  await page.waitForLoadState('networkidle')
  await policy.assertClean('/app/dashboard')
  await shot(page, 'security-dashboard')

  for (const path of ['/app/playground', '/app/models', '/app/api-keys', '/app/billing', '/app/usage', '/app/docs']) {
    await page.goto(path)
    await expect(page.getByRole('main').getByRole('heading', { level: 1 }).first()).toBeVisible({ timeout: 20_000 })
    await page.waitForLoadState('networkidle')
    await policy.assertClean(path)
  }
  // a silent token renewal may answer 401 (network noise, not an app error)
  consoleWatch.assertClean([/401/])
})

test('the API reference at /api/docs comes from our origin and renders the API under its CSP', async ({ page, baseURL }) => {
  const consoleWatch = watchConsole(page)
  const origin = new URL(baseURL!).origin
  const policy = watchPolicy(page, origin)
  const scripts: string[] = []
  page.on('response', (r) => r.request().resourceType() === 'script' && scripts.push(r.url()))

  expect(await policyOf(page, '/api/docs')).toContain("script-src 'self'")
  await page.goto('/api/docs')
  await expect(page.getByRole('heading', { name: 'AI Gateway API' })).toBeVisible({ timeout: 20_000 })
  await expect(page.getByText('Аккаунты, баланс и OpenAI-совместимый шлюз.', { exact: false })).toBeVisible()
  await page.waitForLoadState('networkidle')

  expect(scripts).toHaveLength(1)
  expect(scripts[0]).toMatch(new RegExp(`^${origin}/api/docs/assets/scalar-[\\d.]+-[a-z0-9]+\\.js$`))

  // open the chat completions operation from the sidebar: it renders its own section
  await page.getByText('OpenAI-совместимый API', { exact: true }).first().click()
  await page
    .getByRole('link', { name: /^Чат-комплишн/ })
    .first()
    .click()
  await expect(page.getByRole('heading', { name: /^Чат-комплишн/ }).first()).toBeVisible({ timeout: 20_000 })
  await policy.assertClean('/api/docs')
  await shot(page, 'security-api-docs-operation', false)
  await page.goto('/api/docs')
  await expect(page.getByRole('heading', { name: 'AI Gateway API' })).toBeVisible({ timeout: 20_000 })
  await shot(page, 'security-api-docs', false)
  consoleWatch.assertClean()
})
