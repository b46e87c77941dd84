import { useEffect, useState } from 'react'
import { Button, type ButtonSize, type ButtonVariant } from '../../components/button'
import { CheckIcon, CopyIcon } from '../../components/icons'
import { copyText } from '../../lib/clipboard'
import { toast } from '../../stores/toasts'

/** The spec's key-copy confirmation: 'Скопировано' for exactly 2 seconds. */
export const COPIED_MS = 2000

/** A full-size copy button: 'Копировать' → 'Скопировано' for 2 s → back. */
export function CopyAction({
  text,
  label = 'Копировать',
  ariaLabel,
  variant = 'secondary',
  size = 'md',
  className,
}: {
  text: string
  label?: string
  /** Accessible name when several copy buttons share a screen ('Копировать базовый URL'). */
  ariaLabel?: string
  variant?: ButtonVariant
  size?: ButtonSize
  className?: string
}) {
  // The moment of the last copy (0 = none): a second click restarts the 2 seconds.
  const [copiedAt, setCopiedAt] = useState(0)
  const copied = copiedAt > 0
  useEffect(() => {
    if (!copiedAt) return
    const timer = setTimeout(() => setCopiedAt(0), COPIED_MS)
    return () => clearTimeout(timer)
  }, [copiedAt])
  return (
    <Button
      variant={variant}
      size={size}
      aria-label={copied ? undefined : ariaLabel}
      className={className}
      onClick={async () => {
        if (await copyText(text)) {
          setCopiedAt(performance.now())
        } else {
          toast.error('Не удалось скопировать')
        }
      }}
    >
      {copied ? <CheckIcon size={16} className="text-emerald-600" /> : <CopyIcon size={16} />}
      <span aria-live="polite">{copied ? 'Скопировано' : label}</span>
    </Button>
  )
}
