// /app/team/audit: who did what in the team, when (Moscow time) and from which address. Kept a
// year; keys, tokens and passwords never reach it.
import type { ReactNode } from 'react'
import useSWRInfinite from 'swr/infinite'
import { formatMoscowDateTime } from '../../../src/content/format'
import { PERIOD_PHRASES } from '../../components/budget'
import { Card } from '../../components/card'
import { EmptyNote, ListSkeleton, LoadError, ShowMore } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { RESIDENCY_LABELS, type ResidencyRule } from '../../components/residency'
import { ROLE_LABELS, useAccount } from '../../lib/account'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import type { TeamAuditEntry, TeamRole } from './teams-api'

const PAGE = 50

export const AUDIT_ACTIONS: Record<string, string> = {
  'team.created': 'Команда создана',
  'team.renamed': 'Команда переименована',
  'team.residency_changed': 'Хранение данных команды изменено',
  'team.policy_changed': 'Политика ключей команды изменена',
  'team.deleted': 'Команда удалена',
  'owner.transferred': 'Владение передано',
  'owner.inherited': 'Владение перешло',
  'invitation.created': 'Приглашение отправлено',
  'invitation.revoked': 'Приглашение отозвано',
  'member.joined': 'Участник присоединился',
  'member.role_changed': 'Роль изменена',
  'member.budget_changed': 'Бюджет участника изменён',
  'member.removed': 'Участник исключён',
  'member.left': 'Участник покинул команду',
  'key.created': 'Ключ создан',
  'key.updated': 'Ключ изменён',
  'key.budget_changed': 'Бюджет ключа изменён',
  'key.policy_changed': 'Ограничения ключа изменены',
  'key.deleted': 'Ключ удалён',
  'payment.succeeded': 'Пополнение баланса',
  'payment_method.saved': 'Карта сохранена',
  'payment_method.deleted': 'Сохранённая карта удалена',
  'autotopup.enabled': 'Автопополнение включено',
  'autotopup.disabled': 'Автопополнение выключено',
  'promo.redeemed': 'Активирован промокод',
  'balance.adjusted': 'Корректировка баланса сервисом',
  'alerts.changed': 'Порог уведомления о балансе',
  'webhook.updated': 'Вебхук настроен',
  'webhook.deleted': 'Вебхук отключён',
  'company.updated': 'Реквизиты компании изменены',
  'company.inn_confirmed': 'ИНН подтверждён администратором сервиса',
  'company.inn_rejected': 'ИНН отклонён администратором сервиса',
  'invoice.issued': 'Счёт выставлен',
  'invoice.cancelled': 'Счёт отменён',
  'invoice.paid': 'Оплата по счёту зачислена',
}

const role = (r: unknown) => (typeof r === 'string' && r in ROLE_LABELS ? ROLE_LABELS[r as TeamRole] : String(r))

/** A residency rule as the settings name it ('any' → «Любые провайдеры»). */
const residency = (v: unknown) => RESIDENCY_LABELS[v as ResidencyRule] ?? String(v)

/** The few details worth a line: roles, budgets, revoked keys, where data may go. */
function detailsOf(e: TeamAuditEntry): string | null {
  const d = e.details
  if (e.action === 'team.residency_changed') return `${residency(d.from)} → ${residency(d.to)}`
  if (d.from !== undefined && d.to !== undefined) return `${role(d.from)} → ${role(d.to)}`
  if (typeof d.residency === 'string') return `хранение данных: ${residency(d.residency)}`
  if ('limitRub' in d && typeof d.period === 'string')
    return d.limitRub === null ? 'без лимита' : `${String(d.limitRub)} ₽ ${PERIOD_PHRASES[d.period as keyof typeof PERIOD_PHRASES] ?? d.period}`
  if (typeof d.role === 'string') return role(d.role)
  if (Array.isArray(d.revokedKeys) && d.revokedKeys.length) return `ключи отозваны: ${d.revokedKeys.join(', ')}`
  if (typeof d.description === 'string') return d.description
  if ('thresholdRub' in d) return d.thresholdRub === null ? 'отключён' : `${String(d.thresholdRub)} ₽`
  return null
}

export function TeamAuditPage() {
  useDocumentTitle('Журнал действий')
  const { teamId } = useAccount()
  const wide = useMediaQuery('(min-width: 1024px)')
  const { data, error, isValidating, mutate, size, setSize } = useSWRInfinite<TeamAuditEntry[]>((_index, previous: TeamAuditEntry[] | null) => {
    if (!teamId || (previous && previous.length < PAGE)) return null
    const before = previous?.at(-1)?.at
    return `/api/teams/${encodeURIComponent(teamId)}/audit?limit=${PAGE}${before ? `&before=${encodeURIComponent(before)}` : ''}`
  })
  const entries = data?.flat() ?? []
  const hasMore = (data?.at(-1)?.length ?? 0) === PAGE

  let body: ReactNode
  if (!data && error) body = <LoadError message="Не удалось загрузить журнал." retrying={isValidating} onRetry={() => void mutate()} />
  else if (!data) body = <ListSkeleton />
  else if (entries.length === 0) body = <EmptyNote>Записей пока нет</EmptyNote>
  else if (wide)
    body = (
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" data-testid="audit-log">
          <thead className="border-b border-slate-200 text-xs text-slate-500">
            <tr>
              <th scope="col" className="py-2 pr-3 font-medium">
                Время (МСК)
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Кто
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Действие
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Объект
              </th>
              <th scope="col" className="py-2 pl-3 font-medium">
                IP-адрес
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {entries.map((e) => (
              <tr key={e.id} data-testid="audit-row" data-action={e.action} className="align-top">
                <td className="py-2.5 pr-3 whitespace-nowrap text-slate-600 tabular-nums">{formatMoscowDateTime(e.at)}</td>
                <td className="max-w-52 truncate px-3 py-2.5 text-slate-800" title={e.actor}>
                  {e.actor}
                </td>
                <td className="px-3 py-2.5 text-slate-800">
                  {AUDIT_ACTIONS[e.action] ?? e.action}
                  {detailsOf(e) && <span className="block text-xs text-slate-500">{detailsOf(e)}</span>}
                </td>
                <td className="max-w-60 truncate px-3 py-2.5 text-slate-700" title={e.target ?? undefined}>
                  {e.target ?? '—'}
                </td>
                <td className="py-2.5 pl-3 font-mono text-xs whitespace-nowrap text-slate-500">{e.ip ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )
  else
    body = (
      <ul className="divide-y divide-slate-100" data-testid="audit-log">
        {entries.map((e) => (
          <li key={e.id} data-testid="audit-row" data-action={e.action} className="py-3">
            <p className="text-sm font-medium text-slate-900">{AUDIT_ACTIONS[e.action] ?? e.action}</p>
            {(e.target || detailsOf(e)) && <p className="text-sm break-all text-slate-700">{[e.target, detailsOf(e)].filter(Boolean).join(' · ')}</p>}
            <p className="mt-0.5 text-xs break-all text-slate-500">
              {formatMoscowDateTime(e.at)} · {e.actor}
              {e.ip && ` · ${e.ip}`}
            </p>
          </li>
        ))}
      </ul>
    )

  return (
    <>
      <PageHeading title="Журнал действий" description="Приглашения, роли, бюджеты, ключи, пополнения и настройки команды. Хранится один год." />
      <Card className="p-4 sm:p-6">
        {body}
        {hasMore && <ShowMore loading={isValidating && size > (data?.length ?? 0)} onClick={() => void setSize(size + 1)} />}
      </Card>
    </>
  )
}
