import { FilterSelect } from '../../components/filter-select'
import { cn } from '../../lib/cn'
import type { UsageStats } from '../../lib/types'
import { PERIODS, type Period } from './usage-period'

/** 7 / 30 / 90 days / all time, as one segmented control. */
export function PeriodSwitch({ value, onChange }: { value: Period; onChange: (period: Period) => void }) {
  return (
    <div role="group" aria-label="Период" className="flex gap-1 rounded-lg bg-slate-100 p-1 sm:inline-flex sm:self-start">
      {PERIODS.map((p) => (
        <button
          key={p.id}
          type="button"
          aria-pressed={value === p.id}
          onClick={() => onChange(p.id)}
          className={cn(
            'h-8 flex-auto rounded-md px-1.5 text-sm font-medium whitespace-nowrap transition-colors sm:flex-none sm:px-3',
            'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500',
            value === p.id ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900',
          )}
        >
          {p.label}
        </button>
      ))}
    </div>
  )
}

/** Narrow the period to one API key and/or one model (choices come from the period's data). */
export function UsageFilters({
  filters,
  apiKeyId,
  model,
  onApiKeyChange,
  onModelChange,
}: {
  filters: UsageStats['filters'] | undefined
  apiKeyId: string
  model: string
  onApiKeyChange: (id: string) => void
  onModelChange: (model: string) => void
}) {
  return (
    <div className="flex flex-col gap-2 sm:flex-row">
      <FilterSelect
        label="API ключ"
        value={apiKeyId}
        onChange={onApiKeyChange}
        allLabel="Все ключи"
        options={(filters?.apiKeys ?? []).map((k) => ({ value: k.id, label: k.name }))}
      />
      <FilterSelect label="Модель" value={model} onChange={onModelChange} allLabel="Все модели" options={(filters?.models ?? []).map((m) => ({ value: m, label: m }))} />
    </div>
  )
}
