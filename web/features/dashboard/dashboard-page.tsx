import type { ReactNode } from 'react'
import useSWR from 'swr'
import { Link } from 'wouter'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { CopyButton } from '../../components/copy-button'
import {
  ActivityIcon,
  ArrowRightIcon,
  BookIcon,
  CoinsIcon,
  HashIcon,
  KeyIcon,
  WalletIcon,
} from '../../components/icons'
import { PageHeading } from '../../components/page-heading'
import { cn } from '../../lib/cn'
import { formatDateTime, formatRubles, formatSignedRubles } from '../../lib/format'
import { useBalance } from '../../lib/queries'
import { TRANSACTION_TYPE_LABELS, type Transaction } from '../../lib/types'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useSession } from '../../stores/session'

const TRANSACTIONS_KEY = '/api/billing/transactions?limit=50'
const RECENT_SHOWN = 5
const NO_USAGE_NOTE = 'появится после первых запросов'

function StatCard({
  label,
  icon,
  children,
  note,
  testId,
}: {
  label: string
  icon: ReactNode
  children: ReactNode
  note?: ReactNode
  testId?: string
}) {
  return (
    <Card className="flex flex-col p-4 sm:p-5">
      <p className="flex items-start gap-2 text-sm leading-5 font-medium text-slate-500">
        <span className="mt-0.5 shrink-0 text-slate-400 max-[1400px]:xl:hidden">{icon}</span>
        <span>{label}</span>
      </p>
      <div
        className="mt-3 text-2xl leading-8 font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums sm:text-[26px]"
        data-testid={testId}
      >
        {children}
      </div>
      {note && <div className="mt-1 text-xs text-slate-500">{note}</div>}
    </Card>
  )
}

function BalanceCard() {
  const { data, error, isLoading } = useBalance()
  const storedBalance = useSession((s) => s.user?.balance)
  const balance = data?.balance ?? storedBalance
  return (
    <StatCard
      label="Текущий баланс"
      icon={<WalletIcon size={15} />}
      testId="dashboard-balance"
      note={
        <Link href="/app/billing" className="inline-flex items-center gap-1 font-medium text-indigo-600 hover:text-indigo-500">
          Пополнить
          <ArrowRightIcon size={12} />
        </Link>
      }
    >
      {balance !== undefined ? (
        formatRubles(balance)
      ) : isLoading && !error ? (
        <span className="inline-block h-7 w-28 animate-pulse rounded-md bg-slate-100 align-middle" />
      ) : (
        '—'
      )}
    </StatCard>
  )
}

const steps = [
  {
    title: 'Создайте API ключ',
    text: 'Ключ нужен для запросов к API из вашего кода или приложений.',
    href: '/app/api-keys',
    cta: 'К API ключам',
    icon: KeyIcon,
  },
  {
    title: 'Пополните баланс',
    text: 'Оплата картой в рублях, списания только за фактическое использование.',
    href: '/app/billing',
    cta: 'Пополнить',
    icon: WalletIcon,
  },
  {
    title: 'Начните использовать',
    text: 'Подключите любой OpenAI-совместимый клиент — примеры в документации.',
    href: '/app/docs',
    cta: 'Открыть документацию',
    icon: BookIcon,
  },
] as const

function QuickStart() {
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Быстрый старт</h2>
      <p className="mt-1 text-sm text-slate-500">Три шага до первого запроса.</p>
      <ol className="mt-5 space-y-3">
        {steps.map((step, index) => (
          <li key={step.href}>
            <Link
              href={step.href}
              className="group flex items-start gap-3 rounded-xl border border-slate-200 p-3.5 sm:gap-4 sm:p-4 transition-colors hover:border-indigo-200 hover:bg-indigo-50/40"
            >
              <span className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-indigo-600 text-sm font-semibold text-white">
                {index + 1}
              </span>
              <span className="min-w-0 flex-1">
                <span className="block text-[15px] font-medium text-slate-900">{step.title}</span>
                <span className="mt-0.5 block text-sm text-slate-500">{step.text}</span>
                <span className="mt-2 inline-flex items-center gap-1 text-sm font-medium text-indigo-600 group-hover:text-indigo-500">
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
  const { data, error, isLoading, mutate } = useSWR<Transaction[]>(TRANSACTIONS_KEY)
  const recent = Array.isArray(data) ? data.slice(0, RECENT_SHOWN) : []

  let body: ReactNode
  if (isLoading && !data) {
    body = (
      <ul className="divide-y divide-slate-100" aria-hidden="true">
        {[0, 1, 2].map((i) => (
          <li key={i} className="flex items-center justify-between py-3">
            <span className="h-4 w-40 animate-pulse rounded bg-slate-100" />
            <span className="h-4 w-16 animate-pulse rounded bg-slate-100" />
          </li>
        ))}
      </ul>
    )
  } else if (error && !data) {
    body = (
      <div className="py-6 text-center text-sm text-slate-500">
        <p>Не удалось загрузить операции.</p>
        <Button variant="secondary" size="sm" className="mt-3" onClick={() => void mutate()}>
          Повторить
        </Button>
      </div>
    )
  } else if (recent.length === 0) {
    body = <p className="py-6 text-center text-sm text-slate-500">Операций пока нет</p>
  } else {
    body = (
      <ul className="divide-y divide-slate-100">
        {recent.map((tx) => {
          const negative = tx.amount.trim().startsWith('-')
          return (
            <li key={tx.id} className="flex items-start justify-between gap-3 py-3">
              <div className="min-w-0">
                <p className="truncate text-sm font-medium text-slate-800">
                  {tx.description || TRANSACTION_TYPE_LABELS[tx.type] || 'Операция'}
                </p>
                <p className="mt-0.5 text-xs text-slate-500">
                  {TRANSACTION_TYPE_LABELS[tx.type] ?? tx.type} · <time dateTime={tx.createdAt}>{formatDateTime(tx.createdAt)}</time>
                </p>
              </div>
              <span
                className={cn(
                  'shrink-0 text-sm font-semibold whitespace-nowrap tabular-nums',
                  negative ? 'text-slate-700' : 'text-emerald-600',
                )}
              >
                {formatSignedRubles(tx.amount)}
              </span>
            </li>
          )
        })}
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
          API совместим с OpenAI: замените <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[13px] text-slate-700">YOUR_API_KEY</code>{' '}
          на свой ключ и выполните команду в терминале.
        </p>
      </div>
      <div className="relative border-t border-slate-800 bg-slate-900">
        <div className="flex items-center justify-between border-b border-white/10 px-4 py-1.5">
          <span className="text-xs font-medium text-slate-400">bash</span>
          <CopyButton text={command} className="text-slate-300 hover:bg-white/10 hover:text-white" />
        </div>
        <pre className="overflow-x-auto p-4 font-mono text-[13px] leading-6 text-slate-100">
          <code>{command}</code>
        </pre>
      </div>
    </Card>
  )
}

export function DashboardPage() {
  useDocumentTitle('Дашборд')
  const noUsage = <span>{NO_USAGE_NOTE}</span>
  return (
    <>
      <PageHeading title="Дашборд" description="Баланс, расходы и первые шаги в AI Gateway." />
      <section aria-label="Показатели" className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <BalanceCard />
        <StatCard label="Всего потрачено" icon={<CoinsIcon size={15} />} note={noUsage}>
          <span className="text-slate-400">—</span>
        </StatCard>
        <StatCard label="Использовано токенов" icon={<HashIcon size={15} />} note={noUsage}>
          <span className="text-slate-400">—</span>
        </StatCard>
        <StatCard label="Запросов" icon={<ActivityIcon size={15} />} note={noUsage}>
          <span className="text-slate-400">—</span>
        </StatCard>
      </section>
      <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-5">
        <div className="lg:col-span-3">
          <QuickStart />
        </div>
        <div className="lg:col-span-2">
          <RecentTransactions />
        </div>
      </div>
      <div className="mt-6">
        <CurlExample />
      </div>
    </>
  )
}
