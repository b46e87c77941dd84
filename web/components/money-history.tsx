// The money history as people read it (GET /api/billing/transactions/grouped): usage charges one
// expandable line per Moscow day, top-ups, refunds, bonuses and adjustments line by line.
import { useState } from 'react'
import useSWR from 'swr'
import { Link } from 'wouter'
import { formatDateTime, formatInteger, formatRubles, formatSignedRubles, pluralRu } from '../../src/content/format'
import { MSK_OFFSET_MS } from '../../src/content/moscow'
import { cn } from '../lib/cn'
import type { GroupedHistoryItem, Transaction } from '../lib/types'
import { ChevronDownIcon } from './icons'
import { ListSkeleton, LoadError } from './list-state'
import { TransactionRow } from './transaction-row'

export const groupedKey = (limit: number, offset = 0) => `/api/billing/transactions/grouped?limit=${limit}&offset=${offset}`

/** How many charges one opened day lists; the rest are on the usage screen. */
const DAY_ROWS = 100

const dayFormat = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', timeZone: 'UTC' })
const dayYearFormat = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

/** '2026-11-24' (a Moscow day) → '24 ноября' (with the year when it is not this year). */
export function formatMoscowDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`)
  if (Number.isNaN(+date)) return day
  const thisYear = new Date(Date.now() + MSK_OFFSET_MS).getUTCFullYear()
  return (date.getUTCFullYear() === thisYear ? dayFormat : dayYearFormat).format(date)
}

function DayCharges({ day }: { day: string }) {
  const { data, error, isValidating, mutate } = useSWR<Transaction[]>(`/api/billing/transactions/usage-day/${day}?limit=${DAY_ROWS}`)
  if (error && !data) return <LoadError message="Не удалось загрузить запросы." retrying={isValidating} onRetry={() => void mutate()} />
  if (!data) return <ListSkeleton rows={2} />
  return (
    <>
      <ul data-testid="usage-day-charges" className="divide-y divide-slate-100">
        {data.map((tx) => (
          <li key={tx.id} data-testid="usage-day-charge" className="flex items-start justify-between gap-3 py-2">
            <div className="min-w-0">
              <p className="text-[13px] break-words text-slate-700">{tx.description}</p>
              <p className="text-xs text-slate-500">
                <time dateTime={tx.createdAt}>{formatDateTime(tx.createdAt)}</time>
              </p>
            </div>
            <p className="shrink-0 text-[13px] font-medium whitespace-nowrap text-red-600 tabular-nums">{formatSignedRubles(tx.amount)}</p>
          </li>
        ))}
      </ul>
      {data.length >= DAY_ROWS && (
        <p className="pt-2 text-xs text-slate-500">
          Показаны последние {DAY_ROWS}. Все запросы дня — на странице{' '}
          <Link href="/app/usage" className="font-medium text-indigo-600 hover:text-indigo-500">
            «Статистика»
          </Link>
          .
        </p>
      )}
    </>
  )
}

function UsageDayRow({ item, showBalance }: { item: GroupedHistoryItem; showBalance: boolean }) {
  const [open, setOpen] = useState(false)
  const day = item.day ?? ''
  const count = `${formatInteger(item.requests)} ${pluralRu(item.requests, ['запрос', 'запроса', 'запросов'])}`
  return (
    <li data-testid="transaction-row" data-type="usage" data-kind="usageDay" className="py-1">
      <button
        type="button"
        onClick={() => setOpen((v) => !v)}
        aria-expanded={open}
        className="-mx-2 flex w-[calc(100%+1rem)] items-start justify-between gap-3 rounded-lg px-2 py-2 text-left transition-colors hover:bg-slate-50"
      >
        <div className="flex min-w-0 items-start gap-1.5">
          <ChevronDownIcon size={16} className={cn('mt-0.5 shrink-0 text-slate-400 transition-transform', open && 'rotate-180')} />
          <div className="min-w-0">
            <p className="text-sm font-medium break-words text-slate-800">{item.description}</p>
            <p className="mt-0.5 text-xs text-slate-500">
              <span className="whitespace-nowrap">{formatMoscowDay(day)}</span> ·{' '}
              <span className="whitespace-nowrap" data-testid="usage-day-count">
                {count}
              </span>
            </p>
          </div>
        </div>
        <div className="shrink-0 text-right">
          <p className="text-sm font-semibold whitespace-nowrap text-red-600 tabular-nums">{formatSignedRubles(item.amount)}</p>
          {showBalance && (
            <p className="mt-0.5 text-xs whitespace-nowrap text-slate-500 tabular-nums">
              <span className="sr-only">Баланс после списаний дня: </span>
              <span aria-hidden="true">→ </span>
              {formatRubles(item.balanceAfter)}
            </p>
          )}
        </div>
      </button>
      {open && (
        <div className="mb-2 ml-5.5 border-l border-slate-200 pl-3">
          <DayCharges day={day} />
        </div>
      )}
    </li>
  )
}

/** One line of the grouped history. */
export function HistoryRow({ item, showBalance = false }: { item: GroupedHistoryItem; showBalance?: boolean }) {
  if (item.kind === 'usageDay') return <UsageDayRow item={item} showBalance={showBalance} />
  return <TransactionRow tx={item} showBalance={showBalance} />
}
