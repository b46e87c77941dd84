import { type FormEvent, useState } from 'react'
import { AuthBadge, AuthCard, authLinkClass } from '../../components/auth-card'
import { Button, ButtonLink } from '../../components/button'
import { FormAlert } from '../../components/form-alert'
import { MailIcon } from '../../components/icons'
import { api, errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { toast } from '../../stores/toasts'
import { BackToLogin } from './back-to-login'
import { EmailField } from './email-field'

export function ForgotPasswordPage() {
  useDocumentTitle('Восстановление пароля')
  const [email, setEmail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [loading, setLoading] = useState(false)
  const [sentTo, setSentTo] = useState<string | null>(null)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const address = email.trim()
    if (!address) {
      setError('Введите email')
      return
    }
    setError(null)
    setLoading(true)
    try {
      await api.post<{ message: string }>('/api/auth/forgot-password', { email: address })
      setSentTo(address)
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка при отправке письма'))
    } finally {
      setLoading(false)
    }
  }

  if (sentTo) {
    return (
      <AuthCard
        title="Письмо отправлено"
        badge={
          <AuthBadge tone="success">
            <MailIcon size={20} />
          </AuthBadge>
        }
        footer={
          <p>
            Не пришло письмо? Проверьте папку «Спам» или{' '}
            <button type="button" className={authLinkClass} onClick={() => setSentTo(null)}>
              отправьте ещё раз
            </button>
          </p>
        }
      >
        <div className="space-y-3 text-[15px] leading-6 text-slate-600">
          <p>
            Если аккаунт с адресом <span className="font-medium break-all text-slate-900">{sentTo}</span> существует, мы отправили на него письмо со ссылкой для сброса пароля.
          </p>
          <p>Ссылка действительна в течение 1 часа.</p>
        </div>
        <ButtonLink href="/login" variant="secondary" size="lg" className="mt-6 w-full">
          Вернуться ко входу
        </ButtonLink>
      </AuthCard>
    )
  }

  return (
    <AuthCard title="Восстановление пароля" subtitle="Укажите email, с которым вы регистрировались, — мы пришлём ссылку для сброса пароля." footer={<BackToLogin />}>
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <EmailField value={email} onChange={setEmail} />
        <FormAlert message={error} />
        <Button type="submit" size="lg" fullWidth loading={loading}>
          Отправить ссылку
        </Button>
      </form>
    </AuthCard>
  )
}
