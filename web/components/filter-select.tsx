import { useId } from 'react'
import { Select } from './select'

/** A filter over a list: «all» first, then the choices (usage, activity log). */
export function FilterSelect({
  label,
  value,
  onChange,
  allLabel,
  options,
}: {
  label: string
  value: string
  onChange: (value: string) => void
  allLabel: string
  options: Array<{ value: string; label: string }>
}) {
  const id = useId()
  // A choice from another period stays selectable rather than silently jumping to "all".
  const list = value && !options.some((o) => o.value === value) ? [...options, { value, label: value }] : options
  return (
    <div className="w-full sm:w-52">
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value)} className="text-sm">
        <option value="">{allLabel}</option>
        {list.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </Select>
    </div>
  )
}
