import { type ReactNode, useState } from 'react'
import { Link } from 'wouter'
import { formatDate, formatDateTime, formatInteger, formatRubles, pluralRu } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { TrashIcon, WalletIcon } from '../../components/icons'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { useSession } from '../../stores/session'
import { toast } from '../../stores/toasts'
import { type AdminUser, type RefundRequest, USERS_PAGE_SIZE, useAdminUsers, useRefundRequests, usersApi } from './admin-api'
import { Badge, RowAction, SearchHeader, useDebounced } from './admin-ui'
import { BalanceDialog } from './balance-dialog'

/** Wide enough (sidebar included) for the seven-column table; narrower screens get cards. */
const TABLE_QUERY = '(min-width: 1280px)'
const SEARCH_DELAY_MS = 300

/** The spec's confirmation: 'Удалить пользователя' followed by the e-mail. */
export const deleteQuestion = (email: string) => `Удалить пользователя ${email}?`

function Actions({ user, isSelf, onBalance, onDelete }: { user: AdminUser; isSelf: boolean; onBalance: () => void; onDelete: () => void }) {
  return (
    <div className="flex items-center justify-end gap-1.5">
      <Button variant="secondary" size="sm" aria-label={`Изменить баланс ${user.email}`} title="Изменить баланс" onClick={onBalance} className="px-2.5">
        <WalletIcon size={15} />
        Баланс
      </Button>
      <RowAction label={`Удалить ${user.email}`} title={isSelf ? 'Нельзя удалить собственный аккаунт' : 'Удалить пользователя'} danger disabled={isSelf} onClick={onDelete}>
        <TrashIcon size={16} />
      </RowAction>
    </div>
  )
}

/** The user's page: their ledger, keys and recent requests. */
export const adminUserHref = (id: string) => `/app/admin/users/${encodeURIComponent(id)}`

/** The address (a link to the user's page), the admin mark and whether it is confirmed. */
function Email({ user }: { user: AdminUser }) {
  return (
    <span className="block min-w-0">
      <span className="flex min-w-0 items-center gap-2">
        <Link href={adminUserHref(user.id)} className="truncate font-medium text-slate-900 hover:text-indigo-700 hover:underline" title={user.email} data-testid="admin-user-link">
          {user.email}
        </Link>
        {user.role === 'admin' && <Badge tone="indigo">админ</Badge>}
      </span>
      <span className="mt-0.5 block" data-testid="admin-user-verified">
        {user.emailVerified ? <Badge tone="emerald">e-mail подтверждён</Badge> : <Badge tone="amber">e-mail не подтверждён</Badge>}
      </span>
    </span>
  )
}

/** '12.05.2026, 14:05 МСК' or «не было» — the newest request or sign-in; may wrap after the date. */
export function LastActive({ at }: { at: string | null }) {
  return at ? <time dateTime={at}>{formatDateTime(at)}</time> : <span className="text-slate-500">не было</span>
}

function UsersTable({ users, selfId, onBalance, onDelete }: { users: AdminUser[]; selfId?: string; onBalance: (u: AdminUser) => void; onDelete: (u: AdminUser) => void }) {
  return (
    // Fixed widths that hold each column's content (the e-mail takes the rest and truncates): in a
    // fixed layout text wider than its column spills into the next one.
    <table className="w-full table-fixed text-left text-sm">
      <thead className="border-b border-slate-200 bg-slate-50/70 text-xs font-medium tracking-wide text-slate-500 uppercase">
        <tr>
          <th className="py-3 pr-3 pl-6 font-medium">Email</th>
          <th className="w-36 px-3 py-3 text-right font-medium">Баланс</th>
          <th className="w-20 px-3 py-3 text-right font-medium">API ключи</th>
          <th className="w-24 px-3 py-3 text-right font-medium">Запросы</th>
          <th className="w-28 px-3 py-3 font-medium">Активность</th>
          <th className="w-[7.5rem] px-3 py-3 font-medium">Регистрация</th>
          <th className="w-44 py-3 pr-6 pl-3 text-right font-medium">
            <span className="sr-only">Действия</span>
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {users.map((u) => (
          <tr key={u.id} data-testid="admin-user-row" className="hover:bg-slate-50/60">
            <td className="py-3 pr-3 pl-6">
              <Email user={u} />
            </td>
            <td className="px-3 py-3 text-right font-medium whitespace-nowrap text-slate-900 tabular-nums" data-testid="admin-user-balance">
              {formatRubles(u.balance)}
            </td>
            <td className="px-3 py-3 text-right text-slate-700 tabular-nums">{formatInteger(u.apiKeys)}</td>
            <td className="px-3 py-3 text-right text-slate-700 tabular-nums">{formatInteger(u.usageLogs)}</td>
            <td className="px-3 py-3 text-slate-600" data-testid="admin-user-active">
              <LastActive at={u.lastActiveAt} />
            </td>
            <td className="px-3 py-3 whitespace-nowrap text-slate-600">
              <time dateTime={u.createdAt} title={formatDateTime(u.createdAt)}>
                {formatDate(u.createdAt)}
              </time>
            </td>
            <td className="py-2 pr-6 pl-3">
              <Actions user={u} isSelf={u.id === selfId} onBalance={() => onBalance(u)} onDelete={() => onDelete(u)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function UserCards({ users, selfId, onBalance, onDelete }: { users: AdminUser[]; selfId?: string; onBalance: (u: AdminUser) => void; onDelete: (u: AdminUser) => void }) {
  return (
    <ul className="divide-y divide-slate-100">
      {users.map((u) => (
        <li key={u.id} data-testid="admin-user-row" className="px-4 py-3.5 sm:px-6">
          <Email user={u} />
          <div className="mt-1 flex items-center justify-between gap-2">
            <div className="min-w-0">
              <p className="text-lg font-semibold whitespace-nowrap text-slate-900 tabular-nums" data-testid="admin-user-balance">
                {formatRubles(u.balance)}
              </p>
              <p className="text-xs text-slate-500">
                {formatInteger(u.apiKeys)} {pluralRu(u.apiKeys, ['ключ', 'ключа', 'ключей'])} · {formatInteger(u.usageLogs)}{' '}
                {pluralRu(u.usageLogs, ['запрос', 'запроса', 'запросов'])} · с {formatDate(u.createdAt)}
              </p>
              <p className="text-xs text-slate-500" data-testid="admin-user-active">
                Активность: <LastActive at={u.lastActiveAt} />
              </p>
            </div>
            <Actions user={u} isSelf={u.id === selfId} onBalance={() => onBalance(u)} onDelete={() => onDelete(u)} />
          </div>
        </li>
      ))}
    </ul>
  )
}

const REFUND_STATUS: Record<RefundRequest['status'], { label: string; tone: 'amber' | 'emerald' | 'slate' }> = {
  pending: { label: 'Ожидает', tone: 'amber' },
  approved: { label: 'Одобрена', tone: 'emerald' },
  rejected: { label: 'Отклонена', tone: 'slate' },
}

/** Refund requests from the billing screen; money moves only by hand, after review. */
function RefundRequests() {
  const { data, error, isLoading, isValidating, mutate } = useRefundRequests()
  let body: ReactNode
  if (data && data.length > 0) {
    body = (
      <ul className="divide-y divide-slate-100">
        {data.map((r) => (
          <li key={r.id} data-testid="refund-request" className="flex flex-col gap-1 px-4 py-3.5 sm:flex-row sm:items-center sm:justify-between sm:px-6">
            <div className="min-w-0">
              <p className="flex flex-wrap items-center gap-2">
                <span className="truncate font-medium text-slate-900">{r.email}</span>
                <Badge tone={REFUND_STATUS[r.status].tone}>{REFUND_STATUS[r.status].label}</Badge>
              </p>
              <p className="mt-0.5 text-xs text-slate-500">
                {formatDateTime(r.createdAt)} · баланс сейчас {formatRubles(r.balance)}
                {r.reason ? ` · «${r.reason}»` : ''}
              </p>
            </div>
            <p className="shrink-0 text-[15px] font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatRubles(r.amount)}</p>
          </li>
        ))}
      </ul>
    )
  } else if (data) {
    body = <EmptyNote>Заявок на возврат нет</EmptyNote>
  } else if (error) {
    body = <LoadError message="Не удалось загрузить заявки на возврат." retrying={isValidating} onRetry={() => void mutate()} />
  } else {
    body = isLoading ? (
      <div className="px-6">
        <ListSkeleton rows={2} />
      </div>
    ) : null
  }
  return (
    <Card className="overflow-hidden">
      <div className="border-b border-slate-200 px-4 py-4 sm:px-6">
        <h2 className="text-base font-semibold text-slate-900">Заявки на возврат</h2>
        <p className="mt-0.5 text-sm text-slate-500">Деньги не списываются автоматически: верните платёж у платёжной системы и спишите сумму корректировкой.</p>
      </div>
      {body}
    </Card>
  )
}

export function AdminUsersPage() {
  useDocumentTitle('Пользователи')
  const wide = useMediaQuery(TABLE_QUERY)
  const selfId = useSession((s) => s.user?.id)
  const [search, setSearch] = useState('')
  const query = useDebounced(search.trim(), SEARCH_DELAY_MS)
  const { data, error, isLoading, isValidating, mutate } = useAdminUsers(query)
  const [balanceFor, setBalanceFor] = useState<AdminUser | null>(null)
  const [deleting, setDeleting] = useState<{ user: AdminUser; pending: boolean } | null>(null)

  async function confirmDelete() {
    if (!deleting) return
    setDeleting({ ...deleting, pending: true })
    try {
      await usersApi.remove(deleting.user.id)
      toast.success('Пользователь удален')
      setDeleting(null)
      await mutate()
    } catch {
      toast.error('Ошибка удаления')
      setDeleting((d) => (d ? { ...d, pending: false } : d))
    }
  }

  const users = data?.users
  let list: ReactNode
  if (users && users.length > 0) {
    const props = { users, selfId, onBalance: setBalanceFor, onDelete: (user: AdminUser) => setDeleting({ user, pending: false }) }
    list = wide ? <UsersTable {...props} /> : <UserCards {...props} />
  } else if (users) {
    list = <EmptyNote>{query ? `Никого не нашлось по запросу «${query}»` : 'Пользователей пока нет'}</EmptyNote>
  } else if (error) {
    list = <LoadError message={errorMessage(error, 'Не удалось загрузить пользователей.')} retrying={isValidating} onRetry={() => void mutate()} />
  } else {
    list = isLoading ? (
      <div className="px-6">
        <ListSkeleton />
      </div>
    ) : null
  }

  return (
    <>
      <PageHeading title="Пользователи" description="Поиск по e-mail, изменение баланса и удаление аккаунтов; адрес открывает страницу пользователя." />
      <div className="space-y-6">
        <Card className="overflow-hidden">
          <SearchHeader
            value={search}
            onChange={setSearch}
            placeholder="Поиск по email..."
            label="Поиск по email"
            total={data?.total}
            searching={query !== ''}
            more={data && data.total > data.users.length && ` · показаны первые ${USERS_PAGE_SIZE}`}
            testId="admin-users-total"
          />
          <div className={cn('transition-opacity', isValidating && data && 'opacity-70')}>{list}</div>
        </Card>
        <RefundRequests />
      </div>
      <BalanceDialog
        user={balanceFor && { kind: 'user', id: balanceFor.id, label: balanceFor.email, balance: balanceFor.balance, held: balanceFor.held }}
        onClose={() => setBalanceFor(null)}
        onDone={() => {
          setBalanceFor(null)
          void mutate()
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title="Удаление пользователя"
        message={
          deleting && (
            <>
              <span className="block break-all">{deleteQuestion(deleting.user.email)}</span>
              <span className="mt-2 block text-sm text-slate-500">Ключи и сессии перестанут работать сразу, e-mail будет обезличен. История операций и запросов сохранится.</span>
            </>
          )
        }
        confirmLabel="Удалить"
        tone="danger"
        loading={deleting?.pending}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </>
  )
}
