// Crediting an invoice: the one place where an invoice's money reaches a balance, through the money
// kernel's door. The rule is the card top-up's (payments/service.ts): an invoice is credited only on
// its single transition issued → paid, in the unit that posts the ledger row (reference
// `invoice:<id>`, unique: a second lock), so a statement imported twice, by two instances at once, or
// a payment assigned by hand while the import runs, credits the team once.

import type { Db } from '../db/types'
import { conflict } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { LEDGER, postMovement, rearmLowBalance } from '../money'
import { rewardReferral } from '../promo/service'
import { auditIn } from '../teams/service'
import { INVOICE_MESSAGES } from './messages'
import { invoicesStore } from './store'

/** How the payment was recognised: by the statement import, assigned by the site admin, or marked paid by hand. */
export type CreditHow = 'statement' | 'assigned' | 'manual'

/** Refuses to credit an invoice of a team whose registration of `inns` awaits or failed the site admin's confirmation. */
export async function refuseHeldInn(q: Db, teamId: string, inns: string[]) {
  const held = await invoicesStore(q).innHold(q, teamId, inns)
  if (held) throw conflict(INVOICE_MESSAGES.innHeld(held.inn, held.state))
}

/**
 * Credits a paid invoice inside the unit `q`: issued → paid, the team's ledger row «Оплата по счёту
 * № …» (type topup, like a card top-up: refunds count it the same way) and the team's audit entry.
 * Undefined when the invoice was no longer issued (paid by someone else first, or cancelled).
 */
export async function creditInvoice(q: Db, invoiceId: string, f: { amountMicros: number; receivedAt: Date; bankPaymentId: string | null; adminId: string; how: CreditHow }) {
  const now = new Date()
  const row = await invoicesStore(q).markPaid(q, invoiceId, {
    paidAt: now,
    receivedAt: f.receivedAt,
    paidMicros: f.amountMicros,
    bankPaymentId: f.bankPaymentId,
    paidBy: f.adminId,
  })
  if (!row) return undefined
  // The team's row names the member who issued the invoice, as a card top-up's names its payer.
  const account = { userId: row.issuedBy, teamId: row.teamId }
  await postMovement(q, {
    ...account,
    type: 'topup',
    amountMicros: f.amountMicros,
    description: LEDGER.invoice.description(row.number),
    reference: LEDGER.invoice.reference(row.id),
    actorId: f.adminId,
    now,
  })
  await rearmLowBalance(q, account)
  await rewardReferral(q, { userId: row.issuedBy, amountMicros: f.amountMicros })
  await auditIn(q, {
    teamId: row.teamId,
    actorId: f.adminId,
    action: 'invoice.paid',
    target: `№ ${row.number}`,
    details: { amountRub: microsToRub(f.amountMicros), how: f.how, bankPaymentId: f.bankPaymentId, byPlatformAdmin: true },
    at: now,
  })
  return row
}
