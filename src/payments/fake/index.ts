// A YooKassa v3 stand-in that speaks the real wire protocol (Basic auth, Idempotence-Key, payment
// objects, webhooks). In-process it is the built-in test payment provider (no YOOKASSA_SHOP_ID);
// as an HTTP server it is the payment API that tests talk to. Beyond card payments it does what
// providers-and-payments.md §4 describes: SBP (`payment_method_data: {type: "sbp"}`, one-stage only,
// one hour to pay, a redirect or a QR confirmation), saving a method during a payment
// (`save_payment_method` → `payment_method.saved`, the method's id = the payment's id) and charging
// a saved method by `payment_method_id` without the payer, which a test can make end `canceled`
// with a `cancellation_details.reason` of its choice (savedCharges).
import { randomUUID } from 'node:crypto'
import type { CreatePaymentRequest, YooPayment, YooPaymentMethod } from '../yookassa'

export type FakeYooKassaOptions = {
  shopId: string
  secretKey: string
  /** Where the customer is sent to pay; the test provider points it at our /pay/test page. */
  confirmationUrl?: (paymentId: string, returnUrl: string) => string
  /** The largest SBP payment, rubles: 700 000 on the older page, 1 000 000 on a newer one (§4.1); the stricter by default. */
  sbpMaxRub?: number
}

/** The method types YooKassa takes in `payment_method_data` (those that matter here). */
const METHOD_TYPES = new Set(['bank_card', 'sbp', 'yoo_money', 'sberbank', 'tinkoff_bank'])
/** An SBP payment waits this long for the payer, then is canceled (expired_on_confirmation). */
export const SBP_PAY_WINDOW_MS = 3600_000
/** After these a saved method is dead: later charges with it are declined with the same reason (§4.3). */
const KILLS_METHOD = new Set(['card_expired', 'permission_revoked'])

/** The card a payer "types" on the test page unless a test says otherwise. */
export const TEST_CARD = { first6: '555555', last4: '4444', expiry_month: '12', expiry_year: '2030', card_type: 'MasterCard', issuer_country: 'RU' }

/** How the next charge of a saved method ends: at once, pending (a receipt-first shop, §4.2), or canceled with a reason. */
export type SavedChargeOutcome = 'succeeded' | 'pending' | { cancel: string }

type Stored = { fingerprint: string; status: number; body: unknown }

const error = (status: number, code: string, description: string, parameter?: string) =>
  Response.json({ type: 'error', id: randomUUID(), code, description, ...(parameter ? { parameter } : {}) }, { status })

const MONEY = /^\d+\.\d{2}$/
const cents = (value: string) => Math.round(Number(value) * 100)

/** The request checks YooKassa makes that matter to us; a violation is its 400 invalid_request. */
function invalid(req: CreatePaymentRequest, sbpMaxRub: number): [string, string] | null {
  if (!req?.amount || !MONEY.test(String(req.amount.value))) return ['amount.value', 'Amount value must be a string with 2 decimals']
  if (req.amount.currency !== 'RUB') return ['amount.currency', 'Unsupported currency']
  if (cents(req.amount.value) <= 0) return ['amount.value', 'Amount must be positive']
  const data = req.payment_method_data
  if (req.payment_method_id !== undefined) {
    if (typeof req.payment_method_id !== 'string' || !req.payment_method_id) return ['payment_method_id', 'Invalid payment_method_id']
    if (data) return ['payment_method_data', 'payment_method_data cannot be used with payment_method_id']
  } else {
    if (data && (typeof data.type !== 'string' || !METHOD_TYPES.has(data.type))) return ['payment_method_data.type', 'Unsupported payment method type']
    const c = req.confirmation
    if (c?.type === 'qr') {
      if (data?.type !== 'sbp') return ['confirmation.type', 'QR confirmation is only available for SBP here']
    } else if (c?.type !== 'redirect' || !c.return_url) return ['confirmation', 'Redirect confirmation needs return_url']
  }
  if (data?.type === 'sbp') {
    if (req.capture !== true) return ['capture', 'Two-stage payments are not available for SBP']
    if (cents(req.amount.value) > sbpMaxRub * 100) return ['amount.value', `SBP payments are limited to ${sbpMaxRub} RUB`]
  }
  if (req.save_payment_method !== undefined && typeof req.save_payment_method !== 'boolean') return ['save_payment_method', 'save_payment_method must be boolean']
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
  const sbpMaxRub = opts.sbpMaxRub ?? 700_000
  /** Every request received, for assertions. */
  const log: Array<{ method: string; path: string; idempotenceKey: string | null; body: unknown }> = []
  /** Fault injection: the next N creates answer 500, before or after the payment is really created. */
  const faults = { createFailures: 0, failAfterCreate: false }
  /** The payments whose payer asked to save the method (save_payment_method: true). */
  const saveAsked = new Set<string>()
  /** Saved methods by id; `dead` is the reason every later charge is declined with. */
  const methods = new Map<string, { method: YooPaymentMethod; dead?: string }>()
  /** How the next charges of saved methods end, first first; empty: they succeed at once. */
  const savedCharges: SavedChargeOutcome[] = []
  /** The fake's clock runs this much ahead of the real one (an SBP payment's hour passes at once). */
  const clock = { skewMs: 0 }
  const now = () => Date.now() + clock.skewMs

  function settleAs(p: YooPayment, to: 'succeeded' | 'canceled', reason?: string, party = 'yoo_money') {
    if (to === 'succeeded') Object.assign(p, { status: 'succeeded', paid: true, captured_at: new Date(now()).toISOString() })
    else Object.assign(p, { status: 'canceled', paid: false, cancellation_details: { party, reason: reason ?? 'expired_on_confirmation' } })
    delete p.expires_at
  }

  /** A charge of a saved method, without the payer: succeeds, stays pending or is declined (savedCharges). */
  function charge(id: string, payment: YooPayment, saved: { method: YooPaymentMethod; dead?: string }) {
    payment.payment_method = { ...saved.method, saved: true }
    const outcome = saved.dead ? { cancel: saved.dead } : (savedCharges.shift() ?? 'succeeded')
    if (outcome === 'succeeded') settleAs(payment, 'succeeded')
    else if (outcome !== 'pending') {
      settleAs(payment, 'canceled', outcome.cancel, 'payment_network')
      if (KILLS_METHOD.has(outcome.cancel)) saved.dead = outcome.cancel
    }
    payments.set(id, payment)
  }

  function create(req: CreatePaymentRequest): YooPayment {
    const at = now()
    const id = `${at.toString(16).slice(-8)}-000f-5000-8000-${randomUUID().slice(-12)}`
    const payment: YooPayment = {
      id,
      status: 'pending',
      paid: false,
      amount: { value: req.amount.value, currency: req.amount.currency },
      description: req.description,
      metadata: req.metadata ?? {},
      recipient: { account_id: opts.shopId, gateway_id: '100700' },
      created_at: new Date(at).toISOString(),
      test: true,
    }
    if (req.payment_method_id) {
      charge(id, payment, methods.get(req.payment_method_id)!)
      return payment
    }
    const c = req.confirmation!
    payment.confirmation =
      c.type === 'qr'
        ? { type: 'qr', confirmation_data: `https://qr.nspk.test/${id}?type=02&sum=${cents(req.amount.value)}&cur=RUB` }
        : { type: 'redirect', return_url: c.return_url, confirmation_url: opts.confirmationUrl?.(id, c.return_url) ?? `https://yoomoney.test/checkout/${id}` }
    const type = req.payment_method_data?.type
    if (type) payment.payment_method = { type, id, saved: false, ...(type === 'sbp' ? { title: 'СБП' } : {}) }
    if (type === 'sbp') payment.expires_at = new Date(at + SBP_PAY_WINDOW_MS).toISOString()
    if (req.save_payment_method === true) saveAsked.add(id)
    payments.set(id, payment)
    return payment
  }

  /** A pending payment whose time to pay has run out is canceled when next looked at. */
  function current(id: string): YooPayment | undefined {
    const p = payments.get(id)
    if (p?.status === 'pending' && p.expires_at && Date.parse(p.expires_at) <= now()) settleAs(p, 'canceled', 'expired_on_confirmation')
    return p
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
      const problem = invalid(body as CreatePaymentRequest, sbpMaxRub)
      if (problem) return error(400, 'invalid_request', problem[1], problem[0])
      const methodId = (body as CreatePaymentRequest).payment_method_id
      if (methodId && !methods.has(methodId)) return error(400, 'invalid_request', 'Payment method is not saved or does not exist', 'payment_method_id')
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
      const payment = current(decodeURIComponent(match[1]!))
      return payment ? Response.json(payment) : error(404, 'not_found', 'Payment not found')
    }
    return error(404, 'not_found', 'Unknown method')
  }

  /**
   * What the payer does on the provider's page. Paying names the method used (a card unless the
   * payment was made for another); a payer who was asked to save it has it saved, under the payment's id.
   */
  function settle(id: string, to: 'succeeded' | 'canceled', reason?: string, card: Partial<typeof TEST_CARD> = {}): YooPayment | undefined {
    const p = current(id)
    if (p?.status !== 'pending') return p
    // A saved method's pending charge already names its method; a payer's payment learns it now.
    if (to === 'succeeded' && !p.payment_method?.saved) {
      const paidWith = { ...TEST_CARD, ...card }
      p.payment_method ??= { type: 'bank_card', id, saved: false }
      if (p.payment_method.type === 'bank_card') Object.assign(p.payment_method, { title: `Bank card *${paidWith.last4}`, card: paidWith })
      p.payment_method.saved = saveAsked.has(id)
      if (p.payment_method.saved) methods.set(p.payment_method.id, { method: { ...p.payment_method } })
    }
    settleAs(p, to, reason)
    return p
  }

  return {
    fetch: handle,
    payments,
    log,
    faults,
    /** Saved methods by id (a test may look, or mark one `dead`). */
    methods,
    /** How the next charges of saved methods end: push `{ cancel: 'card_expired' }`, 'pending', … */
    savedCharges,
    clock,
    get: (id: string) => current(id),
    /** Takes in a payment created elsewhere (another instance's test provider), unless already known. */
    adopt: (payment: YooPayment, opts: { save?: boolean } = {}) => {
      if (payments.has(payment.id)) return
      payments.set(payment.id, payment)
      if (opts.save) saveAsked.add(payment.id)
    },
    /** Takes in a method saved elsewhere (another instance's test provider), unless already known. */
    adoptMethod: (method: YooPaymentMethod) => {
      if (!methods.has(method.id)) methods.set(method.id, { method: { ...method, saved: true } })
    },
    pay: (id: string, card?: Partial<typeof TEST_CARD>) => settle(id, 'succeeded', undefined, card),
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
