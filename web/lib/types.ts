// Wire types shared by more than one screen: declared once, by the server's route schemas
// (src/wire.ts), and imported here as types only. What follows them is the web's own reading.
import type { TransactionType } from '../../src/wire'

export { describeTransaction } from '../../src/content/ledger'
export type {
  GroupedHistoryItem,
  GroupedHistoryPage,
  Transaction,
  TransactionType,
  UsageDay,
  UsageLog,
  UsageModel,
  UsageStats,
  UsageStatus,
} from '../../src/wire'

export const TRANSACTION_TYPE_LABELS: Record<TransactionType, string> = {
  bonus: 'Бонус',
  topup: 'Пополнение',
  usage: 'Использование',
  admin: 'Корректировка',
  refund: 'Возврат',
  promo: 'Промокод',
  referral: 'Реферальный бонус',
}
