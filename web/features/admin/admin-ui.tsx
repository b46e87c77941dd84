// Small pieces the three admin screens share.
import type { ReactNode } from 'react'
import { Icon as BaseIcon, type IconProps } from '../../components/icons'
import { cn } from '../../lib/cn'

/** The shared icon frame at the admin screens' smaller default size. */
const Icon = ({ size = 16, ...props }: IconProps & { children: ReactNode }) => <BaseIcon size={size} {...props} />

export const ImageRefreshIcon = (p: IconProps) => (
  <Icon {...p}>
    <rect x="3" y="3" width="18" height="18" rx="2" />
    <circle cx="9" cy="9" r="2" />
    <path d="m21 15-3.1-3.1a2 2 0 0 0-2.8 0L6 21" />
  </Icon>
)

export const ServerIcon = (p: IconProps) => (
  <Icon {...p}>
    <rect x="2" y="3" width="20" height="8" rx="2" />
    <rect x="2" y="13" width="20" height="8" rx="2" />
    <path d="M6 7h.01M6 17h.01" />
  </Icon>
)

export const ExternalIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M15 3h6v6" />
    <path d="M10 14 21 3" />
    <path d="M18 13v6a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h6" />
  </Icon>
)

/** An icon-only action in a table row, labelled for screen readers and tooltips. */
export function RowAction({
  label,
  onClick,
  disabled,
  danger,
  children,
  title,
}: {
  label: string
  onClick: () => void
  disabled?: boolean
  danger?: boolean
  children: ReactNode
  /** Tooltip when it differs from the label (e.g. why it is disabled). */
  title?: string
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={title ?? label}
      onClick={onClick}
      disabled={disabled}
      className={cn(
        'flex h-8 w-8 shrink-0 items-center justify-center rounded-lg text-slate-500 transition-colors disabled:cursor-not-allowed disabled:opacity-40',
        danger ? 'hover:bg-red-50 hover:text-red-600' : 'hover:bg-slate-100 hover:text-slate-900',
      )}
    >
      {children}
    </button>
  )
}

/** A small rounded label: role, status. */
export function Badge({ tone = 'slate', children }: { tone?: 'slate' | 'indigo' | 'emerald' | 'amber' | 'red'; children: ReactNode }) {
  const tones = {
    slate: 'bg-slate-100 text-slate-600 ring-slate-200',
    indigo: 'bg-indigo-50 text-indigo-700 ring-indigo-100',
    emerald: 'bg-emerald-50 text-emerald-700 ring-emerald-100',
    amber: 'bg-amber-50 text-amber-800 ring-amber-200',
    red: 'bg-red-50 text-red-700 ring-red-100',
  }
  return <span className={cn('inline-flex h-5 items-center rounded-full px-2 text-xs font-medium whitespace-nowrap ring-1 ring-inset', tones[tone])}>{children}</span>
}

const usd = new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 })
const usdFine = new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'USD', minimumFractionDigits: 4, maximumFractionDigits: 6 })

/** '12,34 $'; small sums keep their cents' fractions so a few requests do not read as zero. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  return Math.abs(value) > 0 && Math.abs(value) < 1 ? usdFine.format(value) : usd.format(value)
}
