// /app/activity: every /v1 request of the account (in a team: the team's, or one's own, by role),
// newest first, 50 at a time by the server's cursor; a row opens its detail, the filtered set
// downloads as CSV.
import { type ReactNode, useId, useState } from 'react'
import useSWR from 'swr'
import useSWRInfinite from 'swr/infinite'
import { ACTIVITY_PROTOCOLS, ACTIVITY_STATUSES, type ActivityStatus, PROTOCOL_LABELS, STATUS_LABELS, WEB_SESSION_LABEL } from '../../../src/content/activity'
import { formatInteger, formatMoscowDateTime, formatPrice, voiceAmount } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ExportButton } from '../../components/export-button'
import { FilterSelect } from '../../components/filter-select'
import { EmptyNote, ListSkeleton, LoadError, ShowMore } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { type ActivityFilters, type ActivityItem, type ActivityParams, activityPageKey, downloadActivityCsv, keyLabel, NO_FILTERS, type ActivityPage as Page } from './activity-api'
import { ActivityDetailPanel } from './activity-detail'

/** What a request consumed: tokens, or pictures, seconds of audio, characters. */
export function amountOf(i: ActivityItem): string {
  if (i.images) return `${formatInteger(i.images)} изобр.`
  return voiceAmount(i) ?? `${formatInteger(i.totalTokens)} ток.`
}

function StatusMark({ status }: { status: ActivityStatus }) {
  if (status === 'success') return null
  return (
    <span className="ml-2 inline-flex h-5 items-center rounded-full bg-red-50 px-2 text-[11px] font-medium text-red-700 ring-1 ring-red-100 ring-inset">
      {STATUS_LABELS[status]}
    </span>
  )
}

function DateField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  const id = useId()
  return (
    <div className="flex min-w-0 items-center gap-2">
      <label htmlFor={id} className="text-sm text-slate-500">
        {label}
      </label>
      <input
        id={id}
        type="date"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="h-10 min-w-0 flex-1 rounded-lg border border-slate-300 bg-white px-2 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500"
      />
    </div>
  )
}

function Filters({ params, choices, team, onChange }: { params: ActivityParams; choices?: ActivityFilters; team: boolean; onChange: (p: ActivityParams) => void }) {
  const set = (patch: Partial<ActivityParams>) => onChange({ ...params, ...patch })
  const keys = [...(choices?.keys ?? []).map((k) => ({ value: k.id, label: k.name })), { value: 'web', label: WEB_SESSION_LABEL }]
  const filtered = Object.values(params).some(Boolean)
  // two to a row on a phone, one wrapping line wider
  return (
    <div className="mb-4 grid grid-cols-2 items-center gap-2 sm:flex sm:flex-wrap" data-testid="activity-filters">
      <FilterSelect label="API ключ" value={params.keyId} onChange={(keyId) => set({ keyId })} allLabel="Все ключи" options={keys} />
      <FilterSelect
        label="Модель"
        value={params.model}
        onChange={(model) => set({ model })}
        allLabel="Все модели"
        options={(choices?.models ?? []).map((m) => ({ value: m, label: m }))}
      />
      <FilterSelect
        label="Статус"
        value={params.status}
        onChange={(status) => set({ status: status as ActivityParams['status'] })}
        allLabel="Все статусы"
        options={ACTIVITY_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))}
      />
      <FilterSelect
        label="Протокол"
        value={params.protocol}
        onChange={(protocol) => set({ protocol: protocol as ActivityParams['protocol'] })}
        allLabel="Все протоколы"
        options={ACTIVITY_PROTOCOLS.map((p) => ({ value: p, label: PROTOCOL_LABELS[p] }))}
      />
      {team && (choices?.members.length ?? 0) > 0 && (
        <FilterSelect
          label="Участник"
          value={params.userId}
          onChange={(userId) => set({ userId })}
          allLabel="Все участники"
          options={(choices?.members ?? []).map((m) => ({ value: m.userId, label: m.email }))}
        />
      )}
      <DateField label="С" value={params.from} onChange={(from) => set({ from })} />
      <DateField label="По" value={params.to} onChange={(to) => set({ to })} />
      {filtered && (
        <Button variant="ghost" size="sm" onClick={() => onChange(NO_FILTERS)}>
          Сбросить фильтры
        </Button>
      )}
    </div>
  )
}

const th = 'px-3 py-2.5 text-left text-xs font-medium text-slate-500 first:pl-0 last:pr-0'
const td = 'px-3 py-2.5 align-top first:pl-0 last:pr-0'

function Rows({ items, wide, team, onOpen }: { items: ActivityItem[]; wide: boolean; team: boolean; onOpen: (id: string) => void }) {
  if (wide)
    return (
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="activity-log">
          <thead className="border-b border-slate-200">
            <tr>
              {[['Время (МСК)'], ['Модель'], [team ? 'Ключ · участник' : 'Ключ'], ['Протокол'], ['Объём', 'right'], ['Стоимость', 'right']].map(([title, align]) => (
                <th key={title} scope="col" className={cn(th, align && 'text-right')}>
                  {title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {items.map((i) => (
              <tr key={i.id} data-testid="activity-row" data-id={i.id} onClick={() => onOpen(i.id)} className="cursor-pointer hover:bg-slate-50">
                <td className={cn(td, 'whitespace-nowrap text-slate-600 tabular-nums')}>
                  <time dateTime={i.at}>{formatMoscowDateTime(i.at)}</time>
                </td>
                <td className={cn(td, 'font-medium break-all text-slate-900')}>
                  {/* the row's keyboard and screen-reader handle; a click anywhere on the row does the same */}
                  <button type="button" className="text-left hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500" onClick={() => onOpen(i.id)}>
                    {i.model}
                  </button>
                  <StatusMark status={i.status} />
                </td>
                <td className={cn(td, 'break-words text-slate-700')}>
                  {keyLabel(i)}
                  {team && i.email && <span className="block text-xs text-slate-500">{i.email}</span>}
                </td>
                <td className={cn(td, 'whitespace-nowrap text-slate-600')}>{PROTOCOL_LABELS[i.protocol]}</td>
                <td className={cn(td, 'text-right whitespace-nowrap text-slate-700 tabular-nums')}>{amountOf(i)}</td>
                <td className={cn(td, 'text-right font-medium whitespace-nowrap text-slate-900 tabular-nums')}>{formatPrice(i.costRub)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )
  return (
    <ul className="-mx-4 divide-y divide-slate-100" data-testid="activity-log">
      {items.map((i) => (
        <li key={i.id} data-testid="activity-row" data-id={i.id}>
          <button
            type="button"
            onClick={() => onOpen(i.id)}
            className="block w-full px-4 py-3 text-left text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            <span className="flex items-start justify-between gap-3">
              <span className="min-w-0 font-medium break-all text-slate-900">
                {i.model}
                <StatusMark status={i.status} />
              </span>
              <span className="shrink-0 font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatPrice(i.costRub)}</span>
            </span>
            <span className="mt-1 block text-xs break-words text-slate-500">
              {keyLabel(i)}
              {team && i.email && ` · ${i.email}`} · {amountOf(i)} · <time dateTime={i.at}>{formatMoscowDateTime(i.at)}</time>
            </span>
          </button>
        </li>
      ))}
    </ul>
  )
}

export function ActivityPage() {
  useDocumentTitle('Журнал запросов')
  const account = useAccount()
  const wide = useMediaQuery('(min-width: 1024px)')
  const [params, setParams] = useState<ActivityParams>(NO_FILTERS)
  const [open, setOpen] = useState<string | null>(null)
  const team = Boolean(account.team && account.can('usage.all'))
  const { data: choices } = useSWR<ActivityFilters>('/api/activity/filters')
  const { data, error, isValidating, mutate, size, setSize } = useSWRInfinite<Page>(
    (index, previous: Page | null) => (index === 0 ? activityPageKey(params, null) : previous?.nextCursor ? activityPageKey(params, previous.nextCursor) : null),
    // New requests arrive all the time: the first page is asked for again on every visit.
    { revalidateFirstPage: true, dedupingInterval: 2000 },
  )
  const items = data?.flatMap((p) => p.items) ?? []
  const hasMore = Boolean(data?.at(-1)?.nextCursor)
  const filtered = Object.values(params).some(Boolean)

  let body: ReactNode
  if (!data && error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить журнал запросов.')} retrying={isValidating} onRetry={() => void mutate()} />
  else if (!data) body = <ListSkeleton rows={5} />
  else if (items.length === 0) body = <EmptyNote>{filtered ? 'По выбранным фильтрам запросов нет' : 'Запросов пока нет: отправьте запрос в Playground или через API'}</EmptyNote>
  else body = <Rows items={items} wide={wide} team={team} onOpen={setOpen} />

  return (
    <>
      <PageHeading
        title="Журнал запросов"
        description={
          !account.team
            ? 'Каждый запрос к моделям: модель, ключ, токены, стоимость и её расчёт. Нажмите на запрос, чтобы увидеть подробности.'
            : team
              ? `Запросы всех участников команды «${account.team.name}».`
              : `Ваши запросы с баланса команды «${account.team.name}».`
        }
        actions={<ExportButton download={() => downloadActivityCsv(params)} disabled={items.length === 0} />}
      />
      <Filters
        params={params}
        choices={choices}
        team={team}
        onChange={(p) => {
          // another set starts at its first page (SWR would restore the pages once loaded for it)
          setParams(p)
          void setSize(1)
        }}
      />
      <Card className="p-4 sm:p-6">
        {body}
        {hasMore && <ShowMore loading={isValidating && size > (data?.length ?? 0)} onClick={() => void setSize(size + 1)} />}
        {data && items.length > 0 && (
          <p className="mt-3 text-xs text-slate-500" data-testid="activity-count">
            Показано: {formatInteger(items.length)}
            {hasMore ? ' — есть ещё' : ''}
          </p>
        )}
      </Card>
      <ActivityDetailPanel id={open} team={team} onClose={() => setOpen(null)} />
    </>
  )
}
