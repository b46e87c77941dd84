// /app/team/analytics: the team's usage by member, by key and by model over a period, its CSV
// (with the member of each request) and the money history of the team's balance.
import { useState } from 'react'
import { formatInteger, formatPrice, pluralRu } from '../../../src/content/format'
import { Card } from '../../components/card'
import { ExportButton } from '../../components/export-button'
import { ActivityIcon, CoinsIcon, HashIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { PageSpinner } from '../../components/spinner'
import { StatCard } from '../../components/stat-card'
import { TransactionList } from '../../components/transaction-list'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { type UsageParams, useUsage } from '../../lib/queries'
import type { UsageStats } from '../../lib/types'
import { useDocumentTitle } from '../../lib/use-document-title'
import { downloadUsageCsv } from './csv-export'
import { TopModels } from './top-models'
import { PeriodSwitch } from './usage-filters'
import { DEFAULT_PERIOD, type Period, periodStart } from './usage-period'

type Row = { id: string; label: string; cost: number; requests: number; tokens: number }

/** One breakdown (members or keys): a bar per row, relative to the most expensive. */
function Breakdown({ title, rows, testId, empty }: { title: string; rows: Row[]; testId: string; empty: string }) {
  const max = Math.max(0, ...rows.map((r) => r.cost))
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">{title}</h2>
      {rows.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">{empty}</p>
      ) : (
        <ol className="mt-4 space-y-4" data-testid={testId}>
          {rows.map((r) => (
            <li key={r.id} data-testid={`${testId}-row`} data-label={r.label}>
              <div className="flex items-baseline justify-between gap-3 text-sm">
                <span className="min-w-0 font-medium break-all text-slate-800">{r.label}</span>
                <span className="shrink-0 font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatPrice(r.cost)}</span>
              </div>
              <div className="mt-1.5 h-2 overflow-hidden rounded-full bg-slate-100" aria-hidden="true">
                <div className="h-full rounded-full bg-indigo-500" style={{ width: `${max > 0 ? Math.max(2, (r.cost / max) * 100) : 0}%` }} />
              </div>
              <p className="mt-1 text-xs text-slate-500 tabular-nums">
                {formatInteger(r.requests)} {pluralRu(r.requests, ['запрос', 'запроса', 'запросов'])} · {formatInteger(r.tokens)}{' '}
                {pluralRu(r.tokens, ['токен', 'токена', 'токенов'])}
              </p>
            </li>
          ))}
        </ol>
      )}
    </Card>
  )
}

const members = (d: UsageStats): Row[] => d.byMember.map((m) => ({ id: m.userId, label: m.email, cost: m.cost, requests: m.requests, tokens: m.tokens }))
const keys = (d: UsageStats): Row[] => d.byKey.map((k) => ({ id: k.apiKeyId ?? 'session', label: k.name, cost: k.cost, requests: k.requests, tokens: k.tokens }))

export function TeamAnalyticsPage() {
  const { team } = useAccount()
  useDocumentTitle('Аналитика команды')
  const [period, setPeriod] = useState<Period>(DEFAULT_PERIOD)
  const params: UsageParams = { startDate: periodStart(period) }
  const { data, error, isLoading, isValidating, mutate } = useUsage(params)
  const stale = isLoading && Boolean(data)

  return (
    <>
      <PageHeading
        title="Аналитика команды"
        description={team ? `Расходы «${team.name}» по участникам, ключам и моделям; история операций баланса.` : undefined}
        actions={<ExportButton download={() => downloadUsageCsv(params)} disabled={!data || data.totalRequests === 0} />}
      />
      <div className="mb-6">
        <PeriodSwitch value={period} onChange={setPeriod} />
      </div>
      {!data && error ? (
        <Card className="p-4">
          <LoadError message={errorMessage(error, 'Не удалось загрузить статистику.')} retrying={isValidating} onRetry={() => void mutate()} />
        </Card>
      ) : !data ? (
        <PageSpinner label="Загрузка статистики…" />
      ) : (
        <div className={cn('space-y-6 transition-opacity', stale && 'opacity-60')} aria-busy={stale || undefined}>
          <section aria-label="Итоги периода" className="grid grid-cols-1 gap-4 sm:grid-cols-3">
            <StatCard label="Потрачено" icon={<CoinsIcon size={15} />} testId="team-total-cost">
              {formatPrice(data.totalCost)}
            </StatCard>
            <StatCard label="Токенов" icon={<HashIcon size={15} />}>
              {formatInteger(data.totalTokens)}
            </StatCard>
            <StatCard label="Запросов" icon={<ActivityIcon size={15} />} testId="team-total-requests">
              {formatInteger(data.totalRequests)}
            </StatCard>
          </section>
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
            <Breakdown title="По участникам" rows={members(data)} testId="usage-by-member" empty="За этот период запросов не было." />
            <Breakdown title="По ключам" rows={keys(data)} testId="usage-by-key" empty="За этот период запросов не было." />
          </div>
          {data.topModels.length > 0 && <TopModels models={data.topModels} />}
        </div>
      )}
      <div className="mt-6">
        <TransactionList />
      </div>
    </>
  )
}
