// How balance movements read in Russian, the same in the app and the terminal.

import { formatRublesExact } from './format'

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

/** What an admin's deduction may take, in rubles: the balance less what running requests hold (micro-ruble exact). */
export const availableRubles = (balance: number, held: number) => Math.max(0, Math.round(balance * 1_000_000) - Math.round(held * 1_000_000)) / 1_000_000

/** Why a deduction is refused, in rubles — the server's refusal and the admin dialog say it the same way. */
export const overDeductionMessage = (balance: number, held = 0) =>
  held > 0
    ? `Нельзя списать больше, чем доступно: на балансе ${formatRublesExact(balance)}, из них ${formatRublesExact(held)} зарезервировано под выполняющиеся запросы — списать можно не больше ${formatRublesExact(availableRubles(balance, held))}`
    : `Нельзя списать больше, чем есть на балансе: сейчас на нём ${formatRublesExact(balance)}`
