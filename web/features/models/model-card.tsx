import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { ArrowRightIcon } from '../../components/icons'
import { formatInteger } from '../../lib/format'
import {
  FREE_TEXT,
  VARIABLE_PRICE_TEXT,
  contextText,
  isFreeModel,
  parsePrice,
  priceText,
  providerLabel,
  providerOf,
  type Model,
  type PriceValue,
} from './catalog'

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
            <span className="text-xs whitespace-nowrap text-slate-400">{unit}</span>
          </>
        ) : (
          <span className={price.kind === 'free' ? 'font-medium text-emerald-600' : 'text-slate-600'}>{priceText(price)}</span>
        )}
      </dd>
    </div>
  )
}

/** 'За изображение … 0,1448 ₽': the unit is the label, so the row never wraps on a narrow card. */
function UnitPriceRow({ unit, price }: { unit: string; price: PriceValue }) {
  return (
    <div className="flex items-baseline justify-between gap-3">
      <dt className="shrink-0 text-slate-500 first-letter:uppercase">{unit}</dt>
      <dd className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{priceText(price)}</dd>
    </div>
  )
}

function Badge({ children }: { children: ReactNode }) {
  return (
    <span className="inline-flex h-6 shrink-0 items-center rounded-full bg-indigo-50 px-2.5 text-xs font-medium text-indigo-700 ring-1 ring-indigo-100 ring-inset">
      {children}
    </span>
  )
}

function Prices({ model }: { model: Model }) {
  const { pricing } = model
  if (isFreeModel(pricing)) {
    return (
      <dl className="text-sm">
        <div className="flex items-baseline justify-between gap-3">
          <dt className="text-slate-500">Цена</dt>
          <dd className="font-medium text-emerald-600">{FREE_TEXT}</dd>
        </div>
      </dl>
    )
  }
  const prompt = parsePrice(pricing.prompt)
  const completion = parsePrice(pricing.completion)
  const image = parsePrice(pricing.image)
  const request = parsePrice(pricing.request)
  const bothVariable = prompt.kind === 'variable' && completion.kind === 'variable'
  return (
    <dl className="space-y-1.5 text-sm">
      {bothVariable ? (
        <div className="flex items-baseline justify-between gap-3">
          <dt className="text-slate-500">Цена</dt>
          <dd className="text-right text-slate-600">{VARIABLE_PRICE_TEXT}</dd>
        </div>
      ) : (
        <>
          <PriceRow label="Ввод" price={prompt} unit="за 1K токенов" scale={1000} />
          <PriceRow label="Вывод" price={completion} unit="за 1K токенов" scale={1000} />
        </>
      )}
      {/* extras only when they add a number: 'variable' is already said by the rows above */}
      {image.kind === 'amount' && <UnitPriceRow unit="за изображение" price={image} />}
      {request.kind === 'amount' && <UnitPriceRow unit="за запрос" price={request} />}
    </dl>
  )
}

/** One catalogue entry; the whole card opens the model in the Playground. */
export function ModelCard({ model }: { model: Model }) {
  const provider = providerLabel(providerOf(model.id))
  const context = contextText(model.context_length)
  return (
    <Link
      href={playgroundHref(model.id)}
      data-testid="model-card"
      data-model-id={model.id}
      className="group flex h-full flex-col rounded-xl border border-slate-200 bg-white p-4 shadow-xs transition-[border-color,box-shadow] hover:border-indigo-300 hover:shadow-md hover:shadow-indigo-900/5 sm:p-5"
    >
      <div className="flex min-h-6 items-center justify-between gap-2">
        <span className="truncate text-xs font-medium tracking-wide text-slate-500 uppercase">{provider}</span>
        {model.capabilities?.image && <Badge>Изображения</Badge>}
      </div>
      <h2 className="mt-2 text-[15px] leading-6 font-semibold break-words text-slate-900 group-hover:text-indigo-700">
        {model.name || model.id}
      </h2>
      <p className="mt-0.5 font-mono text-xs break-all text-slate-500">{model.id}</p>
      {model.description ? (
        <p className="mt-3 line-clamp-3 text-sm leading-5 text-slate-600" title={model.description}>
          {model.description}
        </p>
      ) : (
        <p className="mt-3 text-sm leading-5 text-slate-400">Описание не указано.</p>
      )}
      <div className="mt-auto pt-4">
        <div className="border-t border-slate-100 pt-3">
          <Prices model={model} />
        </div>
        <div className="mt-3 flex items-center justify-between gap-3 text-xs">
          {context ? (
            <span className="text-slate-500" title={`${formatInteger(model.context_length)} токенов`}>
              {context}
            </span>
          ) : (
            <span />
          )}
          <span className="inline-flex items-center gap-1 font-medium whitespace-nowrap text-indigo-600 group-hover:text-indigo-500">
            В Playground
            <ArrowRightIcon size={13} className="transition-transform group-hover:translate-x-0.5" />
          </span>
        </div>
      </div>
    </Link>
  )
}
