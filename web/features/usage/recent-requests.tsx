import { Link } from 'wouter'
import { formatDateTime, formatInteger, formatPrice, pluralRu, voiceAmount } from '../../../src/content/format'
import { Card } from '../../components/card'
import { cn } from '../../lib/cn'
import type { UsageLog, UsageStatus } from '../../lib/types'
import { useMediaQuery } from '../../lib/use-media-query'

/** Requests made in the Playground carry no API key. */
export const WEB_SESSION = 'Веб-сессия'
/** Wide enough for the five columns; phones get one card per request. */
const TABLE_QUERY = '(min-width: 768px)'

const statusLabels: Record<Exclude<UsageStatus, 'success'>, string> = {
  error: 'Ошибка',
  cancelled: 'Прерван',
}

function StatusMark({ status }: { status: UsageStatus }) {
  if (status === 'success') return null
  return (
    <span className="ml-2 inline-flex h-5 items-center rounded-full bg-red-50 px-2 text-[11px] font-medium text-red-700 ring-1 ring-red-100 ring-inset">
      {statusLabels[status]}
    </span>
  )
}

function KeyName({ log }: { log: UsageLog }) {
  return log.apiKeyName === null ? <span className="text-slate-500">{WEB_SESSION}</span> : <span className="break-words">{log.apiKeyName}</span>
}

/** Tokens; a voice request shows what it is measured in instead (seconds of audio, characters). */
function Tokens({ log, unit = false }: { log: UsageLog; unit?: boolean }) {
  const voice = voiceAmount(log)
  if (voice) return <span className="whitespace-nowrap tabular-nums">{voice}</span>
  return (
    <span title={`Запрос: ${formatInteger(log.promptTokens)}, ответ: ${formatInteger(log.completionTokens)}`} className="tabular-nums">
      {formatInteger(log.totalTokens)}
      {unit && ' ток.'}
    </span>
  )
}

const th = 'px-4 py-2.5 text-left text-xs font-medium text-slate-500 first:pl-6 last:pr-6'
const td = 'px-4 py-3 align-top first:pl-6 last:pr-6'

/**
 * The count above the list: exactly the rows below it ('11 запросов'), and when the period has
 * more than the server sends, how many of how many ('20 из 137') — never a number the list lacks.
 */
export function shownCountText(shown: number, total: number): string {
  if (shown === 0) return ''
  if (total > shown) return `последние ${formatInteger(shown)} из ${formatInteger(total)}`
  return `${formatInteger(shown)} ${pluralRu(shown, ['запрос', 'запроса', 'запросов'])}`
}

/** The latest requests of the period: model, key, tokens (or audio seconds, characters), cost, time. */
export function RecentRequests({ logs, total }: { logs: UsageLog[]; total: number }) {
  const wide = useMediaQuery(TABLE_QUERY)
  return (
    <Card className="overflow-hidden">
      <div className="flex items-baseline justify-between gap-3 border-b border-slate-200 px-4 py-4 sm:px-6">
        <h2 className="text-base font-semibold text-slate-900">Последние запросы</h2>
        <span className="text-sm text-slate-500">
          <span data-testid="usage-log-count">{shownCountText(logs.length, total)}</span>
          {/* every request with its detail: the activity log */}
          {' · '}
          <Link href="/app/activity" className="font-medium whitespace-nowrap text-indigo-600 hover:text-indigo-500">
            весь журнал
          </Link>
        </span>
      </div>
      {wide ? (
        <table className="w-full text-sm">
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>
                Время
              </th>
              <th scope="col" className={th}>
                Модель
              </th>
              <th scope="col" className={th}>
                Ключ
              </th>
              <th scope="col" className={cn(th, 'text-right')}>
                Объём
              </th>
              <th scope="col" className={cn(th, 'text-right')}>
                Стоимость
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {logs.map((log) => (
              <tr key={log.id} data-testid="usage-log-row">
                <td className={cn(td, 'whitespace-nowrap text-slate-600 tabular-nums')}>
                  <time dateTime={log.createdAt}>{formatDateTime(log.createdAt)}</time>
                </td>
                <td className={cn(td, 'font-medium break-all text-slate-900')}>
                  {log.model}
                  <StatusMark status={log.status} />
                </td>
                <td className={cn(td, 'text-slate-700')}>
                  <KeyName log={log} />
                </td>
                <td className={cn(td, 'text-right text-slate-700')}>
                  <Tokens log={log} />
                </td>
                <td className={cn(td, 'text-right font-medium whitespace-nowrap text-slate-900 tabular-nums')}>{formatPrice(log.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <ul className="divide-y divide-slate-100">
          {logs.map((log) => (
            <li key={log.id} data-testid="usage-log-row" className="px-4 py-3 text-sm">
              <div className="flex items-start justify-between gap-3">
                <p className="min-w-0 font-medium break-all text-slate-900">
                  {log.model}
                  <StatusMark status={log.status} />
                </p>
                <span className="shrink-0 font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatPrice(log.cost)}</span>
              </div>
              <p className="mt-1 text-xs text-slate-500">
                <KeyName log={log} /> · <Tokens log={log} unit /> · <time dateTime={log.createdAt}>{formatDateTime(log.createdAt)}</time>
              </p>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}
