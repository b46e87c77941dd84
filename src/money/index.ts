// The money kernel's one door. Every balance change and every rule about money lives in src/money:
// holds before an upstream call and their settlement to the reported cost (holds/), the ledger that
// is the only writer of a balance (ledger.ts), budgets on keys and members (budgets.ts), their periods
// on the Moscow calendar (periods.ts, days.ts), the alerts a charge can trigger (alerts.ts), the
// reserves of a PostgreSQL instance (reserves.ts) and the batch statements and queue behind them
// (pg/), and the sweeps of holds nobody will close (holds/sweeps.ts). Code outside src/money imports
// only this file (src/system/boundaries.test.ts); the read side of /api/billing is src/billing.

export {
  type AccountRef,
  type BudgetCrossing,
  bannerThresholdMicros,
  checkLowBalance,
  type LowBalance,
  type Notifier,
  rearmLowBalance,
  watchSpending,
} from './alerts'
export {
  BUDGET_MESSAGES,
  type BudgetState,
  budgetIn,
  budgetSelection,
  budgetToApi,
  claimAlert,
  MAX_BUDGET_RUB,
  parseBudget,
  remainingMicros,
  setBudget,
  spentNow,
} from './budgets'
export { daysBetween, moscowDay, moscowDayStart, nextDay } from './days'
export { chargesApplied, closeDurably, closeForAnswer, noteGeneration } from './holds/durable'
export { stopReserves } from './holds/pg'
export { placeHold } from './holds/place'
export { type Refusal, recordRefusal, releaseHold, settleHold } from './holds/settle'
export { releaseLapsedHolds, releaseStaleHolds, startHoldLeases } from './holds/sweeps'
export {
  CallerChanged,
  type Closed,
  type GenerationCharge,
  type GenerationSettler,
  type HoldLevel,
  HoldRefused,
  type HoldRequest,
  type Settled,
  type SettleOptions,
  type UsageFacts,
} from './holds/types'
export { InsufficientFundsError, LEDGER, type Movement, type Posted, postMovement } from './ledger'
export { moscowDateTimeRu, nextReset, now, PERIOD_PHRASES, PERIODS, type Period, periodStart, periodStarts, setClockFile } from './periods'
export * from './schema'
