// Issue 37 in the terminal: `gw topup --sbp` (an SBP payment), `gw topup --save-card` and
// `gw autotopup` (show, --on with the threshold, the amount, the card and the daily limit, --off).
// The CLI runs as a real process against the real server with its built-in test payment page.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { gwProcesses, type Run } from '../src/test-support/cli-process'
import { startGateway } from '../src/test-support/gateway'

setDefaultTimeout(30_000)
let gw: Awaited<ReturnType<typeof startGateway>>
const gwp = gwProcesses(() => gw.url)
const { cli, ok, signedIn } = gwp
const json = <T = any>(args: string[], config: string) => gwp.json<T>(args, config)

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(async () => {
  await gw.stop()
  gwp.cleanup()
})

const oneLine = (r: Run) => r.stderr.trim()

describe('gw topup --sbp, --save-card', () => {
  test('--sbp makes an SBP payment and says how to pay it; --sbp with --save-card is a usage error', async () => {
    const { config, accessToken, api } = await signedIn()
    const out = await ok(['topup', '700', '--sbp'], config)
    expect(out).toContain('Платёж через СБП на 700,00 ₽ создан')
    expect(out).toContain('QR-код')
    expect(out).toContain('На оплату — 1 час')
    expect(out).toMatch(/\/pay\/test\//)
    const list = await api.get('/api/payments/list', accessToken)
    expect(list.body.data[0]).toMatchObject({ amount: 700, method: 'sbp' })
    const both = await cli(['topup', '500', '--sbp', '--save-card'], config)
    expect(both.code).toBe(2)
    expect(oneLine(both)).toBe('Ошибка: --save-card — только для оплаты картой, без --sbp')
    const tooMuch = await cli(['topup', '800000', '--sbp'], config)
    expect(tooMuch.code).toBe(1)
    expect(oneLine(tooMuch)).toContain('Максимальная сумма оплаты через СБП: 700 000 ₽')
    expect((await ok(['topup', '--help'], config)).replace(/\s+/g, ' ')).toContain('--sbp оплатить через СБП')
  })
})

describe('gw autotopup', () => {
  test('shows the settings and the saved cards; --on with a card by its last four digits; --off keeps the settings', async () => {
    const { config } = await signedIn()
    const empty = await ok(['autotopup'], config)
    expect(empty).toContain('Автопополнение: выключено')
    expect(empty).toContain('Сохранённых карт нет: оплатите с сохранением карты — gw topup 500 --save-card')
    const refused = await cli(['autotopup', '--on', '--card', '4444'], config)
    expect(refused.code).toBe(2)
    expect(oneLine(refused)).toContain('нет сохранённой карты «4444»')

    // A card saved on the test payment page (it always ends 4444).
    const payment = await json<{ confirmationUrl: string }>(['topup', '300', '--save-card'], config)
    const providerId = payment.confirmationUrl.split('/pay/test/')[1]!
    expect((await fetch(`${gw.url}/api/payments/test/${providerId}/pay`, { method: 'POST' })).status).toBe(200)

    const on = await ok(['autotopup', '--on', '--threshold', '10', '--amount', '100', '--card', '4444', '--daily-limit', '300'], config)
    expect(on).toContain('Автопополнение: включено')
    expect(on).toContain('Когда доступный баланс ниже 10,00 ₽ — пополнить на 100,00 ₽ с карты: MasterCard •••• 4444')
    expect(on).toContain('Не больше 300,00 ₽ в сутки (по Москве)')
    expect(on).toMatch(/MasterCard •••• 4444\s+12\/30/)
    const state = await json<{ enabled: boolean; thresholdRub: number; methods: unknown[] }>(['autotopup'], config)
    expect(state).toMatchObject({ enabled: true, thresholdRub: 10, amountRub: 100, dailyLimitRub: 300 })
    expect(state.methods).toHaveLength(1)

    const off = await ok(['autotopup', '--off'], config)
    expect(off).toContain('Автопополнение: выключено')
    expect(off).toContain('пополнить на 100,00 ₽')
    const both = await cli(['autotopup', '--on', '--off'], config)
    expect(both.code).toBe(2)
    const bad = await cli(['autotopup', '--on', '--amount', '50'], config)
    expect(bad.code).toBe(1)
    expect(oneLine(bad)).toContain('Сумма автопополнения — от 100 до 1 000 000 ₽')
    expect((await ok(['autotopup', '--help'], config)).replace(/\s+/g, ' ')).toContain('gw autotopup --on --threshold 200 --amount 1000 --card 4444 --daily-limit 3000')
  })
})
