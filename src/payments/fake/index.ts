// A YooKassa v3 stand-in that speaks the real wire protocol (Basic auth, Idempotence-Key, payment
// objects, webhooks). In-process it is the built-in test payment provider (no YOOKASSA_SHOP_ID);
// as an HTTP server it is the payment API that tests talk to.
import { randomUUID } from 'node:crypto'
import type { CreatePaymentRequest, YooPayment } from '../yookassa'

export type FakeYooKassaOptions = {
  shopId: string
  secretKey: string
  /** Where the customer is sent to pay; the test provider points it at our /pay/test page. */
  confirmationUrl?: (paymentId: string, returnUrl: string) => string
}

type Stored = { fingerprint: string; status: number; body: unknown }

const error = (status: number, code: string, description: string, parameter?: string) =>
  Response.json({ type: 'error', id: randomUUID(), code, description, ...(parameter ? { parameter } : {}) }, { status })

const MONEY = /^\d+\.\d{2}$/
const cents = (value: string) => Math.round(Number(value) * 100)

/** The request checks YooKassa makes that matter to us; a violation is its 400 invalid_request. */
function invalid(req: CreatePaymentRequest): [string, string] | null {
  if (!req?.amount || !MONEY.test(String(req.amount.value))) return ['amount.value', 'Amount value must be a string with 2 decimals']
  if (req.amount.currency !== 'RUB') return ['amount.currency', 'Unsupported currency']
  if (cents(req.amount.value) <= 0) return ['amount.value', 'Amount must be positive']
  if (req.confirmation?.type !== 'redirect' || !req.confirmation.return_url) return ['confirmation', 'Redirect confirmation needs return_url']
  if (typeof req.description === 'string' && req.description.length > 128) return ['description', 'Description is longer than 128']
  const meta = req.metadata ?? {}
  if (Object.keys(meta).length > 16 || Object.entries(meta).some(([k, v]) => k.length > 32 || typeof v !== 'string' || v.length > 512)) return ['metadata', 'Invalid metadata']
  const r = req.receipt
  if (r) {
    if (!r.customer?.email && !(r.customer as { phone?: string })?.phone) return ['receipt.customer', 'Receipt needs email or phone']
    if (!Array.isArray(r.items) || r.items.length === 0) return ['receipt.items', 'Receipt needs items']
    const total = r.items.reduce((sum, i) => sum + Math.round(cents(i.amount.value) * Number(i.quantity)), 0)
    if (total !== cents(req.amount.value)) return ['receipt.items', 'Receipt items do not add up to the payment amount']
    if (r.items.some((i) => !i.description || i.description.length > 128 || !i.vat_code)) return ['receipt.items', 'Invalid receipt item']
  }
  return null
}

export function createFakeYooKassa(opts: FakeYooKassaOptions) {
  const payments = new Map<string, YooPayment>()
  const idempotence = new Map<string, Stored>()
  const auth = `Basic ${Buffer.from(`${opts.shopId}:${opts.secretKey}`).toString('base64')}`
  /** Every request received, for assertions. */
  const log: Array<{ method: string; path: string; idempotenceKey: string | null; body: unknown }> = []
  /** Fault injection: the next N creates answer 500, before or after the payment is really created. */
  const faults = { createFailures: 0, failAfterCreate: false }

  function create(req: CreatePaymentRequest): YooPayment {
    const id = `${Date.now().toString(16).slice(-8)}-000f-5000-8000-${randomUUID().slice(-12)}`
    const payment: YooPayment = {
      id,
      status: 'pending',
      paid: false,
      amount: { value: req.amount.value, currency: req.amount.currency },
      confirmation: {
        type: 'redirect',
        return_url: req.confirmation.return_url,
        confirmation_url: opts.confirmationUrl?.(id, req.confirmation.return_url) ?? `https://yoomoney.test/checkout/${id}`,
      },
      description: req.description,
      metadata: req.metadata ?? {},
      recipient: { account_id: opts.shopId, gateway_id: '100700' },
      created_at: new Date().toISOString(),
      test: true,
    }
    payments.set(id, payment)
    return payment
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const path = url.pathname.replace(/^.*?\/payments/, '/payments')
    const key = request.headers.get('idempotence-key')
    const raw = request.method === 'POST' ? await request.text() : ''
    let body: unknown
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      return error(400, 'invalid_request', 'Body is not valid JSON')
    }
    log.push({ method: request.method, path, idempotenceKey: key, body })
    if (request.headers.get('authorization') !== auth) return error(401, 'invalid_credentials', 'Login or password is incorrect')

    if (request.method === 'POST' && path === '/payments') {
      if (!key) return error(400, 'invalid_request', 'Idempotence key is required', 'Idempotence-Key')
      if (key.length > 64) return error(400, 'invalid_request', 'Idempotence key is too long', 'Idempotence-Key')
      const seen = idempotence.get(key)
      if (seen) {
        if (seen.fingerprint !== raw) return error(400, 'invalid_request', 'Idempotence key duplicated', 'Idempotence-Key')
        return Response.json(seen.body, { status: seen.status })
      }
      if (faults.createFailures > 0 && !faults.failAfterCreate) {
        faults.createFailures--
        return error(500, 'internal_server_error', 'Internal server error')
      }
      const problem = invalid(body as CreatePaymentRequest)
      if (problem) return error(400, 'invalid_request', problem[1], problem[0])
      const payment = create(body as CreatePaymentRequest)
      idempotence.set(key, { fingerprint: raw, status: 200, body: payment })
      if (faults.createFailures > 0) {
        faults.createFailures--
        return error(500, 'internal_server_error', 'Internal server error')
      }
      return Response.json(payment)
    }
    const match = path.match(/^\/payments\/([^/]+)$/)
    if (request.method === 'GET' && match) {
      const payment = payments.get(decodeURIComponent(match[1]!))
      return payment ? Response.json(payment) : error(404, 'not_found', 'Payment not found')
    }
    return error(404, 'not_found', 'Unknown method')
  }

  /** What the payer does on the provider's page. */
  function settle(id: string, to: 'succeeded' | 'canceled', reason?: string): YooPayment | undefined {
    const p = payments.get(id)
    if (p?.status !== 'pending') return p
    if (to === 'succeeded') Object.assign(p, { status: 'succeeded', paid: true, captured_at: new Date().toISOString() })
    else Object.assign(p, { status: 'canceled', paid: false, cancellation_details: { party: 'yoo_money', reason: reason ?? 'expired_on_confirmation' } })
    return p
  }

  return {
    fetch: handle,
    payments,
    log,
    faults,
    get: (id: string) => payments.get(id),
    /** Takes in a payment created elsewhere (another instance's test provider), unless already known. */
    adopt: (payment: YooPayment) => {
      if (!payments.has(payment.id)) payments.set(payment.id, payment)
    },
    pay: (id: string) => settle(id, 'succeeded'),
    cancel: (id: string, reason?: string) => settle(id, 'canceled', reason),
  }
}

export type FakeYooKassa = ReturnType<typeof createFakeYooKassa>

/** The fake as a real HTTP server on a loopback port; `url` is the API base (…/v3). */
export function startFakeYooKassa(opts: Partial<FakeYooKassaOptions> = {}) {
  const fake = createFakeYooKassa({ shopId: opts.shopId ?? '100500', secretKey: opts.secretKey ?? 'test_secret', ...opts })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: fake.fetch })
  return {
    ...fake,
    url: `http://127.0.0.1:${server.port}/v3`,
    /** Sends a notification the way YooKassa does: POST JSON, success only on HTTP 200. */
    async notify(webhookUrl: string, event: string, object: Partial<YooPayment> & { id: string }, headers: Record<string, string> = {}) {
      const res = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ type: 'notification', event, object }),
      })
      await res.arrayBuffer()
      return res.status
    },
    stop: () => server.stop(true),
  }
}
