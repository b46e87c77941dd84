import { type FormEvent, useEffect, useId, useState } from 'react'
import { mutate } from 'swr'
import { formatRubles } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FormAlert } from '../../components/form-alert'
import { MoneyInput } from '../../components/input'
import { errorMessage } from '../../lib/api'
import { parseRubles } from '../../lib/parse-rubles'
import { BALANCE_KEY, type BalanceResponse, useBalance } from '../../lib/queries'
import { toast } from '../../stores/toasts'
import { ALERT_INVALID_MESSAGE, ALERT_MAX, billingApi } from './billing-api'

/** '100' / '99,5' for the field: no grouping, so what is shown parses back. */
const toInput = (threshold: number | null) => (threshold === null ? '' : String(threshold).replace('.', ','))

/** The e-mail sent once when the balance first drops below a level the user picks. */
export function BalanceAlert() {
  const inputId = useId()
  const { data } = useBalance()
  const current = data?.alertThreshold ?? null
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState<'save' | 'off' | null>(null)

  // Show the saved level once it arrives (and after it changes on the server).
  useEffect(() => setValue(toInput(current)), [current])

  async function save(threshold: number | null) {
    setPending(threshold === null ? 'off' : 'save')
    try {
      const result = await billingApi.setAlert(threshold)
      await mutate<BalanceResponse>(BALANCE_KEY, (b) => (b ? { ...b, alertThreshold: result.alertThreshold } : b), { revalidate: false })
      setValue(toInput(result.alertThreshold))
      toast.success(result.alertThreshold === null ? 'Уведомление отключено' : 'Уведомление сохранено')
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось сохранить настройку'))
    } finally {
      setPending(null)
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    const threshold = parseRubles(value)
    if (!Number.isFinite(threshold) || threshold <= 0 || threshold > ALERT_MAX) {
      setError(ALERT_INVALID_MESSAGE)
      return
    }
    setError(null)
    void save(threshold)
  }

  return (
    <Card className="p-4 sm:p-6" data-testid="balance-alert">
      <h2 className="text-base font-semibold text-slate-900">Письмо о низком балансе</h2>
      <p className="mt-1 text-sm text-slate-500">
        {current === null ? (
          'Сейчас выключено. Укажите порог — пришлём письмо, когда баланс опустится ниже него.'
        ) : (
          <>
            Пришлём письмо, когда баланс опустится ниже <span className="font-medium whitespace-nowrap text-slate-700">{formatRubles(current)}</span>.
          </>
        )}
      </p>
      <form noValidate onSubmit={onSubmit} className="mt-4">
        <label htmlFor={inputId} className="text-sm font-medium text-slate-700">
          Порог, ₽
        </label>
        <div className="mt-1.5 flex flex-col gap-2 sm:flex-row">
          <MoneyInput
            id={inputId}
            placeholder="Например, 100"
            value={value}
            onValueChange={(v) => {
              setValue(v)
              if (error) setError(null)
            }}
            invalid={!!error}
            className="sm:min-w-0 sm:flex-1"
          />
          <div className="flex gap-2">
            <Button type="submit" variant="secondary" className="flex-1 sm:flex-none" loading={pending === 'save'} disabled={pending === 'off'}>
              Сохранить
            </Button>
            {current !== null && (
              <Button variant="ghost" className="flex-1 sm:flex-none" loading={pending === 'off'} disabled={pending === 'save'} onClick={() => void save(null)}>
                Отключить
              </Button>
            )}
          </div>
        </div>
        {error && (
          <div className="mt-3">
            <FormAlert message={error} />
          </div>
        )}
      </form>
    </Card>
  )
}
