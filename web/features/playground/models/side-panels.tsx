// What the selected model is and costs, and the request settings: the right-hand column on a
// desktop, the «Модель и настройки» drawer on a phone (playground-page.tsx decides).
import { type ReactNode, useId, useState } from 'react'
import { formatPrice, PER_INPUT_IMAGE, PER_MILLION, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE } from '../../../../src/content/format'
import { Card } from '../../../components/card'
import { AlertCircleIcon, ChevronDownIcon, InfoIcon, SlidersIcon } from '../../../components/icons'
import { inputClasses, textareaClasses } from '../../../components/input'
import { cn } from '../../../lib/cn'
import { ImageIcon } from '../icons'
import { type EstimateState, estimateDisplay } from '../requests/estimate'
import type { Settings } from '../types'
import { ModelPicker } from './model-picker'
import { contextLabel, isVariablePrice, MODELS_LOAD_ERROR, type PlaygroundModel, rubles } from './models'

function PanelHeader({ icon, title, aside }: { icon: ReactNode; title: string; aside?: ReactNode }) {
  return (
    <div className="flex items-center justify-between gap-3">
      <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
        <span className="text-slate-400">{icon}</span>
        {title}
      </h2>
      {aside}
    </div>
  )
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** A ruble price by the spec's rule, or what stands in for one. */
function priceLabel(value: string | undefined, scale = 1): string {
  if (isVariablePrice(value)) return 'зависит от запроса'
  const n = rubles(value)
  if (n === null) return '—'
  if (n === 0) return 'бесплатно'
  return formatPrice(n * scale)
}

function PriceRow({ label, value, unit, scale, testId }: { label: string; value: string | undefined; unit?: string; scale?: number; testId?: string }) {
  const known = rubles(value) !== null && rubles(value)! > 0
  return (
    <div className="flex items-baseline justify-between gap-3 py-1">
      <dt className="text-slate-500">{label}</dt>
      <dd className="text-right whitespace-nowrap" data-testid={testId}>
        <span className="font-medium text-slate-900 tabular-nums">{priceLabel(value, scale)}</span>
        {known && unit && (
          <>
            {' '}
            <span className="text-xs text-slate-500">{unit}</span>
          </>
        )}
      </dd>
    </div>
  )
}

export function ModelInfoPanel({ model, open, onToggle }: { model: PlaygroundModel; open: boolean; onToggle: () => void }) {
  const [expanded, setExpanded] = useState(false)
  const bodyId = useId()
  const description = model.description?.trim()
  const long = (description?.length ?? 0) > 140
  return (
    <Card className="p-4" data-testid="model-info">
      <PanelHeader
        icon={<InfoIcon size={16} />}
        title="О модели"
        aside={
          <button
            type="button"
            onClick={onToggle}
            aria-expanded={open}
            aria-controls={bodyId}
            className="inline-flex h-7 items-center gap-1 rounded-md px-2 text-xs font-medium text-slate-500 hover:bg-slate-100 hover:text-slate-800"
          >
            {open ? 'Скрыть' : 'Показать'}
            <ChevronDownIcon size={14} className={cn('transition-transform', open && 'rotate-180')} />
          </button>
        }
      />
      {open && (
        <div id={bodyId} className="mt-3">
          <p className="text-[15px] leading-6 font-semibold break-words text-slate-900">{model.name || model.id}</p>
          <p className="font-mono text-xs break-all text-slate-500">{model.id}</p>
          {description ? (
            <div className="mt-2">
              <p className={cn('text-sm leading-5 text-slate-600', !expanded && long && 'line-clamp-3')} data-testid="model-description">
                {description}
              </p>
              {long && (
                <button type="button" onClick={() => setExpanded((v) => !v)} aria-expanded={expanded} className="mt-1 text-xs font-medium text-indigo-600 hover:text-indigo-500">
                  {expanded ? 'Свернуть' : 'Подробнее'}
                </button>
              )}
            </div>
          ) : (
            <p className="mt-2 text-sm text-slate-500">Описание не указано.</p>
          )}
          <dl className="mt-3 divide-y divide-slate-100 border-t border-slate-100 text-sm">
            {/* voice models read no context: a character or a second is what they bill */}
            {!(model.capabilities?.speech || model.capabilities?.transcription) && (
              <div className="flex items-baseline justify-between gap-3 py-1">
                <dt className="text-slate-500">Контекст</dt>
                <dd className="font-medium text-slate-900 tabular-nums" data-testid="model-context">
                  {model.context_length > 0 ? contextLabel(model.context_length) : '—'}
                </dd>
              </div>
            )}
            {model.capabilities?.speech ? (
              <PriceRow label="Текст" value={model.pricing.character ?? model.pricing.prompt} unit="за 1M символов" scale={1_000_000} testId="price-character" />
            ) : (
              <>
                <PriceRow label="Промпт" value={model.pricing.prompt} unit={PER_MILLION_TOKENS} scale={PER_MILLION} testId="price-prompt" />
                <PriceRow label="Ответ" value={model.pricing.completion} unit={PER_MILLION_TOKENS} scale={PER_MILLION} testId="price-completion" />
              </>
            )}
            {/* a picture's price: the unit is the label, so it never wraps beside the figure */}
            {(rubles(model.pricing.image_output) ?? 0) > 0 && <PriceRow label={capitalise(PER_OUTPUT_IMAGE)} value={model.pricing.image_output} testId="price-image-output" />}
            {rubles(model.pricing.image) !== null && rubles(model.pricing.image)! > 0 && (
              <PriceRow label={capitalise(PER_INPUT_IMAGE)} value={model.pricing.image} testId="price-image-input" />
            )}
            {rubles(model.pricing.request) !== null && rubles(model.pricing.request)! > 0 && <PriceRow label="Запрос" value={model.pricing.request} />}
          </dl>
        </div>
      )}
    </Card>
  )
}

const selectClasses = cn(
  inputClasses,
  'appearance-none bg-[url("data:image/svg+xml,%3Csvg%20xmlns=%27http://www.w3.org/2000/svg%27%20width=%2716%27%20height=%2716%27%20viewBox=%270%200%2024%2024%27%20fill=%27none%27%20stroke=%27%2364748b%27%20stroke-width=%272%27%3E%3Cpath%20d=%27m6%209%206%206%206-6%27/%3E%3C/svg%3E")] bg-[length:16px] bg-[position:right_0.6rem_center] bg-no-repeat pr-9 text-sm',
)

function Range({
  label,
  value,
  min,
  max,
  step,
  format,
  disabled,
  onChange,
}: {
  label: string
  value: number
  min: number
  max: number
  step: number
  format: (v: number) => string
  disabled?: boolean
  onChange: (v: number) => void
}) {
  const id = useId()
  return (
    <div>
      <div className="flex items-baseline justify-between">
        <label htmlFor={id} className="text-sm font-medium text-slate-700">
          {label}
        </label>
        <output htmlFor={id} className="text-sm font-semibold text-slate-900 tabular-nums">
          {format(value)}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(Number(e.target.value))}
        className="mt-2 w-full accent-indigo-600 disabled:opacity-60"
      />
      <div className="flex justify-between text-xs text-slate-500 tabular-nums">
        <span>{format(min)}</span>
        <span>{format(max)}</span>
      </div>
    </div>
  )
}

export const IMAGE_SIZES = ['1024x1024', '1792x1024', '1024x1792', '512x512', '256x256'] as const
export const IMAGE_QUALITIES = [
  { value: 'standard', label: 'Стандартное' },
  { value: 'hd', label: 'Высокое (HD)' },
] as const
export const MAX_IMAGES = 4

export function SettingsPanel({
  models,
  modelId,
  failed,
  loading,
  imageCapable,
  mode,
  settings,
  disabled,
  imageEstimate,
  imageEstimateHint,
  speechMode = false,
  comparing = false,
  onModel,
  onMode,
  onSettings,
}: {
  models: PlaygroundModel[]
  modelId: string
  failed: boolean
  loading: boolean
  imageCapable: boolean
  mode: 'chat' | 'image'
  settings: Settings
  disabled: boolean
  /** the same estimate as under the composer: the server's bound for the request as it would be sent */
  imageEstimate: EstimateState
  imageEstimateHint: string
  /** the model voices text: it has no chat parameters (voice and format are in the voice panel) */
  speechMode?: boolean
  /** a comparison: each column picks its model, the panel holds only what they share */
  comparing?: boolean
  onModel: (id: string) => void
  onMode: (mode: 'chat' | 'image') => void
  onSettings: (patch: Partial<Settings>) => void
}) {
  const [systemOpen, setSystemOpen] = useState(settings.system !== '')
  const paramsId = useId()
  const systemId = useId()
  const modelSelectId = useId()
  const sizeId = useId()
  const qualityId = useId()
  const quantityId = useId()
  const estimate = estimateDisplay(imageEstimate, imageEstimateHint)
  return (
    <Card className="space-y-5 p-4" data-testid="settings-panel">
      <PanelHeader icon={<SlidersIcon size={16} />} title="Настройки" />
      {comparing && <p className="text-sm leading-5 text-slate-600">Общие для всех моделей сравнения; модель выбирается над каждой колонкой.</p>}
      {!comparing && (
        <div className="space-y-1.5">
          <label htmlFor={modelSelectId} className="text-sm font-medium text-slate-700">
            Модель
          </label>
          <ModelPicker id={modelSelectId} models={models} value={modelId} loading={loading} disabled={disabled} onChange={onModel} />
          {failed && (
            <p role="alert" className="flex gap-1.5 text-xs leading-5 text-red-600">
              <AlertCircleIcon size={14} className="mt-0.5 shrink-0" />
              {MODELS_LOAD_ERROR}
            </p>
          )}
        </div>
      )}

      {imageCapable && !comparing && (
        <div role="radiogroup" aria-label="Режим" className="grid grid-cols-2 gap-1 rounded-lg bg-slate-100 p-1">
          {(
            [
              ['chat', 'Текст'],
              ['image', 'Изображение'],
            ] as const
          ).map(([value, label]) => (
            <button
              key={value}
              type="button"
              role="radio"
              aria-checked={mode === value}
              disabled={disabled}
              onClick={() => onMode(value)}
              className={cn(
                'h-8 rounded-md text-sm font-medium transition-colors disabled:cursor-not-allowed',
                mode === value ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-500 hover:text-slate-800',
              )}
            >
              {label}
            </button>
          ))}
        </div>
      )}

      {speechMode ? (
        <p className="text-sm leading-5 text-slate-600" data-testid="speech-mode-note">
          Модель озвучивает текст из поля ввода: ответ — аудио, его можно прослушать и скачать. Голос и формат — в панели «Голос».
        </p>
      ) : mode === 'image' && imageCapable && !comparing ? (
        <div className="space-y-4" data-testid="image-settings" id={paramsId}>
          <div className="grid grid-cols-2 gap-3">
            <div className="space-y-1.5">
              <label htmlFor={sizeId} className="text-sm font-medium text-slate-700">
                Размер
              </label>
              <select id={sizeId} value={settings.size} disabled={disabled} onChange={(e) => onSettings({ size: e.target.value })} className={selectClasses}>
                {IMAGE_SIZES.map((s) => (
                  <option key={s} value={s}>
                    {s.replace('x', '×')}
                  </option>
                ))}
              </select>
            </div>
            <div className="space-y-1.5">
              <label htmlFor={quantityId} className="text-sm font-medium text-slate-700">
                Количество
              </label>
              <select id={quantityId} value={settings.quantity} disabled={disabled} onChange={(e) => onSettings({ quantity: Number(e.target.value) })} className={selectClasses}>
                {Array.from({ length: MAX_IMAGES }, (_, i) => i + 1).map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <div className="space-y-1.5">
            <label htmlFor={qualityId} className="text-sm font-medium text-slate-700">
              Качество
            </label>
            <select id={qualityId} value={settings.quality} disabled={disabled} onChange={(e) => onSettings({ quality: e.target.value })} className={selectClasses}>
              {IMAGE_QUALITIES.map((q) => (
                <option key={q.value} value={q.value}>
                  {q.label}
                </option>
              ))}
            </select>
          </div>
          <div
            className={cn('rounded-lg px-3 py-2.5 text-sm', estimate.overBalance ? 'bg-red-50 ring-1 ring-red-100 ring-inset' : 'bg-indigo-50')}
            data-testid="image-estimate"
            data-state={estimate.state}
            title={estimate.title}
          >
            <div className="flex items-center justify-between gap-3">
              <span className={cn('flex items-center gap-1.5', estimate.overBalance ? 'text-red-800' : 'text-indigo-900')}>
                <ImageIcon size={15} className={estimate.overBalance ? 'text-red-500' : 'text-indigo-500'} />
                Оценка стоимости
              </span>
              <span className={cn('font-semibold whitespace-nowrap tabular-nums', estimate.overBalance ? 'text-red-700' : 'text-indigo-900')}>
                {estimate.figure === null ? 'зависит от запроса' : typeof estimate.figure === 'number' ? `до ${formatPrice(estimate.figure)}` : estimate.figure}
              </span>
            </div>
            {estimate.overBalance && <p className="mt-1 text-xs text-red-700">Больше баланса — запрос будет отклонён</p>}
          </div>
        </div>
      ) : (
        <div className="space-y-5" id={paramsId}>
          <Range
            label="Температура"
            value={settings.temperature}
            min={0}
            max={2}
            step={0.1}
            disabled={disabled}
            format={(v) => v.toLocaleString('ru-RU', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}
            onChange={(temperature) => onSettings({ temperature })}
          />
          <Range
            label="Максимум токенов"
            value={settings.maxTokens}
            // «Уменьшить ответ до N токенов» may set a value off the spec's grid of 100: the slider
            // keeps it (and steps by one) until it is moved back onto the grid
            min={Math.min(100, settings.maxTokens)}
            max={4000}
            step={settings.maxTokens % 100 === 0 ? 100 : 1}
            disabled={disabled}
            format={(v) => v.toLocaleString('ru-RU')}
            onChange={(maxTokens) => onSettings({ maxTokens })}
          />
          <div className="border-t border-slate-100 pt-4">
            <button
              type="button"
              onClick={() => setSystemOpen((v) => !v)}
              aria-expanded={systemOpen}
              aria-controls={systemId}
              className="flex w-full items-center justify-between gap-2 text-sm font-medium text-slate-700 hover:text-slate-900"
            >
              <span>
                Системный промпт
                {!systemOpen && settings.system.trim() && <span className="ml-1.5 rounded bg-indigo-50 px-1.5 py-0.5 text-xs text-indigo-700">задан</span>}
              </span>
              <ChevronDownIcon size={14} className={cn('text-slate-500 transition-transform', systemOpen && 'rotate-180')} />
            </button>
            {systemOpen && (
              <div id={systemId} className="mt-2 space-y-1.5">
                <textarea
                  aria-label="Системный промпт"
                  value={settings.system}
                  disabled={disabled}
                  rows={4}
                  maxLength={20_000}
                  placeholder="Например: «Отвечай кратко и по-русски»"
                  onChange={(e) => onSettings({ system: e.target.value })}
                  className={cn(textareaClasses, 'text-sm leading-5')}
                />
                <p className="text-xs text-slate-600">Уходит первым сообщением (role: system) в каждом запросе этого чата и входит в оценку стоимости.</p>
              </div>
            )}
          </div>
        </div>
      )}
    </Card>
  )
}
