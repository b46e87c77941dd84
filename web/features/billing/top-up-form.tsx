import { type FormEvent, useEffect, useState } from 'react'
import { formatInteger } from '../../../src/content/format'
import { AmountRow } from '../../components/amount-row'
import { Card } from '../../components/card'
import { InfoIcon } from '../../components/icons'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { parseRubles } from '../../lib/parse-rubles'
import { useHealth } from '../../lib/queries'
import { toast } from '../../stores/toasts'
import { billingApi, CREATE_PAYMENT_FALLBACK, QUICK_AMOUNTS, topUpError } from './billing-api'

/** Tells newcomers that the built-in test page takes the place of a real card payment. */
function TestModeNote() {
  const { data } = useHealth()
  if (data?.payments !== 'test') return null
  return (
    <p data-testid="payments-test-mode" className="mt-4 flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900">
      <InfoIcon size={16} className="mt-0.5 shrink-0" />
      <span>
        <strong className="font-semibold">Тестовый режим.</strong> Платёжная система не подключена: оплата пройдёт на встроенной тестовой странице, настоящие деньги не списываются.
      </span>
    </p>
  )
}

/** Amount → POST /api/payments/create → the provider's confirmation page (a full navigation). */
export function TopUpForm() {
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)
  const current = parseRubles(value)

  // Back from the payment page may restore this page from the bfcache with the spinner still on.
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) setPending(false)
    }
    window.addEventListener('pageshow', onShow)
    return () => window.removeEventListener('pageshow', onShow)
  }, [])

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    const invalid = topUpError(value)
    if (invalid) {
      setError(invalid)
      return
    }
    setError(null)
    setPending(true)
    try {
      // A path: the server puts it on PUBLIC_URL (an origin of ours it would refuse if it differed).
      const payment = await billingApi.createPayment(parseRubles(value), '/app/billing')
      // The button keeps spinning until the browser leaves for the payment page.
      window.location.assign(payment.confirmationUrl)
    } catch (err) {
      toast.error(errorMessage(err, CREATE_PAYMENT_FALLBACK))
      setPending(false)
    }
  }

  function choose(amount: number) {
    setValue(String(amount))
    setError(null)
  }

  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Пополнить баланс</h2>
      <p className="mt-1 text-sm text-slate-500">Оплата банковской картой в рублях. Списания — только за фактическое использование.</p>
      <form noValidate onSubmit={onSubmit} className="mt-4">
        <div role="group" aria-label="Быстрый выбор суммы" className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          {QUICK_AMOUNTS.map((amount) => {
            const selected = current === amount
            return (
              <button
                key={amount}
                type="button"
                aria-pressed={selected}
                onClick={() => choose(amount)}
                className={cn(
                  'h-11 rounded-lg border text-[15px] font-semibold whitespace-nowrap tabular-nums transition-colors',
                  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500',
                  selected
                    ? 'border-indigo-600 bg-indigo-50 text-indigo-700 ring-1 ring-indigo-600'
                    : 'border-slate-200 bg-white text-slate-800 hover:border-slate-300 hover:bg-slate-50',
                )}
              >
                {formatInteger(amount)} ₽
              </button>
            )
          })}
        </div>
        <AmountRow
          label="Сумма пополнения, ₽"
          name="amount"
          placeholder="Например, 1000"
          value={value}
          onValueChange={(v) => {
            setValue(v)
            if (error) setError(null)
          }}
          error={error}
          hint="От 100 до 1 000 000 ₽. Деньги зачисляются сразу после подтверждения оплаты."
          pending={pending}
          submitLabel="Перейти к оплате"
        />
      </form>
      <TestModeNote />
    </Card>
  )
}
