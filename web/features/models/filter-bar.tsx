// The catalogue's filter bar pieces, shared by /app/models (models-page.tsx) and the public
// /models (public-catalogue.tsx): the search field with its clear button, a filter chip, and the
// «Только с хранением данных в РФ» switch.
import { CloseIcon, SearchIcon, ShieldIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { cn } from '../../lib/cn'

export function ModelSearchField({ query, onChange, className }: { query: string; onChange: (query: string) => void; className?: string }) {
  return (
    <div className={cn('relative', className)}>
      <SearchIcon className="pointer-events-none absolute top-1/2 left-3 -translate-y-1/2 text-slate-400" />
      <input
        type="search"
        value={query}
        onChange={(e) => onChange(e.target.value)}
        placeholder="Поиск моделей..."
        aria-label="Поиск моделей"
        autoComplete="off"
        spellCheck={false}
        className={cn(inputClasses, 'h-11 pr-10 pl-10 [&::-webkit-search-cancel-button]:hidden')}
      />
      {query && (
        <button
          type="button"
          onClick={() => onChange('')}
          aria-label="Очистить поиск"
          className="absolute top-1/2 right-1.5 flex h-8 w-8 -translate-y-1/2 items-center justify-center rounded-md text-slate-400 hover:bg-slate-100 hover:text-slate-700"
        >
          <CloseIcon size={16} />
        </button>
      )}
    </div>
  )
}

/** A toggle chip with its count; `disableEmpty` greys out and disables a chip that would show nothing. */
export function FilterChip({
  label,
  count,
  pressed,
  onClick,
  disableEmpty = false,
}: {
  label: string
  count: number
  pressed: boolean
  onClick: () => void
  disableEmpty?: boolean
}) {
  const empty = disableEmpty && count === 0 && !pressed
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      disabled={disableEmpty ? empty : undefined}
      title={empty ? 'Нет моделей по этому запросу' : undefined}
      className={cn(
        'inline-flex h-8 shrink-0 items-center gap-1.5 rounded-full border px-3 text-sm font-medium transition-colors',
        pressed ? 'border-indigo-600 bg-indigo-600 text-white shadow-sm' : 'border-slate-200 bg-white text-slate-700 hover:border-slate-300 hover:bg-slate-50',
        empty && 'opacity-50 disabled:cursor-default',
      )}
    >
      {label} <span className={cn('text-xs tabular-nums', pressed ? 'text-indigo-100' : 'text-slate-500')}>{count}</span>
    </button>
  )
}

export const RU_FILTER_LABEL = 'Только с хранением данных в РФ'

/** ?ru=1: only models some upstream in Russia can answer (`data_residency` has "ru"). */
export const parseRuFilter = (value: string | null) => value === '1'

/** A checkbox drawn as a chip: on, the catalogue shows only the models whose data can stay in Russia. */
export function ResidencyToggle({ checked, count, onChange }: { checked: boolean; count: number; onChange: (checked: boolean) => void }) {
  return (
    <label
      title="Модели, которые может обслужить провайдер, хранящий и обрабатывающий данные в России (152-ФЗ)"
      className={cn(
        'inline-flex min-h-8 max-w-full cursor-pointer items-center gap-2 rounded-full border px-3 py-1 text-sm font-medium transition-colors select-none has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500 has-[:focus-visible]:ring-offset-2',
        checked ? 'border-emerald-600 bg-emerald-50 text-emerald-900' : 'border-slate-200 bg-white text-slate-700 hover:border-slate-300 hover:bg-slate-50',
      )}
    >
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        data-testid="ru-filter"
        className="h-4 w-4 shrink-0 rounded border-slate-300 accent-emerald-600 focus-visible:outline-none"
      />
      <ShieldIcon size={14} className={cn('hidden shrink-0 min-[400px]:block', checked ? 'text-emerald-700' : 'text-slate-400')} />
      <span>
        {/* «в РФ» and the count stay together when a phone wraps the label */}
        {RU_FILTER_LABEL.replace(/ в РФ$/, '\u00a0в\u00a0РФ')}
        {'\u00a0'}
        <span className={cn('text-xs tabular-nums', checked ? 'text-emerald-700' : 'text-slate-500')}>{count}</span>
      </span>
    </label>
  )
}
