// Low-balance notices: a banner level derived from the customer's own typical request, and an
// e-mail sent once each time the balance falls below the level the customer chose.
import { and, eq, gte, sql } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Config } from '../config'
import type { Db } from '../db/client'
import { compiled, prepared } from '../db/prepared'
import type { Mailer } from '../mail/service'
import { lowBalanceLetter } from '../mail/templates'
import { moscowDay } from './days'
import { usageDaily } from './schema'

/** "About 100 typical requests" is the banner level. */
export const TYPICAL_REQUESTS = 100
/** A typical request before the customer has made any: roughly 1 000 tokens of a mid-priced model. */
export const DEFAULT_TYPICAL_REQUEST_MICROS = 200_000
const TYPICAL_WINDOW_DAYS = 30

const p = sql.placeholder

const statements = (db: Db) =>
  prepared(db, 'alerts', () => ({
    // Flips the flag and answers only on the first drop below the level: concurrent settlements send one letter.
    markLow: compiled(
      db,
      db
        .update(users)
        .set({ lowBalanceAlerted: true })
        .where(
          and(
            eq(users.id, p('userId')),
            eq(users.lowBalanceAlerted, false),
            sql`${users.lowBalanceAlertMicros} is not null and ${users.balanceMicros} < ${users.lowBalanceAlertMicros}`,
          ),
        )
        .returning({ email: users.email, balanceMicros: users.balanceMicros, thresholdMicros: users.lowBalanceAlertMicros }),
    ),
    rearm: compiled(
      db,
      db
        .update(users)
        .set({ lowBalanceAlerted: false })
        .where(and(eq(users.id, p('userId')), eq(users.lowBalanceAlerted, true), sql`${users.balanceMicros} >= ${users.lowBalanceAlertMicros}`)),
    ),
  }))

export type LowBalance = { email: string; balanceMicros: number; thresholdMicros: number }

/** After a charge (inside its unit, `q`): the letter to send if this charge took the balance below the customer's level. */
export async function checkLowBalance(q: Db, userId: string): Promise<LowBalance | undefined> {
  const [row] = await statements(q).markLow.values(q, { userId })
  return row ? { email: String(row[0]), balanceMicros: Number(row[1]), thresholdMicros: Number(row[2]) } : undefined
}

/** After a credit (inside its unit, `q`): once the balance is back at or above the level, the next drop sends a letter again. */
export async function rearmLowBalance(q: Db, userId: string): Promise<void> {
  await statements(q).rearm.run(q, { userId })
}

/** The banner level: 100 × the customer's average request over the last 30 days (or a default). */
export async function bannerThresholdMicros(db: Db, userId: string, now = new Date()): Promise<number> {
  const from = moscowDay(+now - (TYPICAL_WINDOW_DAYS - 1) * 86_400_000)
  const [row] = await db
    .select({
      cost: sql<number>`coalesce(sum(${usageDaily.costMicros}), 0)`.mapWith(Number),
      n: sql<number>`coalesce(sum(${usageDaily.requests}), 0)`.mapWith(Number),
    })
    .from(usageDaily)
    .where(and(eq(usageDaily.userId, userId), gte(usageDaily.day, from)))
  const typical = row && row.n > 0 && row.cost > 0 ? Math.ceil(row.cost / row.n) : DEFAULT_TYPICAL_REQUEST_MICROS
  return typical * TYPICAL_REQUESTS
}

export function lowBalanceMailer(config: Config, mailer: Mailer) {
  return (alert: LowBalance) =>
    void mailer
      .send(lowBalanceLetter(alert.email, alert.balanceMicros, alert.thresholdMicros, `${config.publicUrl}/app/billing`))
      .catch((e) => console.error(`[billing] low-balance letter not sent: ${(e as Error).message}`))
}
