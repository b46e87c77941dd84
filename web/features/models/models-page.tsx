import { type ReactNode, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react'
import { useSearch } from 'wouter'
import { formatInteger, pluralRu } from '../../../src/content/format'
import {
  countProviders,
  MODEL_TYPES,
  type Model,
  type ModelType,
  matchesSearch,
  modelType,
  type ProviderCount,
  parseModelType,
  providerOf,
} from '../../../src/content/models/catalog'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { AlertCircleIcon, CubeIcon, SearchIcon } from '../../components/icons'
import { PageHeading } from '../../components/page-heading'
import { useDocumentTitle } from '../../lib/use-document-title'
import { CompareDialog, CompareToggle, CompareTray, MAX_COMPARE, useCompareSelection } from './compare'
import { FilterChip, ModelSearchField, parseRuFilter, ResidencyToggle } from './filter-bar'
import { keepsDataInRussia, ModelCard } from './model-card'
import { useModels } from './use-models'

export const MODELS_LOAD_ERROR = 'Не удалось загрузить список моделей. Попробуйте обновить страницу.'
/** Chips shown before 'Ещё N'; the catalogue has dozens of providers, most with a model or two. */
const CHIPS_COLLAPSED = 11

/**
 * The query string is the source of truth on arrival (site search links to
 * /app/models?search=term) and is kept in step with replaceState, so reload and Back keep filters.
 */
function useUrlFilters() {
  const search = useSearch()
  const params = new URLSearchParams(search)
  const urlQuery = params.get('search') ?? ''
  const urlProvider = params.get('provider') ?? ''
  const urlType = parseModelType(params.get('type'))
  const urlRu = parseRuFilter(params.get('ru'))
  const [query, setQuery] = useState(urlQuery)
  const [provider, setProvider] = useState(urlProvider)
  const [type, setType] = useState<ModelType | ''>(urlType)
  const [ru, setRu] = useState(urlRu)

  // What this hook last wrote to the URL: a different value there came from a link (another
  // ?search=… while the page is open) and wins over the local state.
  const written = useRef({ query: urlQuery, provider: urlProvider, type: urlType, ru: urlRu })
  useEffect(() => {
    if (urlQuery === written.current.query) return
    written.current.query = urlQuery
    setQuery(urlQuery)
  }, [urlQuery])
  useEffect(() => {
    if (urlProvider === written.current.provider) return
    written.current.provider = urlProvider
    setProvider(urlProvider)
  }, [urlProvider])
  useEffect(() => {
    if (urlType === written.current.type) return
    written.current.type = urlType
    setType(urlType)
  }, [urlType])
  useEffect(() => {
    if (urlRu === written.current.ru) return
    written.current.ru = urlRu
    setRu(urlRu)
  }, [urlRu])

  useEffect(() => {
    written.current = { query, provider, type, ru }
    const url = new URL(window.location.href)
    if (query) url.searchParams.set('search', query)
    else url.searchParams.delete('search')
    if (provider) url.searchParams.set('provider', provider)
    else url.searchParams.delete('provider')
    if (type) url.searchParams.set('type', type)
    else url.searchParams.delete('type')
    if (ru) url.searchParams.set('ru', '1')
    else url.searchParams.delete('ru')
    const next = `${url.pathname}${url.search}${url.hash}`
    const current = `${window.location.pathname}${window.location.search}${window.location.hash}`
    if (next !== current) window.history.replaceState(window.history.state, '', next)
  }, [query, provider, type, ru])

  return { query, setQuery, provider, setProvider, type, setType, ru, setRu }
}

/**
 * A row of chips with its name on the left from sm up (the groups carry their own accessible
 * names); with a single row (`labelled` false) the chips need no caption.
 */
function FilterRow({ label, labelled = true, children }: { label: string; labelled?: boolean; children: ReactNode }) {
  if (!labelled) return <>{children}</>
  return (
    <div className="sm:flex sm:items-start sm:gap-3">
      <span aria-hidden="true" className="hidden w-20 shrink-0 pt-2 text-xs font-medium tracking-wide text-slate-500 uppercase sm:block">
        {label}
      </span>
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  )
}

/** 'Все типы', then a chip per type the catalogue has (a catalogue of one type shows none). */
function TypeChips({ counts, total, selected, onSelect }: { counts: Map<ModelType, number>; total: number; selected: ModelType | ''; onSelect: (type: ModelType | '') => void }) {
  return (
    <div role="group" aria-label="Тип модели" className="flex flex-wrap gap-2">
      <FilterChip disableEmpty label="Все типы" count={total} pressed={selected === ''} onClick={() => onSelect('')} />
      {MODEL_TYPES.map(({ type, label }) => (
        <FilterChip disableEmpty key={type} label={label} count={counts.get(type) ?? 0} pressed={selected === type} onClick={() => onSelect(selected === type ? '' : type)} />
      ))}
    </div>
  )
}

function ProviderChips({
  providers,
  counts,
  total,
  selected,
  onSelect,
}: {
  providers: ProviderCount[]
  counts: Map<string, number>
  total: number
  selected: string
  onSelect: (provider: string) => void
}) {
  const [expanded, setExpanded] = useState(false)
  const collapsible = providers.length > CHIPS_COLLAPSED + 1
  let shown = providers
  if (collapsible && !expanded) {
    shown = providers.slice(0, CHIPS_COLLAPSED)
    const chosen = providers.find((p) => p.provider === selected)
    if (chosen && !shown.includes(chosen)) shown = [...shown, chosen]
  }
  const hidden = providers.length - shown.length
  return (
    <div role="group" aria-label="Провайдеры" className="flex flex-wrap gap-2">
      <FilterChip disableEmpty label="Все" count={total} pressed={selected === ''} onClick={() => onSelect('')} />
      {shown.map((p) => (
        <FilterChip
          disableEmpty
          key={p.provider}
          label={p.label}
          count={counts.get(p.provider) ?? 0}
          pressed={selected === p.provider}
          onClick={() => onSelect(selected === p.provider ? '' : p.provider)}
        />
      ))}
      {collapsible && (
        <button
          type="button"
          onClick={() => setExpanded((v) => !v)}
          aria-expanded={expanded}
          className="inline-flex h-8 items-center rounded-full px-3 text-sm font-medium text-indigo-600 hover:bg-indigo-50 hover:text-indigo-500"
        >
          {expanded ? 'Свернуть' : `Ещё ${hidden}`}
        </button>
      )}
    </div>
  )
}

function SkeletonGrid() {
  return (
    <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3" aria-hidden="true">
      {Array.from({ length: 6 }, (_, i) => (
        <Card key={i} className="p-5">
          <div className="h-3 w-20 animate-pulse rounded bg-slate-100" />
          <div className="mt-4 h-4 w-44 animate-pulse rounded bg-slate-100" />
          <div className="mt-2 h-3 w-32 animate-pulse rounded bg-slate-100" />
          <div className="mt-5 space-y-2">
            <div className="h-3 w-full animate-pulse rounded bg-slate-100" />
            <div className="h-3 w-11/12 animate-pulse rounded bg-slate-100" />
            <div className="h-3 w-2/3 animate-pulse rounded bg-slate-100" />
          </div>
          <div className="mt-6 space-y-2 border-t border-slate-100 pt-3">
            <div className="h-3 w-full animate-pulse rounded bg-slate-100" />
            <div className="h-3 w-full animate-pulse rounded bg-slate-100" />
          </div>
        </Card>
      ))}
    </div>
  )
}

function Catalogue({ models }: { models: Model[] }) {
  const { query, setQuery, provider, setProvider, type, setType, ru, setRu } = useUrlFilters()
  const compare = useCompareSelection(models)
  const compared = compare.selected.map((id) => models.find((m) => m.id === id)!)
  const deferredQuery = useDeferredValue(query)

  const providers = useMemo(() => countProviders(models), [models])
  const typesPresent = useMemo(() => new Set(models.map(modelType)), [models])
  const hasRu = useMemo(() => models.some(keepsDataInRussia), [models])
  const matched = useMemo(() => models.filter((m) => matchesSearch(m, deferredQuery)), [models, deferredQuery])
  // «Только с хранением данных в РФ» narrows what the chips count, as the search does.
  const searched = useMemo(() => (ru ? matched.filter(keepsDataInRussia) : matched), [matched, ru])
  // An unknown ?provider= (a stale link) filters nothing rather than hiding the catalogue; so does
  // a ?type= the catalogue has no models of.
  const activeProvider = providers.some((p) => p.provider === provider) ? provider : ''
  const activeType = type && typesPresent.has(type) ? type : ''
  // Each chip row counts what the search and the other row leave.
  const ofType = useMemo(() => (activeType ? searched.filter((m) => modelType(m) === activeType) : searched), [searched, activeType])
  const ofProvider = useMemo(() => (activeProvider ? searched.filter((m) => providerOf(m.id) === activeProvider) : searched), [searched, activeProvider])
  const providerCounts = useMemo(() => {
    const counts = new Map<string, number>()
    for (const m of ofType) counts.set(providerOf(m.id), (counts.get(providerOf(m.id)) ?? 0) + 1)
    return counts
  }, [ofType])
  const typeCounts = useMemo(() => {
    const counts = new Map<ModelType, number>()
    for (const m of ofProvider) counts.set(modelType(m), (counts.get(modelType(m)) ?? 0) + 1)
    return counts
  }, [ofProvider])
  const shown = activeProvider ? ofType.filter((m) => providerOf(m.id) === activeProvider) : ofType
  // What the switch would leave of the search, type and provider chosen.
  const ruCount = useMemo(
    () => matched.filter((m) => keepsDataInRussia(m) && (!activeType || modelType(m) === activeType) && (!activeProvider || providerOf(m.id) === activeProvider)).length,
    [matched, activeType, activeProvider],
  )
  const filtering = query.trim() !== '' || activeProvider !== '' || activeType !== '' || ru

  const reset = () => {
    setQuery('')
    setProvider('')
    setType('')
    setRu(false)
  }
  const labelled = typesPresent.size > 1 || providers.length > 1

  return (
    <>
      <div className="space-y-4">
        <ModelSearchField query={query} onChange={setQuery} />
        {typesPresent.size > 1 && (
          <FilterRow label="Тип">
            <TypeChips counts={typeCounts} total={ofProvider.length} selected={activeType} onSelect={setType} />
          </FilterRow>
        )}
        {providers.length > 1 && (
          <FilterRow label="Провайдер" labelled={typesPresent.size > 1}>
            <ProviderChips providers={providers} counts={providerCounts} total={ofType.length} selected={activeProvider} onSelect={setProvider} />
          </FilterRow>
        )}
        {(hasRu || ru) && (
          <FilterRow label="Данные" labelled={labelled}>
            <ResidencyToggle checked={ru} count={ruCount} onChange={setRu} />
          </FilterRow>
        )}
      </div>

      <div className="mt-5 mb-3 flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-500" aria-live="polite" data-testid="models-count">
          Найдено моделей: <span className="font-medium text-slate-900 tabular-nums">{formatInteger(shown.length)}</span>
        </p>
        {filtering && shown.length > 0 && (
          <button type="button" onClick={reset} className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
            Сбросить фильтры
          </button>
        )}
      </div>

      {shown.length === 0 ? (
        <Card className="flex flex-col items-center px-6 py-14 text-center">
          <div className="mb-4 flex h-11 w-11 items-center justify-center rounded-full bg-slate-100 text-slate-500">
            <SearchIcon />
          </div>
          <p className="text-[15px] font-medium text-slate-800">Ничего не найдено</p>
          <p className="mt-1 max-w-sm text-sm text-slate-500">
            {ru ? 'Попробуйте изменить запрос или снять фильтр по хранению данных в РФ.' : 'Попробуйте изменить запрос или выбрать другой тип или провайдера.'}
          </p>
          <Button variant="secondary" className="mt-5" onClick={reset}>
            Сбросить поиск
          </Button>
        </Card>
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
          {shown.map((model) => (
            <li key={model.id} className="flex min-w-0 flex-col">
              <div className="min-h-0 flex-1">
                <ModelCard model={model} />
              </div>
              <CompareToggle model={model} checked={compare.selected.includes(model.id)} full={compare.selected.length >= MAX_COMPARE} onToggle={() => compare.toggle(model.id)} />
            </li>
          ))}
        </ul>
      )}
      <CompareTray models={compared} onOpen={() => compare.setOpen(true)} onRemove={compare.toggle} onClear={compare.clear} />
      <CompareDialog models={compared} open={compare.open} onClose={() => compare.setOpen(false)} signedIn />
    </>
  )
}

export function ModelsPage() {
  useDocumentTitle('Модели')
  const { data, error, isLoading, isValidating, mutate } = useModels()
  const models = Array.isArray(data?.data) ? data.data : null
  const providerTotal = useMemo(() => (models ? countProviders(models).length : 0), [models])

  const description =
    models && models.length > 0
      ? `${formatInteger(models.length)} ${pluralRu(models.length, ['модель', 'модели', 'моделей'])} от ${formatInteger(providerTotal)} ${pluralRu(providerTotal, ['провайдера', 'провайдеров', 'провайдеров'])}. Цены в рублях за 1M токенов; нажмите на карточку, чтобы открыть модель в Playground, или отметьте 2–4 модели, чтобы сравнить их.`
      : 'Языковые модели, модели для изображений и эмбеддингов с ценами в рублях.'

  let body: ReactNode
  if (models && models.length > 0) {
    body = <Catalogue models={models} />
  } else if (error && !models) {
    body = (
      <Card className="flex flex-col items-center px-6 py-14 text-center">
        <div className="mb-4 flex h-11 w-11 items-center justify-center rounded-full bg-red-50 text-red-600">
          <AlertCircleIcon size={20} />
        </div>
        <p role="alert" className="max-w-md text-[15px] font-medium text-slate-800">
          {MODELS_LOAD_ERROR}
        </p>
        <Button variant="secondary" className="mt-5" loading={isValidating} onClick={() => void mutate()}>
          Повторить
        </Button>
      </Card>
    )
  } else if (isLoading || !models) {
    body = (
      <div aria-busy="true">
        <span className="sr-only" role="status">
          Загрузка моделей…
        </span>
        <div className="mb-4 h-11 w-full animate-pulse rounded-lg bg-slate-100" />
        <SkeletonGrid />
      </div>
    )
  } else {
    body = (
      <Card className="flex flex-col items-center px-6 py-14 text-center">
        <div className="mb-4 flex h-11 w-11 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
          <CubeIcon size={20} />
        </div>
        <p className="text-[15px] font-medium text-slate-800">Каталог пока пуст</p>
        <p className="mt-1 max-w-sm text-sm text-slate-500">Список моделей обновляется автоматически — загляните чуть позже.</p>
      </Card>
    )
  }

  return (
    <>
      <PageHeading title="Модели" description={description} />
      {body}
    </>
  )
}
