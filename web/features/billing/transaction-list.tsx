import { useState } from 'react'
import useSWR from 'swr'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { TransactionRow } from '../../components/transaction-row'
import { TRANSACTIONS_KEY } from '../../lib/queries'
import type { Transaction } from '../../lib/types'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'

/** The first rows are what people look for; the rest of the 50 open on request. */
const COLLAPSED_ROWS = 10

/** The ledger: every movement of the balance, newest first. */
export function TransactionList() {
  const { data, error, isLoading, isValidating, mutate } = useSWR<Transaction[]>(TRANSACTIONS_KEY)
  const [expanded, setExpanded] = useState(false)
  const items = Array.isArray(data) ? data : undefined
  const shown = items && !expanded ? items.slice(0, COLLAPSED_ROWS) : items

  let body
  if (shown && shown.length > 0) {
    body = (
      <ul data-testid="transaction-list" className="divide-y divide-slate-100">
        {shown.map((tx) => (
          <TransactionRow key={tx.id} tx={tx} showBalance />
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
      <div className="flex items-baseline justify-between gap-3">
        <h2 className="text-base font-semibold text-slate-900">История операций</h2>
        {items && items.length > 0 && <span className="text-sm text-slate-500">последние {items.length}</span>}
      </div>
      <div className="mt-2">{body}</div>
      {items && items.length > COLLAPSED_ROWS && (
        <Button variant="secondary" size="sm" className="mt-3 w-full sm:w-auto" onClick={() => setExpanded((v) => !v)}>
          {expanded ? 'Свернуть' : `Показать все (${items.length})`}
        </Button>
      )}
    </Card>
  )
}
