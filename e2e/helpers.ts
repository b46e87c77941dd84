import { expect, type Page } from '@playwright/test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
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
        .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
        .filter((l) => l.to === to)
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
