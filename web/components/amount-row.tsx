import { useId } from 'react'
import { Button } from './button'
import { FormAlert } from './form-alert'
import { MoneyInput } from './input'

/** A rubles amount with its submit button beside it, the limits under it and the error below (card top-ups, invoices). */
export function AmountRow({
  label,
  name,
  placeholder,
  value,
  onValueChange,
  error,
  hint,
  pending,
  submitLabel,
}: {
  label: string
  name: string
  placeholder: string
  value: string
  /** Typing clears the error: the caller's setter does both. */
  onValueChange: (value: string) => void
  error: string | null
  hint: string
  pending: boolean
  submitLabel: string
}) {
  const inputId = useId()
  const hintId = useId()
  return (
    <>
      <label htmlFor={inputId} className="mt-4 block text-sm font-medium text-slate-700">
        {label}
      </label>
      <div className="mt-1.5 flex flex-col gap-2 sm:flex-row">
        <MoneyInput
          id={inputId}
          name={name}
          placeholder={placeholder}
          value={value}
          onValueChange={onValueChange}
          invalid={!!error}
          aria-describedby={hintId}
          className="sm:flex-1"
        />
        <Button type="submit" loading={pending} className="sm:w-auto sm:min-w-[11rem]">
          {submitLabel}
        </Button>
      </div>
      <p id={hintId} className="mt-1.5 text-xs text-slate-500">
        {hint}
      </p>
      {error && (
        <div className="mt-3">
          <FormAlert message={error} />
        </div>
      )}
    </>
  )
}
