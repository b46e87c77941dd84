// Budgets of keys and team members: a limit in rubles with a Moscow calendar period (day, week
// from Monday, month from the 1st, or total), shown with what this period spent and when it
// resets, and set in one dialog.
import { type FormEvent, type ReactNode, useEffect, useId, useState } from 'react'
import { formatMoscowDateTime } from '../../src/content/format'
import type { Budget, BudgetInput, BudgetPeriod } from '../../src/wire'
import { cn } from '../lib/cn'
import { Button } from './button'
import { Dialog } from './dialog'
import { FormAlert } from './form-alert'
import { MoneyInput } from './input'
import { Select } from './select'

export const PERIOD_PHRASES: Record<BudgetPeriod, string> = { day: 'в день', week: 'в неделю', month: 'в месяц', total: 'всего' }

const PERIOD_OPTIONS: Array<{ value: BudgetPeriod; label: string }> = [
  { value: 'day', label: 'В день (с 00:00 МСК)' },
  { value: 'week', label: 'В неделю (с понедельника)' },
  { value: 'month', label: 'В месяц (с 1-го числа)' },
  { value: 'total', label: 'Всего (без обновления)' },
]

export const LIMIT_INVALID_MESSAGE = 'Лимит должен быть положительным числом'

const rubleFormats = {
  whole: new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 }),
  kopecks: new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  fine: new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 6, maximumFractionDigits: 6 }),
}

/** A limit as people set it: '500 ₽', '1 000 ₽', '99,50 ₽'. */
export function formatLimit(rubles: number): string {
  return `${(Number.isInteger(rubles) ? rubleFormats.whole : rubleFormats.kopecks).format(rubles)} ₽`
}

/** Money spent: two decimals, but a few hundredths of a kopeck are not rounded away to '0,00 ₽'. */
export function formatSpend(rubles: number): string {
  const n = Number.isFinite(rubles) ? rubles : 0
  if (n > 0 && n < 0.01) return `${rubleFormats.fine.format(n)} ₽`
  return `${rubleFormats.kopecks.format(n)} ₽`
}

/** Parses the limit field: '' → null (no limit); '500', '99,5' → a number; anything else, zero or negative → undefined. */
export function parseLimitInput(raw: string): number | null | undefined {
  const text = raw.trim().replace(/\s/g, '').replace(',', '.')
  if (text === '') return null
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined
  const value = Number(text)
  return Number.isFinite(value) && value > 0 ? value : undefined
}

/** What this period spent against the limit, a bar, and when it resets (Moscow time). */
export function BudgetMeter({ budget, label, className }: { budget: Budget; label: string; className?: string }) {
  const spent = formatSpend(budget.spent)
  if (budget.limitRub === null)
    return (
      <div className={className}>
        <span className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{spent}</span>
        <span className="block text-xs text-slate-500">без лимита · {PERIOD_PHRASES[budget.period]}</span>
      </div>
    )
  const ratio = budget.limitRub > 0 ? Math.min(1, budget.spent / budget.limitRub) : 1
  const exhausted = budget.remaining !== null && budget.remaining <= 0
  return (
    <div className={cn('min-w-0', className)}>
      <span className={cn('font-medium whitespace-nowrap tabular-nums', exhausted ? 'text-red-700' : 'text-slate-900')}>
        {spent} из {formatLimit(budget.limitRub)}
      </span>
      <div
        className="mt-1.5 h-1.5 w-full max-w-40 min-w-24 overflow-hidden rounded-full bg-slate-100"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(ratio * 100)}
      >
        <div
          className={cn('h-full rounded-full', exhausted ? 'bg-red-500' : ratio >= 0.8 ? 'bg-amber-500' : 'bg-indigo-500')}
          style={{ width: `${Math.max(ratio * 100, ratio > 0 ? 3 : 0)}%` }}
        />
      </div>
      {exhausted && <span className="mt-1 block text-xs text-red-600">Бюджет исчерпан</span>}
      <span className="mt-0.5 block text-xs text-slate-500">
        {' '}
        {PERIOD_PHRASES[budget.period]}
        {budget.resetsAt && (
          <>
            {' · '}
            обновится {formatMoscowDateTime(budget.resetsAt)}
          </>
        )}
      </span>
    </div>
  )
}

/** '500' / '99,5' for the field (no thousands separators, so it parses back). */
const limitToInput = (limit: number | null) => (limit === null ? '' : String(limit).replace('.', ','))

/** Sets a budget: a limit in rubles (empty = none) and its period. */
export function BudgetDialog({
  open,
  title,
  description,
  budget,
  onClose,
  onSave,
}: {
  open: boolean
  title: string
  description?: ReactNode
  budget: Budget | null
  onClose: () => void
  /** Resolves true when saved (the dialog closes), false to keep it open. */
  onSave: (input: BudgetInput) => Promise<boolean>
}) {
  const id = useId()
  const [value, setValue] = useState('')
  const [period, setPeriod] = useState<BudgetPeriod>('month')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  useEffect(() => {
    if (!open) return
    setValue(limitToInput(budget?.limitRub ?? null))
    setPeriod(budget?.period ?? 'month')
    setError(null)
    setPending(false)
  }, [open, budget])

  async function submit(event?: FormEvent) {
    event?.preventDefault()
    if (pending) return
    const limit = parseLimitInput(value)
    if (limit === undefined) {
      setError(LIMIT_INVALID_MESSAGE)
      return
    }
    setError(null)
    setPending(true)
    if (!(await onSave({ limitRub: limit, period }))) setPending(false)
  }

  return (
    <Dialog
      open={open}
      onClose={() => {
        if (!pending) onClose()
      }}
      title={title}
      description={description}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Отмена
          </Button>
          <Button type="submit" form={`${id}-form`} loading={pending}>
            Сохранить
          </Button>
        </>
      }
    >
      <form id={`${id}-form`} noValidate onSubmit={submit} className="space-y-4">
        <div className="space-y-1.5">
          <label htmlFor={`${id}-limit`} className="text-sm font-medium text-slate-700">
            Лимит, ₽
          </label>
          <MoneyInput
            id={`${id}-limit`}
            placeholder="Без лимита"
            value={value}
            onValueChange={(v) => {
              setValue(v)
              if (error) setError(null)
            }}
            invalid={!!error}
            aria-describedby={`${id}-hint`}
            data-autofocus
          />
          <p id={`${id}-hint`} className="text-xs text-slate-500">
            Оставьте поле пустым, чтобы снять лимит.
          </p>
        </div>
        <div className="space-y-1.5">
          <label htmlFor={`${id}-period`} className="text-sm font-medium text-slate-700">
            Период
          </label>
          <Select id={`${id}-period`} value={period} onChange={(e) => setPeriod(e.target.value as BudgetPeriod)}>
            {PERIOD_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </Select>
          <p className="text-xs text-slate-500">Дни, недели и месяцы начинаются в 00:00 по московскому времени.</p>
        </div>
        {error && <FormAlert message={error} />}
      </form>
    </Dialog>
  )
}
