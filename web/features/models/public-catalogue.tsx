// The public catalogue (no sign-in): /models — every model with ruble prices per 1M tokens and per
// image, filters and sorting — and /models/{id}, one model with its code to copy. One lazy chunk;
// the server sends the same text and metadata to crawlers (src/spa/pages.ts). The cards and the
// price rule are the signed-in catalogue's (model-card.tsx, src/content/models/catalog.ts).
import { type ReactNode, useDeferredValue, useEffect, useMemo, useState } from 'react'
import { Link, useLocation, useSearch } from 'wouter'
import { formatInteger } from '../../../src/content/format'
import {
  isEmbeddingModel,
  MODEL_SORTS,
  MODEL_TYPE_TEXT,
  type Model,
  type ModelSort,
  matchesPublicFilter,
  matchesSearch,
  modelType,
  PUBLIC_FILTERS,
  type PublicFilter,
  parseModelSort,
  parsePublicFilter,
  providerLabel,
  providerOf,
  publicModelHref,
  sortModels,
} from '../../../src/content/models/catalog'
import { modelMeta, modelsMeta, NOT_FOUND_MODEL_META } from '../../../src/content/models/meta'
import { modelSnippets } from '../../../src/content/models/snippets'
import { ButtonLink } from '../../components/button'
import { ArrowLeftIcon, ChatIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { CodeBlock } from '../../components/rich-document'
import { Select } from '../../components/select'
import { PageSpinner } from '../../components/spinner'
import { cn } from '../../lib/cn'
import { siteOrigin, usePageMeta } from '../../lib/head'
import { useSession } from '../../stores/session'
import { CompareDialog, CompareToggle, CompareTray, MAX_COMPARE, useCompareSelection } from './compare'
import { FilterChip, ModelSearchField, parseRuFilter, ResidencyToggle } from './filter-bar'
import { keepsDataInRussia, ModelCard, Prices, playgroundHref, RuDataBadge, ruDataNote } from './model-card'
import { useModels } from './use-models'

const LOAD_ERROR = 'Не удалось загрузить каталог моделей. Попробуйте обновить страницу.'
const wrapClass = 'mx-auto w-full max-w-6xl px-4 py-10 sm:px-6 sm:py-14'

/** ?search=, ?filter=, ?sort= and ?ru=1 kept in the address (replaceState), so a link or reload keeps them. */
function usePublicFilters() {
  const params = new URLSearchParams(useSearch())
  const [query, setQuery] = useState(params.get('search') ?? '')
  const [filter, setFilter] = useState<PublicFilter>(parsePublicFilter(params.get('filter')))
  const [sort, setSort] = useState<ModelSort>(parseModelSort(params.get('sort')))
  const [ru, setRu] = useState(parseRuFilter(params.get('ru')))
  useEffect(() => {
    const url = new URL(window.location.href)
    const set = (key: string, value: string) => (value ? url.searchParams.set(key, value) : url.searchParams.delete(key))
    set('search', query)
    set('filter', filter)
    set('sort', sort === 'newest' ? '' : sort)
    set('ru', ru ? '1' : '')
    const next = `${url.pathname}${url.search}${url.hash}`
    if (next !== `${window.location.pathname}${window.location.search}${window.location.hash}`) window.history.replaceState(window.history.state, '', next)
  }, [query, filter, sort, ru])
  return { query, setQuery, filter, setFilter, sort, setSort, ru, setRu }
}

function PublicCatalogue({ models }: { models: Model[] }) {
  const { query, setQuery, filter, setFilter, sort, setSort, ru, setRu } = usePublicFilters()
  const compare = useCompareSelection(models)
  const signedIn = useSession((s) => s.isAuthenticated)
  const compared = compare.selected.map((id) => models.find((m) => m.id === id)!)
  const deferred = useDeferredValue(query)
  const hasRu = useMemo(() => models.some(keepsDataInRussia), [models])
  const matched = useMemo(() => models.filter((m) => matchesSearch(m, deferred)), [models, deferred])
  const searched = useMemo(() => (ru ? matched.filter(keepsDataInRussia) : matched), [matched, ru])
  const ruCount = useMemo(() => matched.filter((m) => keepsDataInRussia(m) && matchesPublicFilter(m, filter)).length, [matched, filter])
  const shown = useMemo(
    () =>
      sortModels(
        searched.filter((m) => matchesPublicFilter(m, filter)),
        sort,
      ),
    [searched, filter, sort],
  )
  return (
    <>
      <div className="space-y-4">
        <div className="flex flex-col gap-3 sm:flex-row">
          <ModelSearchField query={query} onChange={setQuery} className="min-w-0 flex-1" />
          <label className="flex shrink-0 items-center gap-2 text-sm text-slate-600">
            <span className="shrink-0">Сортировка</span>
            <Select value={sort} onChange={(e) => setSort(parseModelSort(e.target.value))} aria-label="Сортировка" className="h-11" wrapperClassName="w-full sm:w-52">
              {MODEL_SORTS.map((s) => (
                <option key={s.sort} value={s.sort}>
                  {s.label}
                </option>
              ))}
            </Select>
          </label>
        </div>
        <div role="group" aria-label="Фильтр" className="flex flex-wrap gap-2">
          <FilterChip label="Все" count={searched.length} pressed={filter === ''} onClick={() => setFilter('')} />
          {PUBLIC_FILTERS.map((f) => (
            <FilterChip
              key={f.filter}
              label={f.label}
              count={searched.filter((m) => matchesPublicFilter(m, f.filter)).length}
              pressed={filter === f.filter}
              onClick={() => setFilter(filter === f.filter ? '' : f.filter)}
            />
          ))}
        </div>
        {(hasRu || ru) && <ResidencyToggle checked={ru} count={ruCount} onChange={setRu} />}
      </div>
      <p className="mt-5 mb-3 text-sm text-slate-500" aria-live="polite" data-testid="models-count">
        Найдено моделей: <span className="font-medium text-slate-900 tabular-nums">{formatInteger(shown.length)}</span>
      </p>
      {shown.length === 0 ? (
        <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center text-[15px] text-slate-600">
          Ничего не найдено. Измените запрос или фильтр.
        </div>
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
          {shown.map((model) => (
            <li key={model.id} className="flex min-w-0 flex-col">
              <div className="min-h-0 flex-1">
                <ModelCard model={model} href={publicModelHref(model.id)} />
              </div>
              <CompareToggle model={model} checked={compare.selected.includes(model.id)} full={compare.selected.length >= MAX_COMPARE} onToggle={() => compare.toggle(model.id)} />
            </li>
          ))}
        </ul>
      )}
      <CompareTray models={compared} onOpen={() => compare.setOpen(true)} onRemove={compare.toggle} onClear={compare.clear} />
      <CompareDialog models={compared} open={compare.open} onClose={() => compare.setOpen(false)} signedIn={signedIn} />
    </>
  )
}

/** /models */
export function PublicModelsPage() {
  const { data, error, isLoading, isValidating, mutate } = useModels()
  const models = Array.isArray(data?.data) ? data.data : null
  usePageMeta(models ? modelsMeta(models, siteOrigin) : null)
  return (
    <div className={wrapClass}>
      <div className="max-w-3xl">
        <p className="text-sm font-medium text-indigo-700">Каталог</p>
        <h1 className="mt-2 text-2xl leading-tight font-semibold tracking-tight text-slate-900 min-[400px]:text-[28px] sm:text-4xl">AI-модели с ценами в рублях</h1>
        <p className="mt-3 text-[17px] leading-7 text-slate-600">
          {models ? `${formatInteger(models.length)} моделей` : 'Модели'} через один OpenAI-совместимый API. Цены — за 1M токенов и за входное или сгенерированное изображение,
          оплата российской картой.
        </p>
      </div>
      <div className="mt-8">
        {models && models.length > 0 ? (
          <PublicCatalogue models={models} />
        ) : error && !models ? (
          <LoadError message={LOAD_ERROR} retrying={isValidating} onRetry={() => void mutate()} />
        ) : isLoading || !models ? (
          <PageSpinner label="Загрузка моделей…" />
        ) : (
          <p className="text-[15px] text-slate-600">Каталог обновляется — загляните чуть позже.</p>
        )}
      </div>
    </div>
  )
}

const modelKind = (model: Model): string => MODEL_TYPE_TEXT[modelType(model)]

/** Where the model's providers keep data, in a word or three. */
const residencyText = (model: Model): string => (keepsDataInRussia(model) ? (model.data_residency.includes('foreign') ? 'в России или за рубежом' : 'в России') : 'за рубежом')

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-3 py-2">
      <dt className="shrink-0 text-slate-500">{label}</dt>
      <dd className="min-w-0 text-right font-medium break-words text-slate-900">{children}</dd>
    </div>
  )
}

function ModelDetails({ model }: { model: Model }) {
  usePageMeta(modelMeta(model, siteOrigin))
  const snippets = modelSnippets(model, siteOrigin)
  const embeddings = isEmbeddingModel(model)
  const kind = modelType(model)
  return (
    <article data-testid="model-page" data-model-id={model.id}>
      <p className="text-sm font-medium text-indigo-700">{providerLabel(providerOf(model.id))}</p>
      <h1 className="mt-2 text-2xl leading-tight font-semibold tracking-tight break-words text-slate-900 min-[400px]:text-[28px] sm:text-4xl">{model.name || model.id}</h1>
      <p className="mt-2 font-mono text-sm break-all text-slate-500">{model.id}</p>
      {keepsDataInRussia(model) && (
        <div className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-1.5">
          <RuDataBadge model={model} />
          <p className="text-sm text-slate-600" data-testid="ru-data-note">
            {ruDataNote(model)}
          </p>
        </div>
      )}
      <div className="mt-6 grid gap-8 lg:grid-cols-[minmax(0,1fr)_340px] lg:gap-6">
        <div className="min-w-0 lg:order-first">
          <p className="max-w-3xl text-[16px] leading-7 whitespace-pre-line text-slate-700">{model.description || 'Описание не указано.'}</p>
          <h2 className="mt-10 text-xl font-semibold text-slate-900">Пример запроса</h2>
          <p className="mt-1.5 text-[15px] text-slate-600">
            Ключ создаётся в личном кабинете; подробнее — в{' '}
            <Link href="/docs" className="font-medium text-indigo-700 underline underline-offset-2">
              документации
            </Link>
            .
          </p>
          {snippets.map((s) => (
            <CodeBlock key={s.id} code={s.code} lang={s.lang} title={s.title} />
          ))}
        </div>
        {/* on a phone the prices come first, before the code */}
        <aside className="order-first min-w-0 lg:order-last">
          <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-xs">
            <h2 className="text-base font-semibold text-slate-900">Цены в рублях</h2>
            <div className="mt-3" data-testid="model-prices">
              <Prices model={model} />
            </div>
            <dl className="mt-4 divide-y divide-slate-100 border-t border-slate-100 text-sm">
              <Fact label="Тип">{modelKind(model)}</Fact>
              {model.context_length > 0 && <Fact label="Контекст">{formatInteger(model.context_length)} токенов</Fact>}
              {(kind === 'text' || kind === 'image') && <Fact label="Понимает изображения">{model.capabilities?.vision ? 'да' : 'нет'}</Fact>}
              {model.data_residency.length > 0 && <Fact label="Хранение данных">{residencyText(model)}</Fact>}
            </dl>
            {!embeddings && (
              <ButtonLink href={playgroundHref(model.id)} className="mt-5 w-full">
                <ChatIcon size={16} />
                Попробовать в Playground
              </ButtonLink>
            )}
            <ButtonLink href="/register" variant="secondary" className={cn('w-full', embeddings ? 'mt-5' : 'mt-3')}>
              Создать аккаунт
            </ButtonLink>
          </div>
        </aside>
      </div>
    </article>
  )
}

/** '/models/openai/gpt-4o' (or with %2F) → 'openai/gpt-4o'. */
function idFromLocation(location: string): string {
  const rest = location.replace(/^\/models\//, '').replace(/\/+$/, '')
  try {
    return decodeURIComponent(rest)
  } catch {
    return rest
  }
}

/** /models/{id} */
export function PublicModelPage() {
  const [location] = useLocation()
  const id = idFromLocation(location)
  const { data, error, isValidating, mutate } = useModels()
  const models = Array.isArray(data?.data) ? data.data : null
  const model = models?.find((m) => m.id === id)
  usePageMeta(models && !model ? NOT_FOUND_MODEL_META(location) : null)
  return (
    <div className={wrapClass}>
      <Link href="/models" className="inline-flex items-center gap-1.5 text-sm font-medium text-slate-600 hover:text-slate-900">
        <ArrowLeftIcon size={15} />
        Все модели
      </Link>
      <div className="mt-6">
        {model ? (
          <ModelDetails model={model} />
        ) : models ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
            <h1 className="text-xl font-semibold text-slate-900">Модель не найдена</h1>
            <p className="mt-1.5 text-[15px] text-slate-600">Такой модели нет в каталоге или она больше не доступна.</p>
            <ButtonLink href="/models" variant="secondary" className="mt-5">
              Смотреть каталог
            </ButtonLink>
          </div>
        ) : error ? (
          <LoadError message={LOAD_ERROR} retrying={isValidating} onRetry={() => void mutate()} />
        ) : (
          <PageSpinner label="Загрузка модели…" />
        )}
      </div>
    </div>
  )
}
