// «Промокод» on the billing page: POST /api/billing/promo credits the acting account (personal or the
// team's) once; the answer's message is shown under the field, and the money on the page is asked again.
import { type FormEvent, useId, useState } from 'react'
import { Link } from 'wouter'
import type { PromoRedeemed } from '../../../src/wire'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FormAlert } from '../../components/form-alert'
import { CheckCircleIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { revalidateHistory } from '../../components/transaction-list'
import { api, errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { revalidateMoney } from '../../lib/queries'

const FALLBACK = 'Не удалось активировать промокод'

export function PromoForm({ className }: { className?: string }) {
  const inputId = useId()
  const hintId = useId()
  const [code, setCode] = useState('')
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [done, setDone] = useState<string | null>(null)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    if (!code.trim()) {
      setError('Введите промокод')
      return
    }
    setError(null)
    setDone(null)
    setPending(true)
    try {
      const result = await api.post<PromoRedeemed>('/api/billing/promo', { code: code.trim() }, { fallback: FALLBACK })
      setDone(result.message)
      setCode('')
      await Promise.all([revalidateMoney(), revalidateHistory()])
    } catch (err) {
      setError(errorMessage(err, FALLBACK))
    } finally {
      setPending(false)
    }
  }

  return (
    <Card className={cn('p-4 sm:p-6', className)} data-testid="promo-form">
      <div className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between lg:gap-8">
        <div className="lg:max-w-md">
          <h2 className="text-base font-semibold text-slate-900">Промокод</h2>
          <p id={hintId} className="mt-1 text-sm text-slate-500">
            Сумма промокода сразу зачисляется на баланс. Каждый промокод активируется один раз на аккаунт; деньги по промокоду не возвращаются (
            <Link href="/refund-policy" className="font-medium text-indigo-600 hover:text-indigo-500">
              условия возврата
            </Link>
            ).
          </p>
        </div>
        <form noValidate onSubmit={onSubmit} className="w-full lg:max-w-md">
          <label htmlFor={inputId} className="sr-only">
            Промокод
          </label>
          <div className="flex flex-col gap-2 sm:flex-row">
            <input
              id={inputId}
              name="promo"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              maxLength={64}
              placeholder="Например, SPRING2026"
              value={code}
              onChange={(e) => {
                setCode(e.target.value)
                if (error) setError(null)
              }}
              aria-invalid={error ? true : undefined}
              aria-describedby={hintId}
              className={cn(inputClasses, 'font-mono uppercase placeholder:font-sans placeholder:normal-case sm:flex-1')}
            />
            <Button type="submit" variant="secondary" loading={pending} className="sm:min-w-[9rem]">
              Активировать
            </Button>
          </div>
          {error && (
            <div className="mt-3">
              <FormAlert message={error} />
            </div>
          )}
          {done && (
            <p role="status" className="mt-3 flex items-start gap-2 rounded-lg border border-emerald-200 bg-emerald-50 px-3 py-2.5 text-sm text-emerald-800">
              <CheckCircleIcon size={16} className="mt-0.5 shrink-0" />
              <span>{done}</span>
            </p>
          )}
        </form>
      </div>
    </Card>
  )
}
