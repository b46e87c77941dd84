import { type FormEvent, useEffect, useId, useState } from 'react'
import { formatInteger } from '../../../src/content/format'
import { SBP, TOP_UP } from '../../../src/content/terms'
import { AmountRow } from '../../components/amount-row'
import { Card } from '../../components/card'
import { InfoIcon } from '../../components/icons'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { parseRubles } from '../../lib/parse-rubles'
import { useHealth } from '../../lib/queries'
import { toast } from '../../stores/toasts'
import { billingApi, CREATE_PAYMENT_FALLBACK, QUICK_AMOUNTS, type TopUpMethod, topUpError } from './billing-api'

const METHOD_LABELS: Record<TopUpMethod, string> = { card: 'Банковская карта', sbp: 'СБП' }
const METHOD_HINTS: Record<TopUpMethod, string> = {
  card: `данные карты вводятся на странице ЮKassa. От ${formatInteger(TOP_UP.minRub)} до ${formatInteger(TOP_UP.maxRub)} ₽`,
  sbp: `QR-код на компьютере или приложение банка на телефоне. От ${formatInteger(TOP_UP.minRub)} до ${formatInteger(SBP.maxRub)} ₽, на оплату — 1 час`,
}
const AMOUNT_HINTS: Record<TopUpMethod, string> = {
  card: `От ${formatInteger(TOP_UP.minRub)} до ${formatInteger(TOP_UP.maxRub)} ₽. Деньги зачисляются сразу после подтверждения оплаты.`,
  sbp: `От ${formatInteger(TOP_UP.minRub)} до ${formatInteger(SBP.maxRub)} ₽. Оплатите в приложении банка в течение часа — потом платёж отменяется; деньги зачисляются сразу после подтверждения.`,
}

/** «Банковская карта» or «СБП», each with its limits. */
function MethodRadios({ value, onChange }: { value: TopUpMethod; onChange: (method: TopUpMethod) => void }) {
  const name = useId()
  return (
    <fieldset className="min-w-0">
      <legend className="text-sm font-medium text-slate-700">Способ оплаты</legend>
      <div className="mt-1.5 grid gap-2 sm:grid-cols-2">
        {(['card', 'sbp'] as const).map((m) => (
          <label
            key={m}
            data-testid={`method-${m}`}
            className={cn(
              'flex cursor-pointer items-start gap-2.5 rounded-lg border p-3 transition-colors',
              value === m ? 'border-indigo-500 bg-indigo-50 ring-1 ring-indigo-500' : 'border-slate-200 bg-white hover:border-slate-300',
            )}
          >
            <input
              type="radio"
              name={name}
              value={m}
              checked={value === m}
              onChange={() => onChange(m)}
              aria-labelledby={`${name}-${m}`}
              aria-describedby={`${name}-${m}-hint`}
              className="mt-0.5 h-4 w-4 shrink-0 accent-indigo-600"
            />
            <span className="min-w-0">
              <span id={`${name}-${m}`} className="block text-sm font-medium text-slate-900">
                {METHOD_LABELS[m]}
              </span>
              <span id={`${name}-${m}-hint`} className="mt-0.5 block text-xs leading-5 text-slate-600 first-letter:uppercase">
                {METHOD_HINTS[m]}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  )
}

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

/** Method and amount → POST /api/payments/create → the provider's confirmation page (a full navigation). */
export function TopUpForm() {
  const [value, setValue] = useState('')
  const [method, setMethod] = useState<TopUpMethod>('card')
  const [save, setSave] = useState(false)
  const saveId = useId()
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
    const invalid = topUpError(value, method)
    if (invalid) {
      setError(invalid)
      return
    }
    setError(null)
    setPending(true)
    try {
      // A path: the server puts it on PUBLIC_URL (an origin of ours it would refuse if it differed).
      const payment = await billingApi.createPayment(parseRubles(value), '/app/billing', method, method === 'card' && save)
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
      <p className="mt-1 text-sm text-slate-500">Оплата в рублях банковской картой или через СБП. Списания — только за фактическое использование.</p>
      <form noValidate onSubmit={onSubmit} className="mt-4">
        <MethodRadios
          value={method}
          onChange={(m) => {
            setMethod(m)
            if (error) setError(null)
          }}
        />
        <div role="group" aria-label="Быстрый выбор суммы" className="mt-4 grid grid-cols-2 gap-2 sm:grid-cols-4">
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
          hint={AMOUNT_HINTS[method]}
          pending={pending}
          submitLabel="Перейти к оплате"
        />
        {method === 'card' && (
          <div className="mt-3 flex items-start gap-2.5">
            <input
              id={saveId}
              type="checkbox"
              checked={save}
              onChange={(e) => setSave(e.target.checked)}
              aria-describedby={`${saveId}-hint`}
              className="mt-0.5 h-4 w-4 shrink-0 accent-indigo-600"
            />
            <span className="min-w-0">
              <label htmlFor={saveId} className="block cursor-pointer text-sm font-medium text-slate-800">
                Сохранить карту для следующих платежей и автопополнения
              </label>
              <span id={`${saveId}-hint`} className="mt-0.5 block text-xs leading-5 text-slate-500">
                Карту хранит ЮKassa, у нас — только последние 4 цифры и срок действия. Без вашего включения автопополнения с карты ничего не списывается; удалить её можно в любой
                момент.
              </span>
            </span>
          </div>
        )}
      </form>
      <TestModeNote />
    </Card>
  )
}
