// The balance as the billing page opens with it: the figure, whether it runs low, the last top-up.
import { formatDate, formatRubles } from '../../../src/content/format'
import { Card } from '../../components/card'
import { AlertCircleIcon } from '../../components/icons'
import { useAccount } from '../../lib/account'
import { useBalance, usePayments } from '../../lib/queries'
import { useSession } from '../../stores/session'

/** The latest successful top-up, for the balance card (the payment list is loaded anyway). */
function LastTopUp() {
  const { data } = usePayments()
  if (!Array.isArray(data)) return null
  const last = data.find((p) => p.status === 'succeeded')
  return (
    <div className="text-sm">
      <p className="text-xs text-slate-500">Последнее пополнение</p>
      <p className="mt-0.5 font-medium text-slate-800">
        {last ? (
          <>
            <span className="whitespace-nowrap">{formatRubles(last.amount)}</span> · <span className="whitespace-nowrap">{formatDate(last.paidAt ?? last.createdAt)}</span>
          </>
        ) : (
          <span className="font-normal text-slate-500">пока не было</span>
        )}
      </p>
    </div>
  )
}

export function BalanceCard() {
  const { data } = useBalance()
  const { teamId } = useAccount()
  const stored = useSession((s) => s.user?.balance)
  const balance = data?.balance ?? (teamId ? undefined : stored)
  return (
    <Card className="flex flex-col p-4 sm:p-6">
      <h2 className="text-sm font-medium text-slate-500">{teamId ? 'Баланс команды' : 'Текущий баланс'}</h2>
      <p data-testid="billing-balance" className="mt-2 text-3xl font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums">
        {formatRubles(balance)}
      </p>
      {data?.isLow ? (
        <p className="mt-2 flex items-start gap-2 text-sm text-amber-800">
          <AlertCircleIcon size={16} className="mt-0.5 shrink-0" />
          <span>Баланс заканчивается: его хватит меньше чем на 100 типичных запросов.</span>
        </p>
      ) : (
        <p className="mt-2 text-sm text-slate-500">Списывается по мере запросов к моделям, по цене, показанной до отправки.</p>
      )}
      {/* mt-auto: on wide screens the card is as tall as the form beside it */}
      <div className="mt-5 border-t border-slate-100 pt-4 lg:mt-auto">
        <LastTopUp />
      </div>
    </Card>
  )
}
