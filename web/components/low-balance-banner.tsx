import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { formatRubles } from '../../src/content/format'
import { useBalance } from '../lib/queries'
import { AlertCircleIcon, CloseIcon } from './icons'

/**
 * A warning, not a wall: shown above every signed-in page while the balance is under the cost
 * of about 100 typical requests. It can be hidden until the next sign-in or page load.
 */
export function LowBalanceBanner() {
  const { data } = useBalance()
  const [location] = useLocation()
  const [hidden, setHidden] = useState(false)
  if (!data?.isLow || hidden) return null
  const onBilling = location === '/app/billing'
  return (
    <div role="status" data-testid="low-balance-banner" className="border-b border-amber-200 bg-amber-50 px-4 py-2.5 text-sm text-amber-900">
      <div className="mx-auto flex max-w-6xl items-start gap-2.5 sm:items-center">
        <AlertCircleIcon size={16} className="mt-0.5 shrink-0 text-amber-600 sm:mt-0" />
        <p className="min-w-0 flex-1">
          Баланс заканчивается — осталось <span className="font-semibold whitespace-nowrap tabular-nums">{formatRubles(data.balance)}</span>. Когда он закончится, запросы к моделям
          перестанут выполняться.{' '}
          {!onBilling && (
            <Link href="/app/billing" className="font-semibold whitespace-nowrap text-amber-900 underline underline-offset-2 hover:text-amber-700">
              Пополнить баланс
            </Link>
          )}
        </p>
        <button
          type="button"
          onClick={() => setHidden(true)}
          aria-label="Скрыть предупреждение"
          className="-my-1 -mr-1 shrink-0 rounded-md p-1 text-amber-700 transition-colors hover:bg-amber-100 hover:text-amber-900"
        >
          <CloseIcon size={16} />
        </button>
      </div>
    </div>
  )
}
