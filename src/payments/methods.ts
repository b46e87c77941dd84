// Saved payment methods (issue 37, providers-and-payments.md §4.2): a card YooKassa saved during a
// payment the customer asked to save it in (`save_payment_method: true`). What we keep is what the
// customer sees of it — the type, YooKassa's title, the last four digits, the expiry and the card's
// brand — and the provider's id to charge it by; never a card number. A method belongs to the
// account the payment was for (the personal balance or a team's); deleting it forgets it (soft) and
// switches off the auto top-up that used it.
import { and, desc, eq, isNull, type SQL } from 'drizzle-orm'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { notFound } from '../lib/errors'
import { auditIn } from '../teams/service'
import { type PaymentMethodRow, type PaymentRow, paymentMethods } from './schema'
import type { PaymentAccount } from './store'
import type { YooPaymentMethod } from './yookassa'

/** The account's methods that were not deleted. */
export const methodsOf = (a: PaymentAccount): SQL =>
  a.teamId
    ? and(eq(paymentMethods.teamId, a.teamId), isNull(paymentMethods.deletedAt))!
    : and(eq(paymentMethods.userId, a.userId), isNull(paymentMethods.teamId), isNull(paymentMethods.deletedAt))!

/** What the customer is shown of a method: «Bank card *4444» → «MasterCard •••• 4444» («Карта •••• 4444» without the brand). */
export function methodLabel(m: Pick<PaymentMethodRow, 'type' | 'title' | 'last4' | 'cardType'>): string {
  if (m.type === 'bank_card' && m.last4) return `${m.cardType || 'Карта'} •••• ${m.last4}`
  if (m.type === 'sbp') return m.title && m.title !== 'СБП' ? `СБП: ${m.title}` : 'Счёт в СБП'
  return m.title || m.type
}

export function methodToApi(m: PaymentMethodRow) {
  return {
    id: m.id,
    type: m.type,
    title: m.title,
    label: methodLabel(m),
    last4: m.last4,
    expiryMonth: m.expiryMonth,
    expiryYear: m.expiryYear,
    cardType: m.cardType,
    createdAt: m.createdAt.toISOString(),
  }
}

/** Only digits of the given length: what a card's last4 / expiry must look like to be kept. */
const digits = (v: unknown, min: number, max: number) => (typeof v === 'string' && new RegExp(`^\\d{${min},${max}}$`).test(v) ? v : null)

/**
 * Inside the crediting unit of a succeeded payment whose method YooKassa saved: keeps it for the
 * payment's account, once (the unique index on the provider's id and the payer is the lock; a
 * redelivery or a charge of the same method inserts nothing). True when it was new.
 */
export async function keepSavedMethod(q: Db, payment: PaymentRow, m: YooPaymentMethod, now = new Date()): Promise<PaymentMethodRow | null> {
  if (m.saved !== true || typeof m.id !== 'string' || !m.id) return null
  const card = m.type === 'bank_card' ? m.card : undefined
  const row: PaymentMethodRow = {
    id: newId(),
    userId: payment.userId,
    teamId: payment.teamId,
    providerMethodId: m.id.slice(0, 64),
    type: String(m.type ?? 'bank_card').slice(0, 32),
    title: String(m.title ?? (m.type === 'sbp' ? 'СБП' : 'Банковская карта')).slice(0, 100),
    last4: digits(card?.last4, 4, 4),
    expiryMonth: digits(card?.expiry_month, 1, 2),
    expiryYear: digits(card?.expiry_year, 4, 4),
    cardType: typeof card?.card_type === 'string' ? card.card_type.slice(0, 32) : null,
    createdAt: now,
    deletedAt: null,
  }
  const inserted = await q.insert(paymentMethods).values(row).onConflictDoNothing().returning({ id: paymentMethods.id })
  if (inserted.length === 0) return null
  if (payment.teamId)
    await auditIn(q, { teamId: payment.teamId, actorId: payment.userId, action: 'payment_method.saved', target: methodLabel(row), details: { paymentId: payment.id } })
  return row
}

export function paymentMethodsService(db: Db, hooks: { removed: (q: Db, a: PaymentAccount & { ip?: string }, method: PaymentMethodRow) => Promise<void> }) {
  return {
    list: async (a: PaymentAccount) =>
      (await db.select().from(paymentMethods).where(methodsOf(a)).orderBy(desc(paymentMethods.createdAt), desc(paymentMethods.id))).map(methodToApi),

    /** One of the account's methods (not deleted), or undefined. */
    async find(a: PaymentAccount, id: string): Promise<PaymentMethodRow | undefined> {
      return (
        await db
          .select()
          .from(paymentMethods)
          .where(and(eq(paymentMethods.id, id), methodsOf(a)))
          .limit(1)
      )[0]
    },

    /** Forgets a method of the account (soft); the auto top-up charging it is switched off in the same unit. */
    async remove(a: PaymentAccount & { ip?: string }, id: string) {
      const gone = await tx(db, async (q) => {
        const [row] = await q
          .update(paymentMethods)
          .set({ deletedAt: new Date() })
          .where(and(eq(paymentMethods.id, id), methodsOf(a)))
          .returning()
        if (!row) return null
        await hooks.removed(q, a, row)
        if (a.teamId) await auditIn(q, { teamId: a.teamId, actorId: a.userId, action: 'payment_method.deleted', target: methodLabel(row), ip: a.ip ?? null })
        return row
      })
      if (!gone) throw notFound('Способ оплаты не найден')
      return { id: gone.id, deleted: true as const }
    },
  }
}

export type PaymentMethodsService = ReturnType<typeof paymentMethodsService>
