import { type ReactNode, useState } from 'react'
import { formatInteger, formatRubles } from '../../../src/content/format'
import { Button, ButtonLink } from '../../components/button'
import { Card } from '../../components/card'
import { ExportButton } from '../../components/export-button'
import { ActivityIcon, ChartIcon, CoinsIcon, HashIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { PageSpinner } from '../../components/spinner'
import { StatCard } from '../../components/stat-card'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { type UsageParams, useUsage } from '../../lib/queries'
import { useDocumentTitle } from '../../lib/use-document-title'
import { downloadUsageCsv } from './csv-export'
import { RecentRequests } from './recent-requests'
import { TopModels } from './top-models'
import { UsageChart } from './usage-chart'
import { PeriodSwitch, UsageFilters } from './usage-filters'
import { DEFAULT_PERIOD, type Period, periodStart } from './usage-period'

function EmptyState({ filtered, onReset }: { filtered: boolean; onReset: () => void }) {
  return (
    <Card className="flex flex-col items-center px-6 py-12 text-center" data-testid="usage-empty">
      <div className="mb-4 flex h-11 w-11 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <ChartIcon size={20} />
      </div>
      <p className="text-[15px] font-medium text-slate-800">{filtered ? 'По выбранным фильтрам запросов нет' : 'За этот период запросов нет'}</p>
      {filtered ? (
        <Button variant="secondary" size="sm" className="mt-4" onClick={onReset}>
          Сбросить фильтры
        </Button>
      ) : (
        <>
          <p className="mt-1 max-w-sm text-sm text-slate-500">Отправьте запрос в Playground или через API — здесь появятся расходы, график по дням и история запросов.</p>
          <div className="mt-5 flex flex-wrap justify-center gap-2">
            <ButtonLink href="/app/playground" size="sm">
              Открыть Playground
            </ButtonLink>
            <ButtonLink href="/app/api-keys" size="sm" variant="secondary">
              Создать API ключ
            </ButtonLink>
          </div>
        </>
      )}
    </Card>
  )
}

export function UsagePage() {
  useDocumentTitle('Статистика')
  const account = useAccount()
  const [period, setPeriod] = useState<Period>(DEFAULT_PERIOD)
  const [apiKeyId, setApiKeyId] = useState('')
  const [model, setModel] = useState('')
  const params: UsageParams = { startDate: periodStart(period), apiKeyId: apiKeyId || undefined, model: model || undefined }
  const { data, error, isLoading, isValidating, mutate } = useUsage(params)
  const filtered = Boolean(apiKeyId || model)
  // keepPreviousData: while another period loads, the old figures stay, dimmed.
  const stale = isLoading && Boolean(data)

  let content: ReactNode
  if (!data && error) {
    content = (
      <Card className="p-4">
        <LoadError message={errorMessage(error, 'Не удалось загрузить статистику.')} retrying={isValidating} onRetry={() => void mutate()} />
      </Card>
    )
  } else if (!data) {
    content = <PageSpinner label="Загрузка статистики…" />
  } else {
    content = (
      <div className={cn('space-y-6 transition-opacity', stale && 'opacity-60')} aria-busy={stale || undefined}>
        <section aria-label="Итоги периода" className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <StatCard label="Потрачено" icon={<CoinsIcon size={15} />} testId="usage-total-cost">
            {formatRubles(data.totalCost)}
          </StatCard>
          <StatCard label="Токенов" icon={<HashIcon size={15} />} testId="usage-total-tokens">
            {formatInteger(data.totalTokens)}
          </StatCard>
          <StatCard label="Запросов" icon={<ActivityIcon size={15} />} testId="usage-total-requests">
            {formatInteger(data.totalRequests)}
          </StatCard>
        </section>
        {data.totalRequests === 0 ? (
          <EmptyState
            filtered={filtered}
            onReset={() => {
              setApiKeyId('')
              setModel('')
            }}
          />
        ) : (
          <>
            <Card className="p-4 sm:p-6">
              <h2 className="text-base font-semibold text-slate-900">Расходы и запросы по дням</h2>
              <div className="mt-3">
                <UsageChart days={data.daily} />
              </div>
            </Card>
            {data.topModels.length > 0 && <TopModels models={data.topModels} />}
            <RecentRequests logs={data.logs} total={data.totalRequests} />
          </>
        )}
      </div>
    )
  }

  return (
    <>
      <PageHeading
        title="Статистика"
        description={
          !account.team
            ? 'Расходы, токены и запросы к моделям по дням.'
            : account.can('usage.all')
              ? `Запросы всей команды «${account.team.name}» по дням; по участникам — в «Аналитике команды».`
              : `Ваши запросы с баланса команды «${account.team.name}» по дням.`
        }
        actions={<ExportButton download={() => downloadUsageCsv(params)} disabled={!data || data.totalRequests === 0} />}
      />
      <div className="mb-6 flex flex-col gap-3 xl:flex-row xl:items-center xl:justify-between">
        <PeriodSwitch value={period} onChange={setPeriod} />
        <UsageFilters filters={data?.filters} apiKeyId={apiKeyId} model={model} onApiKeyChange={setApiKeyId} onModelChange={setModel} />
      </div>
      {content}
    </>
  )
}
