// The budget a row carries (an API key, a team member): a limit with a calendar period, and the
// counters that let the hold unit check it with one conditional UPDATE. Column plumbing the keys' and
// the members' tables share; the rules on them are the money kernel's (src/money/budgets.ts).
import { integer, text } from './dialect'

/** A budget's calendar periods (Moscow time; src/money/periods.ts computes them). */
export const PERIODS = ['day', 'week', 'month', 'total'] as const
export type Period = (typeof PERIODS)[number]

export const budgetColumns = () => ({
  /** The limit in micro-rubles; null = no budget. */
  budgetLimitMicros: integer('budget_limit_micros'),
  budgetPeriod: text('budget_period', { enum: PERIODS }).notNull().default('month'),
  /** Epoch ms of the Moscow start of the period `budgetSpentMicros` counts (0 for total). */
  budgetPeriodStart: integer('budget_period_start').notNull().default(0),
  /** Settled spend in that period; a newer period start reads (and writes) it as 0. */
  budgetSpentMicros: integer('budget_spent_micros').notNull().default(0),
  /** Reserved by open holds (src/money/holds), whatever their period. */
  budgetHeldMicros: integer('budget_held_micros').notNull().default(0),
})
