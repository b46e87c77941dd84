import { type ReactNode, useEffect, useRef, useState } from 'react'
import useSWR from 'swr'
import { formatRubles } from '../../../src/content/format'
import { AlertCircleIcon, CheckCircleIcon, ClockIcon, CloseIcon } from '../../components/icons'
import { Spinner } from '../../components/spinner'
import { ApiError } from '../../lib/api'
import { cn } from '../../lib/cn'
import { revalidateMoney } from '../../lib/queries'
import { type Payment, paymentKey } from './billing-api'

/** While the provider has not answered: ask every 2 s, for about 2 minutes, then stop and explain. */
const POLL_MS = 2000
const POLL_FOR_MS = 2 * 60 * 1000

type Tone = 'success' | 'error' | 'waiting' | 'info'

const tones: Record<Tone, { box: string; icon: string }> = {
  success: { box: 'border-emerald-200 bg-emerald-50 text-emerald-900', icon: 'text-emerald-600' },
  error: { box: 'border-red-200 bg-red-50 text-red-900', icon: 'text-red-600' },
  waiting: { box: 'border-indigo-200 bg-indigo-50 text-indigo-900', icon: 'text-indigo-600' },
  info: { box: 'border-amber-200 bg-amber-50 text-amber-900', icon: 'text-amber-600' },
}

function Banner({ tone, icon, title, children, onClose }: { tone: Tone; icon: ReactNode; title: string; children?: ReactNode; onClose: () => void }) {
  return (
    <div role="status" data-testid="payment-outcome" data-tone={tone} className={cn('mb-6 flex items-start gap-3 rounded-xl border p-4', tones[tone].box)}>
      <span className={cn('mt-0.5 shrink-0', tones[tone].icon)}>{icon}</span>
      <div className="min-w-0 flex-1">
        <p className="font-semibold">{title}</p>
        {children && <div className="mt-0.5 text-sm opacity-90">{children}</div>}
      </div>
      <button type="button" onClick={onClose} aria-label="Скрыть сообщение" className="-my-1 -mr-1 rounded-md p-1 opacity-60 transition-opacity hover:opacity-100">
        <CloseIcon size={16} />
      </button>
    </div>
  )
}

/** The provider's reason, unless it only repeats the banner's title. */
function cancelReason(payment: Payment): string | null {
  const reason = payment.cancelReason?.trim().replace(/\.$/, '')
  return reason && reason.toLowerCase() !== 'платёж отменён' ? reason : null
}

/**
 * The return from the payment page (/app/billing?payment=<id>): what became of the payment.
 * A success refreshes the balance and the histories, since the money has just arrived.
 */
export function PaymentOutcome({ paymentId, onClose }: { paymentId: string; onClose: () => void }) {
  const [startedAt] = useState(() => Date.now())
  const [gaveUp, setGaveUp] = useState(false)
  const { data, error } = useSWR<Payment>(paymentKey(paymentId), {
    // polling needs a deduping window shorter than its period
    dedupingInterval: 0,
    refreshInterval: (latest) => (latest?.status === 'pending' && !gaveUp ? POLL_MS : 0),
    onSuccess: (latest) => {
      if (latest.status === 'pending' && Date.now() - startedAt > POLL_FOR_MS) setGaveUp(true)
    },
  })

  // Refresh the money once per outcome (not on every poll).
  const settled = useRef<string | null>(null)
  useEffect(() => {
    const status = data?.status
    if (!status || status === 'pending' || settled.current === status) return
    settled.current = status
    void revalidateMoney()
  }, [data?.status])

  if (error) {
    const notFound = error instanceof ApiError && error.status === 404
    return (
      <Banner tone="error" icon={<AlertCircleIcon size={20} />} title={notFound ? 'Платёж не найден' : 'Не удалось узнать статус платежа'} onClose={onClose}>
        {notFound ? 'Проверьте историю платежей ниже.' : 'Обновите страницу чуть позже — статус платежа сохранится.'}
      </Banner>
    )
  }
  if (!data) {
    return <Banner tone="waiting" icon={<Spinner size={20} />} title="Проверяем платёж…" onClose={onClose} />
  }

  const amount = <span className="font-medium whitespace-nowrap">{formatRubles(data.amount)}</span>
  switch (data.status) {
    case 'succeeded':
      return (
        <Banner tone="success" icon={<CheckCircleIcon size={20} />} title="Оплата прошла успешно" onClose={onClose}>
          Баланс пополнен на {amount}.
        </Banner>
      )
    case 'canceled':
      return (
        <Banner tone="error" icon={<AlertCircleIcon size={20} />} title="Платёж отменён" onClose={onClose}>
          {cancelReason(data) && <>Причина: {cancelReason(data)}. </>}
          Деньги не списаны, баланс не изменился. Можно попробовать ещё раз.
        </Banner>
      )
    case 'review':
      return (
        <Banner tone="info" icon={<ClockIcon size={20} />} title="Платёж на проверке" onClose={onClose}>
          Платёж на {amount} проверяет служба поддержки. Деньги будут зачислены после проверки.
        </Banner>
      )
    default:
      return gaveUp ? (
        <Banner tone="info" icon={<ClockIcon size={20} />} title="Платёж ещё обрабатывается" onClose={onClose}>
          Банк пока не подтвердил оплату {amount}. Баланс пополнится автоматически, как только придёт подтверждение, — обновите страницу позже.
        </Banner>
      ) : (
        <Banner tone="waiting" icon={<Spinner size={20} />} title="Ожидаем подтверждение оплаты…" onClose={onClose}>
          Платёж на {amount}. Страница обновится сама, обычно это занимает несколько секунд.
        </Banner>
      )
  }
}
