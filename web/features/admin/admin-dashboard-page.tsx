import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { Card } from '../../components/card'
import { ActivityIcon, ArrowRightIcon, FileTextIcon, InfoIcon, UsersIcon, WalletIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { PageSpinner } from '../../components/spinner'
import { formatInteger, formatRubles, pluralRu } from '../../lib/format'
import { useDocumentTitle } from '../../lib/use-document-title'
import { UNLIMITED_LIMIT, useAdminStats, type AdminStats } from './admin-api'
import { Badge, ExternalIcon, formatUsd, ServerIcon } from './admin-ui'

function Figure({ label, value, testId, hint }: { label: string; value: ReactNode; testId?: string; hint?: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="mt-1 text-base font-semibold tracking-tight text-slate-900 tabular-nums min-[420px]:text-xl sm:text-2xl" data-testid={testId}>
        {value}
      </dd>
      {hint && <dd className="mt-0.5 text-xs text-slate-500">{hint}</dd>}
    </div>
  )
}

/** The upstream key: spend, limit and remainder, or the unlimited pay-as-you-go mode (limit ≥ 999999). */
function UpstreamCard({ upstream }: { upstream: AdminStats['openrouter'] }) {
  const unlimited = upstream.unlimited || (upstream.limit !== null && upstream.limit >= UNLIMITED_LIMIT)
  const demo = upstream.mode === 'demo'
  return (
    <Card className="p-4 sm:p-6" data-testid="upstream-card">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="flex items-center gap-2 text-base font-semibold text-slate-900">
          <ServerIcon size={18} className="text-slate-400" />
          {demo ? 'Провайдер моделей: демо-режим' : 'Провайдер моделей (OpenRouter)'}
        </h2>
        {unlimited && !upstream.error && <Badge tone="indigo">{demo ? 'Безлимитный режим' : 'Безлимитный режим · оплата по факту'}</Badge>}
      </div>
      {upstream.error ? (
        <p role="alert" className="mt-4 text-sm text-red-700">
          {upstream.error}. Данные о расходах появятся, когда провайдер ответит.
        </p>
      ) : (
        <dl className="mt-5 grid grid-cols-3 gap-3 sm:gap-5">
          <Figure label="Потрачено" value={formatUsd(upstream.usage)} testId="upstream-usage" />
          <Figure label="Лимит" value={unlimited ? 'Без лимита' : formatUsd(upstream.limit)} testId="upstream-limit" />
          <Figure label="Осталось" value={unlimited ? '∞' : formatUsd(upstream.remaining)} testId="upstream-remaining" />
        </dl>
      )}
      {demo ? (
        <p className="mt-5 flex items-start gap-2 rounded-lg bg-slate-50 px-3 py-2.5 text-sm text-slate-600">
          <InfoIcon size={16} className="mt-0.5 shrink-0 text-slate-400" />
          Ключ OPENROUTER_API_KEY не задан: ответы генерируются локально, провайдеру ничего не платится.
        </p>
      ) : (
        unlimited && (
          <p className="mt-5 flex items-start gap-2 rounded-lg bg-indigo-50/60 px-3 py-2.5 text-sm text-slate-700">
            <InfoIcon size={16} className="mt-0.5 shrink-0 text-indigo-500" />
            <span>
              У ключа нет лимита: запросы оплачиваются с баланса аккаунта по факту. Реальный остаток средств проверяйте в{' '}
              <a
                href="https://openrouter.ai/settings/credits"
                target="_blank"
                rel="noreferrer"
                className="inline-flex items-center gap-1 font-medium text-indigo-600 hover:text-indigo-500"
              >
                личном кабинете OpenRouter
                <ExternalIcon size={13} />
              </a>
              .
            </span>
          </p>
        )
      )}
    </Card>
  )
}

function Tile({
  label,
  icon,
  value,
  testId,
  lines,
  href,
  linkLabel,
}: {
  label: string
  icon: ReactNode
  value: ReactNode
  testId: string
  lines: ReactNode[]
  href?: string
  linkLabel?: string
}) {
  return (
    <Card className="flex flex-col p-4 sm:p-5" data-testid={`${testId}-tile`}>
      <p className="flex items-center gap-2 text-sm font-medium text-slate-500">
        <span className="text-slate-400">{icon}</span>
        {label}
      </p>
      <p className="mt-3 text-2xl leading-8 font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums sm:text-[26px]" data-testid={testId}>
        {value}
      </p>
      <ul className="mt-1 space-y-0.5 text-xs text-slate-500">
        {lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      {href && (
        <Link href={href} className="mt-auto inline-flex items-center gap-1 pt-3 text-sm font-medium text-indigo-600 hover:text-indigo-500">
          {linkLabel}
          <ArrowRightIcon size={14} />
        </Link>
      )}
    </Card>
  )
}

function Row({ label, note, value, testId, tone }: { label: string; note: string; value: string; testId: string; tone?: 'good' | 'bad' }) {
  return (
    <div className="flex flex-col gap-1 py-3.5 sm:flex-row sm:items-baseline sm:justify-between sm:gap-6">
      <div className="min-w-0">
        <dt className="text-[15px] font-medium text-slate-900">{label}</dt>
        <dd className="text-xs text-slate-500">{note}</dd>
      </div>
      <dd
        data-testid={testId}
        className={`shrink-0 text-lg font-semibold whitespace-nowrap tabular-nums ${tone === 'good' ? 'text-emerald-700' : tone === 'bad' ? 'text-red-700' : 'text-slate-900'}`}
      >
        {value}
      </dd>
    </div>
  )
}

/** Income in rubles, costs in dollars, margin in dollars at today's rate — each figure says its currency. */
function MoneyPanel({ stats }: { stats: AdminStats }) {
  const { finance, usage } = stats
  const rate = finance.usdRubRate
  const margin = finance.totalMargin
  return (
    <Card className="p-4 sm:p-6" data-testid="finance-panel">
      <h2 className="text-base font-semibold text-slate-900">Доходы и расходы</h2>
      <p className="mt-1 text-sm text-slate-500">За всё время работы сервиса.</p>
      <dl className="mt-3 divide-y divide-slate-100">
        <Row label="Выручка" note="Списано с пользователей за запросы, в рублях" value={formatRubles(finance.totalRevenue)} testId="finance-revenue" />
        <Row
          label="Расходы у провайдера"
          note="Запросы пользователей и статьи блога, в долларах США"
          value={formatUsd(finance.openrouterCost)}
          testId="finance-cost"
        />
        <Row
          label="Чистая маржа"
          note={
            rate
              ? `В долларах США: выручка пересчитана по текущему курсу ${rate.toLocaleString('ru-RU')} ₽/$, поэтому это оценка`
              : 'Курс доллара пока неизвестен — маржа появится, когда курс будет получен'
          }
          value={formatUsd(margin)}
          testId="finance-margin"
          tone={margin === null ? undefined : margin >= 0 ? 'good' : 'bad'}
        />
        <Row label="Всего токенов" note="Входные и выходные токены всех запросов" value={formatInteger(usage.totalTokens)} testId="finance-tokens" />
      </dl>
    </Card>
  )
}

export function AdminDashboardPage() {
  useDocumentTitle('Админ-панель')
  const { data, error, isLoading, isValidating, mutate } = useAdminStats()

  let body: ReactNode
  if (data) {
    const { users, finance, usage, blog } = data
    body = (
      <div className="space-y-6">
        <UpstreamCard upstream={data.openrouter} />
        <div className="grid grid-cols-1 gap-4 min-[520px]:grid-cols-2 xl:grid-cols-4">
          <Tile
            label="Пользователи"
            icon={<UsersIcon size={15} />}
            value={formatInteger(users.total)}
            testId="stat-users"
            lines={[`+${formatInteger(users.newWeek)} за неделю`, `+${formatInteger(users.newToday)} сегодня`]}
            href="/app/admin/users"
            linkLabel="Пользователи"
          />
          <Tile
            label="Финансы"
            icon={<WalletIcon size={15} />}
            value={formatRubles(finance.totalBalance)}
            testId="stat-balance"
            lines={['на балансах пользователей', `${formatInteger(finance.totalTransactions)} ${pluralRu(finance.totalTransactions, ['транзакция', 'транзакции', 'транзакций'])}`]}
          />
          <Tile
            label="Использование"
            icon={<ActivityIcon size={15} />}
            value={formatInteger(usage.totalRequests)}
            testId="stat-requests"
            lines={[pluralRu(usage.totalRequests, ['запрос к API', 'запроса к API', 'запросов к API']), `${formatInteger(usage.totalApiKeys)} ${pluralRu(usage.totalApiKeys, ['API ключ', 'API ключа', 'API ключей'])}`]}
          />
          <Tile
            label="Блог"
            icon={<FileTextIcon size={15} />}
            value={formatInteger(blog.published)}
            testId="stat-blog"
            lines={[pluralRu(blog.published, ['статья опубликована', 'статьи опубликовано', 'статей опубликовано']), `всего ${formatInteger(blog.total)}`]}
            href="/app/admin/blog"
            linkLabel="Управление блогом"
          />
        </div>
        <MoneyPanel stats={data} />
      </div>
    )
  } else if (error) {
    body = (
      <Card>
        <LoadError message="Не удалось загрузить статистику." retrying={isValidating} onRetry={() => void mutate()} />
      </Card>
    )
  } else {
    body = isLoading ? <PageSpinner /> : null
  }

  return (
    <>
      <PageHeading title="Админ-панель" description="Состояние платформы: провайдер, пользователи, деньги и блог." />
      {body}
    </>
  )
}
