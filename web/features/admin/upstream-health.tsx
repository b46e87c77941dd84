// The admin's view of the upstreams (issue 35: several of several kinds, in Russia or abroad) and
// their circuit breakers: what each is, where it keeps data, is it taking requests, how many of the
// last minute's failed, and the latest errors (this instance's; every instance keeps its own).
import type { ReactNode } from 'react'
import { formatDateTime, formatInteger, formatTimeSeconds, pluralRu } from '../../../src/content/format'
import { formatDuration } from '../../../src/content/status'
import { Card } from '../../components/card'
import { AlertCircleIcon } from '../../components/icons'
import { type AdminUpstreams, useAdminUpstreams } from './admin-api'
import { Badge, ServerIcon } from './admin-ui'

type Upstream = AdminUpstreams['upstreams'][number]

const STATE: Record<Upstream['state'], { label: string; tone: 'emerald' | 'amber' | 'red' }> = {
  closed: { label: 'Принимает запросы', tone: 'emerald' },
  'half-open': { label: 'Пробные запросы', tone: 'amber' },
  open: { label: 'Запросы приостановлены', tone: 'red' },
}

/** What protocol the gateway speaks to it (UPSTREAMS_FILE `kind`). */
const KIND_LABELS: Record<Upstream['kind'], string> = {
  openrouter: 'OpenRouter-совместимый роутер',
  openai: 'OpenAI-совместимый',
  gigachat: 'GigaChat',
  yandex: 'YandexGPT',
}

const RESIDENCY_LABELS: Record<Upstream['residency'], string> = { ru: 'Россия', foreign: 'За рубежом' }

/** The latest errors shown per router (the server keeps 20). */
const SHOWN_ERRORS = 5

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="flex min-w-0 items-baseline justify-between gap-3 sm:block">
      <dt className="shrink-0 text-sm text-slate-500 sm:text-xs">{label}</dt>
      <dd className="min-w-0 text-right text-sm break-words text-slate-900 sm:mt-0.5 sm:text-left" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

/** How many models it serves; null is the first router (its list is the catalogue) or a list not read yet. */
function modelsText(u: Upstream, catalogueRouter: boolean): string {
  if (u.models !== null) return formatInteger(u.models)
  return catalogueRouter ? 'весь каталог' : 'список ещё не прочитан'
}

function UpstreamRow({ u, catalogueRouter }: { u: Upstream; catalogueRouter: boolean }) {
  const state = STATE[u.state]
  return (
    <li className="py-4 first:pt-0 last:pb-0" data-testid={`breaker-${u.name}`} data-state={u.state} data-kind={u.kind} data-residency={u.residency}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <p className="min-w-0">
          <span className="block text-[15px] font-medium break-words text-slate-900">{u.label}</span>
          <span className="block text-xs break-all text-slate-500">
            <code className="font-mono">{u.name}</code> · {u.host}
          </span>
        </p>
        <Badge tone={state.tone}>{state.label}</Badge>
      </div>
      {/* phones: label left, value right; wider: a column each */}
      <dl className="mt-3 space-y-1.5 sm:grid sm:grid-cols-[repeat(auto-fit,minmax(11rem,1fr))] sm:gap-x-4 sm:gap-y-2 sm:space-y-0">
        <Fact label="Протокол" testId="upstream-kind">
          {KIND_LABELS[u.kind]}
        </Fact>
        <Fact label="Хранение данных" testId="upstream-residency">
          <span className={u.residency === 'ru' ? 'font-medium text-emerald-700' : undefined}>{RESIDENCY_LABELS[u.residency]}</span>
        </Fact>
        <Fact label="Моделей" testId="upstream-models">
          {modelsText(u, catalogueRouter)}
        </Fact>
        {u.kind === 'gigachat' && (
          <Fact label="Токен доступа" testId="upstream-token">
            {u.tokenExpiresAt ? `Токен действует до ${formatDateTime(u.tokenExpiresAt)}` : 'Токен ещё не получен'}
          </Fact>
        )}
      </dl>
      <p className="mt-3 text-sm text-slate-600">
        {u.windowSec === 60 ? 'За последнюю минуту' : `За последние ${formatInteger(u.windowSec)} с`}: ошибок {formatInteger(u.failures)} из {formatInteger(u.requests)}
        {u.state === 'open' && ` · снова попробуем через ${formatDuration(u.retryAfterSec)}`}
      </p>
      {u.recentErrors.length > 0 ? (
        <ul className="mt-2 space-y-1 text-sm">
          {u.recentErrors.slice(0, SHOWN_ERRORS).map((e) => (
            <li key={`${e.at}-${e.reason}`} className="flex flex-wrap gap-x-3 text-slate-700">
              <span className="text-slate-500 tabular-nums">{formatTimeSeconds(e.at)}</span>
              <span>{e.reason}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-1 text-sm text-slate-500">Ошибок не было.</p>
      )}
    </li>
  )
}

export function UpstreamHealthCard() {
  const { data, error } = useAdminUpstreams()
  return (
    <Card className="p-4 sm:p-6" data-testid="breaker-card">
      <div className="flex flex-wrap items-start justify-between gap-x-3 gap-y-1">
        <div className="min-w-0">
          <h2 className="flex items-center gap-2 text-base font-semibold text-slate-900">
            <ServerIcon size={18} className="text-slate-400" />
            Доступность провайдеров
          </h2>
          {data && (
            <p className="mt-1 text-sm text-slate-500" data-testid="upstreams-summary">
              {formatInteger(data.upstreams.length)} {pluralRu(data.upstreams.length, ['провайдер', 'провайдера', 'провайдеров'])}, в России —{' '}
              {formatInteger(data.upstreams.filter((u) => u.residency === 'ru').length)}
            </p>
          )}
        </div>
        <a href="/status" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
          Страница состояния
        </a>
      </div>
      {error && !data ? (
        <p role="alert" className="mt-4 flex items-center gap-2 text-sm text-red-700">
          <AlertCircleIcon size={16} /> Не удалось получить состояние провайдеров.
        </p>
      ) : data ? (
        <>
          <ul className="mt-4 divide-y divide-slate-100">
            {data.upstreams.map((u) => (
              <UpstreamRow key={u.name} u={u} catalogueRouter={u === data.upstreams.find((x) => x.kind === 'openrouter')} />
            ))}
          </ul>
          <p className="mt-4 text-xs text-slate-500">Состояние этого экземпляра сервиса ({data.instanceId.slice(0, 8)}). Время по Москве.</p>
        </>
      ) : (
        <p className="mt-4 text-sm text-slate-500">Загрузка…</p>
      )}
    </Card>
  )
}
