// /app/admin/invoices: the bank statement upload (1C exchange file) with what it credited and what
// did not match, the unmatched payments assigned to an invoice by hand, and «Отметить оплаченным»
// for an invoice paid some other way. Every credit happens once, whoever presses what.
import { type FormEvent, type ReactNode, useId, useRef, useState } from 'react'
import { formatDate, formatRubles } from '../../../src/content/format'
import { Button, buttonClasses } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { CheckCircleIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { toast } from '../../stores/toasts'
import { type AdminInvoice, type BankPayment, invoicesApi, type StatementResult, useBankPayments, useIssuedInvoices } from './invoices-api'

function StatementUpload() {
  const inputId = useId()
  const fileRef = useRef<HTMLInputElement>(null)
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [result, setResult] = useState<StatementResult | null>(null)
  const [chosen, setChosen] = useState<string | null>(null)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const file = fileRef.current?.files?.[0]
    if (!file) {
      setError('Выберите файл выписки')
      return
    }
    setPending(true)
    setError(null)
    try {
      setResult(await invoicesApi.importStatement(file))
      if (fileRef.current) fileRef.current.value = ''
      setChosen(null)
    } catch (err) {
      setError(errorMessage(err, 'Не удалось загрузить выписку'))
    } finally {
      setPending(false)
    }
  }

  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Загрузить выписку</h2>
      <p className="mt-1 text-sm text-slate-500">
        Выгрузка из банка в формате 1С (1CClientBankExchange, Windows-1251 или UTF-8). Поступления сопоставляются со счетами по номеру в назначении платежа, сумме и ИНН
        плательщика; повторная загрузка ничего не зачисляет второй раз.
      </p>
      <form noValidate onSubmit={onSubmit} className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="min-w-0 flex-1 space-y-1.5">
          <label htmlFor={inputId} className="text-sm font-medium text-slate-700">
            Файл выписки
          </label>
          {/* The native picker speaks the browser's language: a Russian button stands in for it. */}
          <div className="flex items-center gap-3">
            <input
              ref={fileRef}
              id={inputId}
              name="file"
              type="file"
              accept=".txt,text/plain"
              className="peer sr-only"
              onChange={(e) => {
                setError(null)
                setChosen(e.target.files?.[0]?.name ?? null)
              }}
            />
            <label
              htmlFor={inputId}
              className={cn(
                buttonClasses('secondary', 'md'),
                'cursor-pointer peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-500',
              )}
            >
              Выбрать файл
            </label>
            <span className="min-w-0 truncate text-sm text-slate-600">{chosen ?? 'Файл не выбран'}</span>
          </div>
        </div>
        <Button type="submit" loading={pending}>
          Загрузить
        </Button>
      </form>
      {error && (
        <div className="mt-3">
          <FormAlert message={error} />
        </div>
      )}
      {result && (
        <div data-testid="statement-result" className="mt-4 space-y-2 text-sm">
          <p className="text-slate-600">
            Поступлений в файле: {result.payments}
            {result.alreadyImported > 0 && <>, из них загружены раньше: {result.alreadyImported}</>}.
          </p>
          {result.credited.length > 0 ? (
            <ul className="space-y-1">
              {result.credited.map((c) => (
                <li key={c.invoiceId} data-testid="credited-row" className="flex items-start gap-2 text-emerald-800">
                  <CheckCircleIcon size={16} className="mt-0.5 shrink-0" />
                  <span>
                    Зачислено <span className="whitespace-nowrap">{formatRubles(c.amountRub)}</span> по счёту № {c.invoice} — команда «{c.teamName}»
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-slate-600">Новых зачислений нет.</p>
          )}
          {result.unmatched.length > 0 && <p className="text-amber-800">Не сопоставлено: {result.unmatched.length} — см. список ниже.</p>}
        </div>
      )}
    </Card>
  )
}

function PaymentRow({ payment }: { payment: BankPayment }) {
  const inputId = useId()
  const [invoice, setInvoice] = useState(payment.number ?? '')
  const [pending, setPending] = useState<'assign' | 'dismiss' | null>(null)
  const [error, setError] = useState<string | null>(null)

  async function assign(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    setPending('assign')
    setError(null)
    try {
      const done = await invoicesApi.assign(payment.id, invoice)
      toast.success(`Зачислено ${formatRubles(done.amountRub)} по счёту № ${done.invoice}`)
    } catch (err) {
      setError(errorMessage(err, 'Не удалось зачислить платёж'))
    } finally {
      setPending(null)
    }
  }

  async function dismiss() {
    setPending('dismiss')
    try {
      await invoicesApi.dismiss(payment.id)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось скрыть платёж'))
    } finally {
      setPending(null)
    }
  }

  return (
    <li data-testid="unmatched-row" className="space-y-2 px-4 py-4 sm:px-6">
      <div className="flex flex-col gap-1 sm:flex-row sm:items-baseline sm:justify-between">
        <p className="text-sm font-semibold break-words text-slate-900">
          <span className="whitespace-nowrap tabular-nums">{formatRubles(payment.amountRub)}</span> от {payment.payerName}, ИНН {payment.payerInn}
        </p>
        <p className="text-xs whitespace-nowrap text-slate-500">
          п/п № {payment.paymentNumber} · {formatDate(payment.date)}
        </p>
      </div>
      <p className="text-sm break-words text-slate-600">«{payment.purpose}»</p>
      <p data-testid="unmatched-reason" className="text-sm font-medium text-amber-800">
        {payment.reasonText ?? 'Не сопоставлен'}
      </p>
      <form noValidate onSubmit={assign} className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <label htmlFor={inputId} className="text-sm text-slate-700 sm:whitespace-nowrap">
          Номер счёта
        </label>
        <input id={inputId} value={invoice} onChange={(e) => setInvoice(e.target.value)} placeholder="2026-000123" className={cn(inputClasses, 'sm:w-44')} />
        <Button type="submit" size="sm" loading={pending === 'assign'} disabled={pending !== null || !invoice.trim()}>
          Зачислить по счёту
        </Button>
        <Button variant="ghost" size="sm" onClick={() => void dismiss()} loading={pending === 'dismiss'} disabled={pending !== null}>
          Не относится к счетам
        </Button>
      </form>
      {error && <FormAlert message={error} />}
    </li>
  )
}

function UnmatchedPayments() {
  const { data, error, isLoading, isValidating, mutate } = useBankPayments()
  let body: ReactNode
  if (data && data.length > 0)
    body = (
      <ul data-testid="unmatched-list" className="divide-y divide-slate-100">
        {data.map((p) => (
          <PaymentRow key={p.id} payment={p} />
        ))}
      </ul>
    )
  else if (data) body = <EmptyNote>Все поступления сопоставлены</EmptyNote>
  else if (error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить поступления.')} retrying={isValidating} onRetry={() => void mutate()} />
  else body = isLoading ? <ListSkeleton /> : null
  return (
    <Card className="overflow-hidden">
      <div className="border-b border-slate-100 px-4 py-3 sm:px-6">
        <h2 className="text-base font-semibold text-slate-900">Несопоставленные поступления</h2>
        <p className="mt-0.5 text-sm text-slate-500">Укажите счёт, по которому зачислить поступление, или скройте платёж, не относящийся к счетам.</p>
      </div>
      {body}
    </Card>
  )
}

function IssuedInvoices() {
  const { data, error, isLoading, isValidating, mutate } = useIssuedInvoices()
  const [marking, setMarking] = useState<AdminInvoice | null>(null)
  const [pending, setPending] = useState(false)

  async function markPaid() {
    if (!marking) return
    setPending(true)
    try {
      await invoicesApi.markPaid(marking.id)
      toast.success(`Счёт № ${marking.number} оплачен: ${formatRubles(marking.amountRub)} зачислено команде «${marking.teamName}»`)
      setMarking(null)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отметить счёт оплаченным'))
    } finally {
      setPending(false)
    }
  }

  let body: ReactNode
  if (data && data.length > 0)
    body = (
      <ul data-testid="issued-invoices" className="divide-y divide-slate-100">
        {data.map((i) => (
          <li key={i.id} data-testid="issued-invoice-row" className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between sm:px-6">
            <div className="min-w-0">
              <p className="text-sm font-semibold text-slate-900">
                Счёт № <span className="whitespace-nowrap">{i.number}</span> · <span className="whitespace-nowrap tabular-nums">{formatRubles(i.amountRub)}</span>
              </p>
              <p className="mt-0.5 text-xs break-words text-slate-500">
                команда «{i.teamName}» · {i.buyer.name}, ИНН {i.buyer.inn} · от {formatDate(i.issuedAt)}
              </p>
            </div>
            <Button variant="secondary" size="sm" onClick={() => setMarking(i)} aria-label={`Отметить оплаченным счёт № ${i.number}`}>
              Отметить оплаченным
            </Button>
          </li>
        ))}
      </ul>
    )
  else if (data) body = <EmptyNote>Неоплаченных счетов нет</EmptyNote>
  else if (error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить счета.')} retrying={isValidating} onRetry={() => void mutate()} />
  else body = isLoading ? <ListSkeleton /> : null

  return (
    <Card className="overflow-hidden">
      <div className="border-b border-slate-100 px-4 py-3 sm:px-6">
        <h2 className="text-base font-semibold text-slate-900">Ожидают оплаты</h2>
        <p className="mt-0.5 text-sm text-slate-500">Счёт, оплаченный без выписки, можно отметить оплаченным вручную: сумма счёта зачисляется команде один раз.</p>
      </div>
      {body}
      <ConfirmDialog
        open={marking !== null}
        title="Отметить счёт оплаченным?"
        message={marking ? `${formatRubles(marking.amountRub)} будут зачислены на баланс команды «${marking.teamName}» по счёту № ${marking.number}.` : ''}
        confirmLabel="Отметить оплаченным"
        loading={pending}
        onConfirm={() => void markPaid()}
        onCancel={() => setMarking(null)}
      />
    </Card>
  )
}

export function AdminInvoicesPage() {
  useDocumentTitle('Счета и выписки')
  return (
    <>
      <PageHeading title="Счета и выписки" description="Оплата по счетам: загрузка банковской выписки, ручное сопоставление поступлений и отметка об оплате." />
      <div className="space-y-6">
        <StatementUpload />
        <UnmatchedPayments />
        <IssuedInvoices />
      </div>
    </>
  )
}
