import { type InputHTMLAttributes, type ReactNode, useId } from 'react'
import { cn } from '../lib/cn'

export const inputClasses =
  'block h-10 w-full rounded-lg border border-slate-300 bg-white px-3 text-[15px] text-slate-900 shadow-xs ' +
  'placeholder:text-slate-400 transition-colors ' +
  'focus:border-indigo-500 focus:outline-none focus:ring-3 focus:ring-indigo-500/15 ' +
  'aria-invalid:border-red-400 aria-invalid:focus:ring-red-500/15 ' +
  'disabled:cursor-not-allowed disabled:bg-slate-50 disabled:text-slate-500'

/** The same frame for a multi-line field: grows with the text instead of a fixed height. */
export const textareaClasses = `${inputClasses.replace('h-10 ', '')} min-h-20 resize-y py-2 leading-6`

export interface FieldProps {
  label: string
  /** Small text under the field. */
  hint?: ReactNode
  /** Content at the right end of the label row (e.g. a 'Забыли пароль?' link). */
  labelAside?: ReactNode
}

export interface InputProps extends InputHTMLAttributes<HTMLInputElement>, FieldProps {}

/** The ids a field needs: its own (given or generated) and its hint's, for aria-describedby. */
export function useFieldIds(id: string | undefined, hint: ReactNode) {
  const autoId = useId()
  const inputId = id ?? autoId
  return { inputId, hintId: hint ? `${inputId}-hint` : undefined }
}

/** Label row above and hint below a control; the <label> is bound by id so screen readers and getByLabel find it. */
export function FieldFrame({ label, hint, labelAside, inputId, hintId, children }: FieldProps & { inputId: string; hintId?: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <div className="flex items-baseline justify-between gap-3">
        <label htmlFor={inputId} className="text-sm font-medium text-slate-700">
          {label}
        </label>
        {labelAside}
      </div>
      {children}
      {hint && (
        <p id={hintId} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
    </div>
  )
}

/** A labelled text input. */
export function Input({ label, hint, labelAside, id, className, ...props }: InputProps) {
  const { inputId, hintId } = useFieldIds(id, hint)
  return (
    <FieldFrame label={label} hint={hint} labelAside={labelAside} inputId={inputId} hintId={hintId}>
      <input id={inputId} aria-describedby={hintId} className={cn(inputClasses, className)} {...props} />
    </FieldFrame>
  )
}

/**
 * A rubles field: text with the decimal keypad, because type=number rejects '1 000' and '99,50'
 * as typed in ru-RU. Typing clears the field's error (`onEdit`).
 */
export function MoneyInput({
  value,
  onValueChange,
  invalid,
  className,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type'> & {
  value: string
  onValueChange: (value: string) => void
  invalid: boolean
}) {
  return (
    <input
      type="text"
      inputMode="decimal"
      autoComplete="off"
      value={value}
      onChange={(e) => onValueChange(e.target.value)}
      aria-invalid={invalid ? true : undefined}
      className={cn(inputClasses, className)}
      {...props}
    />
  )
}
