import { type FormEvent, useState } from 'react'
import { Link, useSearch } from 'wouter'
import { AuthCard, AuthSwitchFooter } from '../../components/auth-card'
import { Button } from '../../components/button'
import { FormAlert } from '../../components/form-alert'
import { SparklesIcon } from '../../components/icons'
import { PasswordInput } from '../../components/password-input'
import { nextFromSearch, withNext } from '../../lib/next-path'
import { useHealth } from '../../lib/queries'
import { useDocumentTitle } from '../../lib/use-document-title'
import { EmailField } from './email-field'
import { useSignIn } from './use-sign-in'

const MIN_PASSWORD = 8

export function RegisterPage() {
  useDocumentTitle('Регистрация')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const [error, setError] = useState<string | null>(null)
  const next = nextFromSearch(useSearch())
  const { signIn, loading } = useSignIn('/api/auth/register', 'Ошибка регистрации')
  const confirmFirst = useHealth().data?.emailVerification === true

  function validate(): string | null {
    if (!email.trim() || !password || !confirm) return 'Заполните все поля'
    if (password.length < MIN_PASSWORD) return 'Пароль должен содержать минимум 8 символов'
    if (password !== confirm) return 'Пароли не совпадают'
    return null
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const problem = validate()
    setError(problem)
    if (problem) return
    await signIn(email, password)
  }

  return (
    <AuthCard
      title="Создание аккаунта"
      subtitle="Один аккаунт — доступ к сотням моделей через единый API"
      footer={<AuthSwitchFooter question="Уже есть аккаунт?" href={withNext('/login', next)} label="Войти" />}
    >
      <div className="mb-5 flex items-start gap-3 rounded-xl border border-indigo-100 bg-indigo-50/70 px-3.5 py-3 text-sm text-indigo-900">
        <SparklesIcon size={18} className="mt-0.5 shrink-0 text-indigo-600" />
        <p>
          <span className="font-semibold">50 ₽ в подарок</span> — приветственный бонус зачисляется на баланс{' '}
          {confirmFirst ? 'после подтверждения e-mail по ссылке из письма.' : 'сразу после регистрации.'}
        </p>
      </div>
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <EmailField value={email} onChange={setEmail} />
        <PasswordInput
          label="Пароль"
          name="password"
          autoComplete="new-password"
          showToggle={false}
          hint="Не менее 8 символов"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <PasswordInput
          label="Подтвердите пароль"
          name="confirmPassword"
          autoComplete="new-password"
          showToggle={false}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
        />
        <FormAlert message={error} />
        <Button type="submit" size="lg" fullWidth loading={loading}>
          Зарегистрироваться
        </Button>
        <p className="text-center text-xs leading-5 text-slate-500">
          Регистрируясь, вы принимаете{' '}
          <Link href="/terms-of-service" className="underline underline-offset-2 hover:text-slate-700">
            пользовательское соглашение
          </Link>{' '}
          и{' '}
          <Link href="/privacy-policy" className="underline underline-offset-2 hover:text-slate-700">
            политику конфиденциальности
          </Link>
          .
        </p>
      </form>
    </AuthCard>
  )
}
