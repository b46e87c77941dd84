// Issue 17, point 9: axe-core (WCAG 2.0/2.1 A and AA) on every page of the site and the app, as a
// visitor, a customer and an admin, at 1280×800 and 360×740 (menus opened where there is one).
// A page passes with no violation of impact serious or critical; a failure lists every one found
// in the test, page by page, so a single run shows all that is left to fix.

import { appendFileSync, mkdirSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { seedPosts } from './blog-seed'
import { shoot, uniqueEmail } from './helpers'

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const
type Size = (typeof SIZES)[number]

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const BLOCKING = new Set(['serious', 'critical'])
const PASSWORD = 'a11y-spec-pass-1'
// admin.e2e.ts and accounts.e2e.ts register the same admin with this password; whoever runs first creates it.
const ADMIN_EMAIL = 'admin@e2e.ru'
const ADMIN_PASSWORD = 'first-password-1'
const ARTICLE_SLUG = 'e2e-a11y-article'
const LOG = 'test-results/a11y-findings.txt'

interface Finding {
  page: string
  id: string
  impact: string
  help: string
  targets: string[]
  summary: string
}

/** Collects the serious/critical violations of every page a test visits; `assertNone` fails with all of them. */
function auditor(page: Page, size: Size) {
  const findings: Finding[] = []
  const checked: string[] = []
  return {
    /** Runs axe on what is on screen now (or inside `include` only), labelled `label`. */
    async check(label: string, include?: string) {
      // Fonts and lazy chunks settled, so colours and layout are the final ones.
      await page.evaluate(() => document.fonts.ready)
      // no element left hovered by the last click (a hover colour is not the page's colour)
      await page.mouse.move(0, 0)
      let builder = new AxeBuilder({ page }).withTags(TAGS)
      if (include) builder = builder.include(include)
      const { violations } = await builder.analyze()
      const name = `${label} @${size.width}`
      checked.push(name)
      // also written as they come, to read while a long run is still going (or after a timeout)
      mkdirSync('test-results', { recursive: true })
      appendFileSync(
        LOG,
        `${name}: ${
          violations
            .filter((v) => BLOCKING.has(v.impact ?? ''))
            .map((v) => `${v.id}×${v.nodes.length}`)
            .join(', ') || 'clean'
        }\n`,
      )
      for (const v of violations) {
        if (!BLOCKING.has(v.impact ?? '')) continue
        appendFileSync(LOG, v.nodes.map((n) => `    ${n.target.join(' ')} — ${n.any[0]?.message ?? n.failureSummary?.replace(/\s+/g, ' ')}\n`).join(''))
        findings.push({
          page: name,
          id: v.id,
          impact: v.impact!,
          help: v.help,
          targets: v.nodes.map((n) => n.target.join(' ')),
          summary: v.nodes[0]?.failureSummary?.replace(/\s+/g, ' ').trim() ?? '',
        })
      }
    },
    assertNone() {
      const report = findings
        .map(
          (f) =>
            `\n[${f.page}] ${f.id} (${f.impact}): ${f.help}\n  ${f.targets.slice(0, 12).join('\n  ')}${f.targets.length > 12 ? `\n  … and ${f.targets.length - 12} more` : ''}\n  → ${f.summary}`,
        )
        .join('\n')
      expect(checked.length).toBeGreaterThan(0)
      expect(findings, `axe found serious/critical violations on ${new Set(findings.map((f) => f.page)).size} of ${checked.length} pages:${report}`).toEqual([])
    },
  }
}

/** The sign-in form, with room for a busy machine (argon2 and the /app chunk). */
async function signInViaForm(page: Page, email: string, password: string) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Пароль').fill(password)
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page).toHaveURL(/\/app\/dashboard$/, { timeout: 30_000 })
}

/** Opens the page and waits for its main heading (the lazy chunk and its data are in). */
async function open(page: Page, path: string, heading?: string | RegExp) {
  await page.goto(path)
  await expect(page.getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) }).first()).toBeVisible({ timeout: 30_000 })
}

/** The public header's menu on a phone: open, checked as part of the page. */
async function openPublicMenu(page: Page, size: Size) {
  if (size.width >= 1024) return
  await page.getByRole('button', { name: 'Открыть меню' }).click()
  await expect(page.getByRole('navigation', { name: 'Меню' })).toBeVisible()
}

/** The signed-in area on a phone: the page with the drawer shut, then the drawer on its own. */
async function checkApp(page: Page, size: Size, audit: ReturnType<typeof auditor>, label: string) {
  await audit.check(label)
  if (size.width >= 1024) return
  await page.getByRole('button', { name: 'Открыть меню' }).click()
  const drawer = page.getByRole('complementary', { name: 'Боковая панель' })
  await expect(drawer.getByRole('navigation', { name: 'Основное меню' })).toBeVisible()
  // the drawer slides in: its colours are final once the transition has ended
  await page.waitForTimeout(300)
  await audit.check(`${label} (menu)`, '#app-sidebar')
  await page.keyboard.press('Escape')
  await expect(drawer).toBeHidden()
}

test.beforeAll(() => {
  // One published article for /blog, /blog/{slug} and the admin's blog list.
  seedPosts([
    {
      title: 'Доступность: проверка статьи',
      slug: ARTICLE_SLUG,
      description: 'Статья для проверки доступности страниц блога.',
      content: '## Раздел\n\nТекст со [ссылкой](/models) и `кодом`.\n\n| Модель | Цена |\n|---|---|\n| GPT-4o | 1,00 ₽ |\n\n```bash\ncurl https://example.ru\n```\n',
      modelId: 'openai/gpt-4o',
      modelName: 'OpenAI: GPT-4o',
      views: 42,
      cover: true,
    },
  ])
})

for (const size of SIZES) {
  test.describe(`axe ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } })
    // axe's colour-contrast pass is the slow part (seconds per page on a busy machine)
    test.describe.configure({ timeout: 240_000 })

    const publicPages: Array<[group: string, pages: Array<[label: string, path: string, heading?: string]>]> = [
      [
        'landing, blog, catalogue',
        [
          ['landing', '/'],
          ['blog', '/blog'],
          ['blog article', `/blog/${ARTICLE_SLUG}`, 'Доступность: проверка статьи'],
          ['catalogue', '/models'],
          ['model page', '/models/openai/gpt-4o'],
          ['unknown model (404)', '/models/nobody/none', 'Модель не найдена'],
          ['unknown article (404)', '/blog/no-such-article', 'Статья не найдена'],
        ],
      ],
      [
        'docs, services, legal',
        [
          ['docs', '/docs'],
          ['services', '/services'],
          ['status', '/status'],
          ['privacy policy', '/privacy-policy'],
          ['terms of service', '/terms-of-service'],
          ['public offer', '/public-offer'],
          ['refund policy', '/refund-policy'],
        ],
      ],
    ]
    for (const [group, pages] of publicPages) {
      test(`public pages: ${group}`, async ({ page }) => {
        const audit = auditor(page, size)
        for (const [label, path, heading] of pages) {
          await open(page, path, heading)
          // on a phone the menu opens in the page's flow (no overlay), so one pass covers both
          await openPublicMenu(page, size)
          await audit.check(size.width < 1024 ? `${label} (menu open)` : label)
          if (label === 'catalogue') await shoot(page, `a11y-catalogue-${size.width}`)
        }
        audit.assertNone()
      })
    }

    test('sign-in pages: login, register, forgot and reset password, e-mail confirmation', async ({ page }) => {
      const audit = auditor(page, size)
      const authPages: Array<[label: string, path: string]> = [
        ['login', '/login'],
        ['register', '/register'],
        ['forgot password', '/forgot-password'],
        ['reset password', '/reset-password/some-token'],
        ['verify e-mail', '/verify-email/some-token'],
      ]
      for (const [label, path] of authPages) {
        await open(page, path)
        await audit.check(label)
      }
      // The sign-in form with its errors shown (red text on white, described fields).
      await open(page, '/login')
      await page.getByRole('button', { name: 'Войти' }).click()
      await page.waitForTimeout(200)
      await audit.check('login (empty form submitted)')
      audit.assertNone()
    })

    // One customer per size, registered once through the API, signed in through the form by each test.
    let customer: string | null = null
    const signIn = async (page: Page) => {
      if (!customer) {
        const email = uniqueEmail(`a11y-${size.name}`)
        expect((await page.request.post('/api/auth/register', { data: { email, password: PASSWORD } })).status()).toBe(201)
        customer = email
      }
      await signInViaForm(page, customer, PASSWORD)
    }

    test('customer pages: dashboard, playground with a conversation, models, keys', async ({ page }) => {
      const audit = auditor(page, size)
      await signIn(page)
      await checkApp(page, size, audit, 'dashboard')

      // Playground with one exchange (the demo upstream answers).
      await open(page, '/app/playground', 'Playground')
      const composer = page.getByRole('textbox', { name: 'Сообщение' })
      await composer.fill('Напиши пример кода на **TypeScript**')
      await composer.press('Enter')
      await expect(page.getByTestId('assistant-message').last()).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
      await checkApp(page, size, audit, 'playground')

      await open(page, '/app/models', 'Модели')
      await checkApp(page, size, audit, 'models')

      await open(page, '/app/api-keys', 'API ключи')
      await checkApp(page, size, audit, 'api keys (none)')
      await page.getByLabel('Название ключа').fill('Проверка доступности')
      await page.getByRole('button', { name: 'Создать ключ' }).click()
      await expect(page.getByTestId('new-api-key')).toBeVisible()
      await audit.check('api keys: the new key shown, one key listed')
      audit.assertNone()
    })

    test('customer pages: billing and the test payment, usage, docs, account', async ({ page }) => {
      const audit = auditor(page, size)
      await signIn(page)

      await open(page, '/app/billing', 'Баланс')
      await checkApp(page, size, audit, 'billing')
      await page.getByLabel('Сумма пополнения, ₽').fill('99')
      await page.getByRole('button', { name: 'Перейти к оплате' }).click()
      await expect(page.getByRole('alert').filter({ hasText: 'Минимальная сумма' })).toBeVisible()
      await audit.check('billing: amount refused')
      await page.getByRole('button', { name: /^500\s₽$/ }).click()
      await page.getByRole('button', { name: 'Перейти к оплате' }).click()
      await expect(page).toHaveURL(/\/pay\/test\/[^/]+$/)
      await expect(page.getByTestId('test-payment-amount')).toBeVisible()
      await audit.check('test payment page')
      await page.getByRole('button', { name: 'Оплатить', exact: true }).click()
      await expect(page).toHaveURL(/\/app\/billing\?payment=/, { timeout: 30_000 })
      await expect(page.getByTestId('payment-outcome')).toContainText('Оплата прошла успешно', { timeout: 30_000 })
      await checkApp(page, size, audit, 'billing: payment succeeded')
      await shoot(page, `a11y-billing-${size.width}`)
      await open(page, '/pay/test/no-such-payment', 'Платёж не найден')
      await audit.check('test payment: not found')

      await open(page, '/app/usage', 'Статистика')
      await checkApp(page, size, audit, 'usage')
      await open(page, '/app/docs')
      await checkApp(page, size, audit, 'app docs')
      await open(page, '/app/account', 'Аккаунт')
      await checkApp(page, size, audit, 'account')
      audit.assertNone()
    })

    test('admin pages: dashboard, users with the balance and delete dialogs, blog', async ({ page }) => {
      const audit = auditor(page, size)
      const res = await page.request.post('/api/auth/register', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
      expect([201, 409]).toContain(res.status())
      // someone to act on in the users list
      const target = uniqueEmail(`a11y-target-${size.name}`)
      expect((await page.request.post('/api/auth/register', { data: { email: target, password: PASSWORD } })).status()).toBe(201)
      await signInViaForm(page, ADMIN_EMAIL, ADMIN_PASSWORD)

      await open(page, '/app/admin', 'Админ-панель')
      await expect(page.getByTestId('stat-users')).toBeVisible()
      await checkApp(page, size, audit, 'admin dashboard')
      await shoot(page, `a11y-admin-dashboard-${size.width}`)

      await open(page, '/app/admin/users')
      await expect(page.getByTestId('admin-user-row').first()).toBeVisible()
      await checkApp(page, size, audit, 'admin users')
      await page.getByPlaceholder('Поиск по email...').fill(target)
      await expect(page.getByTestId('admin-user-row')).toHaveCount(1)
      await page.getByRole('button', { name: `Изменить баланс ${target}` }).click()
      const dialog = page.getByRole('dialog', { name: 'Изменение баланса' })
      await dialog.getByLabel('Сумма (+ пополнение, - списание)').fill('-1000')
      await audit.check('admin users: balance dialog')
      await dialog.getByLabel('Сумма (+ пополнение, - списание)').fill('1.000,5')
      await audit.check('admin users: balance dialog, an amount it cannot read')
      await dialog.getByRole('button', { name: 'Отмена' }).click()
      await page.getByRole('button', { name: `Удалить ${target}` }).click()
      await expect(page.getByRole('dialog')).toBeVisible()
      await audit.check('admin users: delete dialog')
      await page.keyboard.press('Escape')

      await open(page, '/app/admin/invoices')
      await expect(page.getByRole('heading', { level: 1, name: 'Счета и выписки' })).toBeVisible()
      await checkApp(page, size, audit, 'admin invoices and statements')

      await open(page, '/app/admin/blog')
      await expect(page.getByText('Доступность: проверка статьи').first()).toBeVisible()
      await checkApp(page, size, audit, 'admin blog')
      audit.assertNone()
    })
  })
}
