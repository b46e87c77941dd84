import useSWR from 'swr'
import {
  averageUptime,
  type ComponentState,
  formatDay,
  formatDuration,
  formatMoscow,
  formatUptime,
  STATE_LABELS,
  STATUS_HEADLINES,
  STATUS_TEXT,
  uptimeTone,
} from '../../../src/content/status'
import type { ServiceStatus } from '../../../src/wire'
import { Card } from '../../components/card'
import { AlertCircleIcon, CheckCircleIcon, InfoIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { PageSpinner } from '../../components/spinner'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'

/** The page follows the state while it is open. */
const REFRESH_MS = 30_000

const DOT: Record<ComponentState, string> = { operational: 'bg-emerald-500', degraded: 'bg-amber-500', outage: 'bg-red-500' }
const TEXT: Record<ComponentState, string> = { operational: 'text-emerald-700', degraded: 'text-amber-800', outage: 'text-red-700' }
const BANNER: Record<ComponentState, string> = {
  operational: 'border-emerald-200 bg-emerald-50 text-emerald-900',
  degraded: 'border-amber-200 bg-amber-50 text-amber-900',
  outage: 'border-red-200 bg-red-50 text-red-900',
}
const BAR = { good: 'bg-emerald-500', warn: 'bg-amber-400', bad: 'bg-red-500' } as const

function Banner({ status }: { status: ServiceStatus }) {
  const Icon = status.status === 'operational' ? CheckCircleIcon : AlertCircleIcon
  return (
    <div className={cn('flex items-start gap-3 rounded-xl border px-4 py-4 sm:px-5', BANNER[status.status])} role="status" data-testid="status-banner">
      <Icon size={22} className="mt-0.5 shrink-0" />
      <div className="min-w-0">
        <p className="text-lg font-semibold">{STATUS_HEADLINES[status.status]}</p>
        <p className="mt-0.5 text-sm opacity-80">Обновлено {formatMoscow(status.updatedAt)} МСК</p>
      </div>
    </div>
  )
}

function Components({ status }: { status: ServiceStatus }) {
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">{STATUS_TEXT.now}</h2>
      <ul className="mt-2 divide-y divide-slate-100" data-testid="status-components">
        {status.components.map((c) => (
          <li key={c.id} className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 py-3">
            <span className="min-w-0">
              <span className="block text-[15px] font-medium text-slate-900">{c.name}</span>
              {c.note && <span className="block text-xs text-slate-500">{c.note}</span>}
            </span>
            <span className={cn('inline-flex items-center gap-2 text-sm font-medium', TEXT[c.state])}>
              <span className={cn('h-2.5 w-2.5 rounded-full', DOT[c.state])} aria-hidden="true" />
              {STATE_LABELS[c.state]}
            </span>
          </li>
        ))}
      </ul>
    </Card>
  )
}

function Uptime({ days }: { days: ServiceStatus['days'] }) {
  const average = averageUptime(days)
  const bad = days.filter((d) => d.uptime < 1).length
  return (
    <Card className="p-4 sm:p-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-base font-semibold text-slate-900">{STATUS_TEXT.uptime}</h2>
        <p className="text-sm font-semibold text-slate-900 tabular-nums" data-testid="status-average">
          {formatUptime(average)}
        </p>
      </div>
      <div
        className="mt-4 flex h-10 items-stretch gap-px sm:gap-0.5"
        role="img"
        aria-label={`Доступность по дням за 90 дней: в среднем ${formatUptime(average)}, дней со сбоями: ${bad}`}
        data-testid="status-bars"
      >
        {days.map((d) => (
          <span
            key={d.date}
            title={`${formatDay(d.date)}: ${formatUptime(d.uptime)}${d.downSec ? `, сбой ${formatDuration(d.downSec)}` : ''}`}
            className={cn('min-w-0 flex-1 rounded-[2px]', BAR[uptimeTone(d.uptime)])}
          />
        ))}
      </div>
      <div className="mt-1.5 flex justify-between text-xs text-slate-500">
        <span>90 дней назад</span>
        <span>Сегодня</span>
      </div>
      <p className="mt-3 flex items-start gap-2 text-xs text-slate-500">
        <InfoIcon size={14} className="mt-px shrink-0 text-slate-400" />
        {STATUS_TEXT.uptimeNote}
      </p>
    </Card>
  )
}

function Incidents({ incidents }: { incidents: ServiceStatus['incidents'] }) {
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">{STATUS_TEXT.incidents}</h2>
      {incidents.length === 0 ? (
        <p className="mt-3 text-[15px] text-slate-600">{STATUS_TEXT.noIncidents}</p>
      ) : (
        <>
          {/* phones: one card per incident; wider screens: the table */}
          <ul className="mt-3 space-y-3 sm:hidden" data-testid="status-incident-cards">
            {incidents.map((i) => (
              <li key={`${i.upstream}-${i.startedAt}`} className="rounded-lg border border-slate-200 px-3 py-2.5 text-sm">
                <p className="font-medium text-slate-900">{i.what}</p>
                <p className="mt-1 text-slate-600">
                  {formatMoscow(i.startedAt)}
                  {i.endedAt ? ` — ${formatMoscow(i.endedAt)} МСК` : ` МСК — ${STATUS_TEXT.ongoing}`}
                </p>
                <p className="text-slate-500">Длительность: {formatDuration(i.durationSec)}</p>
              </li>
            ))}
          </ul>
          <table className="mt-3 hidden w-full text-left text-sm sm:table" data-testid="status-incidents">
            <thead>
              <tr className="border-b border-slate-200 text-xs font-medium tracking-wide text-slate-500 uppercase">
                {STATUS_TEXT.columns.map((c) => (
                  <th key={c} scope="col" className="py-2 pr-4 font-medium">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {incidents.map((i) => (
                <tr key={`${i.upstream}-${i.startedAt}`}>
                  <td className="py-2.5 pr-4 whitespace-nowrap text-slate-700 tabular-nums">{formatMoscow(i.startedAt)}</td>
                  <td className="py-2.5 pr-4 whitespace-nowrap text-slate-700 tabular-nums">{i.endedAt ? formatMoscow(i.endedAt) : STATUS_TEXT.ongoing}</td>
                  <td className="py-2.5 pr-4 whitespace-nowrap text-slate-700 tabular-nums">{formatDuration(i.durationSec)}</td>
                  <td className="py-2.5 text-slate-900">{i.what}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Card>
  )
}

/** /status: the service's state now, its incidents and its uptime per day over 90 days. */
export function StatusPage() {
  const { data, error, isLoading, isValidating, mutate } = useSWR<ServiceStatus>('/api/status', { refreshInterval: REFRESH_MS })
  return (
    <div className="mx-auto w-full max-w-4xl px-4 py-10 sm:px-6 sm:py-14">
      <h1 className="text-2xl leading-tight font-semibold tracking-tight text-slate-900 min-[400px]:text-[28px] sm:text-4xl">{STATUS_TEXT.title}</h1>
      <p className="mt-3 text-[17px] leading-7 text-slate-600">{STATUS_TEXT.lead}</p>
      <div className="mt-8 space-y-5">
        {isLoading ? (
          <PageSpinner label="Проверяем состояние…" />
        ) : error && !data ? (
          <LoadError message={errorMessage(error, 'Не удалось получить состояние сервиса')} retrying={isValidating} onRetry={() => void mutate()} />
        ) : data ? (
          <>
            <Banner status={data} />
            <Components status={data} />
            <Uptime days={data.days} />
            <Incidents incidents={data.incidents} />
          </>
        ) : null}
      </div>
    </div>
  )
}
