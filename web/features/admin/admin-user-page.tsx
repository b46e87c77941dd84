// /app/admin/users/{id}: one customer as the admin needs them — balance, whether the address is
// confirmed, the last activity, their latest ledger rows, keys and requests (issue 29). The balance
// dialog is the list's, so a correction can be made from here with its reason.
import { type ReactNode, useState } from 'react'
import { Link } from 'wouter'
import { formatDate, formatDateTime, formatInteger, formatPrice, formatRubles, pluralRu, voiceAmount } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ArrowLeftIcon, WalletIcon } from '../../components/icons'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { TransactionRow } from '../../components/transaction-row'
import { ApiError, errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { type AdminUserDetail, useAdminUser } from './admin-api'
import { Badge } from './admin-ui'
import { LastActive } from './admin-users-page'
import { BalanceDialog } from './balance-dialog'

type Detail = AdminUserDetail

function Section({ title, note, children, testId }: { title: string; note?: string; children: ReactNode; testId: string }) {
  return (
    <Card className="p-4 sm:p-6" data-testid={testId}>
      <div className="flex flex-col gap-0.5 sm:flex-row sm:items-baseline sm:justify-between sm:gap-3">
        <h2 className="text-base font-semibold text-slate-900">{title}</h2>
        {note && <span className="text-xs text-slate-500">{note}</span>}
      </div>
      <div className="mt-2">{children}</div>
    </Card>
  )
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-sm font-medium break-words text-slate-900">{children}</dd>
    </div>
  )
}

function Facts({ user }: { user: Detail['user'] }) {
  return (
    <Card className="p-4 sm:p-6">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-4 sm:grid-cols-3 lg:grid-cols-6">
        <Fact label="Баланс">
          <span className="text-lg font-semibold tabular-nums" data-testid="admin-user-balance">
            {formatRubles(user.balance)}
          </span>
        </Fact>
        <Fact label="E-mail">{user.emailVerified ? <Badge tone="emerald">подтверждён</Badge> : <Badge tone="amber">не подтверждён</Badge>}</Fact>
        <Fact label="Последняя активность">
          <LastActive at={user.lastActiveAt} />
        </Fact>
        <Fact label="Регистрация">{formatDate(user.createdAt)}</Fact>
        <Fact label="API ключи">{formatInteger(user.apiKeys)}</Fact>
        <Fact label="Запросы">{formatInteger(user.usageLogs)}</Fact>
      </dl>
    </Card>
  )
}

function Keys({ keys }: { keys: Detail['keys'] }) {
  if (keys.length === 0) return <EmptyNote>Ключей нет</EmptyNote>
  return (
    <ul className="divide-y divide-slate-100">
      {keys.map((k) => (
        <li key={k.id} data-testid="admin-user-key" className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1 py-3">
          <span className="min-w-0">
            <span className="block truncate text-sm font-medium text-slate-900">{k.name}</span>
            <span className="block font-mono text-xs text-slate-500">{k.keyPrefix}…</span>
          </span>
          <span className="flex items-center gap-2 text-xs text-slate-500">
            {k.isActive ? <Badge tone="emerald">активен</Badge> : <Badge>отключён</Badge>}
            {k.lastUsedAt ? `использован ${formatDateTime(k.lastUsedAt)}` : 'не использовался'}
          </span>
        </li>
      ))}
    </ul>
  )
}

const STATUS: Record<string, { label: string; tone: 'red' | 'amber' } | undefined> = {
  error: { label: 'Ошибка', tone: 'red' },
  cancelled: { label: 'Прерван', tone: 'amber' },
}

function Requests({ requests }: { requests: Detail['requests'] }) {
  if (requests.length === 0) return <EmptyNote>Запросов пока не было</EmptyNote>
  return (
    <ul className="divide-y divide-slate-100">
      {requests.map((r) => {
        const status = STATUS[r.status]
        const amount = voiceAmount(r) ?? `${formatInteger(r.totalTokens)} ${pluralRu(r.totalTokens, ['токен', 'токена', 'токенов'])}`
        return (
          <li key={r.id} data-testid="admin-user-request" className="flex items-start justify-between gap-3 py-3">
            <span className="min-w-0">
              <span className="flex flex-wrap items-center gap-2">
                <span className="truncate font-mono text-xs text-slate-800">{r.model}</span>
                {status && <Badge tone={status.tone}>{status.label}</Badge>}
              </span>
              <span className="mt-0.5 block text-xs text-slate-500">
                {formatDateTime(r.createdAt)} · {r.apiKeyName ?? 'Веб-сессия'} · {amount}
              </span>
            </span>
            <span className="shrink-0 text-sm font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatPrice(r.cost)}</span>
          </li>
        )
      })}
    </ul>
  )
}

export function AdminUserPage({ id }: { id: string }) {
  const { data, error, isValidating, mutate } = useAdminUser(id)
  const [adjusting, setAdjusting] = useState(false)
  useDocumentTitle(data ? data.user.email : 'Пользователь')

  const back = (
    <Link href="/app/admin/users" className="mb-3 inline-flex items-center gap-1.5 text-sm font-medium text-indigo-600 hover:text-indigo-500">
      <ArrowLeftIcon size={15} />
      Все пользователи
    </Link>
  )

  if (!data) {
    return (
      <>
        {back}
        {error ? (
          error instanceof ApiError && error.status === 404 ? (
            <EmptyNote>Пользователь не найден или удалён.</EmptyNote>
          ) : (
            <LoadError message={errorMessage(error, 'Не удалось загрузить пользователя.')} retrying={isValidating} onRetry={() => void mutate()} />
          )
        ) : (
          <ListSkeleton rows={5} />
        )}
      </>
    )
  }

  const { user } = data
  return (
    <>
      {back}
      <PageHeading
        title={user.email}
        description={user.role === 'admin' ? 'Администратор' : 'Пользователь'}
        actions={
          <Button variant="secondary" onClick={() => setAdjusting(true)}>
            <WalletIcon size={16} />
            Изменить баланс
          </Button>
        }
      />
      <div className="space-y-6">
        <Facts user={user} />
        <div className="grid gap-6 lg:grid-cols-2">
          <Section title="История операций" note={`последние ${formatInteger(data.transactions.length)}`} testId="admin-user-ledger">
            {data.transactions.length ? (
              <ul className="divide-y divide-slate-100">
                {data.transactions.map((tx) => (
                  <TransactionRow key={tx.id} tx={tx} showBalance />
                ))}
              </ul>
            ) : (
              <EmptyNote>Операций нет</EmptyNote>
            )}
          </Section>
          <div className="space-y-6">
            <Section title="API ключи" testId="admin-user-keys">
              <Keys keys={data.keys} />
            </Section>
            <Section title="Последние запросы" note="до 20" testId="admin-user-requests">
              <Requests requests={data.requests} />
            </Section>
          </div>
        </div>
      </div>
      <BalanceDialog
        user={adjusting ? { kind: 'user', id: user.id, label: user.email, balance: user.balance, held: user.held } : null}
        onClose={() => setAdjusting(false)}
        onDone={() => {
          setAdjusting(false)
          void mutate()
        }}
      />
    </>
  )
}
