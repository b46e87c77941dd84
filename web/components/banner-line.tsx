// The shell every notice above the pages shares: one line (cut with an ellipsis rather than wrapped,
// the whole text in its tooltip), an optional action and a close button (issue 29).
import type { ReactNode } from 'react'
import { cn } from '../lib/cn'
import { CloseIcon } from './icons'

const TONES = {
  amber: { box: 'border-amber-200 bg-amber-50 text-amber-900', close: 'text-amber-700 hover:bg-amber-100 hover:text-amber-900' },
  indigo: { box: 'border-indigo-200 bg-indigo-50 text-indigo-950', close: 'text-indigo-700 hover:bg-indigo-100 hover:text-indigo-900' },
  rose: { box: 'border-rose-200 bg-rose-50 text-rose-900', close: 'text-rose-700 hover:bg-rose-100 hover:text-rose-900' },
} as const

export function BannerLine({
  tone,
  testId,
  lead,
  title,
  action,
  dismissLabel,
  onDismiss,
  children,
}: {
  tone: keyof typeof TONES
  testId: string
  /** an icon or a short tag before the text */
  lead?: ReactNode
  /** the whole text, for the tooltip (the line may be cut) */
  title: string
  action?: ReactNode
  dismissLabel: string
  onDismiss: () => void
  children: ReactNode
}) {
  const t = TONES[tone]
  return (
    <div role="status" data-testid={testId} className={cn('border-b text-sm', t.box)}>
      <div className="mx-auto flex max-w-6xl items-center gap-2 py-1.5 pr-2 pl-4 max-sm:pl-3 max-sm:text-[13px]">
        {lead}
        <p className="min-w-0 flex-1 truncate" title={title}>
          {children}
        </p>
        {action}
        <button type="button" onClick={onDismiss} aria-label={dismissLabel} className={cn('shrink-0 rounded-md p-1 transition-colors', t.close)}>
          <CloseIcon size={16} />
        </button>
      </div>
    </div>
  )
}
