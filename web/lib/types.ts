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

export const TRANSACTION_TYPE_LABELS: Record<TransactionType, string> = {
  bonus: 'Бонус',
  topup: 'Пополнение',
  usage: 'Использование',
  admin: 'Корректировка',
  refund: 'Возврат',
}
