import { type ReactNode, useId, useState } from 'react'
import { Link } from 'wouter'
import { formatDate, formatInteger, formatRubles } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ClockIcon } from '../../components/icons'
import { textareaClasses } from '../../components/input'
import { LoadError } from '../../components/list-state'
import { testPaymentsMode } from '../../components/test-payments-banner'
import { errorMessage } from '../../lib/api'
import { toast } from '../../stores/toasts'
import { billingApi, REFUND_STATUS_LABELS, type RefundRequest, useRefund } from './billing-api'

const REASON_MAX_LENGTH = 1000

/** A request under review is the main fact of this card; a decided one is a footnote. */
function RequestStatus({ request }: { request: RefundRequest }) {
  if (request.status === 'pending') {
    return (
      <p data-testid="refund-status" className="mt-4 flex items-start gap-2 rounded-lg border border-indigo-200 bg-indigo-50 px-3 py-2.5 text-sm text-indigo-900">
        <ClockIcon size={16} className="mt-0.5 shrink-0" />
        <span>
          Заявка на возврат <span className="whitespace-nowrap">{formatRubles(request.amount)}</span> от {formatDate(request.createdAt)} на рассмотрении. Заявки рассматриваются в
          течение 5 рабочих дней.
        </span>
      </p>
    )
  }
  return (
    <p data-testid="refund-status" className="mt-4 text-sm text-slate-600">
      Последняя заявка от {formatDate(request.createdAt)} на <span className="whitespace-nowrap">{formatRubles(request.amount)}</span>:{' '}
      <span className={request.status === 'approved' ? 'font-medium text-emerald-700' : 'font-medium text-slate-800'}>{REFUND_STATUS_LABELS[request.status].toLowerCase()}</span>.
    </p>
  )
}

function RefundForm({ remainder, onSent }: { remainder: number; onSent: () => Promise<unknown> }) {
  const reasonId = useId()
  const [reason, setReason] = useState('')
  const [pending, setPending] = useState(false)

  async function submit() {
    if (pending) return
    setPending(true)
    try {
      await billingApi.requestRefund(reason.trim() || undefined)
      toast.success('Заявка на возврат отправлена')
      setReason('')
      await onSent()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отправить заявку'))
    } finally {
      setPending(false)
    }
  }

  return (
    <div className="mt-4 space-y-3">
      <div className="space-y-1.5">
        <label htmlFor={reasonId} className="text-sm font-medium text-slate-700">
          Причина возврата <span className="font-normal text-slate-500">(необязательно)</span>
        </label>
        <textarea id={reasonId} rows={3} maxLength={REASON_MAX_LENGTH} value={reason} onChange={(e) => setReason(e.target.value)} className={textareaClasses} />
      </div>
      <Button variant="secondary" loading={pending} onClick={() => void submit()} className="w-full sm:w-auto">
        Запросить возврат {formatRubles(remainder)}
      </Button>
    </div>
  )
}

/** Refund of the unspent remainder, on the terms of the refund policy (no money moves automatically). */
export function RefundSection() {
  const { data, error, isValidating, mutate } = useRefund()
  const pendingRequest = data?.request?.status === 'pending'

  let body: ReactNode
  if (data) {
    body = (
      <>
        {data.request && <RequestStatus request={data.request} />}
        {!pendingRequest && data.eligible && <RefundForm remainder={data.remainder} onSent={() => mutate()} />}
        {!pendingRequest && !data.eligible && data.reasons.length > 0 && (
          <div data-testid="refund-reasons" className="mt-4 text-sm text-slate-600">
            <p className="font-medium text-slate-700">Сейчас вернуть деньги нельзя:</p>
            <ul className="mt-1.5 list-disc space-y-1 pl-5">
              {data.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          </div>
        )}
      </>
    )
  } else if (error) {
    body = <LoadError message="Не удалось проверить условия возврата." retrying={isValidating} onRetry={() => void mutate()} />
  }

  return (
    <Card className="p-4 sm:p-6" data-testid="refund-section">
      <h2 className="text-base font-semibold text-slate-900">Возврат средств</h2>
      <p className="mt-1 text-sm text-slate-500">
        Неизрасходованный остаток можно вернуть на карту, если он больше 100 ₽, с последнего пополнения прошло не более 14 дней и у вас нет активных API ключей.{' '}
        <Link href="/refund-policy" className="font-medium text-indigo-600 hover:text-indigo-500">
          Условия возврата
        </Link>
      </p>
      {(testPaymentsMode || (data?.testTopUps ?? 0) > 0) && (
        <p data-testid="refund-test-note" className="mt-2 text-sm text-slate-500">
          Тестовые пополнения не учитываются: на тестовой странице оплаты деньги не списываются, поэтому и вернуть их нельзя.
          {(data?.testTopUps ?? 0) > 0 && ` У вас таких пополнений: ${formatInteger(data!.testTopUps)}.`}
        </p>
      )}
      {body}
    </Card>
  )
}
