import { cn } from '../lib/cn'
import { useCopy } from '../lib/use-copy'
import { CheckIcon, CopyIcon } from './icons'

/** Copies `text`; the button says 'Скопировано' for 2 seconds afterwards. */
export function CopyButton({ text, label = 'Копировать', className }: { text: string; label?: string; className?: string }) {
  const { copied, copy } = useCopy(text)
  return (
    <button type="button" onClick={copy} className={cn('inline-flex h-8 items-center gap-1.5 rounded-md px-2.5 text-xs font-medium transition-colors', className)}>
      {copied ? <CheckIcon size={14} /> : <CopyIcon size={14} />}
      {copied ? 'Скопировано' : label}
    </button>
  )
}
