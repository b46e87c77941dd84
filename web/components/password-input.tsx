import { type InputHTMLAttributes, useState } from 'react'
import { cn } from '../lib/cn'
import { EyeIcon, EyeOffIcon } from './icons'
import { FieldFrame, type FieldProps, inputClasses, useFieldIds } from './input'

export interface PasswordInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>, FieldProps {
  /** Controlled visibility, so one toggle can reveal several fields; uncontrolled when omitted. */
  visible?: boolean
  onVisibleChange?: (visible: boolean) => void
  /** Render the show/hide button in this field (default true). */
  showToggle?: boolean
}

/** A labelled password field with an optional show/hide toggle ('Показать пароль' / 'Скрыть пароль'). */
export function PasswordInput({ label, hint, labelAside, id, className, visible, onVisibleChange, showToggle = true, ...props }: PasswordInputProps) {
  const { inputId, hintId } = useFieldIds(id, hint)
  const [ownVisible, setOwnVisible] = useState(false)
  const isVisible = visible ?? ownVisible
  const toggle = () => {
    const next = !isVisible
    if (visible === undefined) setOwnVisible(next)
    onVisibleChange?.(next)
  }
  return (
    <FieldFrame label={label} hint={hint} labelAside={labelAside} inputId={inputId} hintId={hintId}>
      <div className="relative">
        <input id={inputId} type={isVisible ? 'text' : 'password'} aria-describedby={hintId} className={cn(inputClasses, showToggle && 'pr-11', className)} {...props} />
        {showToggle && (
          <button
            type="button"
            onClick={toggle}
            aria-label={isVisible ? 'Скрыть пароль' : 'Показать пароль'}
            aria-controls={inputId}
            aria-pressed={isVisible}
            className="absolute inset-y-0 right-0 flex w-10 items-center justify-center rounded-r-lg text-slate-400 transition-colors hover:text-slate-700"
          >
            {isVisible ? <EyeOffIcon size={18} /> : <EyeIcon size={18} />}
          </button>
        )}
      </div>
    </FieldFrame>
  )
}
