// The queries of promo codes and referrals. `db` is the database, or a unit's `q` (db/tx.ts) for the
// statements that must share its transaction (the redemption, the referral reward).
import { and, count, desc, eq, gt, gte, isNotNull, isNull, lt, or, sql, sum } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/types'
import { ledgerEntries } from '../money'
import { promoCodes, promoRedemptions } from './schema'

export type PromoRow = typeof promoCodes.$inferSelect

export const promoStore = (db: Db) => ({
  /** Inserts a code; false when the code is taken (the unique index decides, also between instances). */
  insert: async (row: typeof promoCodes.$inferInsert) => (await db.insert(promoCodes).values(row).onConflictDoNothing().returning({ id: promoCodes.id })).length === 1,

  list: (limit: number) => db.select().from(promoCodes).orderBy(desc(promoCodes.createdAt), desc(promoCodes.id)).limit(limit),

  byId: async (id: string) => (await db.select().from(promoCodes).where(eq(promoCodes.id, id)).limit(1))[0],

  byCode: async (code: string) => (await db.select().from(promoCodes).where(eq(promoCodes.code, code)).limit(1))[0],

  /** Disables a code once; the row as it is afterwards (undefined: no such code). */
  async disable(id: string, now: Date) {
    await db
      .update(promoCodes)
      .set({ disabledAt: now })
      .where(and(eq(promoCodes.id, id), isNull(promoCodes.disabledAt)))
    return (await db.select().from(promoCodes).where(eq(promoCodes.id, id)).limit(1))[0]
  },

  /**
   * One more use, only while the code may still be used: one conditional UPDATE, so of any number of
   * concurrent redemptions (on any instances) at most `max_uses` see their row come back — PostgreSQL
   * re-checks the WHERE clause on the row a concurrent winner has just committed.
   */
  claimUse: async (id: string, now: Date) =>
    (
      await db
        .update(promoCodes)
        .set({ uses: sql`${promoCodes.uses} + 1` })
        .where(and(eq(promoCodes.id, id), lt(promoCodes.uses, promoCodes.maxUses), isNull(promoCodes.disabledAt), or(isNull(promoCodes.expiresAt), gt(promoCodes.expiresAt, now))))
        .returning({ amountMicros: promoCodes.amountMicros, code: promoCodes.code })
    )[0],

  /** The account's redemption of a code, once: false when it has one already (the unique index). */
  insertRedemption: async (row: typeof promoRedemptions.$inferInsert) =>
    (await db.insert(promoRedemptions).values(row).onConflictDoNothing().returning({ id: promoRedemptions.id })).length === 1,

  redeemedBy: async (promoId: string, accountKey: string) =>
    (
      await db
        .select({ id: promoRedemptions.id })
        .from(promoRedemptions)
        .where(and(eq(promoRedemptions.promoId, promoId), eq(promoRedemptions.accountKey, accountKey)))
        .limit(1)
    ).length === 1,

  // ─── referrals ─────────────────────────────────────────────────────────────

  referralOf: async (userId: string) =>
    (await db.select({ code: users.referralCode, referredBy: users.referredBy, rewardedAt: users.referralRewardedAt }).from(users).where(eq(users.id, userId)).limit(1))[0],

  /** Gives the account its code unless it has one; false when it already had one or the code is taken (unique). */
  setReferralCode: async (userId: string, code: string) =>
    (
      await db
        .update(users)
        .set({ referralCode: code })
        .where(and(eq(users.id, userId), isNull(users.referralCode)))
        .returning({ id: users.id })
    ).length === 1,

  /** The live account whose referral code this is. */
  referrerByCode: async (code: string) =>
    (
      await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.referralCode, code), isNull(users.deletedAt)))
        .limit(1)
    )[0]?.id,

  /**
   * Takes the row lock of a referred account not yet rewarded (PostgreSQL; a no-op write) and answers
   * its referrer; undefined when it is not referred, already rewarded or deleted.
   */
  lockUnrewardedReferee: async (userId: string) =>
    (
      await db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros}` })
        .where(and(eq(users.id, userId), isNotNull(users.referredBy), isNull(users.referralRewardedAt), isNull(users.deletedAt)))
        .returning({ referredBy: users.referredBy })
    )[0]?.referredBy,

  /** Takes the referrer's row lock, so its monthly count is decided one reward at a time; false when the account is gone. */
  lockReferrer: async (userId: string) =>
    (
      await db
        .update(users)
        .set({ heldMicros: sql`${users.heldMicros}` })
        .where(and(eq(users.id, userId), isNull(users.deletedAt)))
        .returning({ id: users.id })
    ).length === 1,

  rewardedSince: async (referrerId: string, since: Date) =>
    (
      await db
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.referredBy, referrerId), gte(users.referralRewardedAt, since)))
    )[0]?.n ?? 0,

  /** Marks the referee rewarded, once. */
  markRewarded: async (userId: string, at: Date) =>
    (
      await db
        .update(users)
        .set({ referralRewardedAt: at })
        .where(and(eq(users.id, userId), isNull(users.referralRewardedAt)))
        .returning({ id: users.id })
    ).length === 1,

  async referralStats(userId: string) {
    const [[people], [earned]] = await Promise.all([
      db
        .select({ invited: count(), rewarded: count(users.referralRewardedAt) })
        .from(users)
        .where(eq(users.referredBy, userId)),
      db
        .select({ micros: sum(ledgerEntries.amountMicros).mapWith(Number) })
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.userId, userId), isNull(ledgerEntries.teamId), eq(ledgerEntries.type, 'referral'))),
    ])
    return { invited: people?.invited ?? 0, rewarded: people?.rewarded ?? 0, earnedMicros: earned?.micros ?? 0 }
  },
})
