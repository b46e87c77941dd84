// The budget a row carries (an API key, a team member): a limit with a calendar period, and the
// counters that let the hold unit check it with one conditional UPDATE (billing/budgets.ts).
import { integer, text } from '../db/dialect'
import { PERIODS } from './periods'

export const budgetColumns = () => ({
  /** The limit in micro-rubles; null = no budget. */
  budgetLimitMicros: integer('budget_limit_micros'),
  budgetPeriod: text('budget_period', { enum: PERIODS }).notNull().default('month'),
  /** Epoch ms of the Moscow start of the period `budgetSpentMicros` counts (0 for total). */
  budgetPeriodStart: integer('budget_period_start').notNull().default(0),
  /** Settled spend in that period; a newer period start reads (and writes) it as 0. */
  budgetSpentMicros: integer('budget_spent_micros').notNull().default(0),
  /** Reserved by open holds (billing/holds.ts), whatever their period. */
  budgetHeldMicros: integer('budget_held_micros').notNull().default(0),
})
