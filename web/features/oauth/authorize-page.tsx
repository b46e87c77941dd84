// /auth/authorize?callback_url=…&code_challenge=…&code_challenge_method=S256: «Войти через AI Gateway».
// An app sends its user here; the user sees the app's origin, may cap its monthly spend and approves
// (the browser goes to callback_url?code=…) or declines (callback_url?error=access_denied). A visitor
// signs in first and comes back here (?next=). The server checks the link before anything is shown.
import { type FormEvent, useEffect, useId, useState } from 'react'
import { Redirect, useLocation, useSearch } from 'wouter'
import { AuthBadge, AuthCard } from '../../components/auth-card'
import { Button, ButtonLink } from '../../components/button'
import { FormAlert } from '../../components/form-alert'
import { AlertCircleIcon, KeyIcon, LinkIcon, PowerIcon, ShieldIcon } from '../../components/icons'
import { MoneyInput } from '../../components/input'
import { Spinner } from '../../components/spinner'
import { api, errorMessage } from '../../lib/api'
import { withNext } from '../../lib/next-path'
import { parseRubles } from '../../lib/parse-rubles'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useSession } from '../../stores/session'

type AuthorizeRequest = { callbackUrl: string; codeChallenge: string; codeChallengeMethod: string | undefined }
type Checked = { origin: string; declineUrl: string }
type State = { state: 'loading' } | { state: 'ready'; checked: Checked } | { state: 'invalid'; message: string }

const requestOf = (search: string): AuthorizeRequest => {
  const params = new URLSearchParams(search)
  return {
    callbackUrl: params.get('callback_url') ?? '',
    codeChallenge: params.get('code_challenge') ?? '',
    codeChallengeMethod: params.get('code_challenge_method') ?? undefined,
  }
}

/** Leaves the SPA for the app: a full navigation, so nothing of ours stays in its history entry. */
const leaveTo = (url: string) => window.location.assign(url)

export function AuthorizePage() {
  useDocumentTitle('Вход через AI Gateway')
  const [location] = useLocation()
  const search = useSearch()
  const email = useSession((s) => (s.isAuthenticated ? (s.user?.email ?? null) : null))
  if (!email) return <Redirect to={withNext('/login', `${location}?${search}`)} replace />
  // A new link is a new request: its own check, its own form.
  return <Approval key={search} search={search} email={email} />
}

function Approval({ search, email }: { search: string; email: string }) {
  const [request] = useState(() => requestOf(search))
  const [state, setState] = useState<State>({ state: 'loading' })

  useEffect(() => {
    let live = true
    api
      .post<Checked>('/api/auth/authorize/check', request)
      .then((checked) => live && setState({ state: 'ready', checked }))
      .catch((err) => live && setState({ state: 'invalid', message: errorMessage(err, 'Не удалось проверить ссылку') }))
    return () => {
      live = false
    }
  }, [request])

  if (state.state === 'loading')
    return (
      <div className="flex justify-center py-16">
        <Spinner size={24} label="Проверяем ссылку приложения…" />
      </div>
    )

  if (state.state === 'invalid')
    return (
      <AuthCard
        title="Ссылка для входа недействительна"
        badge={
          <AuthBadge tone="info">
            <AlertCircleIcon size={22} />
          </AuthBadge>
        }
        subtitle={state.message}
      >
        <p className="mb-4 text-sm leading-6 text-slate-600">Вернитесь в приложение и начните вход заново. Если ошибка повторяется, сообщите о ней разработчику приложения.</p>
        <ButtonLink href="/app/dashboard" variant="secondary" className="w-full">
          В панель управления
        </ButtonLink>
      </AuthCard>
    )

  return <ApprovalForm request={request} checked={state.checked} email={email} />
}

function ApprovalForm({ request, checked, email }: { request: AuthorizeRequest; checked: Checked; email: string }) {
  const id = useId()
  const [limit, setLimit] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState<'approve' | 'decline' | null>(null)
  const host = new URL(checked.origin).host

  async function approve(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const budgetRub = limit.trim() ? parseRubles(limit) : null
    if (budgetRub !== null && !(budgetRub > 0)) {
      setError('Введите лимит больше нуля или оставьте поле пустым')
      return
    }
    setError(null)
    setPending('approve')
    try {
      const { redirectUrl } = await api.post<{ redirectUrl: string }>('/api/auth/authorize', { ...request, budgetRub })
      leaveTo(redirectUrl)
    } catch (err) {
      setError(errorMessage(err, 'Не удалось разрешить доступ. Попробуйте ещё раз.'))
      setPending(null)
    }
  }

  function decline() {
    setPending('decline')
    leaveTo(checked.declineUrl)
  }

  return (
    <AuthCard
      title="Вход через AI Gateway"
      badge={
        <AuthBadge tone="info">
          <LinkIcon size={22} />
        </AuthBadge>
      }
      subtitle={
        <>
          Приложение{' '}
          <span className="font-semibold wrap-anywhere text-slate-900" data-testid="app-origin">
            {checked.origin}
          </span>{' '}
          запрашивает доступ к вашему аккаунту AI Gateway.
        </>
      }
    >
      <ul className="space-y-2.5 rounded-xl border border-slate-200 bg-slate-50 px-3.5 py-3 text-sm leading-5 text-slate-700">
        <li className="flex gap-2.5">
          <KeyIcon size={16} className="mt-0.5 shrink-0 text-indigo-600" />
          <span>Приложение получит собственный API-ключ и будет оплачивать запросы к моделям с вашего личного баланса.</span>
        </li>
        <li className="flex gap-2.5">
          <ShieldIcon size={16} className="mt-0.5 shrink-0 text-indigo-600" />
          <span>Пароль и другие данные аккаунта приложению не передаются.</span>
        </li>
        <li className="flex gap-2.5">
          <PowerIcon size={16} className="mt-0.5 shrink-0 text-indigo-600" />
          <span>Ключ появится на странице «API ключи» — там его можно отключить или удалить в любой момент.</span>
        </li>
      </ul>

      <form noValidate onSubmit={approve} className="mt-5 space-y-4">
        <div className="space-y-1.5">
          <label htmlFor={`${id}-limit`} className="text-sm font-medium text-slate-700">
            Лимит в месяц, ₽
          </label>
          <MoneyInput
            id={`${id}-limit`}
            name="budget"
            placeholder="Без лимита"
            value={limit}
            onValueChange={(v) => {
              setLimit(v)
              if (error) setError(null)
            }}
            invalid={!!error}
            aria-describedby={`${id}-hint`}
          />
          <p id={`${id}-hint`} className="text-xs leading-5 text-slate-500">
            Пустое поле — без лимита. Когда лимит исчерпан, запросы приложения отклоняются до начала следующего месяца (по Москве).
          </p>
        </div>
        <FormAlert message={error} />
        <div className="flex flex-col-reverse gap-3 sm:flex-row">
          <Button variant="secondary" size="lg" className="sm:flex-1" disabled={pending !== null} loading={pending === 'decline'} onClick={decline}>
            Отклонить
          </Button>
          <Button type="submit" size="lg" className="sm:flex-1" disabled={pending !== null} loading={pending === 'approve'}>
            Разрешить
          </Button>
        </div>
      </form>

      <p className="mt-5 border-t border-slate-100 pt-4 text-xs leading-5 text-slate-500">
        Вы вошли как <span className="font-medium wrap-anywhere text-slate-700">{email}</span>. После ответа вы вернётесь на{' '}
        <span className="font-medium wrap-anywhere text-slate-700">{host}</span>.
      </p>
    </AuthCard>
  )
}
