import type { ReactNode } from 'react'
import useSWR from 'swr'
import { Link } from 'wouter'
import { formatInteger, formatRubles } from '../../../src/content/format'
import { Card } from '../../components/card'
import { CopyButton } from '../../components/copy-button'
import { ActivityIcon, ArrowRightIcon, BookIcon, CheckIcon, CoinsIcon, HashIcon, KeyIcon, WalletIcon } from '../../components/icons'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { groupedKey, HistoryRow } from '../../components/money-history'
import { PageHeading } from '../../components/page-heading'
import { StatCard } from '../../components/stat-card'
import { type Account, useAccount } from '../../lib/account'
import { cn } from '../../lib/cn'
import { KEYS_KEY, useBalance, usePayments, useUsage } from '../../lib/queries'
import type { GroupedHistoryPage } from '../../lib/types'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useSession } from '../../stores/session'

const RECENT_SHOWN = 5

function BalanceCard({ account }: { account: Account }) {
  const { data, error, isLoading } = useBalance()
  const storedBalance = useSession((s) => s.user?.balance)
  const balance = data?.balance ?? (account.teamId ? undefined : storedBalance)
  return (
    <StatCard
      label={account.teamId ? 'Баланс команды' : 'Текущий баланс'}
      icon={<WalletIcon size={15} />}
      testId="dashboard-balance"
      note={
        account.can('topup') ? (
          <Link href="/app/billing" className="inline-flex items-center gap-1 font-medium text-indigo-600 hover:text-indigo-500">
            Пополнить
            <ArrowRightIcon size={12} />
          </Link>
        ) : (
          <span>общий баланс команды</span>
        )
      }
    >
      {balance !== undefined ? formatRubles(balance) : isLoading && !error ? <span className="inline-block h-7 w-28 animate-pulse rounded-md bg-slate-100 align-middle" /> : '—'}
    </StatCard>
  )
}

const steps: ReadonlyArray<{
  id: 'key' | 'topup' | 'request'
  title: string
  text: string
  href: string
  cta: string
  icon: typeof KeyIcon
  /** The step is shown only to a role that can do it. */
  permission?: 'keys.own' | 'topup'
}> = [
  {
    id: 'key',
    permission: 'keys.own',
    title: 'Создайте API ключ',
    text: 'Ключ нужен для запросов к API из вашего кода или приложений.',
    href: '/app/api-keys',
    cta: 'К API ключам',
    icon: KeyIcon,
  },
  {
    id: 'topup',
    permission: 'topup',
    title: 'Пополните баланс',
    text: 'Оплата картой в рублях, списания только за фактическое использование.',
    href: '/app/billing',
    cta: 'Пополнить',
    icon: WalletIcon,
  },
  {
    id: 'request',
    title: 'Сделайте первый запрос',
    text: 'Подключите любой OpenAI-совместимый клиент — примеры в документации — или попробуйте модель в Playground.',
    href: '/app/docs',
    cta: 'Открыть документацию',
    icon: BookIcon,
  },
]

/** Which quick-start steps are done: a key exists, a card top-up went through, a request was made. */
function useStepsDone(account: Account): Record<(typeof steps)[number]['id'], boolean> {
  // A role without the keys or the payments asks for neither (the server would refuse).
  const { data: keys } = useSWR<unknown[]>(account.can('keys.own') ? KEYS_KEY : null)
  const { data: payments } = usePayments(account.can('topup'))
  const { data: usage } = useUsage({})
  return {
    key: Array.isArray(keys) && keys.length > 0,
    topup: Array.isArray(payments) && payments.some((p) => p.status === 'succeeded'),
    request: (usage?.totalRequests ?? 0) > 0,
  }
}

function QuickStart({ account }: { account: Account }) {
  const done = useStepsDone(account)
  const shown = steps.filter((s) => !s.permission || account.can(s.permission))
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Быстрый старт</h2>
      <p className="mt-1 text-sm text-slate-500">{shown.length === 3 ? 'Три шага до первого запроса.' : 'Несколько шагов до первого запроса.'}</p>
      <ol className="mt-5 space-y-3">
        {shown.map((step, index) => (
          <li key={step.href} data-testid="quick-start-step" data-step={step.id} data-done={done[step.id]}>
            <Link
              href={step.href}
              className={cn(
                'group flex items-start gap-3 rounded-xl border p-3.5 sm:gap-4 sm:p-4 transition-colors hover:border-indigo-200 hover:bg-indigo-50/40',
                done[step.id] ? 'border-emerald-200 bg-emerald-50/40' : 'border-slate-200',
              )}
            >
              {done[step.id] ? (
                <span className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-white">
                  <CheckIcon size={16} />
                  <span className="sr-only">Выполнено: </span>
                </span>
              ) : (
                <span className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-indigo-600 text-sm font-semibold text-white">{index + 1}</span>
              )}
              <span className="min-w-0 flex-1">
                <span className={cn('block text-[15px] font-medium', done[step.id] ? 'text-slate-600' : 'text-slate-900')}>{step.title}</span>
                <span className="mt-0.5 block text-sm text-slate-500">{step.text}</span>
                <span className="mt-2 inline-flex items-center gap-1 text-sm font-medium text-indigo-600 group-hover:text-indigo-700">
                  {step.cta}
                  <ArrowRightIcon size={14} />
                </span>
              </span>
            </Link>
          </li>
        ))}
      </ol>
    </Card>
  )
}

function RecentTransactions() {
  const { data, error, isLoading, mutate } = useSWR<GroupedHistoryPage>(groupedKey(RECENT_SHOWN))
  const recent = Array.isArray(data?.items) ? data.items : []

  let body: ReactNode
  if (isLoading && !data) {
    body = <ListSkeleton />
  } else if (error && !data) {
    body = <LoadError message="Не удалось загрузить операции." onRetry={() => void mutate()} />
  } else if (recent.length === 0) {
    body = <EmptyNote>Операций пока нет</EmptyNote>
  } else {
    body = (
      <ul className="divide-y divide-slate-100">
        {recent.map((tx) => (
          <HistoryRow key={tx.id} item={tx} />
        ))}
      </ul>
    )
  }

  return (
    <Card className="flex h-full flex-col p-4 sm:p-6">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <h2 className="text-base font-semibold whitespace-nowrap text-slate-900">Последние операции</h2>
        <Link href="/app/billing" className="shrink-0 text-sm font-medium whitespace-nowrap text-indigo-600 hover:text-indigo-500">
          Все операции
        </Link>
      </div>
      <div className="mt-3 flex-1">{body}</div>
    </Card>
  )
}

function CurlExample() {
  const origin = typeof window !== 'undefined' ? window.location.origin : ''
  const command = [
    `curl ${origin}/v1/chat/completions \\`,
    `  -H "Authorization: Bearer YOUR_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{`,
    `    "model": "openai/gpt-3.5-turbo",`,
    `    "messages": [{"role": "user", "content": "Привет! Расскажи о себе."}]`,
    `  }'`,
  ].join('\n')
  return (
    <Card className="overflow-hidden">
      <div className="flex flex-col gap-1 p-4 sm:p-6 sm:pb-4">
        <h2 className="text-base font-semibold text-slate-900">Пример запроса</h2>
        <p className="text-sm text-slate-500">
          API совместим с OpenAI: замените <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[13px] text-slate-700">YOUR_API_KEY</code> на свой ключ и выполните
          команду в терминале.
        </p>
      </div>
      <div className="relative border-t border-slate-800 bg-slate-900">
        <div className="flex items-center justify-between border-b border-white/10 px-4 py-1.5">
          <span className="text-xs font-medium text-slate-400">bash</span>
          <CopyButton text={command} className="text-slate-300 hover:bg-white/10 hover:text-white" />
        </div>
        <pre tabIndex={0} className="overflow-x-auto p-4 font-mono text-[13px] leading-6 text-slate-100">
          <code>{command}</code>
        </pre>
      </div>
    </Card>
  )
}

const skeleton = <span className="inline-block h-7 w-24 animate-pulse rounded-md bg-slate-100 align-middle" />

/** All-time totals from GET /api/billing/usage (no startDate), the same figures as the usage screen's "Всё время". */
function UsageCards() {
  const { data, error } = useUsage({})
  const value = (figure: (d: NonNullable<typeof data>) => string) => (data ? figure(data) : error ? '—' : skeleton)
  const note =
    data && data.totalRequests === 0 ? (
      <span>появится после первых запросов</span>
    ) : (
      <Link href="/app/usage" className="inline-flex items-center gap-1 font-medium text-indigo-600 hover:text-indigo-500">
        Статистика
        <ArrowRightIcon size={12} />
      </Link>
    )
  return (
    <>
      <StatCard label="Всего потрачено" icon={<CoinsIcon size={15} />} testId="dashboard-spent" note={note}>
        {value((d) => formatRubles(d.totalCost))}
      </StatCard>
      <StatCard label="Использовано токенов" icon={<HashIcon size={15} />} testId="dashboard-tokens" note={<span>за всё время</span>}>
        {value((d) => formatInteger(d.totalTokens))}
      </StatCard>
      <StatCard label="Запросов" icon={<ActivityIcon size={15} />} testId="dashboard-requests" note={<span>за всё время</span>}>
        {value((d) => formatInteger(d.totalRequests))}
      </StatCard>
    </>
  )
}

export function DashboardPage() {
  useDocumentTitle('Дашборд')
  const account = useAccount()
  const history = account.can('history')
  return (
    <>
      <PageHeading title="Дашборд" description={account.team ? `Команда «${account.team.name}»: баланс, расходы и первые шаги.` : 'Баланс, расходы и первые шаги в AI Gateway.'} />
      <section aria-label="Показатели" className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <BalanceCard account={account} />
        <UsageCards />
      </section>
      <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-5">
        <div className={history ? 'lg:col-span-3' : 'lg:col-span-5'}>
          <QuickStart account={account} />
        </div>
        {history && (
          <div className="lg:col-span-2">
            <RecentTransactions />
          </div>
        )}
      </div>
      <div className="mt-6">
        <CurlExample />
      </div>
    </>
  )
}
