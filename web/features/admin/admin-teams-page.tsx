// /app/admin/teams: every team with its balance, members and spend; the balance dialog adjusts a
// team's balance like a user's (a ledger row of the team with the admin as actor).
import { type ReactNode, useState } from 'react'
import { formatDate, formatInteger, formatRubles } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { WalletIcon } from '../../components/icons'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { type AdminTeam, useAdminTeams } from './admin-api'
import { SearchHeader, useDebounced } from './admin-ui'
import { BalanceDialog } from './balance-dialog'

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{children}</dd>
    </div>
  )
}

export function AdminTeamsPage() {
  useDocumentTitle('Команды')
  const [search, setSearch] = useState('')
  const query = useDebounced(search.trim(), 300)
  const { data, error, isLoading, isValidating, mutate } = useAdminTeams(query)
  const [balanceFor, setBalanceFor] = useState<AdminTeam | null>(null)

  let list: ReactNode
  if (data && data.teams.length > 0)
    list = (
      <ul className="divide-y divide-slate-100" data-testid="admin-teams">
        {data.teams.map((t) => (
          <li key={t.id} data-testid="admin-team-row" className="flex flex-col gap-3 px-4 py-4 sm:px-6 lg:flex-row lg:items-center">
            <div className="min-w-0 lg:w-72">
              <p className="font-medium break-words text-slate-900">{t.name}</p>
              <p className="text-sm break-all text-slate-500">владелец: {t.owner ?? '—'}</p>
            </div>
            <dl className="grid flex-1 grid-cols-2 gap-3 text-sm sm:grid-cols-4">
              <Figure label="Баланс">{formatRubles(t.balance)}</Figure>
              <Figure label="Участников">{formatInteger(t.members)}</Figure>
              <Figure label="Потрачено">{formatRubles(t.spent)}</Figure>
              <Figure label="Создана">{formatDate(t.createdAt)}</Figure>
            </dl>
            <Button variant="secondary" size="sm" onClick={() => setBalanceFor(t)} aria-label={`Изменить баланс команды ${t.name}`}>
              <WalletIcon size={15} />
              Баланс
            </Button>
          </li>
        ))}
      </ul>
    )
  else if (data) list = <EmptyNote>{query ? `Нет команд по запросу «${query}»` : 'Команд пока нет'}</EmptyNote>
  else if (error) list = <LoadError message={errorMessage(error, 'Не удалось загрузить команды.')} retrying={isValidating} onRetry={() => void mutate()} />
  else list = isLoading ? <ListSkeleton /> : null

  return (
    <>
      <PageHeading title="Команды" description="Балансы команд, участники и расходы; корректировка баланса команды." />
      <Card className="overflow-hidden">
        <SearchHeader value={search} onChange={setSearch} placeholder="Поиск по названию или владельцу..." label="Поиск команд" total={data?.total} searching={query !== ''} />
        <div className={cn('transition-opacity', isValidating && data && 'opacity-70')}>{list}</div>
      </Card>
      <BalanceDialog
        user={balanceFor && { kind: 'team', id: balanceFor.id, label: balanceFor.name, balance: balanceFor.balance, held: balanceFor.held }}
        onClose={() => setBalanceFor(null)}
        onDone={() => {
          setBalanceFor(null)
          void mutate()
        }}
      />
    </>
  )
}
