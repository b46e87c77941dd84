import { useHealth } from '../lib/queries'
import { useResendVerification } from '../lib/use-resend-verification'
import { useBanners, useDismissed } from '../stores/banners'
import { useSession } from '../stores/session'
import { BannerLine } from './banner-line'
import { MailIcon } from './icons'
import { Spinner } from './spinner'

/** The address is not confirmed yet (REQUIRE_EMAIL_VERIFICATION) and the notice was not hidden. */
export function useEmailVerificationBannerShown(): boolean {
  const { data: health } = useHealth()
  const user = useSession((s) => s.user)
  const dismissed = useDismissed('emailVerification')
  return !!health?.emailVerification && !!user && user.emailVerified === false && !dismissed
}

/**
 * Shown above every signed-in page until the address is confirmed: the welcome bonus waits for the
 * link in the letter. Spending a top-up never does. Hidden until the next page load when closed.
 */
export function EmailVerificationBanner() {
  const shown = useEmailVerificationBannerShown()
  const user = useSession((s) => s.user)
  const { sending, sent, resend } = useResendVerification()
  const dismiss = useBanners((s) => s.dismiss)
  if (!shown || !user) return null
  return (
    <BannerLine
      tone="indigo"
      testId="email-verification-banner"
      title={`Подтвердите e-mail. Мы отправили письмо со ссылкой на ${user.email}. Приветственный бонус зачисляется после подтверждения адреса.`}
      lead={<MailIcon size={16} className="shrink-0 text-indigo-600" />}
      action={
        <button
          type="button"
          onClick={resend}
          disabled={sending || sent}
          aria-label={sent ? 'Письмо отправлено' : 'Отправить письмо ещё раз'}
          className="inline-flex h-7 shrink-0 items-center gap-1.5 rounded-lg border border-indigo-200 bg-white px-2.5 text-sm font-medium text-indigo-700 transition-colors hover:bg-indigo-100 disabled:opacity-60 max-sm:text-[13px]"
        >
          {sending && <Spinner size={14} />}
          {/* a phone keeps the line for the text: the short wording there */}
          <span className="max-sm:hidden">{sent ? 'Письмо отправлено' : 'Отправить письмо ещё раз'}</span>
          <span className="sm:hidden" aria-hidden="true">
            {sent ? 'Отправлено' : 'Ещё раз'}
          </span>
        </button>
      }
      dismissLabel="Скрыть напоминание о подтверждении e-mail"
      onDismiss={() => dismiss('emailVerification')}
    >
      <span className="font-semibold">Подтвердите e-mail</span>
      <span className="max-sm:hidden">: письмо со ссылкой отправлено на </span>
      <span className="sm:hidden"> — письмо на </span>
      <span className="font-medium">{user.email}</span>
      <span className="max-sm:hidden">. Приветственный бонус зачисляется после подтверждения адреса</span>.
    </BannerLine>
  )
}
