import type { ReactNode } from 'react'
import { formatDateTime, formatRubles } from '../../../src/content/format'
import { Card } from '../../components/card'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { cn } from '../../lib/cn'
import { usePayments } from '../../lib/queries'
import { PAYMENT_STATUS_LABELS, type PaymentStatus } from './billing-api'

const badgeTone: Record<PaymentStatus, string> = {
  pending: 'bg-amber-50 text-amber-800 ring-amber-200',
  succeeded: 'bg-emerald-50 text-emerald-700 ring-emerald-100',
  canceled: 'bg-slate-100 text-slate-600 ring-slate-200',
  review: 'bg-violet-50 text-violet-700 ring-violet-200',
}

export function PaymentStatusBadge({ status }: { status: PaymentStatus }) {
  return (
    <span
      data-testid="payment-status"
      className={cn('inline-flex h-6 items-center rounded-full px-2.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset', badgeTone[status])}
    >
      {PAYMENT_STATUS_LABELS[status] ?? status}
    </span>
  )
}

/** Card payments, newest first (the spec fetches 20). */
export function PaymentList() {
  const { data, error, isLoading, isValidating, mutate } = usePayments()
  const items = Array.isArray(data) ? data : undefined

  let body: ReactNode
  if (items && items.length > 0) {
    body = (
      <ul data-testid="payment-list" className="divide-y divide-slate-100">
        {items.map((p) => (
          <li key={p.id} data-testid="payment-row" className="flex items-start justify-between gap-3 py-3">
            <div className="min-w-0">
              <p className="text-sm font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatRubles(p.amount)}</p>
              <p className="mt-0.5 text-xs text-slate-500">
                <time dateTime={p.createdAt} className="whitespace-nowrap">
                  {formatDateTime(p.createdAt)}
                </time>
                {p.method === 'sbp' && <span className="whitespace-nowrap"> · СБП</span>}
                {p.auto && <span className="whitespace-nowrap"> · автопополнение</span>}
                {p.test && <span className="whitespace-nowrap"> · тестовый платёж</span>}
              </p>
              {p.status === 'canceled' && p.cancelReason && <p className="mt-0.5 text-xs break-words text-slate-500">{p.cancelReason}</p>}
            </div>
            <PaymentStatusBadge status={p.status} />
          </li>
        ))}
      </ul>
    )
  } else if (items) {
    body = <EmptyNote>Платежей пока не было</EmptyNote>
  } else if (error) {
    body = <LoadError message="Не удалось загрузить платежи." retrying={isValidating} onRetry={() => void mutate()} />
  } else {
    body = isLoading ? <ListSkeleton rows={2} /> : null
  }

  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Платежи</h2>
      <div className="mt-2">{body}</div>
    </Card>
  )
}
