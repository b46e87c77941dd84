import { useEffect, useRef, useState } from 'react'
import { Link } from 'wouter'
import type { Verified } from '../../../src/wire'
import { AuthBadge, AuthCard, authLinkClass } from '../../components/auth-card'
import { ButtonLink } from '../../components/button'
import { AlertCircleIcon, CheckCircleIcon } from '../../components/icons'
import { Spinner } from '../../components/spinner'
import { api, errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { type User, useSession } from '../../stores/session'

type Outcome = { state: 'pending' } | { state: 'done'; message: string; bonusCredited: boolean } | { state: 'failed'; message: string }

/** The link from the confirmation letter: confirms the address once (the bonus comes with it). */
export function VerifyEmailPage({ token }: { token: string }) {
  useDocumentTitle('Подтверждение e-mail')
  const signedIn = useSession((s) => s.isAuthenticated && s.user !== null)
  const setUser = useSession((s) => s.setUser)
  const [outcome, setOutcome] = useState<Outcome>({ state: 'pending' })
  const asked = useRef(false)

  useEffect(() => {
    // One request per opening, even when React runs effects twice in development.
    if (asked.current) return
    asked.current = true
    api
      .post<Verified>('/api/auth/verify-email', { token })
      .then(async (result) => {
        setOutcome({ state: 'done', ...result })
        // The banner in the app reads the stored user: bring it up to date when signed in here.
        if (useSession.getState().isAuthenticated) {
          const profile = await api.get<{ user: User }>('/api/auth/profile').catch(() => null)
          if (profile?.user) setUser(profile.user)
        }
      })
      .catch((err) => setOutcome({ state: 'failed', message: errorMessage(err, 'Не удалось подтвердить e-mail') }))
  }, [token, setUser])

  if (outcome.state === 'pending') {
    return (
      <AuthCard title="Подтверждение e-mail">
        <p className="flex items-center gap-2 text-[15px] text-slate-600">
          <Spinner size={16} /> Проверяем ссылку…
        </p>
      </AuthCard>
    )
  }

  if (outcome.state === 'failed') {
    return (
      <AuthCard
        title="Ссылка не сработала"
        badge={
          <AuthBadge tone="info">
            <AlertCircleIcon size={20} />
          </AuthBadge>
        }
      >
        <p className="text-[15px] leading-6 text-slate-600" data-testid="verify-email-result">
          {outcome.message}. Войдите в аккаунт и нажмите «Отправить письмо ещё раз» — придёт новая ссылка.
        </p>
        <ButtonLink href={signedIn ? '/app/dashboard' : '/login'} className="mt-5">
          {signedIn ? 'Перейти в панель управления' : 'Войти'}
        </ButtonLink>
      </AuthCard>
    )
  }

  return (
    <AuthCard
      title={outcome.message}
      badge={
        <AuthBadge tone="success">
          <CheckCircleIcon size={20} />
        </AuthBadge>
      }
    >
      <p className="text-[15px] leading-6 text-slate-600" data-testid="verify-email-result">
        {outcome.bonusCredited ? 'Спасибо! Приветственный бонус зачислен на ваш баланс.' : 'Адрес подтверждён. Можно продолжать работу.'}
      </p>
      {signedIn ? (
        <ButtonLink href="/app/dashboard" className="mt-5">
          Перейти в панель управления
        </ButtonLink>
      ) : (
        <p className="mt-5 text-sm">
          <Link href="/login" className={authLinkClass}>
            Войти в аккаунт
          </Link>
        </p>
      )}
    </AuthCard>
  )
}
