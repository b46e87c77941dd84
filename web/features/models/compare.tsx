// «Сравнить» in the catalogue (issue 29): tick two to four models and see them side by side —
// prices per 1M tokens and per picture, context, what they take and give, and what a typical
// request costs (the page says what «typical» is). The selection lives in the address (?compare=),
// so a link shows the same comparison; text models go on to the Playground's comparison.
import { type ReactNode, useEffect, useState } from 'react'
import { useSearch } from 'wouter'
import { formatInteger, PER_INPUT_IMAGE, PER_MILLION, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE } from '../../../src/content/format'
import {
  contextText,
  MODEL_TYPE_TEXT,
  type Model,
  modalities,
  modelType,
  type PriceValue,
  parsePrice,
  priceText,
  providerLabel,
  providerOf,
  TYPICAL_REQUEST_TEXT,
  typicalCost,
} from '../../../src/content/models/catalog'
import { Button, ButtonLink } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { CloseIcon } from '../../components/icons'
import { cn } from '../../lib/cn'

export const MAX_COMPARE = 4
export const MIN_COMPARE = 2
/** The Playground compares up to three text models at once. */
const PLAYGROUND_MAX = 3

/** The ticked models, kept in ?compare= (replaceState) beside the page's other filters. */
export function useCompareSelection(models: Model[]) {
  const urlValue = new URLSearchParams(useSearch()).get('compare') ?? ''
  const [selected, setSelected] = useState<string[]>(() => urlValue.split(',').filter(Boolean).slice(0, MAX_COMPARE))
  const [open, setOpen] = useState(false)
  // ids the catalogue no longer has are dropped once it is known
  const known = selected.filter((id) => models.some((m) => m.id === id))
  const value = known.join(',')
  useEffect(() => {
    const url = new URL(window.location.href)
    if (value) url.searchParams.set('compare', value)
    else url.searchParams.delete('compare')
    const next = `${url.pathname}${url.search}${url.hash}`
    if (next !== `${window.location.pathname}${window.location.search}${window.location.hash}`) window.history.replaceState(window.history.state, '', next)
  }, [value])
  return {
    selected: known,
    open: open && known.length >= MIN_COMPARE,
    setOpen,
    toggle: (id: string) => setSelected((list) => (list.includes(id) ? list.filter((x) => x !== id) : list.length >= MAX_COMPARE ? list : [...list, id])),
    clear: () => {
      setSelected([])
      setOpen(false)
    },
  }
}

/** The tick under a card (outside it: the card itself is a link). */
export function CompareToggle({ model, checked, full, onToggle }: { model: Model; checked: boolean; full: boolean; onToggle: () => void }) {
  const disabled = full && !checked
  return (
    <label
      className={cn(
        'mt-1.5 inline-flex items-center gap-2 rounded px-1 text-sm text-slate-600 select-none',
        disabled ? 'cursor-not-allowed opacity-60' : 'cursor-pointer hover:text-slate-900',
      )}
      title={disabled ? `Сравнить можно до ${MAX_COMPARE} моделей` : undefined}
    >
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={onToggle}
        data-testid="compare-toggle"
        aria-label={`Сравнить ${model.name || model.id}`}
        className="h-4 w-4 rounded border-slate-300 accent-indigo-600"
      />
      Сравнить
    </label>
  )
}

/** The bar that follows the page while models are ticked. */
export function CompareTray({ models, onOpen, onRemove, onClear }: { models: Model[]; onOpen: () => void; onRemove: (id: string) => void; onClear: () => void }) {
  if (models.length === 0) return null
  const ready = models.length >= MIN_COMPARE
  return (
    <section
      aria-label="Сравнение моделей"
      data-testid="compare-tray"
      className="sticky bottom-3 z-20 mt-4 flex flex-wrap items-center gap-2 rounded-xl border border-indigo-200 bg-white/95 px-3 py-2.5 shadow-lg shadow-indigo-900/10 backdrop-blur sm:px-4"
    >
      <ul className="flex min-w-0 flex-1 flex-wrap gap-1.5">
        {models.map((m) => (
          <li
            key={m.id}
            className="inline-flex h-7 max-w-56 items-center gap-1 rounded-full bg-indigo-50 pr-1 pl-2.5 text-xs font-medium text-indigo-800 ring-1 ring-indigo-100 ring-inset"
          >
            <span className="truncate">{m.name || m.id}</span>
            <button type="button" onClick={() => onRemove(m.id)} aria-label={`Убрать ${m.name || m.id} из сравнения`} className="rounded-full p-0.5 hover:bg-indigo-100">
              <CloseIcon size={12} />
            </button>
          </li>
        ))}
      </ul>
      <div className="flex shrink-0 items-center gap-2">
        <Button variant="ghost" size="sm" onClick={onClear}>
          Сбросить
        </Button>
        <Button size="sm" onClick={onOpen} disabled={!ready} title={ready ? undefined : 'Отметьте ещё хотя бы одну модель'}>
          Сравнить {models.length} из {MAX_COMPARE}
        </Button>
      </div>
    </section>
  )
}

function Price({ value, scale = 1, unit }: { value: PriceValue; scale?: number; unit?: string }) {
  if (value.kind !== 'amount') return <span className={value.kind === 'free' ? 'text-emerald-700' : 'text-slate-600'}>{value.kind === 'free' ? '—' : priceText(value)}</span>
  return (
    <>
      <span className="font-medium text-slate-900 tabular-nums">{priceText(value, scale)}</span>
      {unit && <span className="block text-xs text-slate-500">{unit}</span>}
    </>
  )
}

/** A row of the table: the label, then one cell per model. */
function Row({ label, models, cell, testId }: { label: string; models: Model[]; cell: (m: Model) => ReactNode; testId?: string }) {
  return (
    <tr data-testid={testId}>
      <th scope="row" className="sticky left-0 z-10 bg-white py-2 pr-3 text-left align-top text-xs font-medium text-slate-500">
        {label}
      </th>
      {models.map((m) => (
        <td key={m.id} className="min-w-36 px-3 py-2 align-top text-sm text-slate-700">
          {cell(m)}
        </td>
      ))}
    </tr>
  )
}

/** Models that answer a chat with text: what the Playground's comparison can take. */
const chats = (m: Model) => (modelType(m) === 'text' || (modelType(m) === 'image' && parsePrice(m.pricing.completion).kind !== 'free')) && !m.capabilities?.embeddings

export function CompareDialog({ models, open, onClose, signedIn }: { models: Model[]; open: boolean; onClose: () => void; signedIn: boolean }) {
  const forPlayground = models.filter(chats).slice(0, PLAYGROUND_MAX)
  const any = (key: 'image' | 'image_output' | 'request') => models.some((m) => parsePrice(m.pricing[key]).kind === 'amount')
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Сравнение моделей"
      className="sm:max-w-4xl"
      description="Цены в рублях с наценкой; цены токенов — за 1M токенов."
      footer={
        forPlayground.length >= MIN_COMPARE ? (
          <ButtonLink href={`/app/playground?compare=${forPlayground.map((m) => encodeURIComponent(m.id)).join(',')}`}>
            {signedIn ? 'Сравнить ответы в Playground' : 'Войти и сравнить ответы в Playground'}
          </ButtonLink>
        ) : undefined
      }
    >
      {/* scrolls sideways on a phone: focusable, so the keyboard can scroll it too */}
      <div className="-mx-5 overflow-x-auto px-5 sm:-mx-6 sm:px-6" data-testid="compare-table" role="region" aria-label="Таблица сравнения" tabIndex={0}>
        <table className="w-full border-separate border-spacing-0 text-left">
          <caption className="sr-only">Сравнение {models.length} моделей: цены, контекст, модальности, стоимость типичного запроса</caption>
          <thead>
            <tr>
              <td className="sticky left-0 z-10 bg-white" />
              {models.map((m) => (
                <th key={m.id} scope="col" className="min-w-36 border-b border-slate-200 px-3 pb-2 align-bottom" data-testid="compare-model" data-model-id={m.id}>
                  <span className="block text-xs font-medium tracking-wide text-slate-500 uppercase">{providerLabel(providerOf(m.id))}</span>
                  <span className="block text-sm leading-5 font-semibold break-words text-slate-900">{m.name || m.id}</span>
                  <span className="block font-mono text-[11px] font-normal break-all text-slate-500">{m.id}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="[&_tr+tr>*]:border-t [&_tr+tr>*]:border-slate-100">
            <Row label="Тип" models={models} cell={(m) => MODEL_TYPE_TEXT[modelType(m)]} />
            <Row
              label="Контекст"
              models={models}
              cell={(m) => (m.context_length > 0 ? <span title={`${formatInteger(m.context_length)} токенов`}>{contextText(m.context_length)}</span> : '—')}
              testId="compare-context"
            />
            <Row label="На входе" models={models} cell={(m) => modalities(m).input} />
            <Row label="На выходе" models={models} cell={(m) => modalities(m).output} />
            <Row label={`Ввод, ${PER_MILLION_TOKENS}`} models={models} cell={(m) => <Price value={parsePrice(m.pricing.prompt)} scale={PER_MILLION} />} testId="compare-prompt" />
            <Row
              label={`Вывод, ${PER_MILLION_TOKENS}`}
              models={models}
              cell={(m) => <Price value={parsePrice(m.pricing.completion)} scale={PER_MILLION} />}
              testId="compare-completion"
            />
            {any('image_output') && <Row label={PER_OUTPUT_IMAGE.replace(/^з/, 'З')} models={models} cell={(m) => <Price value={parsePrice(m.pricing.image_output)} />} />}
            {any('image') && <Row label={PER_INPUT_IMAGE.replace(/^з/, 'З')} models={models} cell={(m) => <Price value={parsePrice(m.pricing.image)} />} />}
            {any('request') && <Row label="За запрос" models={models} cell={(m) => <Price value={parsePrice(m.pricing.request)} />} />}
            <Row
              label="Типичный запрос"
              models={models}
              testId="compare-typical"
              cell={(m) => {
                const { price, what } = typicalCost(m)
                return <Price value={price} unit={what} />
              }}
            />
          </tbody>
        </table>
      </div>
      <p className="mt-3 text-xs leading-5 text-slate-500" data-testid="typical-note">
        Типичный запрос — {TYPICAL_REQUEST_TEXT}. Списывается фактическая стоимость у провайдера.
      </p>
    </Dialog>
  )
}
