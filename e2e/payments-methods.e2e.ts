// Issue 37 on the billing page, at 1280×800 and 360×740: «Банковская карта» / «СБП» with the SBP
// limits and the hour to pay; a card saved through the test payment page («Сохранить карту…»)
// listed under «Сохранённые способы оплаты» and deleted after a confirmation; the «Автопополнение»
// form (switch, threshold, amount, card, daily limit) and why it switched itself off.
import { mkdirSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { fileAccount, watchConsole } from './helpers'

const SHOTS = '/tmp/shots'
mkdirSync(SHOTS, { recursive: true })
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })

const signIn = fileAccount('cards', 'cards-pass-12345')

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
}

/** The top-up form: the chosen method, the amount, «Перейти к оплате», then the test page's «Оплатить». */
async function payOnTestPage(page: Page, amount: string, expectOnPage: RegExp, shotName?: string) {
  await page.getByLabel('Сумма пополнения, ₽').fill(amount)
  await page.getByRole('button', { name: 'Перейти к оплате' }).click()
  await expect(page).toHaveURL(/\/pay\/test\/[^/]+$/)
  await expect(page.getByTestId('test-payment-method')).toHaveText(expectOnPage)
  if (shotName) await shot(page, shotName)
  await page.getByRole('button', { name: 'Оплатить', exact: true }).click()
  await expect(page).toHaveURL(/\/app\/billing\?payment=[^&]+$/)
  await expect(page.getByTestId('payment-outcome')).toContainText('Оплата прошла успешно')
}

test.describe('SBP, saved cards and auto top-up', () => {
  test('1280×800: SBP with its limits; a saved card; the auto top-up form; deleting the card switches it off', async ({ page }) => {
    const console = watchConsole(page)
    await page.setViewportSize({ width: 1280, height: 800 })
    await signIn(page)
    await page.goto('/app/billing')

    // The choice of method: a card by default, SBP with its own limits and the hour to pay.
    const methods = page.getByRole('group', { name: 'Способ оплаты' })
    await expect(methods.getByRole('radio', { name: 'Банковская карта' })).toBeChecked()
    await expect(page.getByLabel('Сохранить карту для следующих платежей и автопополнения')).toBeVisible()
    await methods.getByText('СБП', { exact: true }).click()
    await expect(methods.getByRole('radio', { name: 'СБП' })).toBeChecked()
    await expect(page.getByTestId('method-sbp')).toContainText(/QR-код на компьютере или приложение банка на телефоне\. От 100 до 700\s000 ₽, на оплату — 1 час/)
    await expect(page.getByText(/Оплатите в приложении банка в течение часа/)).toBeVisible()
    // Only a card is saved: the box is not offered for SBP.
    await expect(page.getByLabel('Сохранить карту для следующих платежей и автопополнения')).toHaveCount(0)
    await page.getByLabel('Сумма пополнения, ₽').fill('800000')
    await page.getByRole('button', { name: 'Перейти к оплате' }).click()
    await expect(page.getByRole('alert').filter({ hasText: 'Максимальная сумма оплаты через СБП: 700 000 ₽' })).toBeVisible()
    await shot(page, 'billing-sbp-1280')
    await payOnTestPage(page, '500', /Способ оплаты: СБП/, 'test-page-sbp-1280')
    await expect(page.getByTestId('payment-row').first()).toContainText('СБП')

    // A card payment with «save the card»: the test page says the card will be kept; the list shows it.
    await page.getByRole('group', { name: 'Способ оплаты' }).getByText('Банковская карта', { exact: true }).click()
    await page.getByLabel('Сохранить карту для следующих платежей и автопополнения').check()
    await payOnTestPage(page, '300', /Тестовая карта \*\*\*\* 4444 будет сохранена/, 'test-page-save-card-1280')
    const saved = page.getByTestId('saved-method')
    await expect(saved).toHaveCount(1)
    await expect(saved.first()).toContainText('MasterCard •••• 4444')
    await expect(saved.first()).toContainText('до 12/30')

    // The auto top-up form: the only card is chosen; a bad amount is refused before it is sent.
    const auto = page.getByTestId('auto-topup')
    await expect(auto.getByRole('switch', { name: 'Автопополнение включено' })).not.toBeChecked()
    await expect(auto.getByLabel('Карта')).toHaveValue(/.+/)
    await auto.getByLabel('Когда баланс ниже, ₽').fill('100')
    await auto.getByLabel('Пополнять на, ₽').fill('50')
    await auto.getByLabel('Не больше в сутки, ₽').fill('1500')
    await auto.getByRole('switch', { name: 'Автопополнение включено' }).check()
    await auto.getByRole('button', { name: 'Сохранить' }).click()
    await expect(auto.getByRole('alert').filter({ hasText: 'Сумма автопополнения — от 100 до 1 000 000 ₽' })).toBeVisible()
    await auto.getByLabel('Пополнять на, ₽').fill('500')
    await auto.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByText('Автопополнение включено', { exact: true })).toBeVisible()
    await expect(saved.first()).toContainText('автопополнение')
    await page.reload()
    await expect(page.getByTestId('auto-topup').getByRole('switch', { name: 'Автопополнение включено' })).toBeChecked()
    await expect(page.getByTestId('auto-topup').getByLabel('Пополнять на, ₽')).toHaveValue('500')
    await shot(page, 'billing-auto-topup-1280')

    // Deleting the card asks first, says auto top-up goes off with it, and then it is off with the reason.
    await page.getByRole('button', { name: 'Удалить: MasterCard •••• 4444' }).click()
    const dialog = page.getByRole('dialog', { name: 'Удалить карту?' })
    await expect(dialog).toContainText('Автопополнение с этой карты будет выключено.')
    await shot(page, 'billing-delete-card-1280')
    await dialog.getByRole('button', { name: 'Удалить карту' }).click()
    await expect(page.getByTestId('saved-method')).toHaveCount(0)
    await expect(page.getByTestId('auto-topup-disabled')).toContainText('Автопополнение выключилось: Карта для автопополнения удалена')
    await expect(page.getByTestId('auto-topup').getByRole('switch', { name: 'Автопополнение включено' })).not.toBeChecked()
    await expect(page.getByTestId('auto-topup').getByLabel('Карта')).toBeDisabled()
    await shot(page, 'billing-auto-topup-off-1280')
    console.assertClean()
  })

  test('360×740: the same page on a phone — no sideways scroll; a card saved and auto top-up on', async ({ page }) => {
    const console = watchConsole(page)
    await page.setViewportSize({ width: 360, height: 740 })
    await signIn(page)
    await page.goto('/app/billing')
    await page.getByRole('group', { name: 'Способ оплаты' }).getByText('СБП', { exact: true }).click()
    await expect(page.getByTestId('method-sbp')).toContainText('на оплату — 1 час')
    await expectNoHorizontalScroll(page)
    await shot(page, 'billing-sbp-360')
    await page
      .locator('form')
      .filter({ has: page.getByRole('group', { name: 'Способ оплаты' }) })
      .screenshot({ path: `${SHOTS}/billing-sbp-form-360.png` })
    await page.getByRole('group', { name: 'Способ оплаты' }).getByText('Банковская карта', { exact: true }).click()
    await page.getByLabel('Сохранить карту для следующих платежей и автопополнения').check()
    await payOnTestPage(page, '200', /будет сохранена/, 'test-page-save-card-360')
    await expect(page.getByTestId('saved-method')).toHaveCount(1)
    const auto = page.getByTestId('auto-topup')
    await auto.getByLabel('Когда баланс ниже, ₽').fill('50')
    await auto.getByLabel('Пополнять на, ₽').fill('300')
    await auto.getByLabel('Не больше в сутки, ₽').fill('900')
    await auto.getByRole('switch', { name: 'Автопополнение включено' }).check()
    await auto.getByRole('button', { name: 'Сохранить' }).click()
    await expect(page.getByText('Автопополнение включено', { exact: true })).toBeVisible()
    await expect(auto.getByTestId('auto-topup-disabled')).toHaveCount(0)
    await expectNoHorizontalScroll(page)
    await auto.scrollIntoViewIfNeeded()
    await shot(page, 'billing-auto-topup-360')
    await auto.screenshot({ path: `${SHOTS}/billing-auto-topup-card-360.png` })
    await page.getByTestId('saved-methods-card').screenshot({ path: `${SHOTS}/billing-saved-methods-360.png` })
    console.assertClean()
  })
})
