// The model picker: a searchable list (name, provider, id) with each model's price, in place of a
// plain select that cannot hold hundreds of models. ARIA combobox pattern (an editable input with
// a listbox popup): arrows move, Enter picks, Escape closes and restores the chosen model's name.
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react'
import { formatPerMillion, formatPrice, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE } from '../../../../src/content/format'
import { providerLabel, providerOf } from '../../../../src/content/models/catalog'
import { ChevronDownIcon } from '../../../components/icons'
import { inputClasses } from '../../../components/input'
import { cn } from '../../../lib/cn'
import { isImageCapable, isSpeechModel, isVariablePrice, type PlaygroundModel, rubles } from './models'

/** The price a customer compares models by: a picture drawn for image models, 1M characters for speech models, else 1M tokens in and out. */
export function pickerPrice(model: PlaygroundModel): string {
  const drawn = rubles(model.pricing.image_output)
  if (isImageCapable(model) && drawn !== null && drawn > 0) return `${formatPrice(drawn)} ${PER_OUTPUT_IMAGE}`
  const perChar = rubles(model.pricing.character)
  if (isSpeechModel(model) && perChar) return `${formatPrice(perChar * 1_000_000)} за 1M символов`
  if (isVariablePrice(model.pricing.prompt)) return 'цена зависит от запроса'
  const prompt = rubles(model.pricing.prompt)
  const completion = rubles(model.pricing.completion)
  if (prompt === null) return ''
  if (prompt === 0 && (completion ?? 0) === 0) return 'бесплатно'
  return `${formatPerMillion(prompt)} / ${formatPerMillion(completion ?? 0)} ${PER_MILLION_TOKENS}`
}

const label = (m: PlaygroundModel) => m.name || m.id
const optionId = (listId: string, i: number) => `${listId}-o${i}`

/** Every word of the query is found in the name, the provider (as shown or as in the id) or the id. */
export function matchesQuery(model: PlaygroundModel, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const provider = providerOf(model.id)
  const haystack = `${model.name} ${model.id} ${provider} ${providerLabel(provider)}`.toLowerCase()
  return words.every((w) => haystack.includes(w))
}

export function ModelPicker({
  id,
  models,
  value,
  loading,
  disabled,
  onChange,
}: {
  /** the input's id, for the «Модель» label */
  id: string
  models: PlaygroundModel[]
  value: string
  loading: boolean
  disabled: boolean
  onChange: (id: string) => void
}) {
  const listId = useId()
  const input = useRef<HTMLInputElement>(null)
  const list = useRef<HTMLUListElement>(null)
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState('')
  const [active, setActive] = useState(0)
  const selected = models.find((m) => m.id === value)
  const sorted = useMemo(() => [...models].sort((a, b) => label(a).localeCompare(label(b), 'ru')), [models])
  const shown = useMemo(() => sorted.filter((m) => matchesQuery(m, query)), [sorted, query])

  // the highlighted option stays in view while arrowing through a long list
  useEffect(() => {
    if (!open) return
    list.current?.querySelector(`#${CSS.escape(optionId(listId, active))}`)?.scrollIntoView({ block: 'nearest' })
  }, [active, open, listId])

  function openList() {
    if (open) return
    setQuery('')
    setActive(
      Math.max(
        0,
        sorted.findIndex((m) => m.id === value),
      ),
    )
    setOpen(true)
  }

  function close() {
    setOpen(false)
    setQuery('')
  }

  function choose(model: PlaygroundModel) {
    close()
    // the spec's reset rule (a new chat) applies only to a different model
    if (model.id !== value) onChange(model.id)
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault()
        if (!open) return openList()
        setActive((i) => Math.min(shown.length - 1, i + 1))
        break
      case 'ArrowUp':
        event.preventDefault()
        if (!open) return openList()
        setActive((i) => Math.max(0, i - 1))
        break
      case 'Home':
      case 'End':
        if (!open) return
        event.preventDefault()
        setActive(event.key === 'Home' ? 0 : shown.length - 1)
        break
      case 'Enter':
        if (!open) return
        event.preventDefault()
        if (shown[active]) choose(shown[active])
        break
      case 'Escape':
        if (!open) return
        // closes the list only, not a drawer around it
        event.preventDefault()
        event.stopPropagation()
        close()
        break
      case 'Tab':
        close()
        break
    }
  }

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus leaving the whole combobox (input, list) closes the list; the div takes no input itself
    <div
      className="relative"
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) close()
      }}
    >
      <input
        ref={input}
        id={id}
        type="text"
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && shown[active] ? optionId(listId, active) : undefined}
        data-model-id={value}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled || loading}
        placeholder={open ? 'Поиск: название, провайдер…' : undefined}
        value={loading ? 'Загрузка моделей…' : open ? query : selected ? label(selected) : value}
        onChange={(e) => {
          if (!open) setOpen(true)
          setQuery(e.target.value)
          setActive(0)
        }}
        onClick={openList}
        onKeyDown={onKeyDown}
        className={cn(inputClasses, 'pr-9 text-sm', open && 'placeholder:text-slate-500')}
      />
      <button
        type="button"
        tabIndex={-1}
        aria-hidden="true"
        disabled={disabled || loading}
        onClick={() => {
          if (open) close()
          else {
            openList()
            input.current?.focus()
          }
        }}
        className="absolute inset-y-0 right-0 flex w-9 items-center justify-center text-slate-500"
      >
        <ChevronDownIcon size={16} className={cn('transition-transform', open && 'rotate-180')} />
      </button>
      {open && (
        <ul
          ref={list}
          id={listId}
          // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA combobox pattern's listbox popup, as a list of options
          role="listbox"
          aria-label="Модели"
          className="absolute inset-x-0 top-full z-30 mt-1 max-h-80 overflow-y-auto rounded-lg border border-slate-200 bg-white py-1 shadow-lg"
        >
          {shown.length === 0 && (
            <li role="presentation" className="px-3 py-2 text-sm text-slate-500">
              Ничего не найдено
            </li>
          )}
          {shown.map((m, i) => {
            const price = pickerPrice(m)
            return (
              // biome-ignore lint/a11y/useFocusableInteractive: options of an aria-activedescendant listbox are not focused; focus stays in the input
              // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard works through the input (arrows move, Enter picks)
              <li
                key={m.id}
                id={optionId(listId, i)}
                // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: an option of the combobox's listbox
                role="option"
                aria-selected={m.id === value}
                data-model-id={m.id}
                // mousedown would blur the input (and close the list) before the click lands
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(m)}
                onMouseMove={() => active !== i && setActive(i)}
                className={cn('cursor-pointer px-3 py-2 text-sm', i === active ? 'bg-indigo-50' : 'bg-white', m.id === value && 'font-medium')}
              >
                <span className="block truncate text-slate-900">{label(m)}</span>
                <span className="flex justify-between gap-2 text-xs text-slate-600">
                  <span className="truncate">{providerLabel(providerOf(m.id))}</span>
                  {price && <span className="shrink-0 tabular-nums">{price}</span>}
                </span>
              </li>
            )
          })}
        </ul>
      )}
    </div>
  )
}
