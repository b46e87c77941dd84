// Promo codes and the referral programme (issue 37). Both credit money only through the money
// kernel's door (postMovement), in the unit that records why: a redemption row with the code's use,
// or the referee's reward mark. Neither kind of money is refundable: refunds return at most what the
// account paid in (payments/refunds.ts), so bonus money counts as spent first.

import type { Config } from '../config'
import { PROMO_RULES, REFERRAL_RULES } from '../content/promo'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { type AppError, badRequest, conflict, forbidden, isUniqueViolation, notFound } from '../lib/errors'
import { formatMicros, formatRubRu, kopeckExactMicros, MICROS_PER_RUB, microsToRub, rubToMicros } from '../lib/money'
import { consume } from '../lib/rate-limit'
import { now as clockNow, periodStart, postMovement, rearmLowBalance } from '../money'
import { auditIn } from '../teams/service'
import { type PromoRow, promoStore } from './store'

/** '100 000': digits grouped by plain spaces, as the other Russian messages write sums. */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')

export const PROMO_MESSAGES = {
  badCode: `Код промокода — ${PROMO_RULES.codeRule}`,
  badAmount: `Сумма — число от ${PROMO_RULES.minAmountRub} до ${grouped(PROMO_RULES.maxAmountRub)} ₽, с точностью до копейки`,
  badMaxUses: `Число активаций — целое число от 1 до ${grouped(PROMO_RULES.maxUses)}`,
  badExpiry: 'Срок действия — дата и время в формате ISO 8601 (например, 2026-12-31T23:59:59+03:00) или null',
  pastExpiry: 'Срок действия уже прошёл: укажите дату в будущем',
  duplicate: 'Промокод с таким кодом уже есть',
  notFoundAdmin: 'Промокод не найден',
  enterCode: 'Введите промокод',
  notFound: 'Промокод не найден. Проверьте, правильно ли он введён',
  expired: 'Срок действия промокода истёк',
  disabled: 'Промокод больше не действует',
  usedUp: 'Промокод больше не действует: все активации уже использованы',
  alreadyPersonal: 'Вы уже активировали этот промокод',
  alreadyTeam: (team: string) => `Этот промокод уже активирован для команды «${team}»`,
  unverified: 'Подтвердите e-mail, чтобы активировать промокод: ссылка — в письме, которое мы отправили при регистрации',
} as const

const LEDGER_PROMO = {
  description: (code: string) => `Промокод ${code}`,
  reference: (promoId: string, accountKey: string) => `promo:${promoId}:${accountKey}`,
}

const LEDGER_REFERRAL = {
  referee: { description: 'Реферальный бонус: первое пополнение по приглашению', reference: (refereeId: string) => `referral:${refereeId}` },
  referrer: { description: 'Реферальный бонус: приглашённый друг пополнил баланс', reference: (refereeId: string) => `referral:${refereeId}:referrer` },
}

/** The cookie /r/{code} sets; registration reads it when the body names no code. */
export const REFERRAL_COOKIE = 'gw_ref'
const REFERRAL_CODE_RE = /^[A-Za-z0-9]{4,16}$/

type PromoState = 'active' | 'expired' | 'disabled' | 'used_up'

function stateOf(row: PromoRow, now = new Date()): PromoState {
  if (row.disabledAt) return 'disabled'
  if (row.expiresAt && row.expiresAt <= now) return 'expired'
  if (row.uses >= row.maxUses) return 'used_up'
  return 'active'
}

const promoToApi = (row: PromoRow) => ({
  id: row.id,
  code: row.code,
  amountRub: microsToRub(row.amountMicros),
  maxUses: row.maxUses,
  uses: row.uses,
  expiresAt: row.expiresAt?.toISOString() ?? null,
  disabledAt: row.disabledAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  state: stateOf(row),
})

/** The refusal for a code that cannot be used now (its state is not active). */
function refusal(state: Exclude<PromoState, 'active'>): AppError {
  if (state === 'expired') return badRequest(PROMO_MESSAGES.expired)
  if (state === 'disabled') return badRequest(PROMO_MESSAGES.disabled)
  return conflict(PROMO_MESSAGES.usedUp)
}

/** Rubles as the admin typed them → micro-rubles; null when not a kopeck-exact number in range. */
const amountMicros = (value: unknown) => kopeckExactMicros(value, PROMO_RULES.minAmountRub, PROMO_RULES.maxAmountRub)

function expiry(value: unknown, now: Date): Date | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string' || value.length > 64 || !/^\d{4}-\d{2}-\d{2}/.test(value)) throw badRequest(PROMO_MESSAGES.badExpiry)
  const at = Date.parse(value)
  if (!Number.isFinite(at)) throw badRequest(PROMO_MESSAGES.badExpiry)
  if (at <= +now) throw badRequest(PROMO_MESSAGES.pastExpiry)
  return new Date(at)
}

/** A code as typed by a customer or an admin, upper-cased; null when it cannot be a code. */
const normalizeCode = (value: unknown): string | null => (typeof value === 'string' && PROMO_RULES.codePattern.test(value.trim()) ? value.trim().toUpperCase() : null)

// ─── referrals ───────────────────────────────────────────────────────────────

/**
 * The referral bonus of this process, micro-rubles (REFERRAL_BONUS_RUB): set once when the services
 * are built (app.ts), read by rewardReferral, which the payment and invoice credits call inside their
 * own units without a config at hand. 0 (the default) turns the programme off.
 */
let referralBonusMicros = 0

/** At startup: config.referralBonusRub. */
export function setReferralBonus(rub: number): void {
  referralBonusMicros = rubToMicros(rub)
}

/** The referral code in a Cookie header (set by /r/{code}), upper-cased; undefined when there is none. */
export function referralCodeFromCookie(header: string | undefined): string | undefined {
  const raw = header
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${REFERRAL_COOKIE}=`))
    ?.slice(REFERRAL_COOKIE.length + 1)
  return raw && REFERRAL_CODE_RE.test(raw) ? raw.toUpperCase() : undefined
}

/** At registration: the live account whose referral code this is, or null (no code, an unknown one). */
export async function referrerFor(db: Db, code: unknown): Promise<string | null> {
  if (typeof code !== 'string' || !REFERRAL_CODE_RE.test(code.trim())) return null
  return (await promoStore(db).referrerByCode(code.trim().toUpperCase())) ?? null
}

/**
 * Inside the unit that credits a real payment (a YooKassa card or SBP payment, an invoice paid by
 * bank): when its payer registered through a referral link and this is their first such payment of
 * at least REFERRAL_RULES.minPaymentRub, both accounts get the bonus on their personal balances, as
 * `referral` ledger rows, once (the referee's reward mark is conditional and the ledger references
 * unique). At most REFERRAL_RULES.monthlyLimit bonuses a Moscow calendar month per referrer: the
 * referrer's row lock makes concurrent rewards count one after the other; a payment over the limit
 * brings nothing and leaves the referee unrewarded. Locks are taken referee first, then referrer
 * (a referral chain never loops back), so two such units never wait on each other in a circle.
 * Test payments must not be passed here.
 */
export async function rewardReferral(q: Db, payment: { userId: string; amountMicros: number }): Promise<void> {
  const bonus = referralBonusMicros
  if (bonus <= 0 || payment.amountMicros < REFERRAL_RULES.minPaymentRub * MICROS_PER_RUB) return
  const s = promoStore(q)
  // Most payers were not referred: one read by primary key and nothing more.
  const seen = await s.referralOf(payment.userId)
  if (!seen?.referredBy || seen.rewardedAt) return
  const referrerId = await s.lockUnrewardedReferee(payment.userId)
  if (!referrerId || !(await s.lockReferrer(referrerId))) return
  const at = new Date(clockNow())
  const monthStart = new Date(periodStart('month', +at))
  if ((await s.rewardedSince(referrerId, monthStart)) >= REFERRAL_RULES.monthlyLimit) {
    console.log(`[promo] referral bonus for user ${payment.userId} not given: referrer ${referrerId} reached ${REFERRAL_RULES.monthlyLimit} bonuses this month`)
    return
  }
  if (!(await s.markRewarded(payment.userId, at))) return
  for (const [userId, kind] of [
    [payment.userId, LEDGER_REFERRAL.referee],
    [referrerId, LEDGER_REFERRAL.referrer],
  ] as const) {
    await postMovement(q, { userId, type: 'referral', amountMicros: bonus, description: kind.description, reference: kind.reference(payment.userId), now: at })
    await rearmLowBalance(q, { userId, teamId: null })
  }
  console.log(`[promo] referral bonus ${formatMicros(bonus)} ₽ to user ${payment.userId} and to their referrer ${referrerId}`)
}

function newReferralCode(): string {
  const { codeAlphabet: abc, codeLength } = REFERRAL_RULES
  const bytes = crypto.getRandomValues(new Uint8Array(codeLength))
  return Array.from(bytes, (b) => abc[b % abc.length]).join('')
}

// ─── the service ─────────────────────────────────────────────────────────────

export type PromoDeps = { db: Db; config: Config }
/** Who redeems: the acting account (personal or a team) and the signed-in user behind it. */
type Redeemer = { userId: string; teamId: string | null; teamName: string | null; ip: string }

export function promoService({ db, config }: PromoDeps) {
  const store = promoStore(db)

  /** The account's referral code, made on first use (unique; a collision draws again). */
  async function referralCode(userId: string): Promise<string | null> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = (await store.referralOf(userId))?.code
      if (current) return current
      try {
        if (await write(db, (q) => promoStore(q).setReferralCode(userId, newReferralCode()))) continue
      } catch (e) {
        if (!isUniqueViolation(e)) throw e
      }
    }
    return (await store.referralOf(userId))?.code ?? null
  }

  return {
    async create(admin: { id: string; email: string }, body: { code: unknown; amountRub: unknown; maxUses: unknown; expiresAt: unknown }) {
      const code = normalizeCode(body.code)
      if (!code) throw badRequest(PROMO_MESSAGES.badCode)
      const micros = amountMicros(body.amountRub)
      if (micros === null) throw badRequest(PROMO_MESSAGES.badAmount)
      const maxUses = body.maxUses
      if (typeof maxUses !== 'number' || !Number.isSafeInteger(maxUses) || maxUses < 1 || maxUses > PROMO_RULES.maxUses) throw badRequest(PROMO_MESSAGES.badMaxUses)
      const now = new Date()
      const row: PromoRow = {
        id: newId(),
        code,
        amountMicros: micros,
        maxUses,
        uses: 0,
        expiresAt: expiry(body.expiresAt, now),
        disabledAt: null,
        createdBy: admin.id,
        createdAt: now,
      }
      if (!(await write(db, (q) => promoStore(q).insert(row)))) throw conflict(PROMO_MESSAGES.duplicate)
      console.log(`[promo] ${admin.email} created promo code ${code}: ${formatMicros(micros)} ₽ × ${maxUses}${row.expiresAt ? ` until ${row.expiresAt.toISOString()}` : ''}`)
      return promoToApi(row)
    },

    list: async (limit = 500) => (await store.list(limit)).map(promoToApi),

    async disable(admin: { email: string }, id: string) {
      const row = await write(db, (q) => promoStore(q).disable(id, new Date()))
      if (!row) throw notFound(PROMO_MESSAGES.notFoundAdmin)
      console.log(`[promo] ${admin.email} disabled promo code ${row.code}`)
      return promoToApi(row)
    },

    /**
     * A customer redeems a code for the acting account: once per account (personal or team), only
     * with a confirmed address (when confirmation is required at all), never past maxUses. The
     * redemption row, the code's use and the ledger row are one unit: all or nothing.
     */
    async redeem(who: Redeemer, user: { emailVerified: boolean }, raw: unknown) {
      if (typeof raw !== 'string' || !raw.trim()) throw badRequest(PROMO_MESSAGES.enterCode)
      if (config.requireEmailVerification && !user.emailVerified) throw forbidden(PROMO_MESSAGES.unverified)
      // Guessing codes is not a way to money: every attempt counts against the account's hourly budget.
      await consume(db, `promo:user:${who.userId}`, { limit: PROMO_RULES.attemptsPerHour, windowSec: 3600 })
      const code = normalizeCode(raw)
      const promo = code ? await store.byCode(code) : undefined
      if (!promo) throw notFound(PROMO_MESSAGES.notFound)
      const accountKey = who.teamId ? `team:${who.teamId}` : `user:${who.userId}`
      const already = () => conflict(who.teamId ? PROMO_MESSAGES.alreadyTeam(who.teamName ?? '') : PROMO_MESSAGES.alreadyPersonal)
      // The common refusals read first; the unit below decides for real.
      if (await store.redeemedBy(promo.id, accountKey)) throw already()
      const state = stateOf(promo)
      if (state !== 'active') throw refusal(state)

      const now = new Date()
      const account = { userId: who.userId, teamId: who.teamId }
      const credited = await tx(db, async (q) => {
        const s = promoStore(q)
        const redemptionId = newId()
        if (
          !(await s.insertRedemption({ id: redemptionId, promoId: promo.id, accountKey, userId: who.userId, teamId: who.teamId, amountMicros: promo.amountMicros, createdAt: now }))
        )
          throw already()
        const use = await s.claimUse(promo.id, now)
        // Used up, disabled or expired in the meantime: throwing undoes the redemption row too.
        if (!use) {
          const fresh = await s.byId(promo.id)
          const late = fresh ? stateOf(fresh, now) : 'disabled'
          throw refusal(late === 'active' ? 'used_up' : late)
        }
        const posted = await postMovement(q, {
          ...account,
          type: 'promo',
          amountMicros: use.amountMicros,
          description: LEDGER_PROMO.description(use.code),
          reference: LEDGER_PROMO.reference(promo.id, accountKey),
          now,
        })
        await rearmLowBalance(q, account)
        if (who.teamId)
          await auditIn(q, {
            teamId: who.teamId,
            actorId: who.userId,
            action: 'promo.redeemed',
            target: use.code,
            ip: who.ip,
            details: { amountRub: microsToRub(use.amountMicros) },
            at: now,
          })
        return { amountMicros: use.amountMicros, balanceMicros: posted.balanceAfterMicros }
      })
      console.log(`[promo] ${promo.code} redeemed by user ${who.userId}${who.teamId ? ` for team ${who.teamId}` : ''}: +${formatMicros(credited.amountMicros)} ₽`)
      return {
        code: promo.code,
        amountRub: microsToRub(credited.amountMicros),
        balance: microsToRub(credited.balanceMicros),
        // A no-break space keeps «₽» with its figure.
        message: `Промокод ${promo.code} активирован: ${formatRubRu(credited.amountMicros).replace(' ₽', '\u00a0₽')} зачислено на баланс${who.teamName ? ` команды «${who.teamName}»` : ''}`,
      }
    },

    /** The account page's block: the link (made on first ask while the programme runs) and what it brought. */
    async referral(userId: string) {
      const enabled = referralBonusMicros > 0
      const code = enabled ? await referralCode(userId) : ((await store.referralOf(userId))?.code ?? null)
      const stats = await store.referralStats(userId)
      return {
        enabled,
        bonusRub: microsToRub(referralBonusMicros),
        minPaymentRub: REFERRAL_RULES.minPaymentRub,
        monthlyLimit: REFERRAL_RULES.monthlyLimit,
        code,
        link: code ? `${config.publicUrl}/r/${code}` : null,
        invited: stats.invited,
        rewarded: stats.rewarded,
        earnedRub: microsToRub(stats.earnedMicros),
      }
    },

    /**
     * /r/{code}: the Set-Cookie value that remembers a live account's code for the registration
     * (30 days), or null for a code that is no account's.
     */
    async invitationCookie(raw: string): Promise<string | null> {
      if (!REFERRAL_CODE_RE.test(raw)) return null
      const code = raw.toUpperCase()
      if (!(await store.referrerByCode(code))) return null
      const secure = config.publicUrl.startsWith('https:') ? '; Secure' : ''
      return `${REFERRAL_COOKIE}=${code}; Path=/; Max-Age=${REFERRAL_RULES.cookieDays * 86_400}; HttpOnly; SameSite=Lax${secure}`
    },
  }
}

export type PromoService = ReturnType<typeof promoService>
