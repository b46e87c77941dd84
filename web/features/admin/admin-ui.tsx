// Small pieces the admin screens share.
import { type ReactNode, useEffect, useState } from 'react'
import { formatInteger } from '../../../src/content/format'
import { Icon as BaseIcon, type IconProps, SearchIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { cn } from '../../lib/cn'

/** The value once it has stopped changing for `ms` (a search asks the server after typing pauses). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

/** A list's header: the search box and how many were found (or how many there are). */
export function SearchHeader({
  value,
  onChange,
  placeholder,
  label,
  total,
  searching,
  more,
  testId,
}: {
  value: string
  onChange: (value: string) => void
  placeholder: string
  label: string
  /** undefined while loading */
  total: number | undefined
  searching: boolean
  /** Said after the figure when not everything is shown. */
  more?: string | false
  testId?: string
}) {
  return (
    <div className="flex flex-col gap-3 border-b border-slate-200 px-4 py-4 sm:flex-row sm:items-center sm:justify-between sm:px-6">
      <div className="relative w-full sm:max-w-sm">
        <SearchIcon size={16} className="pointer-events-none absolute top-1/2 left-3 -translate-y-1/2 text-slate-400" />
        <input type="search" value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} aria-label={label} className={cn(inputClasses, 'pl-9')} />
      </div>
      <p className="text-sm whitespace-nowrap text-slate-500" data-testid={testId} aria-live="polite">
        {total !== undefined ? (
          <>
            {searching ? 'Найдено' : 'Всего'}: <span className="font-medium text-slate-900 tabular-nums">{formatInteger(total)}</span>
            {more}
          </>
        ) : (
          '\u00a0'
        )}
      </p>
    </div>
  )
}

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
