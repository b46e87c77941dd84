// Wire types shared by more than one screen: declared once, by the server's route schemas
// (src/wire.ts), and imported here as types only. What follows them is the web's own reading.
import type { TransactionType } from '../../src/wire'

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
