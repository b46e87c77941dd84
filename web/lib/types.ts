// Wire types shared by more than one screen.

export type TransactionType = 'bonus' | 'topup' | 'usage' | 'admin' | 'refund'

/** GET /api/billing/transactions item. */
export interface Transaction {
  id: string
  /** signed rubles as a string: '+50.00', '-0.001234' */
  amount: string
  /** rubles */
  balanceAfter: number
  description: string
  type: TransactionType
  /** ISO date-time */
  createdAt: string
}

/** GET /api/billing/transactions/grouped item: a movement, or one Moscow day's usage charges. */
export interface GroupedHistoryItem extends Transaction {
  kind: 'entry' | 'usageDay'
  /** usageDay: the Moscow day, YYYY-MM-DD */
  day: string | null
  /** usageDay: how many charged requests; 1 for a movement */
  requests: number
}

export interface GroupedHistoryPage {
  items: GroupedHistoryItem[]
  hasMore: boolean
}

/**
 * Older rows and some admin tools wrote English descriptions; they are shown in Russian (the
 * stored text stays as it was).
 */
const DESCRIPTION_RU: Record<string, string> = {
  'admin adjustment': 'Корректировка администратора',
  'manual adjustment': 'Корректировка администратора',
  adjustment: 'Корректировка',
  'welcome bonus': 'Приветственный бонус',
  bonus: 'Бонус',
  'top-up': 'Пополнение баланса',
  topup: 'Пополнение баланса',
  'balance top-up': 'Пополнение баланса',
  refund: 'Возврат',
  'api usage': 'Оплата запросов к API',
}

export function describeTransaction(description: string): string {
  return DESCRIPTION_RU[description.trim().toLowerCase()] ?? description
}

export const TRANSACTION_TYPE_LABELS: Record<TransactionType, string> = {
  bonus: 'Бонус',
  topup: 'Пополнение',
  usage: 'Использование',
  admin: 'Корректировка',
  refund: 'Возврат',
}

export type UsageStatus = 'success' | 'error' | 'cancelled'

/** One request to /v1 in GET /api/billing/usage `logs`. */
export interface UsageLog {
  id: string
  model: string
  promptTokens: number
  completionTokens: number
  totalTokens: number
  /** rubles charged */
  cost: number
  status: UsageStatus
  apiKeyId: string | null
  /** null = a web session (the Playground), not an API key */
  apiKeyName: string | null
  durationMs: number
  createdAt: string
}

/** One Moscow calendar day of the usage chart. */
export interface UsageDay {
  /** 'YYYY-MM-DD' (Moscow day) */
  date: string
  cost: number
  requests: number
  tokens: number
}

export interface UsageModel {
  model: string
  cost: number
  requests: number
  tokens: number
}

/** GET /api/billing/usage: totals, per-day series and the latest requests of a period. */
export interface UsageStats {
  totalCost: number
  totalTokens: number
  totalRequests: number
  /** contiguous, zero-filled, oldest first */
  daily: UsageDay[]
  /** by cost, most expensive first, at most 10 */
  topModels: UsageModel[]
  /** the choices for the filter selects over the whole period (filters ignored) */
  filters: { apiKeys: Array<{ id: string; name: string }>; models: string[] }
  logs: UsageLog[]
}
