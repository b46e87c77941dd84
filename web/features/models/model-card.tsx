import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { formatInteger } from '../../../src/content/format'
import {
  contextText,
  isEmbeddingModel,
  MODEL_TYPES,
  type Model,
  type ModelType,
  modelType,
  type PriceValue,
  priceLines,
  priceText,
  providerLabel,
  providerOf,
} from '../../../src/content/models/catalog'
import { ArrowRightIcon, ShieldIcon } from '../../components/icons'
import { cn } from '../../lib/cn'

export function playgroundHref(id: string): string {
  return `/app/playground?model=${encodeURIComponent(id)}`
}

function PriceRow({ label, price, unit, scale = 1 }: { label: string; price: PriceValue; unit: string; scale?: number }) {
  return (
    <div className="flex items-baseline justify-between gap-3">
      <dt className="shrink-0 text-slate-500">{label}</dt>
      <dd className="min-w-0 text-right">
        {price.kind === 'amount' ? (
          <>
            <span className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{priceText(price, scale)}</span>{' '}
            <span className="text-xs whitespace-nowrap text-slate-500">{unit}</span>
          </>
        ) : (
          <span className={price.kind === 'free' ? 'font-medium text-emerald-700' : 'text-slate-600'}>{priceText(price)}</span>
        )}
      </dd>
    </div>
  )
}

/** 'За сгенерированное изображение … 0,1448 ₽': the unit is the label. */
function UnitPriceRow({ unit, price }: { unit: string; price: PriceValue }) {
  return (
    <div className="flex items-baseline justify-between gap-3">
      {/* a long unit («за сгенерированное изображение») wraps on a narrow card, the figure does not */}
      <dt className="min-w-0 text-slate-500 first-letter:uppercase">{unit}</dt>
      <dd className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{priceText(price)}</dd>
    </div>
  )
}

const BADGE_TONES = {
  indigo: 'bg-indigo-50 text-indigo-700 ring-indigo-100',
  teal: 'bg-teal-50 text-teal-800 ring-teal-100',
  sky: 'bg-sky-50 text-sky-800 ring-sky-100',
} as const

function Badge({ children, tone = 'indigo' }: { children: ReactNode; tone?: keyof typeof BADGE_TONES }) {
  return <span className={cn('inline-flex h-6 shrink-0 items-center rounded-full px-2.5 text-xs font-medium ring-1 ring-inset', BADGE_TONES[tone])}>{children}</span>
}

const BADGE_TONE_OF: Partial<Record<ModelType, keyof typeof BADGE_TONES>> = { image: 'indigo', embeddings: 'teal', speech: 'sky', transcription: 'sky' }

/** The card's type badge; plain text models wear none. */
function TypeBadge({ type }: { type: ModelType }) {
  const tone = BADGE_TONE_OF[type]
  return tone ? <Badge tone={tone}>{MODEL_TYPES.find((t) => t.type === type)!.label}</Badge> : null
}

/** Some upstream that can answer the model keeps data in Russia (`data_residency` has "ru"). */
export const keepsDataInRussia = (model: Pick<Model, 'data_residency'>) => model.data_residency?.includes('ru') === true

export const RU_DATA_LABEL = 'Данные остаются в России'

/** What the badge means for this model: every provider is in Russia, or a «только РФ» key or team keeps it there. */
export function ruDataNote(model: Pick<Model, 'data_residency'>): string {
  return model.data_residency.includes('foreign')
    ? 'У модели есть провайдеры в России и за рубежом: с ключом или командой «Только в РФ» запросы пойдут только к провайдерам в России.'
    : 'Все провайдеры этой модели хранят и обрабатывают данные в России.'
}

/** «Данные остаются в России», with what it means in the tooltip; nothing for a model without a Russian provider. */
export function RuDataBadge({ model, className }: { model: Pick<Model, 'data_residency'>; className?: string }) {
  if (!keepsDataInRussia(model)) return null
  return (
    <span
      data-testid="ru-data-badge"
      title={ruDataNote(model)}
      className={cn(
        'inline-flex h-6 max-w-full items-center gap-1 rounded-full bg-emerald-50 px-2.5 text-xs font-medium text-emerald-800 ring-1 ring-emerald-100 ring-inset',
        className,
      )}
    >
      <ShieldIcon size={12} className="shrink-0" />
      <span className="truncate">{RU_DATA_LABEL}</span>
    </span>
  )
}

/** The docs section a card of an embedding model points to (it has nothing to try in the Playground). */
export const EMBEDDINGS_DOCS_HREF = '/app/docs#embeddings'

/** The model's prices (catalog.ts priceLines: the one display rule, tokens per 1M). */
export function Prices({ model }: { model: Model }) {
  const lines = priceLines(model)
  return (
    <dl className={cn('text-sm', lines.length > 1 && 'space-y-1.5')}>
      {lines.map((line) =>
        line.perUnit ? (
          <UnitPriceRow key={line.label} unit={line.label} price={line.price} />
        ) : line.label === 'Цена' ? (
          <div key={line.label} className="flex items-baseline justify-between gap-3">
            <dt className="text-slate-500">Цена</dt>
            <dd className={line.price.kind === 'free' ? 'font-medium text-emerald-700' : 'text-right text-slate-600'}>{priceText(line.price)}</dd>
          </div>
        ) : (
          <PriceRow key={line.label} label={line.label} price={line.price} unit={line.unit ?? ''} scale={line.scale} />
        ),
      )}
    </dl>
  )
}

const cardClass = 'flex h-full flex-col rounded-xl border border-slate-200 bg-white p-4 shadow-xs sm:p-5'

/** Provider, name, id, description and prices: what every card shows. */
function CardBody({ model, badge, linked }: { model: Model; badge: ReactNode; linked: boolean }) {
  const provider = providerLabel(providerOf(model.id))
  return (
    <>
      <div className="flex min-h-6 items-center justify-between gap-2">
        <span className="truncate text-xs font-medium tracking-wide text-slate-500 uppercase">{provider}</span>
        {badge}
      </div>
      <h2 className={cn('mt-2 text-[15px] leading-6 font-semibold break-words text-slate-900', linked && 'group-hover:text-indigo-700')}>{model.name || model.id}</h2>
      <p className="mt-0.5 font-mono text-xs break-all text-slate-500">{model.id}</p>
      <RuDataBadge model={model} className="mt-2 self-start" />
      {model.description ? (
        <p className="mt-3 line-clamp-3 text-sm leading-5 text-slate-600" title={model.description}>
          {model.description}
        </p>
      ) : (
        <p className="mt-3 text-sm leading-5 text-slate-500">Описание не указано.</p>
      )}
    </>
  )
}

function Context({ model }: { model: Model }) {
  const context = contextText(model.context_length)
  if (!context) return <span />
  return (
    <span className="text-slate-500" title={`${formatInteger(model.context_length)} токенов`}>
      {context}
    </span>
  )
}

/**
 * An embedding model: vectors through POST /v1/embeddings, nothing to chat with, so the card is
 * not a link to the Playground; it points to the docs section with the request instead.
 */
function EmbeddingCard({ model }: { model: Model }) {
  return (
    <article data-testid="model-card" data-model-id={model.id} data-model-type="embeddings" className={cardClass}>
      <CardBody model={model} badge={<TypeBadge type="embeddings" />} linked={false} />
      <div className="mt-auto pt-4">
        <div className="border-t border-slate-100 pt-3">
          <Prices model={model} />
        </div>
        <div className="mt-3 flex items-center justify-between gap-3 text-xs">
          <Context model={model} />
          <Link href={EMBEDDINGS_DOCS_HREF} className="inline-flex items-center gap-1 rounded font-medium whitespace-nowrap text-indigo-600 hover:text-indigo-500">
            Пример запроса
            <ArrowRightIcon size={13} />
          </Link>
        </div>
      </div>
    </article>
  )
}

/**
 * One catalogue entry; the whole card opens the model in the Playground (embedding models: the docs).
 * The public catalogue passes `href` (the model's own page).
 */
export function ModelCard({ model, href }: { model: Model; href?: string }) {
  if (isEmbeddingModel(model) && !href) return <EmbeddingCard model={model} />
  const type = modelType(model)
  return (
    <Link
      href={href ?? playgroundHref(model.id)}
      data-testid="model-card"
      data-model-id={model.id}
      data-model-type={type}
      className={cn(cardClass, 'group transition-[border-color,box-shadow] hover:border-indigo-300 hover:shadow-md hover:shadow-indigo-900/5')}
    >
      <CardBody model={model} badge={<TypeBadge type={type} />} linked />
      <div className="mt-auto pt-4">
        <div className="border-t border-slate-100 pt-3">
          <Prices model={model} />
        </div>
        <div className="mt-3 flex items-center justify-between gap-3 text-xs">
          <Context model={model} />
          <span className="inline-flex items-center gap-1 font-medium whitespace-nowrap text-indigo-600 group-hover:text-indigo-500">
            {href ? 'Подробнее' : 'В Playground'}
            <ArrowRightIcon size={13} className="transition-transform group-hover:translate-x-0.5" />
          </span>
        </div>
      </div>
    </Link>
  )
}
