// Letters in Russian. HTML is built from escaped values only.

import { formatMicros, formatRubRu } from '../lib/money'
import type { Letter } from './service'

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const page = (body: string) =>
  `<!doctype html><html lang="ru"><body style="font-family:system-ui,sans-serif;color:#0f172a;line-height:1.5">${body}<p>— Команда AI Gateway</p></body></html>`

export function passwordResetLetter(to: string, link: string): Letter {
  const text = [
    'Здравствуйте!',
    '',
    `Мы получили запрос на сброс пароля для аккаунта ${to} в AI Gateway.`,
    'Чтобы задать новый пароль, откройте ссылку (она действительна 1 час и срабатывает один раз):',
    '',
    link,
    '',
    'Если вы не запрашивали сброс, просто проигнорируйте это письмо — пароль останется прежним.',
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>Мы получили запрос на сброс пароля для аккаунта <b>${escapeHtml(to)}</b> в AI Gateway.</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:8px;text-decoration:none">Задать новый пароль</a></p>
<p style="color:#475569">Ссылка действительна 1 час и срабатывает один раз:<br>${escapeHtml(link)}</p>
<p style="color:#475569">Если вы не запрашивали сброс, просто проигнорируйте это письмо — пароль останется прежним.</p>`)
  return { to, subject: 'Восстановление пароля — AI Gateway', text, html }
}

/** Sent after a successful reset, so the owner learns of a reset they did not make. */
export function passwordChangedLetter(to: string, forgotLink: string): Letter {
  const text = [
    'Здравствуйте!',
    '',
    `Пароль аккаунта ${to} в AI Gateway только что изменён. Все активные сессии завершены.`,
    'Если это были не вы, немедленно восстановите доступ по ссылке:',
    '',
    forgotLink,
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>Пароль аккаунта <b>${escapeHtml(to)}</b> в AI Gateway только что изменён. Все активные сессии завершены.</p>
<p>Если это были не вы, немедленно <a href="${escapeHtml(forgotLink)}">восстановите доступ</a>.</p>`)
  return { to, subject: 'Пароль изменён — AI Gateway', text, html }
}

/** Sent once when the balance first falls below the level the customer set on the billing page. */
export function lowBalanceLetter(to: string, balanceMicros: number, thresholdMicros: number, billingLink: string): Letter {
  const balance = formatMicros(balanceMicros)
  const threshold = formatMicros(thresholdMicros)
  const text = [
    'Здравствуйте!',
    '',
    `Баланс аккаунта ${to} в AI Gateway опустился ниже ${threshold} ₽: сейчас на счёте ${balance} ₽.`,
    'Когда средства закончатся, запросы к API будут отклоняться с ошибкой insufficient_balance.',
    'Пополнить баланс картой:',
    '',
    billingLink,
    '',
    'Порог уведомления можно изменить или отключить на странице «Баланс».',
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>Баланс аккаунта <b>${escapeHtml(to)}</b> в AI Gateway опустился ниже <b>${escapeHtml(threshold)} ₽</b>: сейчас на счёте <b>${escapeHtml(balance)} ₽</b>.</p>
<p>Когда средства закончатся, запросы к API будут отклоняться с ошибкой <code>insufficient_balance</code>.</p>
<p><a href="${escapeHtml(billingLink)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:8px;text-decoration:none">Пополнить баланс</a></p>
<p style="color:#475569">Порог уведомления можно изменить или отключить на странице «Баланс».</p>`)
  return { to, subject: 'Баланс заканчивается — AI Gateway', text, html }
}

/** Sent at registration and on "send again": the link confirms the address and unlocks the welcome bonus. */
export function emailVerificationLetter(to: string, link: string, bonusRub: number, validHours: number): Letter {
  const bonus = bonusRub > 0 ? `После подтверждения на баланс будет зачислен приветственный бонус ${bonusRub} ₽.` : ''
  const text = [
    'Здравствуйте!',
    '',
    `Вы зарегистрировались в AI Gateway с адресом ${to}. Подтвердите его, открыв ссылку (она действительна ${validHours} часа и срабатывает один раз):`,
    '',
    link,
    '',
    ...(bonus ? [bonus, ''] : []),
    'Если вы не регистрировались, просто проигнорируйте это письмо.',
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>Вы зарегистрировались в AI Gateway с адресом <b>${escapeHtml(to)}</b>. Подтвердите его:</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:8px;text-decoration:none">Подтвердить e-mail</a></p>
<p style="color:#475569">Ссылка действительна ${validHours} часа и срабатывает один раз:<br>${escapeHtml(link)}</p>
${bonus ? `<p>${escapeHtml(bonus)}</p>` : ''}
<p style="color:#475569">Если вы не регистрировались, просто проигнорируйте это письмо.</p>`)
  return { to, subject: 'Подтвердите e-mail — AI Gateway', text, html }
}

const button = (link: string, label: string) =>
  `<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:8px;text-decoration:none">${escapeHtml(label)}</a></p>`

/** An invitation to a team: the one-time link (valid `validDays` days) opens the acceptance page. */
export function teamInvitationLetter(to: string, teamName: string, inviter: string, roleLabel: string, link: string, validDays: number): Letter {
  const text = [
    'Здравствуйте!',
    '',
    `${inviter} приглашает вас в команду «${teamName}» в AI Gateway с ролью «${roleLabel}».`,
    `Чтобы присоединиться, откройте ссылку и войдите (или зарегистрируйтесь) с адресом ${to}. Ссылка действительна ${validDays} дней и срабатывает один раз:`,
    '',
    link,
    '',
    'Если вы не ждали приглашения, просто проигнорируйте это письмо.',
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p><b>${escapeHtml(inviter)}</b> приглашает вас в команду <b>«${escapeHtml(teamName)}»</b> в AI Gateway с ролью «${escapeHtml(roleLabel)}».</p>
${button(link, 'Принять приглашение')}
<p style="color:#475569">Войдите или зарегистрируйтесь с адресом <b>${escapeHtml(to)}</b>. Ссылка действительна ${validDays} дней и срабатывает один раз:<br>${escapeHtml(link)}</p>
<p style="color:#475569">Если вы не ждали приглашения, просто проигнорируйте это письмо.</p>`)
  return { to, subject: `Приглашение в команду «${teamName}» — AI Gateway`, text, html }
}

/** A budget crossed 50, 80 or 100 % of its limit in the current period (one letter per threshold per period). */
export function budgetAlertLetter(
  to: string,
  a: { what: string; threshold: number; spentMicros: number; limitMicros: number; periodPhrase: string; resetsAt: string | null; link: string },
): Letter {
  const spent = formatMicros(a.spentMicros)
  const limit = formatMicros(a.limitMicros)
  const state = a.threshold >= 100 ? 'исчерпан' : `израсходован на ${a.threshold} %`
  const reset = a.resetsAt ? `Бюджет обновится ${a.resetsAt}.` : 'Бюджет без периода: он не обновляется сам.'
  const text = [
    'Здравствуйте!',
    '',
    `${a.what}: бюджет ${state} — потрачено ${spent} ₽ из ${limit} ₽ ${a.periodPhrase}.`,
    a.threshold >= 100 ? 'Запросы сверх бюджета отклоняются с ошибкой 402 budget_exceeded.' : 'Когда бюджет закончится, запросы будут отклоняться с ошибкой 402 budget_exceeded.',
    reset,
    '',
    a.link,
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>${escapeHtml(a.what)}: бюджет <b>${escapeHtml(state)}</b> — потрачено <b>${escapeHtml(spent)} ₽</b> из <b>${escapeHtml(limit)} ₽</b> ${escapeHtml(a.periodPhrase)}.</p>
<p>${a.threshold >= 100 ? 'Запросы сверх бюджета отклоняются с ошибкой <code>402 budget_exceeded</code>.' : 'Когда бюджет закончится, запросы будут отклоняться с ошибкой <code>402 budget_exceeded</code>.'}</p>
<p style="color:#475569">${escapeHtml(reset)}</p>
${button(a.link, 'Открыть AI Gateway')}`)
  const subject = a.threshold >= 100 ? `Бюджет исчерпан: ${a.what} — AI Gateway` : `Бюджет израсходован на ${a.threshold} %: ${a.what} — AI Gateway`
  return { to, subject, text, html }
}

/** A team's balance fell below the level its owners set (to every owner and admin). */
export function teamLowBalanceLetter(to: string, teamName: string, balanceMicros: number, thresholdMicros: number, billingLink: string): Letter {
  const balance = formatMicros(balanceMicros)
  const threshold = formatMicros(thresholdMicros)
  const text = [
    'Здравствуйте!',
    '',
    `Баланс команды «${teamName}» в AI Gateway опустился ниже ${threshold} ₽: сейчас на счёте ${balance} ₽.`,
    'Когда средства закончатся, запросы участников будут отклоняться с ошибкой insufficient_balance.',
    'Пополнить баланс команды:',
    '',
    billingLink,
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>Баланс команды <b>«${escapeHtml(teamName)}»</b> в AI Gateway опустился ниже <b>${escapeHtml(threshold)} ₽</b>: сейчас на счёте <b>${escapeHtml(balance)} ₽</b>.</p>
<p>Когда средства закончатся, запросы участников будут отклоняться с ошибкой <code>insufficient_balance</code>.</p>
${button(billingLink, 'Пополнить баланс команды')}`)
  return { to, subject: `Баланс команды «${teamName}» заканчивается — AI Gateway`, text, html }
}

/** An invoice issued for a team, its PDF attached: to the company's document address. */
export function invoiceLetter(
  to: string,
  a: { number: string; amount: string; teamName: string; purpose: string; pdf: Uint8Array; filename: string; billingLink: string },
): Letter {
  const text = [
    'Здравствуйте!',
    '',
    `Выставлен счёт № ${a.number} на ${a.amount} ₽ для пополнения баланса команды «${a.teamName}» в AI Gateway. Счёт — во вложении (PDF).`,
    'Укажите в платёжном поручении назначение платежа без изменений — так оплата зачислится автоматически:',
    '',
    a.purpose,
    '',
    `Счета и закрывающие документы: ${a.billingLink}`,
    '',
    '— Команда AI Gateway',
  ].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
<p>Выставлен счёт <b>№ ${escapeHtml(a.number)}</b> на <b>${escapeHtml(a.amount)} ₽</b> для пополнения баланса команды <b>«${escapeHtml(a.teamName)}»</b> в AI Gateway. Счёт — во вложении (PDF).</p>
<p>Укажите в платёжном поручении назначение платежа без изменений — так оплата зачислится автоматически:</p>
<p style="padding:10px 14px;border:1px solid #cbd5e1;border-radius:8px;font-family:ui-monospace,monospace">${escapeHtml(a.purpose)}</p>
${button(a.billingLink, 'Счета и документы')}`)
  return {
    to,
    subject: `Счёт № ${a.number} на ${a.amount} ₽ — AI Gateway`,
    text,
    html,
    attachments: [{ filename: a.filename, content: a.pdf, contentType: 'application/pdf' }],
  }
}

/**
 * Auto top-up (issue 37) charged the saved card, or could not: to the account's owner (a team's
 * owners). `account` names it («аккаунта user@x.ru» / «команды «Acme»»); `reason` is why a charge
 * failed, in Russian; `disabled` when auto top-up turned itself off; `retryAt` the next try
 * (Moscow time, words) after a temporary refusal.
 */
export function autoTopupLetter(
  to: string,
  a: {
    account: string
    amountMicros: number
    method: string
    outcome: 'succeeded' | 'failed'
    reason: string | null
    disabled: boolean
    retryAt: string | null
    methodForgotten: boolean
    billingLink: string
  },
): Letter {
  const amount = formatRubRu(a.amountMicros)
  const lines: string[] = []
  let subject: string
  if (a.outcome === 'succeeded') {
    subject = `Баланс пополнен автоматически на ${amount} — AI Gateway`
    lines.push(`Баланс ${a.account} опустился ниже порога, и мы пополнили его на ${amount} с сохранённой карты (${a.method}), как вы настроили.`)
    lines.push('Чек придёт от ЮKassa на e-mail владельца карты.')
  } else if (a.disabled) {
    subject = `Автопополнение отключено — AI Gateway`
    lines.push(`Не удалось пополнить баланс ${a.account} на ${amount} с сохранённой карты (${a.method}): ${a.reason ?? 'платёж отклонён'}.`)
    lines.push(
      a.methodForgotten
        ? 'Эта карта больше не может быть списана, мы удалили её из сохранённых. Автопополнение отключено: пополните баланс с другой картой, сохранив её, и включите автопополнение снова.'
        : 'Автопополнение отключено, чтобы не повторять отклонённые списания. Проверьте карту или сохраните другую и включите автопополнение снова.',
    )
  } else {
    subject = `Не удалось пополнить баланс автоматически — AI Gateway`
    lines.push(`Не удалось пополнить баланс ${a.account} на ${amount} с сохранённой карты (${a.method}): ${a.reason ?? 'платёж отклонён'}.`)
    lines.push(`Автопополнение остаётся включённым: следующая попытка — ${a.retryAt ?? 'позже'} (не больше трёх неудачных попыток в день).`)
  }
  lines.push('Настроить или отключить автопополнение и удалить карту можно на странице «Баланс».')
  const text = ['Здравствуйте!', '', ...lines, '', a.billingLink, '', '— Команда AI Gateway'].join('\n')
  const html = page(`
<p>Здравствуйте!</p>
${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
${button(a.billingLink, 'Открыть страницу «Баланс»')}`)
  return { to, subject, text, html }
}
