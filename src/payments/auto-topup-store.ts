// The statements of auto top-up (issue 37): one row per account (auto_topups, keyed `user:<id>` or
// `team:<id>`). Every change bumps `updated_at` strictly upwards, so the row's `updated_at` is its
// version: a charge is claimed only by an UPDATE that names the version its decision was made on
// (and no payment in flight) — of concurrent triggers, on any number of instances, one wins, and a
// decision made on a row someone has changed since (a charge that just succeeded, new settings) is void.
import { and, count, eq, gte, isNull, lte, or, type SQL, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/types'
import { moscowDay, moscowDayStart, nextDay } from '../money'
import { teams } from '../teams/schema'
import { auditIn } from '../teams/service'
import { AUTO_TOPUP_FAILURES_A_DAY, describeCancel, METHOD_DEAD_REASONS, PERMANENT_REASONS } from './reasons'
import { autoTopups, type PaymentRow, paymentMethods, payments } from './schema'
import type { PaymentAccount } from './store'

export type AutoTopupRow = typeof autoTopups.$inferSelect

/** The row's key: `user:<id>` for a personal account, `team:<id>` for a team's. */
export const accountKey = (a: { userId: string; teamId: string | null }) => (a.teamId ? `team:${a.teamId}` : `user:${a.userId}`)

/** A timestamp that only grows: now, or one past the row's when the clocks of two instances disagree. */
const bump = (now: Date) => sql`case when ${now.getTime()} > ${autoTopups.updatedAt} then ${now.getTime()} else ${autoTopups.updatedAt} + 1 end`

/** How an auto top-up charge ended. `rejected`: YooKassa refused the request itself (a 4xx): nothing will change by retrying. */
export type AutoOutcome = { kind: 'succeeded' } | { kind: 'canceled'; reason: string | null } | { kind: 'rejected'; message: string } | { kind: 'review' }

/** What the end of a charge did to the account's auto top-up (the letter says it). */
export type AutoSettled = {
  outcome: AutoOutcome
  /** The customer's sentence for why it failed; null on success. */
  reason: string | null
  /** Turned off by this failure (its reason is `reason`). */
  disabled: boolean
  /** The next try, after a temporary failure. */
  retryAt: Date | null
  /** The saved method's id is dead (card_expired, permission_revoked): it was forgotten. */
  methodForgotten: boolean
}

export const REVIEW_DISABLED = 'Платёж автопополнения задержан для проверки: данные платёжной системы не совпали с заказом'
export const REJECTED_DISABLED = 'Платёжная система не приняла списание с сохранённой карты'

export const autoTopupsStore = (db: Db) => ({
  get: async (key: string) => (await db.select().from(autoTopups).where(eq(autoTopups.accountKey, key)).limit(1))[0],

  /** Creates or replaces the account's settings; returns the row. */
  async put(q: Db, row: Omit<AutoTopupRow, 'chargedTodayMicros' | 'failuresToday' | 'pendingPaymentId' | 'day'>, now: Date): Promise<AutoTopupRow> {
    const [saved] = await q
      .insert(autoTopups)
      .values({ ...row, chargedTodayMicros: 0, failuresToday: 0, pendingPaymentId: null, day: null })
      .onConflictDoUpdate({
        target: autoTopups.accountKey,
        set: {
          userId: row.userId,
          enabled: row.enabled,
          thresholdMicros: row.thresholdMicros,
          amountMicros: row.amountMicros,
          dailyLimitMicros: row.dailyLimitMicros,
          paymentMethodId: row.paymentMethodId,
          disabledReason: row.disabledReason,
          retryAfter: row.retryAfter,
          updatedAt: bump(now),
        },
      })
      .returning()
    return saved!
  },

  /** The keys of the accounts whose auto top-up is on (the hot path's filter). */
  enabledKeys: async () => (await db.select({ key: autoTopups.accountKey }).from(autoTopups).where(eq(autoTopups.enabled, true))).map((r) => r.key),

  /**
   * Accounts that may need a charge now: on, nothing in flight, not waiting for a retry, and the
   * available balance (balance − held) below the threshold. For the periodic sweep.
   */
  due: (now: Date, limit: number) =>
    db
      .select({ userId: autoTopups.userId, teamId: autoTopups.teamId })
      .from(autoTopups)
      .leftJoin(users, and(isNull(autoTopups.teamId), eq(users.id, autoTopups.userId)))
      .leftJoin(teams, eq(teams.id, autoTopups.teamId))
      .where(
        and(
          eq(autoTopups.enabled, true),
          isNull(autoTopups.pendingPaymentId),
          or(isNull(autoTopups.retryAfter), lte(autoTopups.retryAfter, now)),
          sql`coalesce(${teams.balanceMicros} - ${teams.heldMicros}, ${users.balanceMicros} - ${users.heldMicros}) < ${autoTopups.thresholdMicros}`,
        ),
      )
      .limit(limit),

  /** Auto top-up payments of the account made since `from` (each attempt is one: its number names the next). */
  async autoPaymentsSince(a: PaymentAccount, from: Date): Promise<number> {
    const whose: SQL = a.teamId ? eq(payments.teamId, a.teamId) : and(eq(payments.userId, a.userId), isNull(payments.teamId))!
    const [row] = await db
      .select({ n: count() })
      .from(payments)
      .where(and(whose, eq(payments.auto, true), gte(payments.createdAt, from)))
    return row?.n ?? 0
  },

  /**
   * Claims a charge (inside the unit that inserts its payment): names it as the one in flight,
   * counts its amount against today's limit (given back if it fails) — only if the row is still the
   * version `seen` the decision was made on. True for the one caller that got it.
   */
  async claim(q: Db, key: string, seen: Date, paymentId: string, today: string, chargedMicros: number, failures: number, now: Date): Promise<boolean> {
    const won = await q
      .update(autoTopups)
      .set({ pendingPaymentId: paymentId, day: today, chargedTodayMicros: chargedMicros, failuresToday: failures, updatedAt: bump(now) })
      .where(and(eq(autoTopups.accountKey, key), eq(autoTopups.updatedAt, seen), isNull(autoTopups.pendingPaymentId), eq(autoTopups.enabled, true)))
      .returning({ key: autoTopups.accountKey })
    return won.length === 1
  },

  /** Turns it off by itself (the card is gone, …): `reason` in Russian, shown on the billing page. */
  async disable(q: Db, key: string, reason: string, now: Date) {
    return (
      await q
        .update(autoTopups)
        .set({ enabled: false, disabledReason: reason, updatedAt: bump(now) })
        .where(and(eq(autoTopups.accountKey, key), eq(autoTopups.enabled, true)))
        .returning()
    )[0]
  },

  /** A saved method was deleted: the auto top-up that charged it is turned off (inside the deleting unit). */
  async methodRemoved(q: Db, methodId: string, now: Date) {
    return q
      .update(autoTopups)
      .set({ enabled: false, paymentMethodId: null, disabledReason: 'Карта для автопополнения удалена', updatedAt: bump(now) })
      .where(eq(autoTopups.paymentMethodId, methodId))
      .returning({ key: autoTopups.accountKey, enabled: autoTopups.enabled })
  },
})

/**
 * Inside the unit that finished an auto top-up payment (payments/service.ts apply — the transition
 * from pending happens once, so this runs once per payment): frees the account for the next charge
 * and records what the outcome means. A success keeps its amount counted for the day; a failure
 * gives it back and either turns auto top-up off (a permanent reason, a refused request, a payment
 * held for review) or schedules the next try (after `retrySec`, or the next Moscow day once
 * AUTO_TOPUP_FAILURES_A_DAY tries failed today). Null when the payment was not the one in flight.
 */
export async function autoTopupSettled(q: Db, payment: PaymentRow, outcome: AutoOutcome, retrySec: number, now = new Date()): Promise<AutoSettled | null> {
  const key = accountKey(payment)
  const mine = and(eq(autoTopups.accountKey, key), eq(autoTopups.pendingPaymentId, payment.id))
  if (outcome.kind === 'succeeded') {
    const done = await q
      .update(autoTopups)
      .set({ pendingPaymentId: null, retryAfter: null, updatedAt: bump(now) })
      .where(mine)
      .returning({ key: autoTopups.accountKey })
    return done.length ? { outcome, reason: null, disabled: false, retryAt: null, methodForgotten: false } : null
  }
  // The amount claimed for the day is given back: no money moved.
  const giveBack = sql`case when ${autoTopups.chargedTodayMicros} >= ${payment.amountMicros} then ${autoTopups.chargedTodayMicros} - ${payment.amountMicros} else 0 end`
  const code = outcome.kind === 'canceled' ? outcome.reason : null
  const permanent = outcome.kind !== 'canceled' || (code !== null && PERMANENT_REASONS.has(code))
  const reason = outcome.kind === 'review' ? REVIEW_DISABLED : outcome.kind === 'rejected' ? REJECTED_DISABLED : describeCancel(code)
  if (permanent) {
    const [row] = await q
      .update(autoTopups)
      .set({
        pendingPaymentId: null,
        enabled: false,
        disabledReason: reason,
        retryAfter: null,
        ...(outcome.kind === 'review' ? {} : { chargedTodayMicros: giveBack }),
        updatedAt: bump(now),
      })
      .where(mine)
      .returning()
    if (!row) return null
    const methodForgotten = code !== null && METHOD_DEAD_REASONS.has(code) && !!payment.paymentMethodId
    if (methodForgotten)
      await q
        .update(paymentMethods)
        .set({ deletedAt: now })
        .where(and(eq(paymentMethods.id, payment.paymentMethodId!), isNull(paymentMethods.deletedAt)))
    if (payment.teamId) await auditIn(q, { teamId: payment.teamId, actorId: null, action: 'autotopup.disabled', target: reason, details: { paymentId: payment.id, code } })
    return { outcome, reason, disabled: true, retryAt: null, methodForgotten }
  }
  const failedDay = moscowDay(payment.createdAt)
  const retry = new Date(+now + retrySec * 1000)
  const tomorrow = moscowDayStart(nextDay(moscowDay(now)))
  const [row] = await q
    .update(autoTopups)
    .set({
      pendingPaymentId: null,
      chargedTodayMicros: giveBack,
      failuresToday: sql`case when ${autoTopups.day} = ${failedDay} then ${autoTopups.failuresToday} + 1 else 1 end`,
      retryAfter: sql`case when ${autoTopups.day} = ${failedDay} and ${autoTopups.failuresToday} + 1 >= ${AUTO_TOPUP_FAILURES_A_DAY} then cast(${Math.max(+tomorrow, +retry)} as bigint) else cast(${+retry} as bigint) end`,
      updatedAt: bump(now),
    })
    .where(mine)
    .returning()
  if (!row) return null
  return { outcome, reason, disabled: false, retryAt: row.retryAfter, methodForgotten: false }
}
