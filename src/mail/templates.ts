// Letters in Russian. HTML is built from escaped values only.
import type { Letter } from './service'

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

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
  const html = `<!doctype html><html lang="ru"><body style="font-family:system-ui,sans-serif;color:#0f172a;line-height:1.5">
<p>Здравствуйте!</p>
<p>Мы получили запрос на сброс пароля для аккаунта <b>${escape(to)}</b> в AI Gateway.</p>
<p><a href="${escape(link)}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:8px;text-decoration:none">Задать новый пароль</a></p>
<p style="color:#475569">Ссылка действительна 1 час и срабатывает один раз:<br>${escape(link)}</p>
<p style="color:#475569">Если вы не запрашивали сброс, просто проигнорируйте это письмо — пароль останется прежним.</p>
<p>— Команда AI Gateway</p></body></html>`
  return { to, subject: 'Восстановление пароля — AI Gateway', text, html }
}
