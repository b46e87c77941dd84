// Where a key's or a team's requests may be processed (issue 35): «Любые провайдеры» or «Только в РФ»
// (only upstreams that keep data in Russia; the gateway refuses the rest with 403
// data_residency_violation). The API keys page and the team page share the choice and the mark.
import { useId } from 'react'
import type { ApiKey } from '../../src/wire'
import { cn } from '../lib/cn'
import { ShieldIcon } from './icons'
import { Select } from './select'

export type ResidencyRule = ApiKey['residency']

export const RESIDENCY_LABELS: Record<ResidencyRule, string> = { any: 'Любые провайдеры', ru: 'Только в РФ (152-ФЗ)' }

export const RESIDENCY_HINTS: Record<ResidencyRule, string> = {
  any: 'запросы идут к любому провайдеру модели, в том числе за рубежом',
  ru: 'запросы идут только к провайдерам, которые хранят и обрабатывают данные в России; модели без таких провайдеров недоступны',
}

export const RESIDENCY_RULES: ResidencyRule[] = ['any', 'ru']

/** The drop-down with its label above, as the other fields of the forms it sits in. */
export function ResidencySelect({
  label,
  value,
  onChange,
  disabled,
  describedBy,
  className,
}: {
  label: string
  value: ResidencyRule
  onChange: (value: ResidencyRule) => void
  disabled?: boolean
  /** The id of the text that says what the chosen option means. */
  describedBy?: string
  className?: string
}) {
  const id = useId()
  return (
    <div className={cn('min-w-0 space-y-1.5', className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <Select id={id} value={value} disabled={disabled} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value === 'ru' ? 'ru' : 'any')}>
        {RESIDENCY_RULES.map((r) => (
          <option key={r} value={r}>
            {RESIDENCY_LABELS[r]}
          </option>
        ))}
      </Select>
    </div>
  )
}

/** The two options as radio cards with what each means: for a dialog or a settings card with room. */
export function ResidencyRadios({
  legend,
  value,
  onChange,
  disabled,
  className,
}: {
  legend: string
  value: ResidencyRule
  onChange: (value: ResidencyRule) => void
  disabled?: boolean
  className?: string
}) {
  const name = useId()
  return (
    <fieldset className={cn('min-w-0', className)} disabled={disabled}>
      <legend className="text-sm font-medium text-slate-700">{legend}</legend>
      <div className="mt-1.5 grid gap-2 sm:grid-cols-2">
        {RESIDENCY_RULES.map((r) => (
          <label
            key={r}
            className={cn(
              'flex cursor-pointer items-start gap-2.5 rounded-lg border p-3 transition-colors has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-70',
              value === r ? 'border-indigo-500 bg-indigo-50 ring-1 ring-indigo-500' : 'border-slate-200 bg-white hover:border-slate-300',
            )}
          >
            <input
              type="radio"
              name={name}
              value={r}
              checked={value === r}
              onChange={() => onChange(r)}
              aria-labelledby={`${name}-${r}`}
              aria-describedby={`${name}-${r}-hint`}
              className="mt-0.5 h-4 w-4 shrink-0 accent-indigo-600"
            />
            <span className="min-w-0">
              <span id={`${name}-${r}`} className="block text-sm font-medium text-slate-900">
                {RESIDENCY_LABELS[r]}
              </span>
              <span id={`${name}-${r}-hint`} className="mt-0.5 block text-xs leading-5 text-slate-600 first-letter:uppercase">
                {RESIDENCY_HINTS[r]}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  )
}

/** The mark of a key (or a team) bound to upstreams in Russia. */
export function RuOnlyBadge({ title, className }: { title?: string; className?: string }) {
  return (
    <span
      data-testid="ru-only-badge"
      title={title ?? 'Запросы идут только к провайдерам, которые хранят данные в России'}
      className={cn(
        'inline-flex h-6 shrink-0 items-center gap-1 rounded-full bg-emerald-50 px-2.5 text-xs font-medium whitespace-nowrap text-emerald-800 ring-1 ring-emerald-100 ring-inset',
        className,
      )}
    >
      <ShieldIcon size={12} />
      Только РФ
    </span>
  )
}
