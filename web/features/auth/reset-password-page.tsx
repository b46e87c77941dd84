import { type FormEvent, useEffect, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { AuthBadge, AuthCard, authLinkClass } from '../../components/auth-card'
import { Button } from '../../components/button'
import { FormAlert } from '../../components/form-alert'
import { CheckCircleIcon, ClockIcon } from '../../components/icons'
import { PasswordInput } from '../../components/password-input'
import { api, errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { toast } from '../../stores/toasts'
import { BackToLogin } from './back-to-login'

const MIN_PASSWORD = 6
const REDIRECT_DELAY_MS = 3000

export function ResetPasswordPage({ token }: { token: string }) {
  useDocumentTitle('Новый пароль')
  const [, navigate] = useLocation()
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const [visible, setVisible] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [loading, setLoading] = useState(false)
  const [done, setDone] = useState(false)

  useEffect(() => {
    if (!done) return
    const timer = setTimeout(() => navigate('/login'), REDIRECT_DELAY_MS)
    return () => clearTimeout(timer)
  }, [done, navigate])

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    let problem: string | null = null
    if (password !== confirm) problem = 'Пароли не совпадают'
    else if (password.length < MIN_PASSWORD) problem = 'Пароль должен быть не менее 6 символов'
    setError(problem)
    if (problem) return
    setLoading(true)
    try {
      await api.post<{ message: string }>('/api/auth/reset-password', { token, password })
      setDone(true)
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка при сбросе пароля'), {
        duration: 8000,
        action: { label: 'Запросить новую ссылку', href: '/forgot-password' },
      })
    } finally {
      setLoading(false)
    }
  }

  if (done) {
    return (
      <AuthCard
        title="Пароль успешно изменён"
        badge={
          <AuthBadge tone="success">
            <CheckCircleIcon size={20} />
          </AuthBadge>
        }
      >
        <p className="text-[15px] leading-6 text-slate-600">Теперь вы можете войти с новым паролем. Через 3 секунды откроется страница входа.</p>
        <Link href="/login" className={`mt-5 inline-flex items-center gap-1.5 text-sm ${authLinkClass}`}>
          Перейти ко входу сейчас
        </Link>
      </AuthCard>
    )
  }

  return (
    <AuthCard title="Новый пароль" subtitle="Придумайте новый пароль для своего аккаунта." footer={<BackToLogin />}>
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <PasswordInput
          label="Новый пароль"
          name="password"
          autoComplete="new-password"
          hint="Не менее 6 символов"
          visible={visible}
          onVisibleChange={setVisible}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoFocus
        />
        <PasswordInput
          label="Подтвердите пароль"
          name="confirmPassword"
          autoComplete="new-password"
          visible={visible}
          showToggle={false}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
        />
        <p className="flex items-center gap-2 text-sm text-slate-500">
          <ClockIcon size={15} className="shrink-0 text-slate-400" />
          Ссылка действительна в течение 1 часа
        </p>
        <FormAlert message={error} />
        <Button type="submit" size="lg" fullWidth loading={loading}>
          Сменить пароль
        </Button>
      </form>
    </AuthCard>
  )
}
