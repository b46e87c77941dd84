// Auto top-up (issue 37): when an account's available balance (balance − held) falls below the
// threshold its owner chose, one payment of the chosen amount is charged to a saved card — no
// confirmation, a 54-FZ receipt, credited through the payments' one exactly-once path — at most one
// in flight per account and never more than the daily limit a Moscow day.
//
// Where the check runs: after every settlement that charged money (money watchSpending) — the hot
// path pays nothing for accounts without auto top-up: an in-memory set of enabled accounts filters
// first (refreshed on PUT, and from the database on every tick, so another instance's change arrives
// within a tick) — and on the periodic tick (accounts waiting for a retry, or below the threshold
// with no requests coming). Concurrent triggers on any number of instances charge once: the charge is
// claimed by one conditional UPDATE on the row's version (auto-topup-store.ts), and its payment id —
// the Idempotence-Key — is derived from the account, the Moscow day and the attempt number.

import { and, eq, inArray, isNull } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Config } from '../config'
import { TOP_UP } from '../content/terms'
import { exclusively } from '../db/leases'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { sha256 } from '../lib/crypto'
import { badRequest, isUniqueViolation } from '../lib/errors'
import { formatRubRu, kopeckExactMicros, microsToRub } from '../lib/money'
import type { Mailer } from '../mail/service'
import { autoTopupLetter } from '../mail/templates'
import { type AccountRef, moscowDateTimeRu, moscowDay, moscowDayStart, watchSpending } from '../money'
import { teamMembers, teams } from '../teams/schema'
import { auditIn } from '../teams/service'
import { type AutoSettled, type AutoTopupRow, accountKey, autoTopupsStore } from './auto-topup-store'
import { methodLabel } from './methods'
import { AUTO_TOPUP_FAILURES_A_DAY } from './reasons'
import { type PaymentRow, paymentMethods, payments as paymentRows } from './schema'
import type { PaymentsService } from './service'
import { type PaymentAccount, paymentsStore } from './store'

/** What an account that never set it up is shown. */
export const AUTO_TOPUP_DEFAULTS = { thresholdRub: 100, amountRub: 1000, dailyLimitRub: 3000 } as const
/** The largest daily limit, rubles. */
export const AUTO_TOPUP_MAX_DAILY_RUB = 10_000_000

export const AUTO_TOPUP_MESSAGES = {
  threshold: 'Порог — число от 1 до 1 000 000 ₽, до копейки',
  amount: `Сумма автопополнения — от ${TOP_UP.minRub} до 1 000 000 ₽, до копейки`,
  dailyLimit: 'Дневной лимит — не меньше суммы автопополнения и не больше 10 000 000 ₽',
  method: 'Выберите сохранённую карту этого счёта',
  methodRequired: 'Чтобы включить автопополнение, выберите сохранённую карту',
} as const

/** A lease: one instance at a time sweeps the accounts that may need a charge. */
const SWEEP_LEASE = 'auto-topup-sweep'
const SWEEP_LEASE_MS = 5 * 60_000

/** The payment id (and YooKassa Idempotence-Key, ≤ 64 characters) of an account's attempt of a day. */
export const autoPaymentId = (key: string, day: string, attempt: number) => `auto-${day.replaceAll('-', '')}-${attempt}-${sha256(`${key}|${day}|${attempt}`).slice(0, 24)}`

/** Rubles (a number, to the kopeck, within [min, max]) → micro-rubles; null when it is not. */
const rubles = kopeckExactMicros

export type AutoTopupBody = { enabled: boolean; thresholdRub?: unknown; amountRub?: unknown; paymentMethodId?: unknown; dailyLimitRub?: unknown }

export function autoTopupService({ db, config, mailer, payments }: { db: Db; config: Config; mailer: Mailer; payments: PaymentsService }) {
  const store = autoTopupsStore(db)
  const money = paymentsStore(db)
  /** Where the letters go: a team's owners, a user's address (deleted accounts get none). */
  const team = {
    emailsOf: async (teamId: string, roles: Array<'owner' | 'admin'>) =>
      (
        await db
          .select({ email: users.email })
          .from(teamMembers)
          .innerJoin(users, eq(users.id, teamMembers.userId))
          .where(and(eq(teamMembers.teamId, teamId), inArray(teamMembers.role, roles), isNull(users.deletedAt)))
      ).map((r) => r.email),
    userEmail: async (userId: string) =>
      (
        await db
          .select({ email: users.email })
          .from(users)
          .where(and(eq(users.id, userId), isNull(users.deletedAt)))
          .limit(1)
      )[0]?.email,
  }
  /** Accounts whose auto top-up is on: the hot path's only question. */
  const enabled = new Set<string>()
  /** Checks running in this process, and accounts charged again meanwhile (checked once more after). */
  const running = new Set<string>()
  const again = new Set<string>()

  async function refreshEnabled() {
    const keys = await store.enabledKeys()
    enabled.clear()
    for (const k of keys) enabled.add(k)
  }
  const loaded = refreshEnabled().catch((e) => console.error(`[auto-topup] loading the enabled accounts failed: ${(e as Error).message}`))

  function toApi(row: AutoTopupRow | undefined, now = new Date()) {
    if (!row)
      return {
        enabled: false,
        ...AUTO_TOPUP_DEFAULTS,
        paymentMethodId: null,
        disabledReason: null,
        chargedTodayRub: 0,
        failuresToday: 0,
        retryAfter: null,
        pendingPaymentId: null,
      }
    const today = row.day === moscowDay(now)
    return {
      enabled: row.enabled,
      thresholdRub: microsToRub(row.thresholdMicros),
      amountRub: microsToRub(row.amountMicros),
      dailyLimitRub: microsToRub(row.dailyLimitMicros),
      paymentMethodId: row.paymentMethodId,
      disabledReason: row.disabledReason,
      chargedTodayRub: today ? microsToRub(row.chargedTodayMicros) : 0,
      failuresToday: today ? row.failuresToday : 0,
      retryAfter: row.retryAfter && +row.retryAfter > +now ? row.retryAfter.toISOString() : null,
      pendingPaymentId: row.pendingPaymentId,
    }
  }

  /** The account's name in a payment's description and a letter. */
  async function teamName(teamId: string) {
    const [t] = await db.select({ name: teams.name }).from(teams).where(eq(teams.id, teamId)).limit(1)
    return t?.name ?? ''
  }

  /** Turns it off by itself before any charge (the card is gone): the row says why, the owner gets a letter. */
  async function disableBeforeCharge(a: PaymentAccount, row: AutoTopupRow, reason: string) {
    const now = new Date()
    const done = await tx(db, async (q) => {
      const off = await store.disable(q, row.accountKey, reason, now)
      if (off && a.teamId) await auditIn(q, { teamId: a.teamId, actorId: null, action: 'autotopup.disabled', target: reason })
      return off
    })
    enabled.delete(row.accountKey)
    if (done) console.warn(`[auto-topup] ${row.accountKey} turned off: ${reason}`)
  }

  /** The decision and, for the one caller that claims it, the charge. */
  async function check(a: PaymentAccount, now = new Date()) {
    const key = accountKey(a)
    const row = await store.get(key)
    if (!row?.enabled) {
      enabled.delete(key)
      return
    }
    if (row.pendingPaymentId || !row.paymentMethodId) return
    if (row.retryAfter && +row.retryAfter > +now) return
    const today = moscowDay(now)
    const used = row.day === today ? row.chargedTodayMicros : 0
    const failures = row.day === today ? row.failuresToday : 0
    if (failures >= AUTO_TOPUP_FAILURES_A_DAY || used + row.amountMicros > row.dailyLimitMicros) return
    if ((await money.available(a)) >= row.thresholdMicros) return
    const [method] = await db
      .select()
      .from(paymentMethods)
      .where(and(eq(paymentMethods.id, row.paymentMethodId), isNull(paymentMethods.deletedAt)))
      .limit(1)
    if (!method) return disableBeforeCharge(a, row, 'Карта для автопополнения удалена')
    const [payer] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, method.userId), isNull(users.deletedAt)))
      .limit(1)
    if (!payer) return disableBeforeCharge(a, row, 'Аккаунт, к которому привязана карта, удалён')
    const attempt = (await store.autoPaymentsSince(a, moscowDayStart(today))) + 1
    const id = autoPaymentId(key, today, attempt)
    const name = a.teamId ? (await teamName(a.teamId)).slice(0, 60) : null
    const payment: PaymentRow = {
      id,
      userId: method.userId,
      teamId: a.teamId,
      amountMicros: row.amountMicros,
      status: 'pending',
      provider: payments.mode === 'test' ? 'test' : 'yookassa',
      providerPaymentId: null,
      description: name ? `Автопополнение баланса команды «${name}» на ${formatRubRu(row.amountMicros)}` : `Автопополнение баланса на ${formatRubRu(row.amountMicros)}`,
      confirmationUrl: null,
      returnUrl: `${config.publicUrl}/app/billing`,
      cancelReason: null,
      createdAt: now,
      updatedAt: now,
      paidAt: null,
      checkedAt: null,
      method: 'saved',
      savePaymentMethod: false,
      paymentMethodId: method.id,
      auto: true,
      cancellationReason: null,
    }
    const claimed = await tx(db, async (q) => {
      if (!(await store.claim(q, key, row.updatedAt, id, today, used + row.amountMicros, failures, now))) return false
      await q.insert(paymentRows).values(payment)
      return true
    }).catch((e) => {
      if (isUniqueViolation(e)) return false // the same attempt made elsewhere
      throw e
    })
    if (!claimed) return
    console.log(
      `[auto-topup] ${key}: available balance below ${formatRubRu(row.thresholdMicros)}; charging ${formatRubRu(row.amountMicros)} (payment ${id}, attempt ${attempt} today)`,
    )
    await payments.chargeSaved(payment)
  }

  /**
   * Checks an account (never awaited by a request). One check per account at a time in this
   * process; settlements meanwhile make it look once more when it is done.
   */
  function trigger(a: AccountRef) {
    const key = accountKey(a)
    if (!enabled.has(key)) return
    if (running.has(key)) {
      again.add(key)
      return
    }
    running.add(key)
    void (async () => {
      try {
        do {
          again.delete(key)
          await check({ userId: a.userId, teamId: a.teamId })
        } while (again.has(key))
      } catch (e) {
        console.error(`[auto-topup] ${key}: ${(e as Error).message}`)
      } finally {
        running.delete(key)
        again.delete(key)
      }
    })()
  }

  watchSpending(db, trigger)

  /** The owner's letter when a charge ended (a team's owners; the card's holder as well when not one of them). */
  async function letter(payment: PaymentRow, settled: AutoSettled) {
    const [method] = payment.paymentMethodId ? await db.select().from(paymentMethods).where(eq(paymentMethods.id, payment.paymentMethodId)).limit(1) : []
    const to = new Set<string>()
    let account: string
    if (payment.teamId) {
      for (const e of await team.emailsOf(payment.teamId, ['owner'])) to.add(e)
      account = `команды «${await teamName(payment.teamId)}»`
    } else {
      const email = await team.userEmail(payment.userId)
      if (email) to.add(email)
      account = `аккаунта ${email ?? ''}`.trim()
    }
    if (settled.outcome.kind !== 'succeeded' && payment.teamId) {
      const holder = await team.userEmail(payment.userId)
      if (holder) to.add(holder)
    }
    const link = `${config.publicUrl}/app/billing${payment.teamId ? `?team=${payment.teamId}` : ''}`
    await Promise.all(
      [...to].map((email) =>
        mailer
          .send(
            autoTopupLetter(email, {
              account,
              amountMicros: payment.amountMicros,
              method: method ? methodLabel(method) : 'сохранённая карта',
              outcome: settled.outcome.kind === 'succeeded' ? 'succeeded' : 'failed',
              reason: settled.reason,
              disabled: settled.disabled,
              retryAt: settled.retryAt ? moscowDateTimeRu(+settled.retryAt) : null,
              methodForgotten: settled.methodForgotten,
              billingLink: link,
            }),
          )
          .catch((e) => console.error(`[auto-topup] letter to ${email} not sent: ${(e as Error).message}`)),
      ),
    )
  }

  payments.onAutoFinished((payment, settled) => {
    const key = accountKey(payment)
    if (settled.disabled) enabled.delete(key)
    if (settled.outcome.kind === 'succeeded') {
      console.log(`[auto-topup] ${key}: payment ${payment.id} credited`)
      // Still below the threshold (a small amount, a busy account)? Look again, within the day's limit.
      trigger({ userId: payment.userId, teamId: payment.teamId })
    } else console.warn(`[auto-topup] ${key}: payment ${payment.id} failed (${settled.reason}); ${settled.disabled ? 'turned off' : `next try ${settled.retryAt?.toISOString()}`}`)
    void letter(payment, settled).catch((e) => console.error(`[auto-topup] letter for ${payment.id}: ${(e as Error).message}`))
  })

  /** One instance at a time: the accounts that may need a charge now (a retry is due, or no requests come). */
  async function sweepOnce(now: Date) {
    const due = await store.due(now, 200)
    for (const a of due) await check({ userId: a.userId, teamId: a.teamId }, now).catch((e) => console.error(`[auto-topup] sweep ${a.teamId ?? a.userId}: ${(e as Error).message}`))
    return due.length
  }

  return {
    /** Resolves once the enabled accounts were first read (tests). */
    loaded,
    trigger,

    async get(a: PaymentAccount) {
      return toApi(await store.get(accountKey(a)))
    },

    /** Sets the account's auto top-up; turning it on clears why it was off, and checks the balance at once. */
    async put(a: PaymentAccount & { ip?: string }, body: AutoTopupBody) {
      const key = accountKey(a)
      const current = await store.get(key)
      const pick = (given: unknown, stored: number | undefined, fallback: number) => (given === undefined ? (stored === undefined ? fallback : microsToRub(stored)) : given)
      const threshold = rubles(pick(body.thresholdRub, current?.thresholdMicros, AUTO_TOPUP_DEFAULTS.thresholdRub), 1, 1_000_000)
      if (threshold === null) throw badRequest(AUTO_TOPUP_MESSAGES.threshold)
      const amount = rubles(pick(body.amountRub, current?.amountMicros, AUTO_TOPUP_DEFAULTS.amountRub), TOP_UP.minRub, 1_000_000)
      if (amount === null) throw badRequest(AUTO_TOPUP_MESSAGES.amount)
      const daily = rubles(pick(body.dailyLimitRub, current?.dailyLimitMicros, Math.max(AUTO_TOPUP_DEFAULTS.dailyLimitRub, microsToRub(amount))), 1, AUTO_TOPUP_MAX_DAILY_RUB)
      if (daily === null || daily < amount) throw badRequest(AUTO_TOPUP_MESSAGES.dailyLimit)
      const methodId = body.paymentMethodId === undefined ? (current?.paymentMethodId ?? null) : body.paymentMethodId
      if (methodId !== null && typeof methodId !== 'string') throw badRequest(AUTO_TOPUP_MESSAGES.method)
      if (methodId !== null) {
        const [m] = await db
          .select({ id: paymentMethods.id })
          .from(paymentMethods)
          .where(
            and(
              eq(paymentMethods.id, methodId.slice(0, 64)),
              isNull(paymentMethods.deletedAt),
              a.teamId ? eq(paymentMethods.teamId, a.teamId) : and(eq(paymentMethods.userId, a.userId), isNull(paymentMethods.teamId)),
            ),
          )
          .limit(1)
        if (!m) throw badRequest(AUTO_TOPUP_MESSAGES.method)
      }
      if (body.enabled && methodId === null) throw badRequest(AUTO_TOPUP_MESSAGES.methodRequired)
      const now = new Date()
      const saved = await tx(db, async (q) => {
        const row = await store.put(
          q,
          {
            accountKey: key,
            userId: a.userId,
            teamId: a.teamId,
            enabled: body.enabled,
            thresholdMicros: threshold,
            amountMicros: amount,
            dailyLimitMicros: daily,
            paymentMethodId: methodId,
            // Turned on again by a person: why it was off no longer applies, nor does a wait for a retry.
            disabledReason: body.enabled ? null : (current?.disabledReason ?? null),
            retryAfter: body.enabled ? null : (current?.retryAfter ?? null),
            updatedAt: now,
          },
          now,
        )
        if (a.teamId)
          await auditIn(q, {
            teamId: a.teamId,
            actorId: a.userId,
            action: body.enabled ? 'autotopup.enabled' : 'autotopup.disabled',
            target: body.enabled ? `${formatRubRu(amount)} при балансе ниже ${formatRubRu(threshold)}` : null,
            ip: a.ip ?? null,
            details: { thresholdRub: microsToRub(threshold), amountRub: microsToRub(amount), dailyLimitRub: microsToRub(daily), paymentMethodId: methodId },
          })
        return row
      })
      if (saved.enabled) {
        enabled.add(key)
        trigger({ userId: a.userId, teamId: a.teamId })
      } else enabled.delete(key)
      return toApi(saved)
    },

    /** The periodic tick: every instance refreshes its filter; one sweeps the accounts that may need a charge. */
    async tick(now = new Date()) {
      await refreshEnabled()
      const done = await exclusively(db, SWEEP_LEASE, SWEEP_LEASE_MS, () => sweepOnce(now), { wait: false })
      return done.ran ? done.value : 0
    },
  }
}

export type AutoTopupService = ReturnType<typeof autoTopupService>

/** A saved method was deleted (inside the deleting unit): the auto top-up charging it is turned off, and a team's audit log says so. */
export async function methodRemoved(q: Db, a: PaymentAccount & { ip?: string }, method: { id: string }) {
  const off = await autoTopupsStore(q).methodRemoved(q, method.id, new Date())
  if (a.teamId && off.length) await auditIn(q, { teamId: a.teamId, actorId: a.userId, action: 'autotopup.disabled', target: 'Карта для автопополнения удалена', ip: a.ip ?? null })
}
