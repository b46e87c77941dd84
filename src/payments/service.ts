// Card top-ups. The rule that keeps the money right: a balance is credited only from the
// provider's own answer to our GET (never from a notification body or a return visit), only when
// it matches our row, and only on the row's single transition pending → succeeded, in the same
// transaction as the ledger row (whose unique reference is a second lock). With several instances
// on one database the same notification may reach all of them at once: each asks the provider,
// and the conditional UPDATE … WHERE status = 'pending' lets exactly one of them credit.

import type { Config } from '../config'
import { TOP_UP } from '../content/terms'
import { exclusively } from '../db/leases'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { AppError, badRequest, conflict, notFound } from '../lib/errors'
import { formatMicros, formatRubRu, microsToRub } from '../lib/money'
import { LEDGER, postMovement, rearmLowBalance } from '../money'
import { auditIn } from '../teams/service'
import { createFakeYooKassa, type FakeYooKassa } from './fake'
import { isYooKassaAddress } from './ip-ranges'
import type { PaymentRow } from './schema'
import { type PaymentAccount, paymentsStore } from './store'
import { createYooKassaClient, type YooKassaClient, YooKassaError, type YooPayment } from './yookassa'

const MICROS_PER_KOPECK = 10_000

/** Kopecks → '500.00', the provider's amount format. */
const amountValue = (micros: number) => (micros / MICROS_PER_KOPECK / 100).toFixed(2)

/** '500.00' → micro-rubles, exactly (no float maths on the provider's string). */
export function valueToMicros(value: string): number | null {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value)
  if (!m) return null
  return (Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'))) * MICROS_PER_KOPECK
}

const CANCEL_REASONS: Record<string, string> = {
  expired_on_confirmation: 'Время на оплату истекло',
  insufficient_funds: 'Недостаточно средств на карте',
  card_expired: 'Истёк срок действия карты',
  '3d_secure_failed': 'Не пройдена проверка 3-D Secure',
  call_issuer: 'Банк отклонил платёж: обратитесь в банк, выпустивший карту',
  fraud_suspected: 'Платёж отклонён из-за подозрения в мошенничестве',
  general_decline: 'Банк отклонил платёж',
  payment_method_limit_exceeded: 'Превышен лимит платежей по карте',
  payment_method_restricted: 'Операции по этой карте запрещены',
  canceled_by_merchant: 'Платёж отменён магазином',
  test_canceled: 'Оплата отменена на тестовой странице',
}
const cancelReason = (p: YooPayment) => CANCEL_REASONS[p.cancellation_details?.reason ?? ''] ?? 'Платёж отменён'

export const REVIEW_REASON = 'Платёж на проверке: данные платёжной системы не совпали с заказом. Мы свяжемся с вами.'
export const NOT_CREATED_REASON = 'Платёж не был создан'

export type PaymentsDeps = { db: Db; config: Config }

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

  /** Applies the provider's answer to our row; the only code that credits a top-up. */
  async function apply(row: PaymentRow, remote: YooPayment): Promise<void> {
    const problem = mismatch(row, remote)
    if (problem) {
      if (await store.finish(row.id, 'review', { cancelReason: REVIEW_REASON }))
        console.error(`[payments] ALERT payment ${row.id} (provider ${row.providerPaymentId}) does not match the provider's answer: ${problem}; nothing credited, held for review`)
      return
    }
    if (remote.status === 'succeeded' && remote.paid !== false) {
      const paidAt = remote.captured_at ? new Date(remote.captured_at) : new Date()
      // The transition and the credit in one unit: of concurrent deliveries (on any instance) only the
      // one whose UPDATE … WHERE status = 'pending' returns the row credits; the others change nothing.
      const account = { userId: row.userId, teamId: row.teamId }
      const credited = await tx(db, async (q) => {
        if (!(await paymentsStore(q).finish(row.id, 'succeeded', { paidAt }))) return false
        await postMovement(q, {
          ...account,
          type: 'topup',
          amountMicros: row.amountMicros,
          // Test-page money must never read as card money, in the ledger as in refunds.
          description: row.provider === 'test' ? LEDGER.testTopUp.description : LEDGER.cardTopUp.description,
          reference: (row.provider === 'test' ? LEDGER.testTopUp : LEDGER.cardTopUp).reference(row.id),
        })
        await rearmLowBalance(q, account)
        if (row.teamId)
          await auditIn(q, {
            teamId: row.teamId,
            actorId: row.userId,
            action: 'payment.succeeded',
            target: `${formatMicros(row.amountMicros)} ₽`,
            details: { paymentId: row.id, test: row.provider === 'test' },
          })
        return true
      })
      if (credited)
        console.log(
          `[payments] payment ${row.id} succeeded: +${formatMicros(row.amountMicros)} ₽ to ${row.teamId ? `team ${row.teamId} (paid by user ${row.userId})` : `user ${row.userId}`}`,
        )
    } else if (remote.status === 'canceled') {
      if (await store.finish(row.id, 'canceled', { cancelReason: cancelReason(remote) }))
        console.log(`[payments] payment ${row.id} canceled (${remote.cancellation_details?.reason})`)
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
    if (!test || row.provider !== 'test' || !row.providerPaymentId || row.status !== 'pending' || test.get(row.providerPaymentId)) return
    test.adopt({
      id: row.providerPaymentId,
      status: 'pending',
      paid: false,
      amount: { value: amountValue(row.amountMicros), currency: 'RUB' },
      confirmation: { type: 'redirect', return_url: row.returnUrl, confirmation_url: row.confirmationUrl ?? undefined },
      description: row.description,
      metadata: { payment_id: row.id, user_id: row.userId, ...(row.teamId ? { team_id: row.teamId } : {}) },
      recipient: { account_id: client.shopId, gateway_id: '100700' },
      created_at: row.createdAt.toISOString(),
      test: true,
    })
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
        if (e instanceof YooKassaError && e.status === 404) await store.finish(row.id, 'canceled', { cancelReason: 'Платёж не найден в платёжной системе' })
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
        await store.finish(row.id, 'canceled', { cancelReason: NOT_CREATED_REASON })
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

    /** A top-up of the acting account: the personal balance, or (team context) the team's; the payer is the user. */
    async create(user: { id: string; email: string; teamId: string | null; teamName: string | null }, amount: unknown, returnUrl: string | undefined) {
      if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < TOP_UP.minRub) throw badRequest(TOP_UP.minMessage)
      if (amount > TOP_UP.maxRub) throw badRequest(TOP_UP.maxMessage)
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
        method: 'card',
        savePaymentMethod: false,
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
            description: row.description,
            metadata: { payment_id: id, user_id: user.id, ...(user.teamId ? { team_id: user.teamId } : {}) },
            receipt: {
              customer: { email: user.email },
              items: [
                {
                  description: 'Пополнение баланса',
                  quantity: '1.00',
                  amount: { value, currency: 'RUB' },
                  vat_code: 1,
                  payment_subject: 'service',
                  payment_mode: 'full_prepayment',
                },
              ],
            },
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
      return { id, status: 'pending' as const, amount: microsToRub(micros), confirmationUrl }
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
        return { id: providerId, amount: microsToRub(row.amountMicros), description: row.description, status: remote.status, returnUrl: row.returnUrl }
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
