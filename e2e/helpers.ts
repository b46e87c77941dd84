import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { type APIRequestContext, expect, type Page } from '@playwright/test'
import { signJwt } from '../src/test-support/server'

export const SHOTS = 'test-results/screens'
let n = 0
export const uniqueEmail = (tag = 'user') => `${tag}.${Date.now().toString(36)}.${++n}@e2e.ru`

/** Fails the test on any console error or uncaught page error. */
export function watchConsole(page: Page) {
  const problems: string[] = []
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()))
  page.on('pageerror', (e) => problems.push(e.message))
  return {
    /** 401s during a silent token renewal are expected network noise, not app errors. */
    assertClean: (allow: RegExp[] = []) => expect(problems.filter((p) => !allow.some((a) => a.test(p)))).toEqual([]),
  }
}

export async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })
}

/** The newest letter to `to` that the server wrote to DATA_DIR/outbox (no SMTP configured). */
export async function readOutboxLetter(to: string): Promise<{ subject: string; text: string }> {
  const dir = join(process.env.E2E_DATA_DIR!, 'outbox')
  for (let i = 0; i < 100; i++) {
    if (existsSync(dir)) {
      const letters = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .reverse()
        .map((f) => {
          // a letter the server is still writing reads as cut-off JSON: skip it this round
          try {
            return JSON.parse(readFileSync(join(dir, f), 'utf8'))
          } catch {
            return null
          }
        })
        .filter((l) => l?.to === to)
      if (letters[0]) return letters[0]
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`no letter for ${to} in ${dir}`)
}

/** An access token for `userId` that expired a minute ago, signed with the server's secret. */
export function expiredAccessToken(userId: string) {
  const now = Math.floor(Date.now() / 1000)
  return signJwt({ sub: userId, iat: now - 1000, exp: now - 60 }, process.env.E2E_JWT_SECRET)
}

export async function registerViaUi(page: Page, email: string, password: string) {
  await page.goto('/register')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Пароль', { exact: true }).fill(password)
  await page.getByLabel('Подтвердите пароль').fill(password)
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)
}

/** Spaces in ru-RU numbers are no-break spaces: compare texts with any space as one. */
export const spaced = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim()

/** The spec's price rule (under 0.01 → 6 decimals, under 1 → 4, else 2), as the pages format it. */
export function price(value: number): string {
  const abs = Math.abs(value)
  const digits = abs < 0.01 ? 6 : abs < 1 ? 4 : 2
  return `${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value)} ₽`
}

/** A balance or a total as the pages show it: two decimals (issue 29). */
export const rubles = (value: number): string => `${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)} ₽`

/** A JSON call with the signed-in session's access token, made from the page; answers `data`. */
export function apiGet<T>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (p) => {
    const response = await fetch(p, { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })
    const body = await response.json()
    return body.data ?? body
  }, path) as Promise<T>
}

export async function loginViaUi(page: Page, email: string, password: string) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Пароль').fill(password)
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/)
}

/**
 * One account per test file (registrations per address are limited): the first call registers
 * it, later calls sign in to it. Tests run in file order on one worker; after a failure the
 * worker restarts and registers afresh.
 */
export function fileAccount(tag: string, password: string) {
  let account: string | null = null
  return async (page: Page) => {
    if (account) return loginViaUi(page, account, password)
    const email = uniqueEmail(tag)
    await registerViaUi(page, email, password)
    account = email
  }
}

export const ADMIN_EMAIL = 'admin@e2e.ru' // ADMIN_EMAILS in playwright.config.ts
// accounts.e2e.ts registers the same account with this password; whichever spec runs first creates it.
export const ADMIN_PASSWORD = 'first-password-1'

/** A customer made through the API, with a session token to check what an admin did. */
export async function apiCustomer(request: APIRequestContext, tag: string, password: string) {
  const email = uniqueEmail(tag)
  const res = await request.post('/api/auth/register', { data: { email, password } })
  expect(res.status()).toBe(201)
  const { data } = await res.json()
  return { email, id: data.user.id as string, token: data.accessToken as string }
}

/** Signs the page in as the admin, registering the account first if no spec has yet. */
export async function signInAsAdmin(page: Page) {
  const res = await page.request.post('/api/auth/register', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  expect([201, 409]).toContain(res.status())
  await loginViaUi(page, ADMIN_EMAIL, ADMIN_PASSWORD)
}

/**
 * Spends the signed-in customer's balance below `below` ₽ on pictures through the API
 * (FLUX.2 [pro] × 4, about 14 ₽ a call, at most ten calls); answers what is left.
 */
export function spendBalanceBelow(page: Page, below: number): Promise<number> {
  return page.evaluate(async (limit) => {
    const auth = { Authorization: `Bearer ${localStorage.getItem('accessToken')}` }
    const balance = async () => (await (await fetch('/api/billing/balance', { headers: auth })).json()).data.balance as number
    for (let i = 0; i < 10 && (await balance()) >= limit; i++) {
      await fetch('/v1/images', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'black-forest-labs/flux.2-pro', prompt: 'Маяк', n: 4 }),
      })
    }
    return balance()
  }, below)
}

/** The server's estimate for a playground body, asked as the page asks (POST /api/playground/estimate). */
export function serverEstimate<T>(page: Page, body: unknown): Promise<T> {
  return page.evaluate(async (b) => {
    const response = await fetch('/api/playground/estimate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${localStorage.getItem('accessToken')}` },
      body: JSON.stringify(b),
    })
    return (await response.json()).data
  }, body) as Promise<T>
}

/** No serious or critical WCAG A/AA violation on what is on screen now. */
export async function axeClean(page: Page, label: string) {
  await page.evaluate(() => document.fonts.ready)
  await page.mouse.move(0, 0)
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(blocking.map((v) => `${label}: ${v.id} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/**
 * A server of a spec's own (settings the shared e2e server must not have), on a free loopback port
 * with a fresh DATA_DIR; `stop` ends it and removes its data.
 */
export async function startOwnServer(tag: string, env: Record<string, string>) {
  const port = await freePort()
  const baseURL = `http://127.0.0.1:${port}`
  const dataDir = mkdtempSync(join(tmpdir(), `gateway-e2e-${tag}-`))
  const proc = spawn('bun', ['src/index.ts'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: baseURL, DATA_DIR: dataDir, ...env },
    stdio: 'ignore',
  })
  const stop = async () => {
    proc.kill('SIGTERM')
    if (proc.exitCode === null) await new Promise((r) => proc.once('exit', r))
    rmSync(dataDir, { recursive: true, force: true })
  }
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`${baseURL}/api/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return { baseURL, dataDir, stop }
    await new Promise((r) => setTimeout(r, 100))
  }
  await stop()
  throw new Error(`the ${tag} server did not start`)
}
