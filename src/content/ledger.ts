// How balance movements read in Russian, the same in the app and the terminal.

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
