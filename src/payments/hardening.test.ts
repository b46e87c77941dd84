// What a hostile internet (or a careless deployment) does to the payment side: production without
// real payment keys or without PUBLIC_URL refuses to start; test-page money is never refundable;
// a forged Host header never reaches a payment link, a letter or a page.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eventually } from '../test-support/gateway'
import { startPayments } from '../test-support/payments'
import { refusesToStart } from '../test-support/process'
import { client, freshIp, readResult, registerUser, startServer, type TestServer } from '../test-support/server'

// These tests start servers and processes; on a busy machine that outlasts bun's 5 s default
// (bunfig.toml cannot set it: only --timeout or this call can).
setDefaultTimeout(20_000)

describe('NODE_ENV=production', () => {
  test('without YooKassa keys the server refuses to start and names them (and the way out)', async () => {
    const r = await refusesToStart({ NODE_ENV: 'production', PUBLIC_URL: 'https://gw.example.ru' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('[config]')
    expect(r.stderr).toContain('YOOKASSA_SHOP_ID')
    expect(r.stderr).toContain('YOOKASSA_SECRET_KEY')
    expect(r.stderr).toContain('ALLOW_TEST_PAYMENTS=true')
    expect(r.stdout).not.toContain('listening')
  })

  test('without PUBLIC_URL the server refuses to start and names it', async () => {
    const r = await refusesToStart({ NODE_ENV: 'production', YOOKASSA_SHOP_ID: '100500', YOOKASSA_SECRET_KEY: 'live_x' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('PUBLIC_URL is required when NODE_ENV=production')
    expect(r.stdout).not.toContain('listening')
  })

  test('ALLOW_TEST_PAYMENTS must be a clear true/false', async () => {
    const r = await refusesToStart({ NODE_ENV: 'production', PUBLIC_URL: 'https://gw.example.ru', ALLOW_TEST_PAYMENTS: 'maybe' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('ALLOW_TEST_PAYMENTS must be true or false')
  })
})

describe('production with ALLOW_TEST_PAYMENTS=true', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'true' })
  })
  afterAll(() => server.stop())

  test('starts, says so in the log and tells every page to show the test-mode banner', async () => {
    await eventually(() => server.logs().includes('ALLOW_TEST_PAYMENTS=true')) // the log line may trail the "listening" one
    const health = await client(server.url).get('/api/health')
    expect(health.body.data).toMatchObject({ payments: 'test', testPaymentsBanner: true })
    // The flag travels inline in every page (site and app alike), so the banner needs no request.
    for (const path of ['/', '/blog', '/login', '/app/dashboard', '/pay/test/x'])
      expect([path, await (await fetch(`${server.url}${path}`)).text()]).toEqual([
        path,
        expect.stringContaining('<script type="application/json" id="test-payments-mode">true</script>'),
      ])
  })

  test('test-page money is credited, marked as test, and never refundable', async () => {
    const u = await registerUser(server.url)
    const created = await u.api.post('/api/payments/create', { amount: 5000, returnUrl: '/app/billing' }, u.accessToken)
    const providerId = new URL(created.body.data.confirmationUrl).pathname.split('/').pop()!
    expect((await client(server.url).post(`/api/payments/test/${providerId}/pay`)).body.data.status).toBe('succeeded')
    expect((await u.api.get('/api/billing/balance', u.accessToken)).body.data.balance).toBe(5050)
    expect((await u.api.get('/api/payments/list', u.accessToken)).body.data[0]).toMatchObject({ status: 'succeeded', test: true })
    const tx = await u.api.get('/api/billing/transactions?limit=50', u.accessToken)
    expect(tx.body.data[0]).toMatchObject({ type: 'topup', amount: '+5000.00', description: 'Тестовое пополнение (деньги не списывались)' })

    const status = await u.api.get('/api/payments/refund-request', u.accessToken)
    expect(status.body.data).toMatchObject({ eligible: false, remainder: 0, lastTopUpAt: null })
    expect(status.body.data.reasons).toContain('Возвращаются только средства, внесённые картой, а пополнений картой не было')
    const refused = await u.api.post('/api/payments/refund-request', { reason: 'верните' }, u.accessToken)
    expect([refused.status, refused.body.error]).toEqual([400, 'Возвращаются только средства, внесённые картой, а пополнений картой не было'])
  })
})

test('without ALLOW_TEST_PAYMENTS the banner is off (development keeps its own note on the billing page)', async () => {
  const dev = await startServer()
  try {
    expect((await client(dev.url).get('/api/health')).body.data).toMatchObject({ payments: 'test', testPaymentsBanner: false })
    expect(await (await fetch(`${dev.url}/`)).text()).not.toContain('test-payments-mode')
  } finally {
    await dev.stop()
  }
})

/** A request with a forged Host header (Bun's fetch sends the one given). */
async function forged(url: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-for': freshIp() }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  if (init.token) headers.authorization = `Bearer ${init.token}`
  return readResult(await fetch(url, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }))
}

describe('a forged Host header', () => {
  let env: Awaited<ReturnType<typeof startPayments>>
  let testPage: TestServer
  const PUBLIC = 'https://gw.example.ru'
  beforeAll(async () => {
    env = await startPayments()
    testPage = await startServer({ PUBLIC_URL: PUBLIC })
  })
  afterAll(async () => {
    await env.stop()
    await testPage.stop()
  })

  test('never appears in a YooKassa return URL; a return URL on the forged host is refused', async () => {
    const u = await registerUser(env.url)
    const res = await forged(`${env.url}/api/payments/create`, { method: 'POST', body: { amount: 500 }, token: u.accessToken })
    expect(res.status).toBe(200)
    const sent = env.yookassa.log.find((l) => l.method === 'POST' && l.idempotenceKey === res.body.data.id)!.body as any
    expect(sent.confirmation.return_url).toBe(`${env.url}/app/billing?payment=${res.body.data.id}`)
    expect(JSON.stringify(res.body)).not.toContain('evil.example')

    for (const returnUrl of ['http://evil.example/app/billing', '//evil.example/app/billing', 'https://gw.example.ru.evil.example/', 'javascript:alert(1)']) {
      const refused = await forged(`${env.url}/api/payments/create`, { method: 'POST', body: { amount: 500, returnUrl }, token: u.accessToken })
      expect([returnUrl, refused.status, refused.body.error]).toEqual([returnUrl, 400, 'Адрес возврата должен вести на этот сайт'])
    }
  })

  test('never appears in the test page’s confirmation URL or return URL', async () => {
    const u = await registerUser(testPage.url)
    const res = await forged(`${testPage.url}/api/payments/create`, { method: 'POST', body: { amount: 500 }, token: u.accessToken })
    expect(res.status).toBe(200)
    const confirmation = new URL(res.body.data.confirmationUrl)
    expect(confirmation.origin).toBe(PUBLIC)
    const view = await forged(`${testPage.url}/api/payments/test/${confirmation.pathname.split('/').pop()}`)
    expect(view.body.data.returnUrl).toBe(`${PUBLIC}/app/billing?payment=${res.body.data.id}`)
  })

  test('never appears in a letter, a canonical link, the sitemap or robots.txt', async () => {
    const u = await registerUser(testPage.url)
    await forged(`${testPage.url}/api/auth/forgot-password`, { method: 'POST', body: { email: u.email } })
    const outbox = join(testPage.dataDir, 'outbox')
    let letter: { text: string; html: string } | undefined
    for (let i = 0; i < 200 && !letter; i++) {
      const files = existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.json')) : []
      // The reset letter, not the confirmation letter registration sent to the same address.
      letter = files.map((f) => JSON.parse(readFileSync(join(outbox, f), 'utf8'))).find((l) => l.to === u.email && l.text.includes('/reset-password/'))
      if (!letter) await Bun.sleep(25)
    }
    expect(letter!.text).toContain(`${PUBLIC}/reset-password/`)
    expect(letter!.text + letter!.html).not.toContain('evil.example')

    for (const path of ['/', '/blog', '/sitemap.xml', '/robots.txt', '/app/models']) {
      const page = await forged(`${testPage.url}${path}`)
      const text = typeof page.body === 'string' ? page.body : JSON.stringify(page.body)
      expect([path, text.includes('evil.example')]).toEqual([path, false])
    }
    const landing = await forged(`${testPage.url}/`)
    expect(landing.body).toContain(`<link rel="canonical" href="${PUBLIC}/"`)
  })
})
