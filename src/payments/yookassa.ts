// Client for YooKassa API v3 (reference/protocols.md §3). Without YOOKASSA_SHOP_ID it talks
// in-process to the built-in test provider, which implements the same API (payments/fake).
import type { FetchLike } from '../upstream/client'

export type Amount = { value: string; currency: string }

/** The payment object as YooKassa returns it (the fields we read). */
export type YooPayment = {
  id: string
  status: 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled'
  paid?: boolean
  amount: Amount
  confirmation?: { type: string; confirmation_url?: string; return_url?: string; confirmation_data?: string }
  description?: string
  metadata?: Record<string, string>
  recipient?: { account_id?: string; gateway_id?: string }
  cancellation_details?: { party?: string; reason?: string }
  /**
   * How it was paid (providers-and-payments.md §4.2): present once the payer chose a method (at
   * creation when `payment_method_data` or `payment_method_id` named one). `saved: true` means the
   * method may be charged again by its `id` (which equals the id of the payment that saved it).
   */
  payment_method?: YooPaymentMethod
  created_at?: string
  captured_at?: string
  /** When a pending payment lapses (an SBP payment: one hour to pay). */
  expires_at?: string
  test?: boolean
}

/** The payment method object (the fields we read): never a full card number, only its last four digits. */
export type YooPaymentMethod = {
  type: string
  id: string
  saved: boolean
  title?: string
  card?: { first6?: string; last4?: string; expiry_month?: string; expiry_year?: string; card_type?: string; issuer_country?: string; issuer_name?: string }
}

export type Receipt = {
  customer: { email: string }
  items: Array<{ description: string; quantity: string; amount: Amount; vat_code: number; payment_subject: string; payment_mode: string }>
}

/**
 * POST /v3/payments. A payer-confirmed payment has a redirect `confirmation` (and, for SBP,
 * `payment_method_data: {type: 'sbp'}`); a charge of a saved method has `payment_method_id` and no
 * confirmation (§4.2).
 */
export type CreatePaymentRequest = {
  amount: Amount
  capture: boolean
  confirmation?: { type: 'redirect'; return_url: string; locale?: 'ru_RU' | 'en_US' } | { type: 'qr'; locale?: 'ru_RU' | 'en_US' }
  payment_method_data?: { type: string }
  save_payment_method?: boolean
  payment_method_id?: string
  description: string
  metadata: Record<string, string>
  receipt: Receipt
}

/** An error answer: `status` 0 means the network failed and the outcome is unknown. */
export class YooKassaError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message)
  }
  /** 500 and network failures leave the result unknown: repeat with the same Idempotence-Key. */
  get unknownOutcome() {
    return this.status === 0 || this.status >= 500
  }
}

export type YooKassaClient = ReturnType<typeof createYooKassaClient>

export function createYooKassaClient(opts: {
  apiUrl: string
  shopId: string
  secretKey: string
  fetch?: FetchLike
  /** Pauses between repeats of a create whose outcome is unknown (the docs suggest repeating). */
  retryDelaysMs?: number[]
}) {
  const doFetch = opts.fetch ?? ((url, init) => fetch(url, init))
  const auth = `Basic ${Buffer.from(`${opts.shopId}:${opts.secretKey}`).toString('base64')}`
  const delays = opts.retryDelaysMs ?? [300, 1000, 3000]

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, idempotenceKey?: string): Promise<T> {
    let res: Response
    try {
      res = await doFetch(opts.apiUrl + path, {
        method,
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          ...(idempotenceKey ? { 'idempotence-key': idempotenceKey } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(35_000),
      })
    } catch (e) {
      throw new YooKassaError(0, undefined, `network: ${(e as Error).message}`)
    }
    const text = await res.text()
    let json: unknown
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    if (!res.ok) {
      const error = json as { code?: string; description?: string } | null | undefined // YooKassa's error body, when there is one
      throw new YooKassaError(res.status, error?.code, error?.description ?? (text.slice(0, 200) || res.statusText))
    }
    if (!json || typeof json !== 'object') throw new YooKassaError(502, undefined, 'answer is not JSON')
    return json as T
  }

  return {
    shopId: opts.shopId,

    /** Creates a payment; an unknown outcome is repeated with the same key, so at most one payment exists. */
    async createPayment(req: CreatePaymentRequest, idempotenceKey: string): Promise<YooPayment> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await call<YooPayment>('POST', '/payments', req, idempotenceKey)
        } catch (e) {
          if (!(e instanceof YooKassaError) || !e.unknownOutcome || attempt >= delays.length) throw e
          await Bun.sleep(delays[attempt]!)
        }
      }
    },

    getPayment(id: string): Promise<YooPayment> {
      return call<YooPayment>('GET', `/payments/${encodeURIComponent(id)}`)
    },
  }
}
