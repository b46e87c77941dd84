import type { ReactNode } from 'react'
import { Link } from 'wouter'
import { formatDateTime, formatDuration, formatInteger, formatPrice, formatRubles, moscowFormat, pluralRu } from '../../../src/content/format'
import { Card } from '../../components/card'
import { ActivityIcon, AlertCircleIcon, ArrowRightIcon, CheckCircleIcon, FileTextIcon, InfoIcon, UsersIcon, WalletIcon } from '../../components/icons'
import { ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { PageSpinner } from '../../components/spinner'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { type AdminStats, UNCOVERED_LIMIT, UNLIMITED_LIMIT, type UncoveredCost, useAdminStats, useUncovered } from './admin-api'
import { Badge, ExternalIcon, formatUsd, ServerIcon } from './admin-ui'
import { UpstreamHealthCard } from './upstream-health'

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
      {/* a <dl> row holds only dt/dd: the note is part of the term (axe: definition-list) */}
      <dt className="min-w-0">
        <span className="block text-[15px] font-medium text-slate-900">{label}</span>
        <span className="block text-xs text-slate-500">{note}</span>
      </dt>
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
        <Row label="Расходы у провайдера" note="Запросы пользователей и статьи блога, в долларах США" value={formatUsd(finance.openrouterCost)} testId="finance-cost" />
        {finance.providerCostRub > 0 && (
          <Row
            label="Расходы у провайдеров в рублях"
            note="GigaChat, YandexGPT и агрегаторы, выставляющие счёт в рублях"
            value={formatRubles(finance.providerCostRub)}
            testId="finance-cost-rub"
          />
        )}
        <Row
          label="Чистая маржа"
          note={
            rate
              ? `В долларах США: выручка и рублёвые расходы пересчитаны по текущему курсу ${rate.toLocaleString('ru-RU')} ₽/$, поэтому это оценка`
              : 'Курс доллара пока неизвестен — маржа появится, когда курс будет получен'
          }
          value={formatUsd(margin)}
          testId="finance-margin"
          tone={margin === null ? undefined : margin >= 0 ? 'good' : 'bad'}
        />
        <Row label="Всего токенов" note="Входные и выходные токены всех запросов" value={formatInteger(usage.totalTokens)} testId="finance-tokens" />
        <Row label="Распознано аудио" note="Длительность записей, отправленных на распознавание речи" value={formatDuration(usage.totalAudioSeconds)} testId="finance-audio" />
        <Row label="Озвучено символов" note="Текст, отправленный на синтез речи" value={formatInteger(usage.totalCharacters)} testId="finance-characters" />
      </dl>
    </Card>
  )
}

/** This month's money per upstream: each cost in the currency the upstream bills, the margin in rubles. */
function ProviderSplit({ rows }: { rows: AdminStats['finance']['byUpstream'] }) {
  return (
    <Card className="p-4 sm:p-6" data-testid="finance-by-upstream">
      <h2 className="text-base font-semibold text-slate-900">Провайдеры в этом месяце</h2>
      <p className="mt-1 text-sm text-slate-500">С начала месяца по московскому времени. Маржа — в рублях, долларовые расходы пересчитаны по текущему курсу.</p>
      {rows.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">В этом месяце запросов ещё не было.</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100">
          {rows.map((r) => (
            <li key={r.upstream} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 py-3" data-testid={`finance-upstream-${r.upstream}`}>
              <div className="min-w-0">
                <div className="font-medium text-slate-900">{r.label}</div>
                <div className="text-xs text-slate-500">
                  {formatInteger(r.requests)} {pluralRu(r.requests, ['запрос', 'запроса', 'запросов'])} · выручка {formatPrice(r.revenue)} · расходы{' '}
                  {r.costUsd > 0 && formatUsd(r.costUsd)}
                  {r.costUsd > 0 && r.costRub > 0 && ' + '}
                  {r.costRub > 0 && formatPrice(r.costRub)}
                  {r.costUsd === 0 && r.costRub === 0 && 'не сообщены'}
                </div>
              </div>
              <div className={cn('shrink-0 font-semibold tabular-nums', r.margin === null ? 'text-slate-500' : r.margin >= 0 ? 'text-emerald-700' : 'text-red-700')}>
                {r.margin === null ? 'курс неизвестен' : formatPrice(r.margin)}
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

/** Wide enough (sidebar included) for the table; narrower screens get cards. */
const UNCOVERED_TABLE_QUERY = '(min-width: 1280px)'

/** '21.11.2025, 14:05' in Moscow time, for the table whose column says «МСК». */
const moscowTime = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? '—' : moscowFormat.format(date)
}

/** An audit figure to the micro-ruble: '3,5156 ₽', '0,0056 ₽', '3,51 ₽'. */
const exactRublesFormat = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 })
const exactRubles = (value: number) => (Number.isFinite(value) ? `${exactRublesFormat.format(value)}\u00a0₽` : '—')

const requestsLabel = (n: number) => `${formatInteger(n)} ${pluralRu(n, ['запрос', 'запроса', 'запросов'])}`

function Customer({ row }: { row: UncoveredCost }) {
  return row.email ? (
    <span className="block truncate font-medium text-slate-900" title={row.email}>
      {row.email}
    </span>
  ) : (
    <span className="block text-slate-500">аккаунт удалён</span>
  )
}

function UncoveredTable({ rows }: { rows: UncoveredCost[] }) {
  const money = 'px-3 py-2.5 text-right whitespace-nowrap tabular-nums'
  return (
    <table className="w-full table-fixed text-left text-sm">
      <thead className="border-y border-slate-200 bg-slate-50/70 text-xs text-slate-500">
        <tr>
          <th className="w-44 px-6 py-3 font-medium">Дата (МСК)</th>
          <th className="px-3 py-3 font-medium">E-mail и модель</th>
          <th className="w-36 px-3 py-3 text-right font-medium">Зарезервировано</th>
          <th className="w-28 px-3 py-3 text-right font-medium">Стоимость</th>
          <th className="w-28 px-3 py-3 text-right font-medium">Списано</th>
          <th className="w-32 px-6 py-3 text-right font-medium">Не покрыто</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr key={r.id} data-testid="uncovered-row" className="hover:bg-slate-50/60">
            <td className="px-6 py-2.5 whitespace-nowrap text-slate-600 tabular-nums">
              <time dateTime={r.createdAt}>{moscowTime(r.createdAt)}</time>
            </td>
            <td className="min-w-0 px-3 py-2.5">
              <Customer row={r} />
              <span className="block truncate font-mono text-xs text-slate-500" title={r.upstreamId ? `${r.model} · ${r.upstreamId}` : r.model} data-testid="uncovered-model">
                {r.model}
              </span>
            </td>
            <td className={cn(money, 'text-slate-700')}>{exactRubles(r.held)}</td>
            <td className={cn(money, 'text-slate-700')}>{exactRubles(r.cost)}</td>
            <td className={cn(money, 'text-slate-700')}>{exactRubles(r.charged)}</td>
            <td className={cn(money, 'pr-6 font-semibold text-red-700')} data-testid="uncovered-amount">
              {exactRubles(r.uncovered)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function UncoveredCards({ rows }: { rows: UncoveredCost[] }) {
  const pair = (label: string, value: number) => (
    <span className="whitespace-nowrap">
      {label} {exactRubles(value)}
    </span>
  )
  return (
    <ul className="divide-y divide-slate-100 border-t border-slate-200">
      {rows.map((r) => (
        <li key={r.id} data-testid="uncovered-row" className="px-4 py-3 sm:px-6">
          <div className="flex items-baseline justify-between gap-3">
            <span className="min-w-0">
              <Customer row={r} />
            </span>
            <span className="shrink-0 font-semibold whitespace-nowrap text-red-700 tabular-nums" data-testid="uncovered-amount">
              {exactRubles(r.uncovered)}
            </span>
          </div>
          <p className="mt-0.5 truncate font-mono text-xs text-slate-500" data-testid="uncovered-model">
            {r.model}
          </p>
          <p className="mt-1 flex flex-wrap gap-x-2 text-xs text-slate-500 tabular-nums">
            <span className="whitespace-nowrap">{formatDateTime(r.createdAt)}</span>
            {pair('зарезервировано', r.held)}
            {pair('стоимость', r.cost)}
            {pair('списано', r.charged)}
          </p>
        </li>
      ))}
    </ul>
  )
}

/**
 * What requests cost beyond what their customers were charged: the service paid it. Should stay
 * 0; anything else is highlighted with the requests it came from.
 */
function UncoveredCard({ cost, requests }: { cost: number; requests: number }) {
  const bad = cost > 0 || requests > 0
  const list = useUncovered(bad)
  const wide = useMediaQuery(UNCOVERED_TABLE_QUERY)
  const rows = list.data?.rows
  let table: ReactNode = null
  if (bad) {
    if (rows && rows.length > 0) table = wide ? <UncoveredTable rows={rows} /> : <UncoveredCards rows={rows} />
    else if (list.error)
      table = (
        <div className="border-t border-slate-200">
          <LoadError message={errorMessage(list.error, 'Не удалось загрузить запросы.')} retrying={list.isValidating} onRetry={() => void list.mutate()} />
        </div>
      )
    else if (list.isLoading)
      table = (
        <div className="border-t border-slate-200 px-6">
          <ListSkeleton rows={2} />
        </div>
      )
  }
  return (
    <Card className={cn('overflow-hidden', bad && 'border-red-200 ring-1 ring-red-100')} data-testid="uncovered-card" data-state={bad ? 'uncovered' : 'clear'}>
      <div className={cn('flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between sm:gap-6 sm:p-6', bad && 'bg-red-50/60')}>
        <div className="min-w-0">
          <h2 className="flex items-center gap-2 text-base font-semibold text-slate-900">
            {bad ? <AlertCircleIcon size={18} className="text-red-600" /> : <CheckCircleIcon size={18} className="text-emerald-600" />}
            Не покрыто клиентами
          </h2>
          <p className="mt-1 text-sm text-slate-500">
            {bad
              ? 'Эти запросы стоили больше, чем удалось списать с клиентов: разницу оплатил сервис.'
              : 'Каждый запрос оплачен клиентом полностью: стоимость не превышала зарезервированного.'}
          </p>
        </div>
        <div className="shrink-0 sm:text-right">
          <p className={cn('text-2xl leading-8 font-semibold tracking-tight whitespace-nowrap tabular-nums', bad ? 'text-red-700' : 'text-slate-900')} data-testid="stat-uncovered">
            {formatPrice(cost)}
          </p>
          <p className={cn('text-xs', bad ? 'text-red-700' : 'text-slate-500')} data-testid="stat-uncovered-requests">
            {requestsLabel(requests)}
            {rows && requests > rows.length && ` · показаны последние ${formatInteger(Math.min(rows.length, UNCOVERED_LIMIT))}`}
          </p>
        </div>
      </div>
      {table}
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
        <UpstreamHealthCard />
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
            lines={[
              pluralRu(usage.totalRequests, ['запрос к API', 'запроса к API', 'запросов к API']),
              `${formatInteger(usage.totalApiKeys)} ${pluralRu(usage.totalApiKeys, ['API ключ', 'API ключа', 'API ключей'])}`,
            ]}
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
        <UncoveredCard cost={finance.uncoveredCost ?? 0} requests={finance.uncoveredRequests ?? 0} />
        <MoneyPanel stats={data} />
        <ProviderSplit rows={finance.byUpstream} />
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
