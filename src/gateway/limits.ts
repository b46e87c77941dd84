// The levels that limit a request — the key's budget, the member's budget, the balance (the team's
// or the personal one) — and the 402 that names the one that refused it. What a request may spend
// is the least any level leaves; that level "binds" and is what a refusal talks about.

import { formatMicros } from '../content/format'
import { insufficientBalance, OpenAIError } from '../lib/errors'
import { microsToRub } from '../lib/money'
import { type BudgetCrossing, type BudgetState, type HoldLevel, moscowDateTimeRu, nextReset, PERIOD_PHRASES, periodStart, remainingMicros, spentNow } from '../money'
import type { Caller } from './callers'

export type Binding = { level: HoldLevel; remainingMicros: number }

/** Each level with what it leaves now; budgets only when they have a limit. */
export function levels(caller: Caller, at: number): Binding[] {
  const out: Binding[] = []
  const key = caller.apiKey?.budget
  if (key && key.limitMicros !== null) out.push({ level: 'key', remainingMicros: remainingMicros(key, at) })
  const member = caller.team?.memberBudget
  if (member && member.limitMicros !== null) out.push({ level: 'member', remainingMicros: remainingMicros(member, at) })
  out.push({ level: caller.team ? 'team' : 'personal', remainingMicros: caller.availableMicros })
  return out
}

/** The level that leaves the least (a budget before the balance when they leave the same). */
export function binding(caller: Caller, at: number): Binding {
  return levels(caller, at).reduce((a, b) => (b.remainingMicros < a.remainingMicros ? b : a))
}

/**
 * What the caller may spend on a request: the least any level leaves and which level that is.
 * `limited`: a budget the customer set applies, so what the router may bill is capped to the hold
 * (price caps, estimate.ts).
 */
export function spendable(caller: Caller, at: number) {
  const bound = binding(caller, at)
  const limited = caller.apiKey?.budget.limitMicros != null || caller.team?.memberBudget.limitMicros != null
  return { bound, limited }
}

const budgetOf = (caller: Caller, level: 'key' | 'member'): BudgetState => (level === 'key' ? caller.apiKey!.budget : caller.team!.memberBudget)

/** `error.metadata` of a 402: which level, its limit, period and next reset (none for total and for balances). */
export function refusalMetadata(caller: Caller, level: HoldLevel, at: number): Record<string, unknown> {
  if (level === 'team' || level === 'personal') return { level, limit_rub: null, period: null, balance_rub: microsToRub(Math.max(0, caller.availableMicros)) }
  const b = budgetOf(caller, level)
  const reset = nextReset(b.period, at)
  return {
    level,
    limit_rub: microsToRub(b.limitMicros ?? 0),
    period: b.period,
    spent_rub: microsToRub(spentNow(b, at)),
    ...(reset === null ? {} : { resets_at: new Date(reset).toISOString() }),
  }
}

/**
 * The 402 for a level that cannot cover the request: `budget_exceeded` for a key's or a member's
 * budget, `insufficient_balance` for a balance (with the plan's own explanation when there is one).
 */
export function refusal(caller: Caller, level: HoldLevel, at: number, balanceMessage: string): OpenAIError {
  const metadata = refusalMetadata(caller, level, at)
  if (level === 'team' || level === 'personal') {
    const team = `команды «${caller.team?.name}»`
    const message =
      level !== 'team' ? balanceMessage : balanceMessage.includes('на балансе') ? balanceMessage.replace('на балансе', `на балансе ${team}`) : `Баланс ${team}: ${balanceMessage}`
    return insufficientBalance(message, metadata)
  }
  const b = budgetOf(caller, level)
  const reset = nextReset(b.period, at)
  const left = Math.max(0, b.limitMicros ?? 0) - spentNow(b, at)
  // Exhausted, or not enough left for this request's worst case (what is held until it ends).
  const state = left <= 0 ? 'исчерпан' : 'не покрывает этот запрос'
  // ru-RU numbers by the price rule (issue 29): a small remainder keeps its digits.
  const limit = `лимит ${formatMicros(b.limitMicros ?? 0)} ${PERIOD_PHRASES[b.period]}${left > 0 ? `, осталось ${formatMicros(left)}` : ''}`
  const when = reset === null ? 'Бюджет без периода не обновляется.' : `Бюджет обновится ${moscowDateTimeRu(reset)}.`
  const [message, action] =
    level === 'key'
      ? [
          `Бюджет API-ключа «${caller.apiKey!.name}» ${state}: ${limit}. ${when} ${left > 0 ? 'Уменьшите max_tokens или увеличьте' : 'Увеличьте'} бюджет на странице API ключей.`,
          { label: 'Настроить ключ', url: '/app/api-keys' },
        ]
      : [
          `Ваш бюджет в команде «${caller.team!.name}» ${state}: ${limit}. ${when} ${left > 0 ? 'Уменьшите max_tokens или попросите' : 'Попросите'} владельца или администратора команды увеличить его.`,
          { label: 'Бюджеты команды', url: '/app/team' },
        ]
  return new OpenAIError(402, message, 'budget_exceeded', 'budget_exceeded', { action, metadata, shouldRetry: false })
}

/** The 100 % alert of a budget that refused a request (it cannot take another one this period). */
export function exhausted(caller: Caller, level: 'key' | 'member', at: number): BudgetCrossing {
  const b = budgetOf(caller, level)
  return {
    level,
    keyId: level === 'key' ? caller.apiKey!.id : null,
    userId: caller.userId,
    teamId: caller.teamId,
    limitMicros: b.limitMicros ?? 0,
    spentMicros: spentNow(b, at),
    period: b.period,
    periodStart: periodStart(b.period, at),
    threshold: 100,
  }
}
