import { useEffect, useState } from 'react'
import { copyText } from '../lib/clipboard'
import { cn } from '../lib/cn'
import { toast } from '../stores/toasts'
import { CheckIcon, CopyIcon } from './icons'

/** Copies `text`; the button says 'Скопировано' for 2 seconds afterwards. */
export function CopyButton({ text, label = 'Копировать', className }: { text: string; label?: string; className?: string }) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), 2000)
    return () => clearTimeout(timer)
  }, [copied])
  return (
    <button
      type="button"
      onClick={async () => {
        if (await copyText(text)) setCopied(true)
        else toast.error('Не удалось скопировать')
      }}
      className={cn(
        'inline-flex h-8 items-center gap-1.5 rounded-md px-2.5 text-xs font-medium transition-colors',
        className,
      )}
    >
      {copied ? <CheckIcon size={14} /> : <CopyIcon size={14} />}
      {copied ? 'Скопировано' : label}
    </button>
  )
}
