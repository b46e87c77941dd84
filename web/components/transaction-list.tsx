import type { ReactNode } from 'react'
import { mutate } from 'swr'
import useSWRInfinite, { unstable_serialize } from 'swr/infinite'
import type { GroupedHistoryPage } from '../lib/types'
import { Button } from './button'
import { Card } from './card'
import { EmptyNote, ListSkeleton, LoadError } from './list-state'
import { groupedKey, HistoryRow } from './money-history'

/** Lines per page: a day of requests is one line, so 20 lines cover weeks. */
const PAGE = 20

const pageKey = (index: number, previous: GroupedHistoryPage | null) => (previous && !previous.hasMore ? null : groupedKey(PAGE, index * PAGE))

/**
 * Asks for the history again from outside the list, after money moved on this screen (a promo code).
 * A key filter passed to SWR's mutate never reaches a useSWRInfinite list, so lib/queries'
 * revalidateMoney alone leaves this one as it was.
 */
export const revalidateHistory = () => mutate(unstable_serialize(pageKey))

/** The money history: usage charges one line per Moscow day, other movements one by one, newest first. */
export function TransactionList() {
  const { data, error, isLoading, isValidating, mutate, size, setSize } = useSWRInfinite<GroupedHistoryPage>(pageKey)
  const items = data?.flatMap((p) => p.items)
  const hasMore = data?.[data.length - 1]?.hasMore ?? false
  const loadingMore = isValidating && data !== undefined && size > data.length

  let body: ReactNode
  if (items && items.length > 0) {
    body = (
      <ul data-testid="transaction-list" className="divide-y divide-slate-100">
        {items.map((item) => (
          <HistoryRow key={item.id} item={item} showBalance />
        ))}
      </ul>
    )
  } else if (items) {
    body = <EmptyNote>Операций пока нет</EmptyNote>
  } else if (error) {
    body = <LoadError message="Не удалось загрузить операции." retrying={isValidating} onRetry={() => void mutate()} />
  } else {
    body = isLoading ? <ListSkeleton /> : null
  }

  return (
    <Card className="p-4 sm:p-6">
      <div className="flex flex-col gap-0.5 sm:flex-row sm:items-baseline sm:justify-between sm:gap-3">
        <h2 className="text-base font-semibold text-slate-900">История операций</h2>
        <span className="text-xs text-slate-500">списания за запросы — по дням (МСК)</span>
      </div>
      <div className="mt-2">{body}</div>
      {hasMore && (
        <Button variant="secondary" size="sm" className="mt-3 w-full sm:w-auto" loading={loadingMore} onClick={() => void setSize(size + 1)}>
          Показать ещё
        </Button>
      )}
    </Card>
  )
}
