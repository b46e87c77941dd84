// Letters in Russian. HTML is built from escaped values only.

import { formatMicros } from '../lib/money'
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
