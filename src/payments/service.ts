// Card top-ups. The rule that keeps the money right: a balance is credited only from the
// provider's own answer to our GET (never from a notification body or a return visit), only when
// it matches our row, and only on the row's single transition pending → succeeded, in the same
// transaction as the ledger row (whose unique reference is a second lock). With several instances
// on one database the same notification may reach all of them at once: each asks the provider,
// and the conditional UPDATE … WHERE status = 'pending' lets exactly one of them credit.

import { eq } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Config } from '../config'
import { SBP, TOP_UP } from '../content/terms'
import { exclusively } from '../db/leases'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { AppError, badRequest, conflict, notFound } from '../lib/errors'
import { formatMicros, formatRubRu, microsToRub } from '../lib/money'
import { LEDGER, postMovement, rearmLowBalance } from '../money'
import { rewardReferral } from '../promo/service'
import { auditIn } from '../teams/service'
import { type AutoOutcome, type AutoSettled, autoTopupSettled } from './auto-topup-store'
import { createFakeYooKassa, type FakeYooKassa } from './fake'
import { isYooKassaAddress } from './ip-ranges'
import { keepSavedMethod } from './methods'
import { describeCancel } from './reasons'
import { type PaymentRow, paymentMethods } from './schema'
import { type PaymentAccount, paymentsStore } from './store'
import { createYooKassaClient, type Receipt, type YooKassaClient, YooKassaError, type YooPayment } from './yookassa'

const MICROS_PER_KOPECK = 10_000

/** Kopecks → '500.00', the provider's amount format. */
const amountValue = (micros: number) => (micros / MICROS_PER_KOPECK / 100).toFixed(2)

/** '500.00' → micro-rubles, exactly (no float maths on the provider's string). */
export function valueToMicros(value: string): number | null {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value)
  if (!m) return null
  return (Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'))) * MICROS_PER_KOPECK
}

const cancelReason = (p: YooPayment) => describeCancel(p.cancellation_details?.reason)

/** The 54-FZ receipt of a top-up (protocols.md §3.2), the same on a payer's payment and on a saved method's charge (§4.4). */
export const receiptFor = (email: string, value: string): Receipt => ({
  customer: { email },
  items: [{ description: 'Пополнение баланса', quantity: '1.00', amount: { value, currency: 'RUB' }, vat_code: 1, payment_subject: 'service', payment_mode: 'full_prepayment' }],
})

export const REVIEW_REASON = 'Платёж на проверке: данные платёжной системы не совпали с заказом. Мы свяжемся с вами.'
export const NOT_CREATED_REASON = 'Платёж не был создан'

export type PaymentsDeps = { db: Db; config: Config }

/** An auto top-up charge whose answer was lost is asked again with its key while YooKassa remembers it (24 h), with a margin. */
const AUTO_KEY_LIFETIME_MS = 23 * 3600_000

/** The lease of reconciliation: one instance at a time asks the provider about stale payments. */
export const RECONCILE_LEASE = 'payments-reconcile'
const RECONCILE_LEASE_MS = 10 * 60_000

/** The provider: real YooKassa, or the built-in test provider in-process. */
function providerFor(config: Config): { client: YooKassaClient; test: FakeYooKassa | null } {
  if (config.yookassaShopId && config.yookassaSecretKey)
    return { client: createYooKassaClient({ apiUrl: config.yookassaApiUrl, shopId: config.yookassaShopId, secretKey: config.yookassaSecretKey }), test: null }
  // The payer is sent to our own test page, on PUBLIC_URL like every link we hand out.
  const test = createFakeYooKassa({
    shopId: 'test-shop',
    secretKey: 'test_built_in',
    confirmationUrl: (id) => `${config.publicUrl}/pay/test/${id}`,
  })
  const client = createYooKassaClient({
    apiUrl: 'http://test-payments.local/v3',
    shopId: 'test-shop',
    secretKey: 'test_built_in',
    fetch: (url, init) => test.fetch(new Request(url, init)),
  })
  return { client, test }
}

export function paymentsService({ db, config }: PaymentsDeps, provider = providerFor(config)) {
  const store = paymentsStore(db)
  const { client, test } = provider
  /** One provider lookup per payment at a time: 20 concurrent notifications cause one GET. */
  const inFlight = new Map<string, Promise<PaymentRow | undefined>>()

  function toApi(r: PaymentRow) {
    return {
      id: r.id,
      amount: microsToRub(r.amountMicros),
      status: r.status,
      description: r.description,
      createdAt: r.createdAt.toISOString(),
      paidAt: r.paidAt?.toISOString() ?? null,
      cancelReason: r.cancelReason,
      test: r.provider === 'test',
      method: r.method,
      auto: r.auto,
    }
  }

  /**
   * Return URLs on PUBLIC_URL only, with our payment id appended. The request's Host header is
   * never consulted: it is whatever the client wrote, and a link built on it could send the payer
   * to someone else's site.
   */
  function returnUrlFor(given: string | undefined, paymentId: string): string {
    const allowed = new URL(config.publicUrl).origin
    let url: URL
    try {
      url = new URL(given || '/app/billing', config.publicUrl)
    } catch {
      throw badRequest('Некорректный адрес возврата')
    }
    if (url.origin !== allowed) throw badRequest('Адрес возврата должен вести на этот сайт')
    url.searchParams.set('payment', paymentId)
    return url.toString()
  }

  /** Checks the provider's object against our row; the reason it does not match, or null. */
  function mismatch(row: PaymentRow, remote: YooPayment): string | null {
    if (remote.id !== row.providerPaymentId) return `id ${remote.id} ≠ ${row.providerPaymentId}`
    if (remote.recipient?.account_id !== client.shopId) return `shop ${remote.recipient?.account_id} ≠ ${client.shopId}`
    if (remote.amount?.currency !== 'RUB') return `currency ${remote.amount?.currency}`
    if (valueToMicros(String(remote.amount?.value)) !== row.amountMicros) return `amount ${remote.amount?.value} ≠ ${amountValue(row.amountMicros)}`
    if (remote.metadata?.payment_id !== row.id) return `metadata.payment_id ${remote.metadata?.payment_id} ≠ ${row.id}`
    return null
  }

  /** Auto top-up charges this process is sending to the provider right now. */
  const charging = new Set<string>()

  /** Who hears that an auto top-up charge ended (payments/auto-topup.ts: the letter), after its unit committed. */
  const autoListeners: Array<(payment: PaymentRow, settled: AutoSettled) => void> = []
  function autoFinished(payment: PaymentRow, settled: AutoSettled) {
    for (const l of autoListeners) {
      try {
        l(payment, settled)
      } catch (e) {
        console.error(`[payments] auto top-up listener failed: ${(e as Error).message}`)
      }
    }
  }

  /**
   * Moves a pending payment to canceled or review; false when it was no longer pending. An auto
   * top-up charge frees its account for the next one (and may turn auto top-up off) in the same unit.
   */
  async function close(
    row: PaymentRow,
    status: 'canceled' | 'review',
    fields: { cancelReason: string; cancellationReason?: string | null },
    outcome: AutoOutcome,
  ): Promise<boolean> {
    if (!row.auto) return store.finish(row.id, status, fields)
    let auto: AutoSettled | null = null
    const closed = await tx(db, async (q) => {
      if (!(await paymentsStore(q).finish(row.id, status, fields))) return false
      auto = await autoTopupSettled(q, row, outcome, config.autoTopupRetrySec)
      return true
    })
    if (closed && auto) autoFinished(row, auto)
    return closed
  }

  /**
   * Charges the saved method of an auto top-up payment (made by payments/auto-topup.ts): no
   * confirmation, the same 54-FZ receipt as any top-up (§4.4), our payment id — derived from the
   * account, the Moscow day and the attempt — as the Idempotence-Key, so a repeat (a 500, a lost
   * answer, another instance) is the same payment. The answer is then looked up and applied like a
   * notification's: the one crediting path.
   */
  async function chargeSaved(row: PaymentRow): Promise<PaymentRow | undefined> {
    // Still being asked by this process (the client repeats an unknown outcome for a few seconds): reconciliation waits its turn.
    if (charging.has(row.id)) return row
    charging.add(row.id)
    try {
      return await chargeSavedOnce(row)
    } finally {
      charging.delete(row.id)
    }
  }

  async function chargeSavedOnce(row: PaymentRow): Promise<PaymentRow | undefined> {
    const [method] = row.paymentMethodId ? await db.select().from(paymentMethods).where(eq(paymentMethods.id, row.paymentMethodId)).limit(1) : []
    const [payer] = await db.select({ email: users.email }).from(users).where(eq(users.id, row.userId)).limit(1)
    if (!method || !payer) {
      await close(row, 'canceled', { cancelReason: NOT_CREATED_REASON }, { kind: 'rejected', message: 'no saved method or payer' })
      return store.byId(row.id)
    }
    const card = {
      last4: method.last4 ?? undefined,
      expiry_month: method.expiryMonth ?? undefined,
      expiry_year: method.expiryYear ?? undefined,
      card_type: method.cardType ?? undefined,
    }
    test?.adoptMethod({ type: method.type, id: method.providerMethodId, saved: true, title: method.title, ...(method.type === 'bank_card' ? { card } : {}) })
    const value = amountValue(row.amountMicros)
    let remote: YooPayment
    try {
      remote = await client.createPayment(
        {
          amount: { value, currency: 'RUB' },
          capture: true,
          payment_method_id: method.providerMethodId,
          description: row.description,
          metadata: { payment_id: row.id, user_id: row.userId, ...(row.teamId ? { team_id: row.teamId } : {}), auto_topup: '1' },
          receipt: receiptFor(payer.email, value),
        },
        row.id,
      )
    } catch (e) {
      if (e instanceof YooKassaError && !e.unknownOutcome) {
        console.error(`[payments] auto top-up ${row.id} refused by the provider: ${e.status} ${e.message}`)
        await close(row, 'canceled', { cancelReason: NOT_CREATED_REASON }, { kind: 'rejected', message: e.message })
        return store.byId(row.id)
      }
      // The outcome is unknown: the row stays pending without the provider's id, and reconciliation asks again with the same key.
      console.error(`[payments] auto top-up ${row.id}: the provider's answer is unknown (${(e as Error).message}); reconciliation repeats it`)
      return row
    }
    await store.accepted(row.id, remote.id, null)
    return refresh({ ...row, providerPaymentId: remote.id })
  }

  /** Applies the provider's answer to our row; the only code that credits a top-up. */
  async function apply(row: PaymentRow, remote: YooPayment): Promise<void> {
    const problem = mismatch(row, remote)
    if (problem) {
      if (await close(row, 'review', { cancelReason: REVIEW_REASON }, { kind: 'review' }))
        console.error(`[payments] ALERT payment ${row.id} (provider ${row.providerPaymentId}) does not match the provider's answer: ${problem}; nothing credited, held for review`)
      return
    }
    if (remote.status === 'succeeded' && remote.paid !== false) {
      const paidAt = remote.captured_at ? new Date(remote.captured_at) : new Date()
      // The transition and the credit in one unit: of concurrent deliveries (on any instance) only the
      // one whose UPDATE … WHERE status = 'pending' returns the row credits; the others change nothing.
      const account = { userId: row.userId, teamId: row.teamId }
      let auto: AutoSettled | null = null
      const credited = await tx(db, async (q) => {
        if (!(await paymentsStore(q).finish(row.id, 'succeeded', { paidAt }))) return false
        // Test-page money must never read as card money, in the ledger as in refunds.
        const entry = row.provider === 'test' ? LEDGER.testTopUp : row.auto ? LEDGER.autoTopUp : row.method === 'sbp' ? LEDGER.sbpTopUp : LEDGER.cardTopUp
        await postMovement(q, {
          ...account,
          type: 'topup',
          amountMicros: row.amountMicros,
          description: entry.description,
          reference: entry.reference(row.id),
        })
        // The method YooKassa saved at the payer's request is kept for the account, once (issue 37).
        if (remote.payment_method?.saved === true && !row.auto) await keepSavedMethod(q, row, remote.payment_method)
        if (row.auto) auto = await autoTopupSettled(q, row, { kind: 'succeeded' }, config.autoTopupRetrySec)
        await rearmLowBalance(q, account)
        if (row.provider !== 'test') await rewardReferral(q, { userId: row.userId, amountMicros: row.amountMicros })
        if (row.teamId)
          await auditIn(q, {
            teamId: row.teamId,
            actorId: row.userId,
            action: 'payment.succeeded',
            target: `${formatMicros(row.amountMicros)} ₽`,
            details: { paymentId: row.id, test: row.provider === 'test', ...(row.auto ? { auto: true } : {}) },
          })
        return true
      })
      if (credited) {
        console.log(
          `[payments] ${row.auto ? 'auto top-up ' : ''}payment ${row.id} succeeded: +${formatMicros(row.amountMicros)} ₽ to ${row.teamId ? `team ${row.teamId} (paid by user ${row.userId})` : `user ${row.userId}`}`,
        )
        if (auto) autoFinished(row, auto)
      }
    } else if (remote.status === 'canceled') {
      const code = remote.cancellation_details?.reason ?? null
      if (await close(row, 'canceled', { cancelReason: cancelReason(remote), cancellationReason: code }, { kind: 'canceled', reason: code }))
        console.log(`[payments] ${row.auto ? 'auto top-up ' : ''}payment ${row.id} canceled (${code})`)
    } else {
      await store.checked(row.id)
    }
  }

  /**
   * The built-in test provider keeps its payments in this process's memory; another instance (or a
   * restart) that meets one of our pending test payments it never saw rebuilds it from our row, so
   * the lookup finds it pending instead of "not found" (which would cancel it).
   */
  function knownToTestProvider(row: PaymentRow) {
    // An auto top-up charge has no payer's page: one this process never saw is "not found", and fails.
    if (!test || row.provider !== 'test' || row.auto || !row.providerPaymentId || row.status !== 'pending' || test.get(row.providerPaymentId)) return
    test.adopt(
      {
        id: row.providerPaymentId,
        status: 'pending',
        paid: false,
        amount: { value: amountValue(row.amountMicros), currency: 'RUB' },
        confirmation: { type: 'redirect', return_url: row.returnUrl, confirmation_url: row.confirmationUrl ?? undefined },
        description: row.description,
        metadata: { payment_id: row.id, user_id: row.userId, ...(row.teamId ? { team_id: row.teamId } : {}) },
        recipient: { account_id: client.shopId, gateway_id: '100700' },
        created_at: row.createdAt.toISOString(),
        ...(row.method === 'sbp' ? { payment_method: { type: 'sbp', id: row.providerPaymentId, saved: false, title: 'СБП' } } : {}),
        test: true,
      },
      { save: row.savePaymentMethod },
    )
  }

  /** Asks the provider about one of our pending payments and applies the answer. */
  async function refresh(row: PaymentRow): Promise<PaymentRow | undefined> {
    if (row.status !== 'pending' || !row.providerPaymentId) return row
    const providerId = row.providerPaymentId
    const running = inFlight.get(providerId)
    if (running) return running
    const job = (async () => {
      knownToTestProvider(row)
      try {
        await apply(row, await client.getPayment(providerId))
      } catch (e) {
        if (e instanceof YooKassaError && e.status === 404)
          await close(row, 'canceled', { cancelReason: 'Платёж не найден в платёжной системе' }, { kind: 'canceled', reason: null })
        else throw e
      }
      return store.byId(row.id)
    })().finally(() => inFlight.delete(providerId))
    inFlight.set(providerId, job)
    return job
  }

  async function reconcileOnce(now: Date): Promise<number> {
    const stale = await store.stalePending(new Date(+now - config.paymentReconcileAfterSec * 1000), 100)
    let settled = 0
    for (const row of stale) {
      if (!row.providerPaymentId) {
        // An auto top-up charge whose answer was lost may exist at YooKassa: it is asked again with the
        // same Idempotence-Key and body (§4.2), which returns that payment, or creates it once.
        if (row.auto && +now - +row.createdAt >= AUTO_KEY_LIFETIME_MS) {
          // YooKassa forgets a key after 24 h: asking again could make a second payment. A person must look.
          console.error(`[payments] ALERT auto top-up ${row.id}: no answer from the provider for a day; closed without asking again — check it in the YooKassa dashboard`)
          await close(row, 'canceled', { cancelReason: NOT_CREATED_REASON }, { kind: 'rejected', message: 'no answer for a day' })
          settled++
        } else if (row.auto) {
          const fresh = await chargeSaved(row).catch((e) => {
            console.error(`[payments] reconcile auto top-up ${row.id}: ${(e as Error).message}`)
            return row
          })
          if (fresh?.status !== 'pending') settled++
        } else await store.finish(row.id, 'canceled', { cancelReason: NOT_CREATED_REASON })
        continue
      }
      const fresh = await refresh(row).catch((e) => {
        console.error(`[payments] reconcile ${row.id}: ${(e as Error).message}`)
        return row
      })
      if (fresh?.status !== 'pending') settled++
    }
    if (settled) console.log(`[payments] reconciliation settled ${settled} payment(s)`)
    return settled
  }

  return {
    mode: test ? ('test' as const) : ('yookassa' as const),

    /** Charges an auto top-up payment's saved method (payments/auto-topup.ts made the row). */
    chargeSaved,

    /** Hears each auto top-up charge that ended, after its unit committed (the letter). */
    onAutoFinished(listener: (payment: PaymentRow, settled: AutoSettled) => void) {
      autoListeners.push(listener)
    },

    /**
     * A top-up of the acting account: the personal balance, or (team context) the team's; the payer
     * is the user. `method` 'sbp' asks YooKassa for an SBP payment (payment_method_data); with
     * `savePaymentMethod` YooKassa saves the card for later payments and auto top-up (cards only).
     */
    async create(
      user: { id: string; email: string; teamId: string | null; teamName: string | null },
      amount: unknown,
      returnUrl: string | undefined,
      opts: { method?: 'card' | 'sbp'; savePaymentMethod?: boolean } = {},
    ) {
      const method = opts.method ?? 'card'
      const save = opts.savePaymentMethod === true
      if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < TOP_UP.minRub) throw badRequest(TOP_UP.minMessage)
      if (amount > TOP_UP.maxRub) throw badRequest(TOP_UP.maxMessage)
      if (method === 'sbp' && amount > SBP.maxRub) throw badRequest(SBP.maxMessage)
      if (method === 'sbp' && save) throw badRequest(SBP.saveMessage)
      const kopecks = Math.round(amount * 100)
      if (Math.abs(kopecks - amount * 100) > 1e-6) throw badRequest('Сумма указывается в рублях с точностью до копейки')
      const micros = kopecks * MICROS_PER_KOPECK
      const id = newId()
      const now = new Date()
      const row: PaymentRow = {
        id,
        userId: user.id,
        teamId: user.teamId,
        amountMicros: micros,
        status: 'pending',
        provider: test ? 'test' : 'yookassa',
        providerPaymentId: null,
        description: user.teamName ? `Пополнение баланса команды «${user.teamName}» на ${formatRubRu(micros)}` : `Пополнение баланса на ${formatRubRu(micros)}`,
        confirmationUrl: null,
        returnUrl: returnUrlFor(returnUrl, id),
        cancelReason: null,
        createdAt: now,
        updatedAt: now,
        paidAt: null,
        checkedAt: null,
        method,
        savePaymentMethod: save,
        paymentMethodId: null,
        auto: false,
        cancellationReason: null,
      }
      await store.insert(row)
      const value = amountValue(micros)
      let remote: YooPayment
      try {
        remote = await client.createPayment(
          {
            amount: { value, currency: 'RUB' },
            capture: true,
            confirmation: { type: 'redirect', return_url: row.returnUrl, locale: 'ru_RU' },
            // SBP: YooKassa's page shows a QR code (desktop) or the banks' apps (mobile); one hour to pay (§4.1).
            ...(method === 'sbp' ? { payment_method_data: { type: 'sbp' } } : {}),
            // Always said, never left out: what omitting it means ("conditional saving") is unconfirmed (§4.2).
            save_payment_method: save,
            description: row.description,
            metadata: { payment_id: id, user_id: user.id, ...(user.teamId ? { team_id: user.teamId } : {}) },
            receipt: receiptFor(user.email, value),
          },
          id,
        )
      } catch (e) {
        await store.finish(id, 'canceled', { cancelReason: NOT_CREATED_REASON })
        console.error(`[payments] create ${id} failed: ${(e as Error).message}`)
        throw new AppError(502, 'Ошибка создания платежа')
      }
      const confirmationUrl = remote.confirmation?.confirmation_url ?? null
      await store.accepted(id, remote.id, confirmationUrl)
      if (!confirmationUrl) {
        await store.finish(id, 'canceled', { cancelReason: NOT_CREATED_REASON })
        throw new AppError(502, 'Ошибка создания платежа')
      }
      return { id, status: 'pending' as const, amount: microsToRub(micros), method, confirmationUrl }
    },

    list: async (a: PaymentAccount, limit = 20) => (await store.list(a, limit)).map(toApi),

    /** Our row, asked about at the provider first while it is pending (the return page polls this). */
    async get(a: PaymentAccount, id: string) {
      const row = await store.byId(id)
      if (!row || (row.teamId ?? null) !== a.teamId || (!a.teamId && row.userId !== a.userId)) throw notFound('Платёж не найден')
      const fresh = await refresh(row).catch((e) => {
        console.error(`[payments] refresh ${id} failed: ${(e as Error).message}`)
        return row
      })
      return toApi(fresh ?? row)
    },

    /**
     * A notification: its body is only a hint of which payment to look up. Answers at once; the
     * lookup runs behind, and a lookup that fails is retried by reconciliation. The same notification
     * reaching several instances at once is answered 200 by each and credited once (apply).
     */
    async notification(body: { event?: unknown; object?: { id?: unknown } }, ip: string): Promise<'accepted' | 'ignored' | 'forbidden'> {
      if (config.yookassaWebhookIpCheck && !isYooKassaAddress(ip)) {
        console.warn(`[payments] notification from ${ip} rejected: not a YooKassa address`)
        return 'forbidden'
      }
      const providerId = body.object?.id
      if (typeof body.event !== 'string' || !body.event.startsWith('payment.') || typeof providerId !== 'string') return 'ignored'
      const row = await store.byProviderId(providerId)
      if (!row) {
        console.warn(`[payments] notification ${body.event} for unknown payment ${providerId.slice(0, 64)} ignored`)
        return 'ignored'
      }
      void refresh(row).catch((e) => console.error(`[payments] notification for ${row.id}: lookup failed, reconciliation will retry: ${(e as Error).message}`))
      return 'accepted'
    },

    /**
     * Asks the provider about payments pending longer than the configured age (lost notifications).
     * One instance at a time does it (a lease); one that finds it taken skips this round. Settling
     * stays exactly-once anyway (apply).
     */
    async reconcile(now = new Date()) {
      const done = await exclusively(db, RECONCILE_LEASE, RECONCILE_LEASE_MS, () => reconcileOnce(now), { wait: false })
      return done.ran ? done.value : 0
    },

    /** The built-in test page: what the payer sees and the two buttons. Absent with real YooKassa. */
    test: test && {
      async view(providerId: string) {
        const row = await store.byProviderId(providerId)
        if (row) knownToTestProvider(row)
        const remote = test.get(providerId)
        if (!remote || !row) throw notFound('Платёж не найден')
        return {
          id: providerId,
          amount: microsToRub(row.amountMicros),
          method: row.method,
          savePaymentMethod: row.savePaymentMethod,
          description: row.description,
          status: remote.status,
          returnUrl: row.returnUrl,
        }
      },
      async complete(providerId: string, outcome: 'pay' | 'cancel') {
        const row = await store.byProviderId(providerId)
        if (row) knownToTestProvider(row)
        const remote = test.get(providerId)
        if (!remote || !row) throw notFound('Платёж не найден')
        if (remote.status !== 'pending') throw conflict('Платёж уже завершён')
        if (outcome === 'pay') test.pay(providerId)
        else test.cancel(providerId, 'test_canceled')
        // The same path a YooKassa notification takes: look the payment up and apply the answer.
        const fresh = await refresh(row)
        return { status: fresh?.status ?? row.status, returnUrl: row.returnUrl }
      },
    },
  }
}

export type PaymentsService = ReturnType<typeof paymentsService>
