import { formatDateTime, formatRubles, formatSignedRubles } from '../../src/content/format'
import { cn } from '../lib/cn'
import { describeTransaction, TRANSACTION_TYPE_LABELS, type Transaction } from '../lib/types'

/** One ledger movement: what and when on the left, the signed amount (green +, red −) on the right. */
export function TransactionRow({ tx, showBalance = false }: { tx: Transaction; showBalance?: boolean }) {
  const negative = tx.amount.trim().startsWith('-')
  const label = TRANSACTION_TYPE_LABELS[tx.type] ?? tx.type
  return (
    <li data-testid="transaction-row" data-type={tx.type} className="flex items-start justify-between gap-3 py-3">
      <div className="min-w-0">
        <p className="text-sm font-medium break-words text-slate-800">{describeTransaction(tx.description) || label || 'Операция'}</p>
        <p className="mt-0.5 text-xs text-slate-500">
          {label} ·{' '}
          <time dateTime={tx.createdAt} className="whitespace-nowrap">
            {formatDateTime(tx.createdAt)}
          </time>
        </p>
      </div>
      <div className="shrink-0 text-right">
        <p className={cn('text-sm font-semibold whitespace-nowrap tabular-nums', negative ? 'text-red-600' : 'text-emerald-700')}>{formatSignedRubles(tx.amount)}</p>
        {showBalance && (
          <p className="mt-0.5 text-xs whitespace-nowrap text-slate-500 tabular-nums">
            <span className="sr-only">Баланс после операции: </span>
            <span aria-hidden="true">→ </span>
            {formatRubles(tx.balanceAfter)}
          </p>
        )}
      </div>
    </li>
  )
}
