import { useHealth } from '../lib/queries'
import { useResendVerification } from '../lib/use-resend-verification'
import { useSession } from '../stores/session'
import { MailIcon } from './icons'
import { Spinner } from './spinner'

/**
 * Shown above every signed-in page until the address is confirmed: the welcome bonus waits for the
 * link in the letter (REQUIRE_EMAIL_VERIFICATION). Spending a top-up never does.
 */
export function EmailVerificationBanner() {
  const { data: health } = useHealth()
  const user = useSession((s) => s.user)
  const { sending, sent, resend } = useResendVerification()
  if (!health?.emailVerification || !user || user.emailVerified !== false) return null

  return (
    <div role="status" data-testid="email-verification-banner" className="border-b border-indigo-200 bg-indigo-50 px-4 py-2.5 text-sm text-indigo-950">
      {/* narrow screens: the button goes under the text instead of squeezing it into a column */}
      <div className="mx-auto flex max-w-6xl flex-col gap-2 sm:flex-row sm:items-center sm:gap-3">
        <div className="flex min-w-0 flex-1 items-start gap-2.5">
          <MailIcon size={16} className="mt-0.5 shrink-0 text-indigo-600" />
          <p className="min-w-0">
            <span className="font-semibold">Подтвердите e-mail.</span> Мы отправили письмо со ссылкой на <span className="font-medium break-all">{user.email}</span>. Приветственный
            бонус зачисляется после подтверждения адреса.
          </p>
        </div>
        <button
          type="button"
          onClick={resend}
          disabled={sending || sent}
          className="ml-6.5 inline-flex h-8 shrink-0 items-center gap-2 self-start rounded-lg border border-indigo-200 bg-white px-3 text-sm font-medium text-indigo-700 transition-colors hover:bg-indigo-100 disabled:opacity-60 sm:ml-0 sm:self-auto"
        >
          {sending && <Spinner size={14} />}
          {sent ? 'Письмо отправлено' : 'Отправить письмо ещё раз'}
        </button>
      </div>
    </div>
  )
}
