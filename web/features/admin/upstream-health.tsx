// The admin's view of the circuit breakers: is each router taking requests, how many of the last
// minute's failed, and the latest errors (this instance's; every instance keeps its own).
import { formatInteger, formatTimeSeconds } from '../../../src/content/format'
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

/** The latest errors shown per router (the server keeps 20). */
const SHOWN_ERRORS = 5

function UpstreamRow({ u }: { u: Upstream }) {
  const state = STATE[u.state]
  return (
    <li className="py-4 first:pt-0 last:pb-0" data-testid={`breaker-${u.name}`} data-state={u.state}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="min-w-0">
          <span className="block text-[15px] font-medium text-slate-900">{u.label}</span>
          <span className="block text-xs break-all text-slate-500">{u.host}</span>
        </p>
        <Badge tone={state.tone}>{state.label}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">
        {u.windowSec === 60 ? 'За последнюю минуту' : `За последние ${formatInteger(u.windowSec)} с`}: ошибок {formatInteger(u.failures)} из {formatInteger(u.requests)}
        {u.state === 'open' && ` · снова попробуем через ${formatDuration(u.retryAfterSec)}`}
        {u.models !== null && ` · моделей в каталоге: ${formatInteger(u.models)}`}
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
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="flex items-center gap-2 text-base font-semibold text-slate-900">
          <ServerIcon size={18} className="text-slate-400" />
          Доступность провайдеров
        </h2>
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
              <UpstreamRow key={u.name} u={u} />
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
