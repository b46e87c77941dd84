// /app/account: the customer's own settings — e-mail and its confirmation, change of password,
// open sessions with "log out everywhere", and deleting the account.
import { type FormEvent, type ReactNode, useState } from 'react'
import useSWR from 'swr'
import { Link, useLocation } from 'wouter'
import { formatDateTime, formatRubles } from '../../../src/content/format'
import { REFUND } from '../../../src/content/terms'
import type { Session as SessionInfo } from '../../../src/wire'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FormAlert } from '../../components/form-alert'
import { AlertCircleIcon, CheckCircleIcon } from '../../components/icons'
import { Input } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { PasswordInput } from '../../components/password-input'
import { api, authorizedFetch, errorMessage, parseResponse } from '../../lib/api'
import { useBalance } from '../../lib/queries'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useResendVerification } from '../../lib/use-resend-verification'
import { type User, useSession } from '../../stores/session'
import { toast } from '../../stores/toasts'
import { ReferralSection } from './referral-section'

const SESSIONS_KEY = '/api/auth/sessions'

function Section({ title, description, children, testId }: { title: string; description?: ReactNode; children: ReactNode; testId: string }) {
  return (
    <Card className="p-4 sm:p-6" data-testid={testId}>
      <h2 className="text-base font-semibold text-slate-900">{title}</h2>
      {description && <p className="mt-1 text-sm text-slate-500">{description}</p>}
      <div className="mt-4">{children}</div>
    </Card>
  )
}

function EmailSection({ user }: { user: User }) {
  const { sending, resend } = useResendVerification()
  return (
    <Section title="E-mail" testId="account-email">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="min-w-0">
          <p className="text-sm font-medium break-all text-slate-900" data-testid="account-email-address">
            {user.email}
          </p>
          {user.emailVerified ? (
            <p className="mt-1 inline-flex items-center gap-1.5 text-sm text-emerald-700">
              <CheckCircleIcon size={15} /> Адрес подтверждён
            </p>
          ) : (
            <p className="mt-1 inline-flex items-center gap-1.5 text-sm text-amber-700">
              <AlertCircleIcon size={15} /> Адрес не подтверждён
            </p>
          )}
        </div>
        {!user.emailVerified && (
          <Button variant="secondary" size="sm" loading={sending} onClick={resend} className="self-start sm:self-auto">
            Отправить письмо ещё раз
          </Button>
        )}
      </div>
    </Section>
  )
}

function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [confirm, setConfirm] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!current || !next || !confirm) return setError('Заполните все поля')
    if (next.length < 8) return setError('Пароль должен содержать минимум 8 символов')
    if (next !== confirm) return setError('Пароли не совпадают')
    setError(null)
    setSaving(true)
    try {
      const { message } = await api.post<{ message: string }>(
        '/api/auth/change-password',
        { currentPassword: current, newPassword: next },
        { fallback: 'Не удалось изменить пароль' },
      )
      toast.success(message)
      setCurrent('')
      setNext('')
      setConfirm('')
      onChanged()
    } catch (err) {
      setError(errorMessage(err, 'Не удалось изменить пароль'))
    } finally {
      setSaving(false)
    }
  }

  return (
    <Section title="Смена пароля" description="После смены пароля все остальные устройства выйдут из аккаунта; на этом вы останетесь." testId="account-password">
      <form noValidate onSubmit={onSubmit} className="max-w-md space-y-4">
        <PasswordInput label="Текущий пароль" name="current-password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        <PasswordInput label="Новый пароль" name="new-password" autoComplete="new-password" hint="Не короче 8 символов" value={next} onChange={(e) => setNext(e.target.value)} />
        <PasswordInput label="Повторите новый пароль" name="confirm-password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        <FormAlert message={error} />
        <Button type="submit" loading={saving}>
          Изменить пароль
        </Button>
      </form>
    </Section>
  )
}

function SessionsSection() {
  const { data, error, isValidating, mutate } = useSWR<SessionInfo[]>(SESSIONS_KEY)
  const logout = useSession((s) => s.logout)
  const [, navigate] = useLocation()
  const [leaving, setLeaving] = useState(false)

  async function logoutAll() {
    setLeaving(true)
    try {
      await api.post('/api/auth/logout-all', undefined, { fallback: 'Не удалось завершить сессии' })
      logout()
      toast.success('Вы вышли на всех устройствах')
      navigate('/login')
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось завершить сессии'))
      setLeaving(false)
    }
  }

  let body: ReactNode
  if (Array.isArray(data) && data.length > 0) {
    body = (
      <ul data-testid="session-list" className="divide-y divide-slate-100">
        {data.map((s) => (
          <li key={s.id} data-testid="session-row" data-current={s.current} className="flex flex-col gap-1 py-3 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              <p className="text-sm font-medium text-slate-800">
                <span data-testid="session-device">{s.device ?? 'Неизвестное устройство'}</span>
                {s.current && (
                  <span className="ml-2 inline-flex rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-medium text-emerald-700 ring-1 ring-emerald-200">это устройство</span>
                )}
              </p>
              <p className="mt-0.5 text-xs text-slate-500">
                Вход {formatDateTime(s.createdAt)}
                {s.ip && (
                  <>
                    {' '}
                    с IP{' '}
                    <span data-testid="session-ip" className="font-mono">
                      {s.ip}
                    </span>
                  </>
                )}{' '}
                · последняя активность: {formatDateTime(s.lastUsedAt)}
              </p>
            </div>
          </li>
        ))}
      </ul>
    )
  } else if (Array.isArray(data)) {
    body = <EmptyNote>Открытых сессий нет</EmptyNote>
  } else if (error) {
    body = <LoadError message="Не удалось загрузить сессии." retrying={isValidating} onRetry={() => void mutate()} />
  } else {
    body = <ListSkeleton />
  }

  return (
    <Section
      title="Активные сессии"
      description="Устройства и браузеры, где выполнен вход. Последняя активность отмечается, когда вход продлевается (раз в несколько минут работы), поэтому может немного отставать."
      testId="account-sessions"
    >
      {body}
      <Button variant="secondary" className="mt-3 w-full sm:w-auto" loading={leaving} onClick={logoutAll}>
        Выйти на всех устройствах
      </Button>
    </Section>
  )
}

function DeleteSection({ user }: { user: User }) {
  const [typed, setTyped] = useState('')
  const [deleting, setDeleting] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const logout = useSession((s) => s.logout)
  const [, navigate] = useLocation()
  const { data: balance } = useBalance()
  const rest = balance?.balance ?? user.balance
  const matches = typed.trim().toLowerCase() === user.email.toLowerCase()

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!matches) return setError('Введите e-mail аккаунта, чтобы подтвердить удаление')
    setError(null)
    setDeleting(true)
    try {
      const response = await authorizedFetch('/api/auth/account', {
        method: 'DELETE',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: typed.trim() }),
      })
      await parseResponse(response, 'Не удалось удалить аккаунт')
      logout()
      toast.success('Аккаунт удалён')
      navigate('/')
    } catch (err) {
      setError(errorMessage(err, 'Не удалось удалить аккаунт'))
      setDeleting(false)
    }
  }

  return (
    <Section title="Удаление аккаунта" testId="account-delete">
      <div className="space-y-2 text-sm text-slate-600">
        <p>
          API-ключи и все сессии перестанут действовать сразу, e-mail будет обезличен, и войти в аккаунт будет нельзя. История платежей и запросов хранится в обезличенном виде в
          течение сроков, установленных законом.
        </p>
        <p data-testid="account-delete-balance" className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900">
          Остаток баланса ({formatRubles(rest)}) при удалении автоматически не возвращается. Вернуть неизрасходованные деньги, внесённые картой, можно до удаления — заявкой на
          странице{' '}
          <Link href="/app/billing" className="font-medium underline underline-offset-2">
            «Баланс»
          </Link>
          : остаток больше {REFUND.minRemainderRub} ₽, с последнего пополнения прошло не больше {REFUND.windowDays} дней и активных API-ключей нет (см.{' '}
          <Link href="/refund-policy" className="font-medium underline underline-offset-2">
            правила возврата
          </Link>
          ). Бонусы не возвращаются.
        </p>
      </div>
      <form noValidate onSubmit={onSubmit} className="mt-4 max-w-md space-y-3">
        <Input
          label="Введите e-mail аккаунта для подтверждения"
          placeholder={user.email}
          name="confirm-email"
          autoComplete="off"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
        <FormAlert message={error} />
        <Button type="submit" variant="danger" loading={deleting} disabled={!matches}>
          Удалить аккаунт
        </Button>
      </form>
    </Section>
  )
}

export function AccountPage() {
  useDocumentTitle('Аккаунт')
  const user = useSession((s) => s.user)
  const { mutate } = useSWR<SessionInfo[]>(SESSIONS_KEY)
  if (!user) return null
  return (
    <>
      <PageHeading title="Аккаунт" description="E-mail, пароль, устройства и удаление аккаунта" />
      <div className="space-y-6">
        <EmailSection user={user} />
        <PasswordSection onChanged={() => void mutate()} />
        <SessionsSection />
        <ReferralSection />
        <DeleteSection user={user} />
      </div>
    </>
  )
}
