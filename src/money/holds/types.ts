// The holds' vocabulary: what a request asks to hold, why a hold is refused, what a settlement
// writes and answers, and what the sweeps need of the gateway to settle from the router's record.

import type { BudgetCrossing, LowBalance } from '../alerts'
import type { HoldGeneration, UsageLogRow } from '../schema'

/** The level that refused a hold: the key's or the member's budget, the team's or the personal balance. */
export type HoldLevel = 'key' | 'member' | 'team' | 'personal'

export class HoldRefused extends Error {
  constructor(readonly level: HoldLevel) {
    super(level)
  }
}

/**
 * A hold planned from a cached read of the caller was not taken: the key, the membership or the
 * balance may have changed since (a key disabled or given a budget, a member removed or given
 * another role, the balance spent elsewhere). Nothing was reserved: read the caller again, plan anew.
 */
export class CallerChanged extends Error {
  constructor() {
    super('the caller may have changed since it was read')
  }
}

export type HoldRequest = {
  /** The personal account, or the member acting in `teamId`. */
  userId: string
  /** The team whose balance pays; null = the personal balance. */
  teamId: string | null
  apiKeyId: string | null
  amountMicros: number
  /** Reserve in the key's budget (the key has a limit). */
  keyBudget?: boolean
  /** Reserve in the member's budget (a team request by a member with a limit). */
  memberBudget?: boolean
  /** The member's role the request was planned with (team requests); checked with the hold on PostgreSQL. */
  role?: string | null
  /** Planned from a cached read of the caller: when the hold is not taken, CallerChanged (read it again) rather than a refusal. */
  cached?: boolean
  /** The account's available balance as the caller was read: a well-funded one is held from a reserve (money/reserves.ts). */
  available?: number
}

/** Facts of the usage row a request may lack (null when absent): voice amounts, pictures, how it was priced and timed. */
type OptionalFacts =
  | 'upstreamCostRub'
  | 'audioSeconds'
  | 'characters'
  | 'images'
  | 'requestedModel'
  | 'keyName'
  | 'usdRubRate'
  | 'markup'
  | 'holdId'
  | 'holdMicros'
  | 'requestId'
  | 'ttftMs'

/** The usage row's facts; ids, cost and timestamps are filled in here. */
export type UsageFacts = Omit<UsageLogRow, 'id' | 'userId' | 'teamId' | 'apiKeyId' | 'costMicros' | 'createdAt' | OptionalFacts> & Partial<Pick<UsageLogRow, OptionalFacts>>

export type SettleOptions = {
  /** A limit the customer set applies: the charge never exceeds the hold (the rest is recorded as uncovered). */
  withinHold?: boolean
  /**
   * Whose the hold is, when the caller knows (the request that placed it); saves PostgreSQL the other
   * levels' work. With `userId`, an answer whose hold another instance gave back is still charged.
   */
  account?: { userId?: string; teamId: string | null; apiKeyId: string | null }
  /** Hears a charge applied after settleHold answered (a reserve-backed request, money/reserves.ts): its alerts. */
  onApplied?: (settled: Settled) => void
}

/** What settling did: the charge, and the alerts it may trigger (sent after the unit commits). */
export type Settled = { chargedMicros: number; lowBalance?: LowBalance; budgets: BudgetCrossing[] }

export type Closed<T> = { deferred: false; result: T } | { deferred: true }

/** A generation's settlement as the gateway prices it (the reported cost at the current rate and markup). */
export type GenerationCharge = { chargeMicros: number; facts: UsageFacts; withinHold: boolean }

/**
 * What the router's /generation says a hold's answer cost; null while it has not answered. Given by
 * the gateway (it knows the routers and the rate); `settled` gets each settlement (its alerts).
 */
export type GenerationSettler = {
  lookup(generationId: string, info: HoldGeneration, createdAt: number): Promise<GenerationCharge | null>
  settled?(result: Settled): void
}
