// /app/team/documents: the team's invoices and its closing documents, one per Moscow calendar month
// with spending (for a self-employed seller the receipt data), each with its PDF.
import type { ReactNode } from 'react'
import { formatDate, formatRubles } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FileTextIcon } from '../../components/icons'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { InvoiceStatusBadge, savePdf } from './invoice-section'
import { type TeamDocument, useAvailability, useDocuments } from './invoices-api'

/** «2026-11» → «ноябрь 2026». */
export function monthName(period: string): string {
  const [year, month] = period.split('-').map(Number)
  const name = new Date(Date.UTC(year!, month! - 1, 15)).toLocaleString('ru-RU', { month: 'long', timeZone: 'UTC' })
  return `${name} ${year}`
}

function DocumentRow({ doc, npd }: { doc: TeamDocument; npd: boolean }) {
  const title = doc.kind === 'invoice' ? `Счёт № ${doc.number}` : `${npd ? 'Данные для чеков' : 'Акт'} № ${doc.number} за ${monthName(doc.period ?? '')}`
  return (
    <li data-testid="document-row" data-kind={doc.kind} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between sm:px-6">
      <div className="min-w-0">
        <p className="text-sm font-semibold break-words text-slate-900">{title}</p>
        <p className="mt-0.5 text-xs text-slate-500">
          {doc.kind === 'invoice' ? `от ${formatDate(doc.date)}` : doc.preliminary ? 'месяц ещё идёт: сумма изменится' : `на ${formatDate(doc.date)}`}
          {' · '}
          <span className="whitespace-nowrap tabular-nums">{formatRubles(doc.amountRub)}</span>
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {doc.status && <InvoiceStatusBadge status={doc.status} />}
        <Button variant="secondary" size="sm" onClick={() => void savePdf(doc.pdfUrl, `${doc.kind}-${doc.number}.pdf`)} aria-label={`Скачать PDF: ${title}`}>
          <FileTextIcon size={15} />
          Скачать PDF
        </Button>
      </div>
    </li>
  )
}

export function DocumentsPage() {
  useDocumentTitle('Документы')
  const account = useAccount()
  const { data, error, isLoading, isValidating, mutate } = useDocuments(account.teamId)
  const availability = useAvailability()
  const npd = availability.data?.taxRegime === 'npd'

  let body: ReactNode
  if (data && data.length > 0)
    body = (
      <ul data-testid="document-list" className="divide-y divide-slate-100">
        {data.map((d) => (
          <DocumentRow key={`${d.kind}:${d.id}`} doc={d} npd={npd} />
        ))}
      </ul>
    )
  else if (data) body = <EmptyNote>Документов пока нет: счета появятся, когда вы их выставите, акты — за месяцы с расходами.</EmptyNote>
  else if (error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить документы.')} retrying={isValidating} onRetry={() => void mutate()} />
  else body = isLoading ? <ListSkeleton /> : null

  return (
    <>
      <PageHeading
        title="Документы"
        description={
          npd
            ? 'Счета команды и данные для чеков за каждый месяц с расходами (по московскому времени).'
            : 'Счета команды и акты за каждый месяц с расходами (по московскому времени).'
        }
      />
      <Card className="overflow-hidden">{body}</Card>
    </>
  )
}
