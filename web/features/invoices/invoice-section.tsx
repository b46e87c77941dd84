// «Пополнить по счёту» on the team's billing page (owner, admins, billing): the company details the
// invoices name as the buyer, the amount, and the team's invoices with their status and PDF.
import { type FormEvent, type ReactNode, useState } from 'react'
import { Link } from 'wouter'
import { formatDate, formatRubles } from '../../../src/content/format'
import { AmountRow } from '../../components/amount-row'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { AlertCircleIcon, ClockIcon, FileTextIcon, InfoIcon } from '../../components/icons'
import { Input } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { parseRubles } from '../../lib/parse-rubles'
import { useSession } from '../../stores/session'
import { toast } from '../../stores/toasts'
import {
  type Company,
  type CompanyInput,
  downloadPdf,
  INVOICE_STATUS_LABELS,
  type Invoice,
  type InvoiceStatus,
  invoicesApi,
  MAX_INVOICE,
  MAX_INVOICE_MESSAGE,
  MIN_INVOICE,
  MIN_INVOICE_MESSAGE,
  useAvailability,
  useCompany,
  useInvoices,
} from './invoices-api'

const statusTone: Record<InvoiceStatus, string> = {
  issued: 'bg-amber-50 text-amber-800 ring-amber-200',
  paid: 'bg-emerald-50 text-emerald-700 ring-emerald-100',
  cancelled: 'bg-slate-100 text-slate-600 ring-slate-200',
}

export function InvoiceStatusBadge({ status }: { status: InvoiceStatus }) {
  return (
    <span
      data-testid="invoice-status"
      className={cn('inline-flex h-6 items-center rounded-full px-2.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset', statusTone[status])}
    >
      {INVOICE_STATUS_LABELS[status]}
    </span>
  )
}

/** Saves a PDF, telling the member when it could not. */
export async function savePdf(url: string, name: string) {
  try {
    await downloadPdf(url, name)
  } catch (err) {
    toast.error(errorMessage(err, 'Не удалось скачать документ'))
  }
}

const EMPTY: CompanyInput = { inn: '', kpp: '', name: '', address: '', email: '' }

function CompanyForm({ teamId, company, onDone }: { teamId: string; company: Company | null; onDone: () => void }) {
  const [form, setForm] = useState<CompanyInput>(company ? { ...company, kpp: company.kpp ?? '' } : EMPTY)
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)
  const set = (key: keyof CompanyInput) => (e: { target: { value: string } }) => {
    setForm({ ...form, [key]: e.target.value })
    if (error) setError(null)
  }
  // KPP only for organisations: a 12-digit INN is a sole trader's.
  const person = form.inn.replace(/\s+/g, '').length === 12

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    setPending(true)
    try {
      const saved = await invoicesApi.saveCompany(teamId, { ...form, kpp: person ? null : form.kpp?.trim() || null })
      toast.success(saved.innConfirmation === 'pending' ? 'Реквизиты сохранены. ИНН ждёт подтверждения администратора' : 'Реквизиты сохранены')
      onDone()
    } catch (err) {
      setError(errorMessage(err, 'Не удалось сохранить реквизиты'))
    } finally {
      setPending(false)
    }
  }

  return (
    <form noValidate onSubmit={onSubmit} data-testid="company-form" className="space-y-4">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <Input label="ИНН" name="inn" inputMode="numeric" autoComplete="off" value={form.inn} onChange={set('inn')} hint="10 цифр у организации, 12 — у ИП" required />
        <Input
          label="КПП"
          name="kpp"
          autoComplete="off"
          value={person ? '' : (form.kpp ?? '')}
          onChange={set('kpp')}
          disabled={person}
          hint={person ? 'У ИП КПП нет' : '9 символов'}
        />
      </div>
      <Input label="Полное наименование" name="name" value={form.name} onChange={set('name')} placeholder="ООО «Ромашка»" required />
      <Input label="Юридический адрес" name="address" value={form.address} onChange={set('address')} required />
      <Input label="E-mail для документов" name="email" type="email" value={form.email} onChange={set('email')} hint="Сюда придут счета в PDF" required />
      <FormAlert message={error} />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        {company && (
          <Button variant="secondary" onClick={onDone} disabled={pending}>
            Отмена
          </Button>
        )}
        <Button type="submit" loading={pending}>
          Сохранить реквизиты
        </Button>
      </div>
    </form>
  )
}

function CompanySummary({ company, onEdit }: { company: Company; onEdit: () => void }) {
  return (
    <div
      data-testid="company-summary"
      className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2.5 text-sm sm:flex-row sm:items-start sm:justify-between"
    >
      <div className="min-w-0">
        <p className="font-medium break-words text-slate-900">{company.name}</p>
        <p className="text-slate-600">
          ИНН {company.inn}
          {company.kpp && <>, КПП {company.kpp}</>}
        </p>
        <p className="break-words text-slate-500">{company.address}</p>
        <p className="break-all text-slate-500">Документы: {company.email}</p>
      </div>
      <Button variant="secondary" size="sm" onClick={onEdit}>
        Изменить реквизиты
      </Button>
    </div>
  )
}

/**
 * The company's INN another team named first: invoices wait for the site admin (issue 33). Said
 * plainly, where the issue form would be, so nobody wonders why there is no «Выставить счёт».
 */
function InnNotice({ company }: { company: Company }) {
  if (company.innConfirmation === 'pending')
    return (
      <div data-testid="inn-pending" role="status" className="mt-4 flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900">
        <ClockIcon size={16} className="mt-0.5 shrink-0" />
        <div>
          <p className="font-medium">ИНН {company.inn} ждёт подтверждения администратора</p>
          <p className="mt-1">
            Компанию с этим ИНН уже указала другая команда. Администратор сервиса проверит, что реквизиты принадлежат вам. До подтверждения выставить счёт на эту компанию нельзя, а
            платежи с этого ИНН не зачисляются на баланс команды.
          </p>
        </div>
      </div>
    )
  if (company.innConfirmation === 'rejected')
    return (
      <div data-testid="inn-rejected" role="status" className="mt-4 flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-800">
        <AlertCircleIcon size={16} className="mt-0.5 shrink-0" />
        <div>
          <p className="font-medium">ИНН {company.inn} не подтверждён администратором</p>
          <p className="mt-1">Счета на эту компанию выставлять нельзя, платежи с этого ИНН не зачисляются на баланс команды. Укажите реквизиты своей компании.</p>
        </div>
      </div>
    )
  return null
}

/** Only a team the INN is confirmed for (or that named it first) may bill in that company's name. */
const mayIssue = (company: Company) => company.innConfirmation === 'not_needed' || company.innConfirmation === 'confirmed'

function invoiceAmountError(raw: string): string | null {
  const amount = parseRubles(raw)
  if (!Number.isFinite(amount) || amount < MIN_INVOICE) return MIN_INVOICE_MESSAGE
  if (amount > MAX_INVOICE) return MAX_INVOICE_MESSAGE
  if (/[.,]\d{3,}$/.test(raw.trim())) return 'Сумма указывается в рублях с точностью до копейки'
  return null
}

function IssueForm({ teamId, email }: { teamId: string; email: string }) {
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    const invalid = invoiceAmountError(value)
    if (invalid) {
      setError(invalid)
      return
    }
    setPending(true)
    try {
      const invoice = await invoicesApi.issue(teamId, parseRubles(value))
      toast.success(`Счёт № ${invoice.number} выставлен и отправлен на ${email}`)
      setValue('')
    } catch (err) {
      setError(errorMessage(err, 'Не удалось выставить счёт'))
    } finally {
      setPending(false)
    }
  }

  return (
    <form noValidate onSubmit={onSubmit}>
      <AmountRow
        label="Сумма счёта, ₽"
        name="invoice-amount"
        placeholder="Например, 10000"
        value={value}
        onValueChange={(v) => {
          setValue(v)
          if (error) setError(null)
        }}
        error={error}
        hint="От 1 000 до 1 000 000 ₽. Деньги зачисляются после поступления оплаты на счёт сервиса."
        pending={pending}
        submitLabel="Выставить счёт"
      />
    </form>
  )
}

function InvoiceRow({ invoice, onCancel }: { invoice: Invoice; onCancel: (i: Invoice) => void }) {
  return (
    <li data-testid="invoice-row" className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <p className="text-sm font-semibold text-slate-900">
          Счёт № <span className="whitespace-nowrap">{invoice.number}</span> · <span className="whitespace-nowrap tabular-nums">{formatRubles(invoice.amountRub)}</span>
        </p>
        <p className="mt-0.5 text-xs text-slate-500">
          от {formatDate(invoice.issuedAt)}
          {invoice.paidAt && <> · оплачен {formatDate(invoice.paidAt)}</>}
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <InvoiceStatusBadge status={invoice.status} />
        <Button variant="secondary" size="sm" onClick={() => void savePdf(invoice.pdfUrl, `invoice-${invoice.number}.pdf`)} aria-label={`Скачать PDF счёта № ${invoice.number}`}>
          <FileTextIcon size={15} />
          PDF
        </Button>
        {invoice.status === 'issued' && (
          <Button variant="ghost" size="sm" onClick={() => onCancel(invoice)} aria-label={`Отменить счёт № ${invoice.number}`}>
            Отменить
          </Button>
        )}
      </div>
    </li>
  )
}

function InvoiceList({ teamId }: { teamId: string }) {
  const { data, error, isLoading, isValidating, mutate } = useInvoices(teamId)
  const [cancelling, setCancelling] = useState<Invoice | null>(null)
  const [pending, setPending] = useState(false)

  async function cancel() {
    if (!cancelling) return
    setPending(true)
    try {
      await invoicesApi.cancel(teamId, cancelling.id)
      toast.success(`Счёт № ${cancelling.number} отменён`)
      setCancelling(null)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отменить счёт'))
    } finally {
      setPending(false)
    }
  }

  let body: ReactNode
  if (data && data.length > 0)
    body = (
      <ul data-testid="invoice-list" className="divide-y divide-slate-100">
        {data.map((i) => (
          <InvoiceRow key={i.id} invoice={i} onCancel={setCancelling} />
        ))}
      </ul>
    )
  else if (data) body = <EmptyNote>Счетов пока нет</EmptyNote>
  else if (error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить счета.')} retrying={isValidating} onRetry={() => void mutate()} />
  else body = isLoading ? <ListSkeleton /> : null

  return (
    <div className="min-w-0 border-t border-slate-100 pt-4 lg:border-t-0 lg:border-l lg:pt-0 lg:pl-8">
      <div className="flex items-baseline justify-between gap-3">
        <h3 className="text-sm font-semibold text-slate-900">Счета</h3>
        <Link href="/app/team/documents" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
          Все документы
        </Link>
      </div>
      {body}
      <ConfirmDialog
        open={cancelling !== null}
        title="Отменить счёт?"
        message={cancelling ? `Счёт № ${cancelling.number} на ${formatRubles(cancelling.amountRub)} больше нельзя будет оплатить.` : ''}
        confirmLabel="Отменить счёт"
        cancelLabel="Не отменять"
        tone="danger"
        loading={pending}
        onConfirm={() => void cancel()}
        onCancel={() => setCancelling(null)}
      />
    </div>
  )
}

/** Seller details not configured: nobody is offered invoices, and only a site admin is told why. */
function NotConfigured({ className }: { className?: string }) {
  const isSiteAdmin = useSession((s) => s.user?.role === 'admin')
  if (!isSiteAdmin) return null
  return (
    <Card className={cn('p-4 sm:p-6', className)} data-testid="invoices-disabled">
      <h2 className="text-base font-semibold text-slate-900">Пополнить по счёту</h2>
      <p className="mt-2 flex items-start gap-2 text-sm text-slate-600">
        <InfoIcon size={16} className="mt-0.5 shrink-0" />
        <span>
          Оплата по счёту не подключена: не заданы реквизиты продавца. Задайте переменные окружения SELLER_NAME, SELLER_INN, SELLER_TAX_REGIME, SELLER_ACCOUNT, SELLER_BANK,
          SELLER_BIK, SELLER_CORR_ACCOUNT и SELLER_ADDRESS и перезапустите сервер. Это сообщение видят только администраторы сайта.
        </span>
      </p>
    </Card>
  )
}

/** The billing page's invoice card, in a team whose role may pay (owner, admin, billing). */
export function InvoiceSection({ className }: { className?: string }) {
  const account = useAccount()
  const allowed = account.teamId !== null && account.can('topup') && account.can('company.manage')
  const availability = useAvailability(allowed)
  const company = useCompany(allowed && availability.data?.enabled ? account.teamId : null)
  const [editing, setEditing] = useState(false)
  if (!allowed || !account.teamId || !availability.data) return null
  if (!availability.data.enabled) return <NotConfigured className={className} />
  const teamId = account.teamId
  const current = company.data?.company ?? null

  return (
    <Card className={cn('p-4 sm:p-6', className)} data-testid="invoice-section">
      <h2 className="text-base font-semibold text-slate-900">Пополнить по счёту</h2>
      <p className="mt-1 text-sm text-slate-500">Для компаний и ИП: счёт на оплату с реквизитами, оплата с расчётного счёта, закрывающие документы за каждый месяц.</p>
      <div className="mt-4 grid grid-cols-1 gap-6 lg:grid-cols-2 lg:gap-8">
        <div className="min-w-0">
          {!company.data ? (
            company.error ? (
              <LoadError message={errorMessage(company.error, 'Не удалось загрузить реквизиты.')} onRetry={() => void company.mutate()} />
            ) : (
              <ListSkeleton rows={1} />
            )
          ) : !current || editing ? (
            <>
              {!current && <p className="mb-3 text-sm text-slate-600">Укажите реквизиты компании — они войдут в счета и акты.</p>}
              <CompanyForm teamId={teamId} company={current} onDone={() => setEditing(false)} />
            </>
          ) : (
            <>
              <CompanySummary company={current} onEdit={() => setEditing(true)} />
              {mayIssue(current) ? <IssueForm teamId={teamId} email={current.email} /> : <InnNotice company={current} />}
            </>
          )}
        </div>
        <InvoiceList teamId={teamId} />
      </div>
    </Card>
  )
}
