// Issue 33, «what a newcomer saw», at 1280×800 and 360×740: the admin's users table without text
// running into the next column (#16); the offer, the privacy policy and the footer naming the seller of
// the invoices (SELLER_*, #17); every time in Moscow and labelled «МСК» whatever the reader's zone
// (#19); the Playground on a phone giving the conversation half the screen and the field 85 % of
// the width, compare columns never under the composer (#20). `gw models` and the CLI's times (#18,
// #19) are in cli/display.test.ts.
import { expect as baseExpect, type Locator, type Page, test } from '@playwright/test'
import { OSN_SELLER } from '../src/invoices/test-fixtures'
import { apiCustomer, apiGet, registerViaUi, SHOTS, signInAsAdmin, spaced, startOwnServer, uniqueEmail, watchConsole } from './helpers'

// Room for a busy machine (the catalogue and the estimate are network round trips).
const expect = baseExpect.configure({ timeout: 15_000 })

const VIEWPORTS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const
const PASSWORD = 'newcomer-pass-1'

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })

/** 'DD.MM.YYYY, HH:MM МСК' of an instant, as a person in Moscow reads it. */
const moscow = (iso: string) =>
  `${new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(iso))} МСК`

/**
 * Pieces of text (and icons) in `row` whose boxes intersect, or that leave their table cell: what
 * «29.11.2026, 03:4811.2026» looked like. Boxes are clipped by the ancestors that hide overflow (a
 * truncated address ends at its ellipsis).
 */
function collisions(row: Locator): Promise<string[]> {
  return row.evaluate((root) => {
    type Box = { left: number; top: number; right: number; bottom: number }
    const clip = (box: Box, from: Element): Box | null => {
      let b = box
      for (let el: Element | null = from; el && el !== root.parentElement; el = el.parentElement) {
        const style = getComputedStyle(el)
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue
        const r = el.getBoundingClientRect()
        b = { left: Math.max(b.left, r.left), top: Math.max(b.top, r.top), right: Math.min(b.right, r.right), bottom: Math.min(b.bottom, r.bottom) }
      }
      return b.right - b.left > 1 && b.bottom - b.top > 1 ? b : null
    }
    const pieces: Array<{ what: string; box: Box; cell: Element | null; node: Node }> = []
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim()
      if (!text || !node.parentElement) continue
      const range = document.createRange()
      range.selectNodeContents(node)
      for (const rect of range.getClientRects()) {
        const box = clip(rect, node.parentElement)
        if (box) pieces.push({ what: text, box, cell: node.parentElement.closest('td, th'), node })
      }
    }
    for (const svg of root.querySelectorAll('svg')) {
      const box = clip(svg.getBoundingClientRect(), svg)
      if (box) pieces.push({ what: `значок в «${svg.closest('button')?.getAttribute('aria-label') ?? ''}»`, box, cell: svg.closest('td, th'), node: svg })
    }
    const problems: string[] = []
    const slack = 0.5
    for (const [i, a] of pieces.entries()) {
      if (a.cell) {
        const c = a.cell.getBoundingClientRect()
        if (a.box.left < c.left - slack || a.box.right > c.right + slack) problems.push(`«${a.what}» выходит за свою ячейку`)
      }
      // the line boxes of one piece of text may touch each other
      for (const b of pieces.slice(i + 1).filter((p) => p.node !== a.node)) {
        const overlap =
          Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left) > slack && Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top) > slack
        if (overlap) problems.push(`«${a.what}» наезжает на «${b.what}»`)
      }
    }
    return problems
  })
}

for (const vp of VIEWPORTS) {
  const wide = vp.width >= 1024
  test.describe(`issue 33, ${vp.name}`, () => {
    // A reader far from Moscow: the pages still show Moscow time, and say so.
    test.use({ viewport: { width: vp.width, height: vp.height }, timezoneId: 'Asia/Vladivostok' })

    test('Admin › Пользователи: no cell runs into another; activity in Moscow time with «МСК»', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      // a long address and a seven-digit balance: the widest a row gets
      const long = await apiCustomer(page.request, `very.long.address.of.a.customer.from.a.company${vp.name}`, PASSWORD)
      await apiCustomer(page.request, `short${vp.name}`, PASSWORD)
      await signInAsAdmin(page)
      const adjust = await page.evaluate(
        async ({ id }) =>
          (
            await fetch(`/api/admin/users/${id}/balance`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ amount: 999_999.99, description: 'Проверка ширины колонки' }),
            })
          ).status,
        { id: long.id },
      )
      expect(adjust).toBe(200)

      await page.goto('/app/admin/users')
      const rows = page.getByTestId('admin-user-row')
      await expect(rows.first()).toBeVisible()
      await expect(page.locator('table')).toHaveCount(wide ? 1 : 0)
      if (wide) expect(await collisions(page.locator('thead tr'))).toEqual([])
      const count = await rows.count()
      expect(count).toBeGreaterThanOrEqual(3)
      for (let i = 0; i < count; i++) expect(await collisions(rows.nth(i)), `строка ${i + 1}`).toEqual([])
      if (!wide) expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)

      // the last activity as a person in Moscow reads it, labelled
      const listed = await apiGet<Array<{ email: string; lastActiveAt: string | null }>>(page, `/api/admin/users?search=${encodeURIComponent(long.email)}`)
      const row = rows.filter({ hasText: long.email })
      await expect(row.getByTestId('admin-user-balance')).toHaveText('1 000 049,99 ₽')
      expect(spaced(await row.getByTestId('admin-user-active').textContent())).toContain(moscow(listed[0]!.lastActiveAt!))
      await shot(page, `issue33-admin-users-${vp.name}`)
      consoleWatch.assertClean()
    })

    test('a customer reads times in Moscow with «МСК»: the balance history', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail(`msk${vp.name}`), PASSWORD)
      const [bonus] = await apiGet<Array<{ createdAt: string }>>(page, '/api/billing/transactions?limit=1')
      await page.goto('/app/billing')
      const row = page.getByTestId('transaction-row').first()
      await expect(row).toBeVisible()
      expect(spaced(await row.locator('time').textContent())).toBe(moscow(bonus!.createdAt))
      consoleWatch.assertClean()
    })

    test('the Playground: the conversation and the field take the room, the composer stays on screen', async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail(`pg${vp.name}`), PASSWORD)
      await page.goto('/app/playground')
      const field = page.getByRole('textbox', { name: 'Сообщение' })
      await expect(field).toBeVisible()
      await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready')
      const list = (await page.getByTestId('message-list').boundingBox())!
      const input = (await field.boundingBox())!
      const composer = (await page.getByTestId('composer').boundingBox())!
      // the composer wholly on screen, the page itself not scrolling
      expect(composer.y + composer.height).toBeLessThanOrEqual(vp.height + 0.5)
      expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeLessThanOrEqual(0)
      if (wide) {
        // beside the sidebar and the settings column: most of the chat's width, 40 % of the height
        const card = (await page.getByTestId('chat-card').boundingBox())!
        expect(input.width).toBeGreaterThanOrEqual(card.width * 0.75)
        expect(list.height).toBeGreaterThanOrEqual(vp.height * 0.4)
      } else {
        expect(list.height).toBeGreaterThanOrEqual(vp.height * 0.5)
        expect(input.width).toBeGreaterThanOrEqual(vp.width * 0.85)
        expect(input.x).toBeGreaterThanOrEqual(0)
        expect(input.x + input.width).toBeLessThanOrEqual(vp.width)
      }
      await shot(page, `issue33-playground-${vp.name}`)

      // A conversation: the list scrolls, the field keeps its room.
      for (const q of ['Первый вопрос о маяках', 'Второй вопрос о штормах']) {
        await field.fill(q)
        await field.press('Enter')
        await expect(page.getByTestId('assistant-message').last()).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
      }
      expect((await page.getByTestId('message-list').boundingBox())!.height).toBeGreaterThanOrEqual(list.height - 1)
      expect((await field.boundingBox())!.width).toBeGreaterThanOrEqual(input.width - 1)
      await shot(page, `issue33-playground-chat-${vp.name}`)
      consoleWatch.assertClean()
    })

    test('«Сравнить»: the columns stay above the composer, however far they are scrolled', async ({ page }) => {
      test.slow()
      const consoleWatch = watchConsole(page)
      await registerViaUi(page, uniqueEmail(`cmp${vp.name}`), PASSWORD)
      await page.goto('/app/playground')
      await page.getByRole('group', { name: 'Вид Playground' }).getByRole('button', { name: 'Сравнить' }).click()
      const columns = page.getByTestId('compare-column')
      await expect(columns).toHaveCount(3)
      const field = page.getByRole('textbox', { name: 'Сообщение' })
      await field.fill('Сравни кошек и собак в трёх предложениях')
      await expect(page.getByTestId('cost-estimate')).toHaveAttribute('data-state', 'ready')
      await field.press('Enter')
      for (const column of await columns.all()) await expect(column.getByTestId('assistant-message')).toHaveAttribute('data-status', 'done', { timeout: 30_000 })

      const area = page.getByTestId('compare-columns')
      const composer = page.getByTestId('composer')
      /** Every column's visible part (inside the scrolling area) ends above the composer, which is on screen and on top. */
      const check = async (where: string) => {
        const box = (await composer.boundingBox())!
        expect(box.y + box.height, where).toBeLessThanOrEqual(vp.height + 0.5)
        const shown = await area.evaluate((el) => {
          const a = el.getBoundingClientRect()
          return [...el.querySelectorAll('[data-testid=compare-column]')].map((c) => {
            const r = c.getBoundingClientRect()
            return { top: Math.max(r.top, a.top), bottom: Math.min(r.bottom, a.bottom) }
          })
        })
        for (const [i, part] of shown.entries()) if (part.bottom > part.top) expect(part.bottom, `${where}: колонка ${i + 1}`).toBeLessThanOrEqual(box.y + 0.5)
        // what is drawn at the field is the field, not a column
        const onTop = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid=composer]') != null, {
          x: box.x + box.width / 2,
          y: box.y + box.height / 2,
        })
        expect(onTop, where).toBe(true)
        expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight), where).toBeLessThanOrEqual(0)
      }
      await check('сверху')
      await shot(page, `issue33-compare-${vp.name}`)
      await area.evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }))
      await check('в середине')
      await area.evaluate((el) => el.scrollTo({ top: el.scrollHeight }))
      await check('внизу')
      await shot(page, `issue33-compare-scrolled-${vp.name}`)
      consoleWatch.assertClean()
    })
  })
}

test.describe('the seller on the legal pages is the seller on the invoices (SELLER_*)', () => {
  let server: Awaited<ReturnType<typeof startOwnServer>>
  const SELLER_ENV = {
    SELLER_NAME: OSN_SELLER.name,
    SELLER_INN: OSN_SELLER.inn,
    SELLER_KPP: OSN_SELLER.kpp!,
    SELLER_TAX_REGIME: OSN_SELLER.taxRegime,
    SELLER_ACCOUNT: OSN_SELLER.account,
    SELLER_BANK: OSN_SELLER.bank,
    SELLER_BIK: OSN_SELLER.bik,
    SELLER_CORR_ACCOUNT: OSN_SELLER.corrAccount,
    SELLER_ADDRESS: OSN_SELLER.address,
  }
  const ids = `ИНН ${OSN_SELLER.inn}, КПП ${OSN_SELLER.kpp}`

  test.beforeAll(async () => {
    server = await startOwnServer('seller', { JWT_SECRET: 'e2e-seller-secret-0123456789-abcdefghijklmno', ...SELLER_ENV })
  })
  test.afterAll(() => server?.stop())

  for (const vp of VIEWPORTS) {
    test(`the offer, the privacy policy and the footer name it (${vp.name})`, async ({ page }) => {
      const consoleWatch = watchConsole(page)
      await page.setViewportSize({ width: vp.width, height: vp.height })
      await page.goto(`${server.baseURL}/public-offer`)
      const general = page.locator('section#general')
      await expect(general).toContainText(`исполнителя — ${OSN_SELLER.name}, ${ids} (далее — «Исполнитель»)`)
      await expect(general).toContainText(`Сведения об Исполнителе: ${OSN_SELLER.name}; ИНН ${OSN_SELLER.inn}; КПП ${OSN_SELLER.kpp}; адрес: ${OSN_SELLER.address}`)
      await expect(page.locator('article')).not.toContainText('самозанят')
      const footer = page.getByTestId('site-footer')
      await expect(footer.getByTestId('footer-provider')).toHaveText([OSN_SELLER.name])
      await expect(footer.getByTestId('footer-tax-ids')).toHaveText(ids)
      await expect(footer).toContainText(`© 2025 AI Gateway · ${OSN_SELLER.name}`)
      await expect(footer).not.toContainText('ИНН предоставляется по запросу')
      await expect(footer).not.toContainText('Самозанятый')
      await general.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/issue33-offer-seller-${vp.name}.png` })
      await footer.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/issue33-footer-seller-${vp.name}.png` })

      await page.goto(`${server.baseURL}/privacy-policy`)
      await expect(page.locator('section#operator')).toContainText(`Оператор персональных данных и исполнитель по Публичной оферте — ${OSN_SELLER.name}, ${ids}.`)
      consoleWatch.assertClean()
    })
  }

  test('crawlers get the same seller in the HTML, without JavaScript', async ({ request }) => {
    const html = await (await request.get(`${server.baseURL}/public-offer`)).text()
    const page = /<noscript>([\s\S]*)<\/noscript>/.exec(html)![1]!
    expect(page).toContain(`исполнителя — ${OSN_SELLER.name}, ${ids} (далее — «Исполнитель»)`)
    expect(/<footer>[\s\S]*<\/footer>/.exec(page)![0]).toContain(`${OSN_SELLER.name} · ${ids}`)
    // the bank details stay on the invoices
    expect(html).not.toContain(OSN_SELLER.account)
  })
})
