import { type FormEvent, useEffect, useId, useState } from 'react'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { MoneyInput } from '../../components/input'
import { type ApiKey, formatSpend, LIMIT_INVALID_MESSAGE, parseLimitInput } from './keys-api'

/** '500', '99.5' → '500', '99,5' for the input (no thousands separators, so it parses back). */
function limitToInput(limit: number | null): string {
  if (limit === null) return ''
  return String(limit).replace('.', ',')
}

/** Sets or clears the monthly spending cap of one key. An empty field means no limit. */
export function LimitDialog({
  apiKey,
  onClose,
  onSave,
}: {
  /** The key being edited; null closes the dialog. */
  apiKey: ApiKey | null
  onClose: () => void
  /** Resolves true when saved (the dialog closes), false to keep it open. */
  onSave: (key: ApiKey, limit: number | null) => Promise<boolean>
}) {
  const inputId = useId()
  const hintId = useId()
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  useEffect(() => {
    setValue(apiKey ? limitToInput(apiKey.monthlyLimit) : '')
    setError(null)
    setPending(false)
  }, [apiKey])

  async function submit(event?: FormEvent) {
    event?.preventDefault()
    if (!apiKey || pending) return
    const limit = parseLimitInput(value)
    if (limit === undefined) {
      setError(LIMIT_INVALID_MESSAGE)
      return
    }
    setError(null)
    setPending(true)
    const saved = await onSave(apiKey, limit)
    if (!saved) setPending(false)
  }

  return (
    <Dialog
      open={apiKey !== null}
      onClose={() => {
        if (!pending) onClose()
      }}
      title="Месячный лимит"
      description={
        apiKey && (
          <>
            Ключ «<span className="break-words">{apiKey.name}</span>» перестанет принимать запросы, когда расходы по нему за календарный месяц достигнут лимита. В этом месяце
            потрачено {formatSpend(apiKey.monthSpent)}.
          </>
        )
      }
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Отмена
          </Button>
          <Button type="submit" form={`${inputId}-form`} loading={pending}>
            Сохранить
          </Button>
        </>
      }
    >
      <form id={`${inputId}-form`} noValidate onSubmit={submit} className="space-y-1.5">
        <label htmlFor={inputId} className="text-sm font-medium text-slate-700">
          Месячный лимит, ₽
        </label>
        <MoneyInput
          id={inputId}
          placeholder="Без лимита"
          value={value}
          onValueChange={(v) => {
            setValue(v)
            if (error) setError(null)
          }}
          invalid={!!error}
          aria-describedby={hintId}
          data-autofocus
        />
        <p id={hintId} className="text-xs text-slate-500">
          Оставьте поле пустым, чтобы снять лимит.
        </p>
        {error && (
          <div className="pt-1.5">
            <FormAlert message={error} />
          </div>
        )}
      </form>
    </Dialog>
  )
}
