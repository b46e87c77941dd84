// /app/admin/teams: every team with its balance, members and spend; the balance dialog adjusts a
// team's balance like a user's (a ledger row of the team with the admin as actor).
import { type ReactNode, useEffect, useState } from 'react'
import { formatDate, formatInteger, formatRubles } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { SearchIcon, WalletIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { type AdminTeam, useAdminTeams } from './admin-api'
import { BalanceDialog } from './balance-dialog'

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

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
        <div className="flex flex-col gap-3 border-b border-slate-200 px-4 py-4 sm:flex-row sm:items-center sm:justify-between sm:px-6">
          <div className="relative w-full sm:max-w-sm">
            <SearchIcon size={16} className="pointer-events-none absolute top-1/2 left-3 -translate-y-1/2 text-slate-400" />
            <input
              type="search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Поиск по названию или владельцу..."
              aria-label="Поиск команд"
              className={cn(inputClasses, 'pl-9')}
            />
          </div>
          <p className="text-sm whitespace-nowrap text-slate-500" aria-live="polite">
            {data ? (
              <>
                {query ? 'Найдено' : 'Всего'}: <span className="font-medium text-slate-900 tabular-nums">{formatInteger(data.total)}</span>
              </>
            ) : (
              '\u00a0'
            )}
          </p>
        </div>
        <div className={cn('transition-opacity', isValidating && data && 'opacity-70')}>{list}</div>
      </Card>
      <BalanceDialog
        user={balanceFor && { kind: 'team', id: balanceFor.id, label: balanceFor.name, balance: balanceFor.balance }}
        onClose={() => setBalanceFor(null)}
        onDone={() => {
          setBalanceFor(null)
          void mutate()
        }}
      />
    </>
  )
}
