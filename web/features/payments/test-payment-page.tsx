import { type ReactNode, useState } from 'react'
import useSWR from 'swr'
import { formatRubles } from '../../../src/content/format'
import type { TestPayment, TestPaymentResult } from '../../../src/wire'
import { Button, ButtonLink } from '../../components/button'
import { Card } from '../../components/card'
import { AlertCircleIcon, CheckCircleIcon, InfoIcon } from '../../components/icons'
import { PageSpinner } from '../../components/spinner'
import { ApiError, api, errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { toast } from '../../stores/toasts'

// GET /api/payments/test/:providerId (TestPayment) — public: the page is opened by the redirect, signed in or not.

type Action = 'pay' | 'cancel'

const testPath = (id: string) => `/api/payments/test/${encodeURIComponent(id)}`

function TestModeBadge() {
  return <span className="inline-flex items-center rounded-md bg-amber-100 px-2 py-1 text-xs font-semibold tracking-wide text-amber-900 uppercase">тестовый режим</span>
}

function Shell({ children }: { children: ReactNode }) {
  return <Card className="p-5 sm:p-7">{children}</Card>
}

/** A page that cannot offer payment any more: say why and lead back. */
function Notice({ icon, title, text, action }: { icon: ReactNode; title: string; text: string; action: ReactNode }) {
  return (
    <Shell>
      <div className="flex flex-col items-center text-center">
        {icon}
        <h1 className="mt-3 text-xl font-semibold text-slate-900">{title}</h1>
        <p className="mt-1.5 text-[15px] text-slate-600">{text}</p>
        <div className="mt-6 w-full">{action}</div>
      </div>
    </Shell>
  )
}

/**
 * The built-in stand-in for the card provider's page (installations without YooKassa):
 * 'Оплатить' or 'Отменить' settles the payment through the same crediting code, then the
 * browser goes back to the shop's return address, exactly as after a real payment.
 */
export function TestPaymentPage({ id }: { id: string }) {
  useDocumentTitle('Тестовая оплата')
  const { data, error, isLoading, mutate } = useSWR<TestPayment>(testPath(id), { dedupingInterval: 0 })
  const [pending, setPending] = useState<Action | null>(null)

  async function settle(action: Action) {
    if (pending) return
    setPending(action)
    try {
      const result = await api.post<TestPaymentResult>(`${testPath(id)}/${action}`, undefined, {
        fallback: 'Не удалось завершить платёж',
      })
      // Keep the buttons disabled while the browser leaves.
      window.location.assign(result.returnUrl)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось завершить платёж'))
      setPending(null)
      void mutate() // 'Платёж уже завершён': show what it became
    }
  }

  if (isLoading && !data) return <PageSpinner label="Загрузка платежа…" />

  if (error && !data) {
    const notFound = error instanceof ApiError && error.status === 404
    return (
      <Notice
        icon={<AlertCircleIcon size={36} className="text-red-500" />}
        title={notFound ? 'Платёж не найден' : 'Не удалось загрузить платёж'}
        text={notFound ? 'Ссылка устарела или в ней ошибка. Создайте новый платёж на странице баланса.' : 'Проверьте подключение и попробуйте ещё раз.'}
        action={
          notFound ? (
            <ButtonLink href="/app/billing" className="w-full">
              К странице баланса
            </ButtonLink>
          ) : (
            <Button className="w-full" onClick={() => void mutate()}>
              Повторить
            </Button>
          )
        }
      />
    )
  }
  if (!data) return null

  if (data.status !== 'pending') {
    const paid = data.status === 'succeeded'
    const canceled = data.status === 'canceled'
    return (
      <Notice
        icon={paid ? <CheckCircleIcon size={36} className="text-emerald-500" /> : <AlertCircleIcon size={36} className="text-slate-400" />}
        title={paid ? 'Платёж уже оплачен' : canceled ? 'Платёж уже отменён' : 'Платёж обрабатывается'}
        text={`${formatRubles(data.amount)} — ${paid ? 'деньги зачислены на баланс.' : canceled ? 'деньги не списывались.' : 'статус появится на странице баланса.'}`}
        action={
          <Button className="w-full" onClick={() => window.location.assign(data.returnUrl)}>
            Вернуться в AI Gateway
          </Button>
        }
      />
    )
  }

  return (
    <Shell>
      <div className="flex items-center justify-between gap-3">
        <TestModeBadge />
        <span className="text-xs text-slate-500">Платёж {data.id.slice(0, 8)}</span>
      </div>
      <h1 className="mt-4 text-xl font-semibold text-slate-900">Тестовая оплата</h1>
      <p className="mt-1 text-sm break-words text-slate-500">{data.description}</p>
      <p data-testid="test-payment-amount" className="mt-4 text-4xl font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums">
        {formatRubles(data.amount)}
      </p>
      <p data-testid="test-payment-method" className="mt-2 text-sm text-slate-600">
        {data.method === 'sbp'
          ? 'Способ оплаты: СБП. В ЮKassa здесь был бы QR-код (на телефоне — выбор банка); на оплату даётся 1 час.'
          : data.savePaymentMethod
            ? 'Способ оплаты: банковская карта. Тестовая карта **** 4444 будет сохранена для следующих платежей и автопополнения.'
            : 'Способ оплаты: банковская карта.'}
      </p>
      <div className="mt-5 flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900">
        <InfoIcon size={16} className="mt-0.5 shrink-0" />
        <p>
          Настоящие деньги не списываются: платёжная система не подключена, эта страница её заменяет. «Оплатить» — платёж пройдёт и баланс пополнится на эту сумму, «Отменить» —
          платёж будет отменён.
        </p>
      </div>
      <div className="mt-6 flex flex-col gap-2 sm:flex-row-reverse">
        <Button size="lg" className="sm:flex-1" loading={pending === 'pay'} disabled={pending === 'cancel'} onClick={() => void settle('pay')}>
          Оплатить
        </Button>
        <Button size="lg" variant="secondary" className="sm:flex-1" loading={pending === 'cancel'} disabled={pending === 'pay'} onClick={() => void settle('cancel')}>
          Отменить
        </Button>
      </div>
    </Shell>
  )
}
