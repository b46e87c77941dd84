import { cn } from '../lib/cn'

export interface SpinnerProps {
  size?: number
  className?: string
  /** Accessible text; omit when the spinner sits inside a labelled control. */
  label?: string
}

export function Spinner({ size = 16, className, label }: SpinnerProps) {
  return (
    <svg
      className={cn('animate-spin', className)}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      role={label ? 'status' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    >
      <circle cx="12" cy="12" r="9.5" stroke="currentColor" strokeOpacity="0.2" strokeWidth="3" />
      <path d="M21.5 12A9.5 9.5 0 0 0 12 2.5" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  )
}

/** A centred spinner for a whole screen or panel that is still loading. */
export function PageSpinner({ label = 'Загрузка…' }: { label?: string }) {
  return (
    <div className="flex min-h-48 items-center justify-center text-slate-400">
      <Spinner size={24} label={label} />
    </div>
  )
}
