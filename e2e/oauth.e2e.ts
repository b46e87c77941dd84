// «Войти через AI Gateway» (issue 36, OAuth PKCE) at 1280×800 and 360×740: an app sends a signed-out
// visitor to /auth/authorize; they sign in and come back to the approval page, which shows the app's
// origin; «Разрешить» with a monthly limit lands on callback_url?code=…, and the code with its verifier
// buys a key of theirs (listed on the keys page, with the limit); «Отклонить» lands on
// ?error=access_denied and makes nothing; a bad link shows why and offers no buttons. The app lives at
// https://app.example.ru, answered by the browser's request routing.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { type APIRequestContext, expect as baseExpect, type Page, test } from '@playwright/test'
import { docsDocument } from '../src/content/docs'
import { apiCustomer, axeClean, watchConsole } from './helpers'

const expect = baseExpect.configure({ timeout: 20_000 })
const SHOTS = '/tmp/shots'
mkdirSync(SHOTS, { recursive: true })

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const
const PASSWORD = 'oauth-spec-pass-1'
const APP = 'https://app.example.ru'
const CALLBACK = `${APP}/callback?state=st-7`

type Customer = Awaited<ReturnType<typeof apiCustomer>>
let customer: Customer

test.beforeAll(async ({ request }) => {
  customer = await apiCustomer(request, 'oauth', PASSWORD)
})

function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

const authorizePath = (callbackUrl: string, challenge: string, method = 'S256') =>
  `/auth/authorize?${new URLSearchParams({ callback_url: callbackUrl, code_challenge: challenge, code_challenge_method: method })}`

/** The app's pages: whatever the browser is sent to there gets a plain page back. */
async function serveApp(page: Page) {
  await page.route(`${APP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>App</title><p>Приложение</p>' }))
}

/** Opens the request signed out: the login page first, and back to the approval page after it. */
async function signInThrough(page: Page, path: string) {
  await page.goto(path)
  await expect(page).toHaveURL(/\/login\?next=/)
  await page.getByLabel('Email').fill(customer.email)
  await page.getByLabel('Пароль').fill(PASSWORD)
  await page.getByRole('button', { name: 'Войти' }).click()
  const asked = new URLSearchParams(path.slice(path.indexOf('?')))
  await expect(page).toHaveURL((url) => url.pathname === '/auth/authorize' && url.searchParams.toString() === asked.toString())
}

const keysOf = async (request: APIRequestContext) => {
  const res = await request.get('/api/auth/api-keys', { headers: { Authorization: `Bearer ${customer.token}` } })
  expect(res.status()).toBe(200)
  return (await res.json()).data as { id: string; name: string; appOrigin: string | null; budget: { limitRub: number | null; period: string } }[]
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

for (const size of SIZES) {
  test.describe(`${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } })

    test('a signed-out visitor signs in, sees the app, sets a limit and approves: callback_url?code=… and a key of theirs', async ({ page, request }) => {
      const consoleWatch = watchConsole(page)
      await serveApp(page)
      const { verifier, challenge } = pkce()
      const before = await keysOf(request)

      await signInThrough(page, authorizePath(CALLBACK, challenge))
      await expect(page.getByRole('heading', { name: 'Вход через AI Gateway' })).toBeVisible()
      await expect(page.getByText('запрашивает доступ к вашему аккаунту AI Gateway')).toBeVisible()
      await expect(page.getByTestId('app-origin')).toHaveText(APP)
      await expect(page.getByText('будет оплачивать запросы к моделям с вашего личного баланса')).toBeVisible()
      await expect(page.getByText(customer.email)).toBeVisible()
      const limit = page.getByLabel('Лимит в месяц, ₽')
      await expect(limit).toHaveAttribute('placeholder', 'Без лимита')
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.screenshot({ path: `${SHOTS}/oauth-approve-${size.name}.png`, fullPage: true })
      await axeClean(page, `approval page ${size.name}`)

      // A limit that is not a positive sum is said on the page, nothing leaves it.
      await limit.fill('0')
      await page.getByRole('button', { name: 'Разрешить' }).click()
      await expect(page.getByRole('alert')).toHaveText('Введите лимит больше нуля или оставьте поле пустым')
      await expect(limit).toHaveAttribute('aria-invalid', 'true')
      await page.screenshot({ path: `${SHOTS}/oauth-approve-error-${size.name}.png`, fullPage: true })

      await limit.fill('250')
      await page.getByRole('button', { name: 'Разрешить' }).click()
      await page.waitForURL((url) => url.origin === APP)
      const landed = new URL(page.url())
      expect(landed.pathname).toBe('/callback')
      expect(landed.searchParams.get('state')).toBe('st-7')
      const code = landed.searchParams.get('code')
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
      // Nothing is made until the app exchanges the code.
      expect(await keysOf(request)).toHaveLength(before.length)

      const exchanged = await request.post('/api/v1/auth/keys', { data: { code, code_verifier: verifier } })
      expect(exchanged.status()).toBe(200)
      const { key, user_id } = await exchanged.json()
      expect(user_id).toBe(customer.id)
      expect(key).toMatch(/^sk-gw-/)
      // Once only.
      const again = await request.post('/api/v1/auth/keys', { data: { code, code_verifier: verifier } })
      expect(again.status()).toBe(400)
      expect((await again.json()).error.code).toBe('code_already_used')

      const after = await keysOf(request)
      expect(after).toHaveLength(before.length + 1)
      const made = after.find((k) => !before.some((b) => b.id === k.id))!
      expect(made).toMatchObject({ name: APP, appOrigin: APP, budget: { limitRub: 250, period: 'month' } })
      const info = await request.get('/v1/key', { headers: { Authorization: `Bearer ${key}` } })
      expect(info.status()).toBe(200)
      expect((await info.json()).data).toMatchObject({ label: APP, limit: 250 })

      // The key is on the keys page under the app's name.
      await page.goto('/app/api-keys')
      await expect(page.getByText(APP).first()).toBeVisible()
      consoleWatch.assertClean()
    })

    test('«Отклонить»: callback_url?error=access_denied and no key', async ({ page, request }) => {
      const consoleWatch = watchConsole(page)
      await serveApp(page)
      const before = await keysOf(request)
      await signInThrough(page, authorizePath(CALLBACK, pkce().challenge))
      await expect(page.getByTestId('app-origin')).toHaveText(APP)
      await page.getByRole('button', { name: 'Отклонить' }).click()
      await page.waitForURL((url) => url.origin === APP)
      const landed = new URL(page.url())
      expect(landed.pathname).toBe('/callback')
      expect(landed.searchParams.get('state')).toBe('st-7')
      expect(landed.searchParams.get('error')).toBe('access_denied')
      expect(landed.searchParams.has('code')).toBe(false)
      expect(await keysOf(request)).toHaveLength(before.length)
      consoleWatch.assertClean()
    })

    test('a bad link says why and offers neither button', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await signInThrough(page, authorizePath('http://app.example.ru/callback', pkce().challenge))
      await expect(page.getByRole('heading', { name: 'Ссылка для входа недействительна' })).toBeVisible()
      await expect(page.getByText(/Некорректный callback_url/)).toBeVisible()
      await expect(page.getByRole('button', { name: 'Разрешить' })).toHaveCount(0)
      await expect(page.getByRole('button', { name: 'Отклонить' })).toHaveCount(0)
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.screenshot({ path: `${SHOTS}/oauth-invalid-${size.name}.png`, fullPage: true })

      // The plain method is refused the same way.
      await page.goto(authorizePath(CALLBACK, pkce().challenge, 'plain'))
      await expect(page.getByText(/метод plain не поддерживается/)).toBeVisible()
      await expect(page.getByRole('button', { name: 'Разрешить' })).toHaveCount(0)
      // The server's 400 is logged by the browser as a failed resource; the page itself reports nothing.
      consoleWatch.assertClean([/status of 400/])
    })
  })
}

test.describe('the docs', () => {
  for (const size of SIZES) {
    test(`«Войти через AI Gateway (OAuth PKCE)» on /docs at ${size.width}×${size.height}`, async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await page.setViewportSize(size)
      await page.goto('/docs#oauth-pkce')
      const section = page.locator('section#oauth-pkce')
      await expect(section.getByRole('heading', { name: 'Войти через AI Gateway (OAuth PKCE)' })).toBeVisible()
      await expect(section.getByText('/api/v1/auth/keys').first()).toBeVisible()
      await expect(section.getByText('code_challenge_method: ')).toBeVisible()
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await section.screenshot({ path: `${SHOTS}/oauth-docs-${size.name}.png` })
      consoleWatch.assertClean()
    })
  }

  test('the example runs as written: its challenge, the redirect, the exchange', async ({ page, baseURL, request }) => {
    const docs = docsDocument(baseURL!)
    const codes = docs.sections.find((s) => s.id === 'oauth-pkce')!.blocks.filter((b) => b.type === 'code')
    expect(codes).toHaveLength(2)
    const [start, finish] = codes.map((b) => (b.type === 'code' ? b.code : ''))
    // The app's /callback page, on this origin so that its sessionStorage holds the verifier.
    await page.route(`${baseURL}/callback**`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>App</title>' }))
    await page.goto('/login')
    await page.getByLabel('Email').fill(customer.email)
    await page.getByLabel('Пароль').fill(PASSWORD)
    await page.getByRole('button', { name: 'Войти' }).click()
    await expect(page).toHaveURL(/\/app\/dashboard$/)
    const before = await keysOf(request)

    // The first snippet leaves for the approval page (the evaluation may end with the page it ran in).
    await page.evaluate(`(async () => { ${start} })()`).catch(() => {})
    await expect(page).toHaveURL(/\/auth\/authorize\?/)
    await expect(page.getByTestId('app-origin')).toHaveText(baseURL!)
    await page.getByRole('button', { name: 'Разрешить' }).click()
    await page.waitForURL((url) => url.pathname === '/callback' && url.searchParams.has('code'))

    const got = (await page.evaluate(`(async () => { ${finish}\nreturn { key, user_id } })()`)) as { key: string; user_id: string }
    expect(got.user_id).toBe(customer.id)
    expect(got.key).toMatch(/^sk-gw-/)
    const after = await keysOf(request)
    expect(after).toHaveLength(before.length + 1)
    expect(after.find((k) => !before.some((b) => b.id === k.id))).toMatchObject({ name: baseURL, appOrigin: baseURL, budget: { limitRub: null } })
  })
})
