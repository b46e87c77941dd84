import { type FormEvent, useState } from 'react'
import { Link, useSearch } from 'wouter'
import { AuthCard, AuthSwitchFooter } from '../../components/auth-card'
import { Button } from '../../components/button'
import { FormAlert } from '../../components/form-alert'
import { PasswordInput } from '../../components/password-input'
import { nextFromSearch, withNext } from '../../lib/next-path'
import { useDocumentTitle } from '../../lib/use-document-title'
import { EmailField } from './email-field'
import { useSignIn } from './use-sign-in'

export function LoginPage() {
  useDocumentTitle('Вход')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(null)
  const next = nextFromSearch(useSearch())
  const { signIn, loading } = useSignIn('/api/auth/login', 'Ошибка входа')

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!email.trim() || !password) {
      setError('Заполните все поля')
      return
    }
    setError(null)
    await signIn(email, password)
  }

  return (
    <AuthCard
      title="Вход в аккаунт"
      subtitle="Войдите, чтобы продолжить работу с AI Gateway"
      footer={<AuthSwitchFooter question="Нет аккаунта?" href={withNext('/register', next)} label="Зарегистрироваться" />}
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <EmailField value={email} onChange={setEmail} />
        <PasswordInput
          label="Пароль"
          name="password"
          autoComplete="current-password"
          showToggle={false}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          labelAside={
            <Link href="/forgot-password" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
              Забыли пароль?
            </Link>
          }
        />
        <FormAlert message={error} />
        <Button type="submit" size="lg" fullWidth loading={loading}>
          Войти
        </Button>
      </form>
    </AuthCard>
  )
}
