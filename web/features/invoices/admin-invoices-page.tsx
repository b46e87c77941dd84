// /app/admin/invoices: the bank statement upload (1C exchange file) with what it credited and what
// did not match, the unmatched payments assigned to an invoice by hand, and «Отметить оплаченным»
// for an invoice paid some other way. Every credit happens once, whoever presses what. On top, the INNs
// that more than one team named, waiting for the admin's decision (issue 33).
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
import {
  type AdminInvoice,
  type BankPayment,
  INN_CONFIRMATION_LABELS,
  type InnConfirmation,
  type InnRegistration,
  invoicesApi,
  type StatementResult,
  useBankPayments,
  useInnConflicts,
  useIssuedInvoices,
} from './invoices-api'

const innTone: Record<InnConfirmation, string> = {
  not_needed: 'bg-slate-100 text-slate-700 ring-slate-200',
  pending: 'bg-amber-50 text-amber-800 ring-amber-200',
  confirmed: 'bg-emerald-50 text-emerald-700 ring-emerald-100',
  rejected: 'bg-red-50 text-red-700 ring-red-100',
}

type InnDecision = { registration: InnRegistration; decision: 'confirm' | 'reject' }

/**
 * INNs named by more than one team, with a registration awaiting the admin: invoices in that company's
 * name and its statement payments wait until the admin confirms the team. The first team may be the
 * impostor, so it can be rejected too.
 */
function InnConflicts() {
  const { data, error, isLoading, isValidating, mutate } = useInnConflicts()
  const [deciding, setDeciding] = useState<InnDecision | null>(null)
  const [pending, setPending] = useState(false)

  async function decide() {
    if (!deciding) return
    const { registration: r, decision } = deciding
    setPending(true)
    try {
      await invoicesApi.reviewInn(r.teamId, r.inn, decision)
      toast.success(decision === 'confirm' ? `ИНН ${r.inn} подтверждён для команды «${r.teamName}»` : `ИНН ${r.inn} отклонён для команды «${r.teamName}»`)
      setDeciding(null)
    } catch (err) {
      toast.error(errorMessage(err, decision === 'confirm' ? 'Не удалось подтвердить ИНН' : 'Не удалось отклонить ИНН'))
    } finally {
      setPending(false)
    }
  }

  let body: ReactNode
  if (data && data.length > 0)
    body = (
      <ul data-testid="inn-conflicts" className="divide-y divide-slate-100">
        {data.map((c) => (
          <li key={c.inn} data-testid="inn-conflict" className="px-4 py-4 sm:px-6">
            <p className="text-sm font-semibold text-slate-900">
              ИНН <span className="tabular-nums">{c.inn}</span> · команд: {c.registrations.length}
            </p>
            <ul className="mt-2 space-y-2">
              {c.registrations.map((r) => (
                <li
                  key={r.teamId}
                  data-testid="inn-registration"
                  className="flex flex-col gap-2 rounded-lg border border-slate-200 px-3 py-2.5 sm:flex-row sm:items-center sm:justify-between"
                >
                  <div className="min-w-0 text-sm">
                    <p className="font-medium break-words text-slate-900">команда «{r.teamName}»</p>
                    <p className="break-words text-slate-600">
                      {r.name}
                      {r.kpp && <>, КПП {r.kpp}</>}
                    </p>
                    <p className="text-xs text-slate-500">
                      <span className="break-all">{r.email}</span> · <span className="whitespace-nowrap">реквизиты от {formatDate(r.updatedAt)}</span>
                    </p>
                  </div>
                  <div className="flex flex-wrap items-center gap-2">
                    <span
                      data-testid="inn-status"
                      className={cn('inline-flex h-6 items-center rounded-full px-2.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset', innTone[r.innConfirmation])}
                    >
                      {INN_CONFIRMATION_LABELS[r.innConfirmation]}
                    </span>
                    {(r.innConfirmation === 'pending' || r.innConfirmation === 'rejected') && (
                      <Button size="sm" onClick={() => setDeciding({ registration: r, decision: 'confirm' })} aria-label={`Подтвердить ИНН для команды «${r.teamName}»`}>
                        Подтвердить
                      </Button>
                    )}
                    {r.innConfirmation !== 'rejected' && (
                      <Button
                        variant="ghost"
                        size="sm"
                        onClick={() => setDeciding({ registration: r, decision: 'reject' })}
                        aria-label={`Отклонить ИНН для команды «${r.teamName}»`}
                      >
                        Отклонить
                      </Button>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    )
  else if (data) body = <EmptyNote>Нет ИНН, ждущих подтверждения</EmptyNote>
  else if (error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить ИНН команд.')} retrying={isValidating} onRetry={() => void mutate()} />
  else body = isLoading ? <ListSkeleton /> : null

  const r = deciding?.registration
  return (
    <Card className="overflow-hidden" data-testid="inn-conflicts-card">
      <div className="border-b border-slate-100 px-4 py-3 sm:px-6">
        <h2 className="text-base font-semibold text-slate-900">Один ИНН у нескольких команд</h2>
        <p className="mt-0.5 text-sm text-slate-500">
          Команда, указавшая ИНН, который уже есть у другой команды, не может выставлять счета на эту компанию и получать её платежи, пока вы не подтвердите, что реквизиты
          принадлежат ей.
        </p>
      </div>
      {body}
      <ConfirmDialog
        open={deciding !== null}
        title={deciding?.decision === 'confirm' ? 'Подтвердить ИНН?' : 'Отклонить ИНН?'}
        message={
          !r
            ? ''
            : deciding?.decision === 'confirm'
              ? `Команда «${r.teamName}» сможет выставлять счета на ${r.name} (ИНН ${r.inn}) и получать платежи с этого ИНН по своим счетам. Подтверждайте, только если убедились, что компания — её.`
              : `Команда «${r.teamName}» не сможет выставлять счета на ИНН ${r.inn}; платежи с этого ИНН по её счетам останутся несопоставленными.`
        }
        confirmLabel={deciding?.decision === 'confirm' ? 'Подтвердить' : 'Отклонить'}
        tone={deciding?.decision === 'reject' ? 'danger' : 'primary'}
        loading={pending}
        onConfirm={() => void decide()}
        onCancel={() => setDeciding(null)}
      />
    </Card>
  )
}

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
        <InnConflicts />
        <StatementUpload />
        <UnmatchedPayments />
        <IssuedInvoices />
      </div>
    </>
  )
}
