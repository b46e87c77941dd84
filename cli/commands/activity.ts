// activity [id]: the request log (GET /api/activity) newest first, filtered like the web's, page
// by page with the server's cursor; with an ID, one request in full down to its ledger row.
import { type Command, InvalidArgumentError } from 'commander'
import {
  ACTIVITY_PROTOCOLS,
  ACTIVITY_STATUSES,
  type ActivityProtocol,
  type ActivityStatus,
  PROTOCOL_LABELS,
  STATUS_LABELS,
  upstreamShortLabel,
  WEB_SESSION_LABEL,
} from '../../src/content/activity'
import { moscowMs } from '../../src/content/moscow'
import type { ActivityDetail, ActivityItem, ActivityPage, Api } from '../lib/api'
import { context, oneOf, print, printJson } from '../lib/context'
import { cut, exactRubles, integer, moscowTime, mskColumn, price, shortWhen, table } from '../lib/format'
import { resolveKey } from './keys'

const MAX_PAGE = 200
const COLUMNS = 80
const WEB = 'web'

type Options = {
  limit: number
  key?: string
  model?: string
  status?: ActivityStatus
  protocol?: ActivityProtocol
  /** ISO instants, from the Moscow days given */
  from?: string
  to?: string
  requestId?: string
  after?: string
  all?: boolean
  json?: boolean
}

function pageSize(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw new InvalidArgumentError(`целое число от 1 до ${MAX_PAGE}`)
  return n
}

/** A Moscow calendar day (YYYY-MM-DD) as the instant it starts; `next`: the one after it. */
export function moscowDayStart(day: string, next = false): string {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(day) ? moscowMs(day) : Number.NaN
  if (!Number.isFinite(at)) throw new InvalidArgumentError('дата в формате ГГГГ-ММ-ДД, например 2025-05-20')
  return new Date(at + (next ? 86_400_000 : 0)).toISOString()
}
const fromDay = (day: string) => moscowDayStart(day)
const toDay = (day: string) => moscowDayStart(day, true)

/** The server names the key (a deleted one marked so); none: the web session. */
const keyLabel = (i: ActivityItem) => i.keyName ?? WEB_SESSION_LABEL

/** What one request consumed: tokens, pictures, seconds of audio or characters. */
function amount(i: ActivityItem): string {
  if (i.images) return `${integer(i.images)} изобр.`
  if (i.audioSeconds !== null) return `${integer(i.audioSeconds)} с`
  if (i.characters !== null) return `${integer(i.characters)} симв.`
  return `${integer(i.totalTokens)} ток.`
}

/** The query of the list: filters as the server names them (dates from Moscow days). */
async function query(api: Api, o: Options): Promise<URLSearchParams> {
  const q = new URLSearchParams()
  if (o.key) q.set('keyId', o.key === WEB ? WEB : (await resolveKey(api, o.key)).id)
  if (o.model) q.set('model', o.model)
  if (o.status) q.set('status', o.status)
  if (o.protocol) q.set('protocol', o.protocol)
  if (o.from) q.set('from', o.from)
  if (o.to) q.set('to', o.to)
  if (o.requestId) q.set('requestId', o.requestId)
  return q
}

/** The list as a table of at most 80 columns: the model's name gets what the others leave. */
export function activityTable(items: ActivityItem[]): string {
  const headers = [mskColumn('Время'), 'Модель', 'Ключ', 'Статус', 'Объём', 'Стоимость']
  const rows = items.map((i) => [shortWhen(i.at), i.model, cut(keyLabel(i), 10), STATUS_LABELS[i.status].toLowerCase(), amount(i), price(i.costRub)])
  const width = (c: number) => Math.max([...headers[c]!].length, ...rows.map((r) => [...r[c]!].length))
  const others = [0, 2, 3, 4, 5].reduce((sum, c) => sum + width(c), 0) + 2 * (headers.length - 1)
  const modelWidth = Math.max(12, COLUMNS - others)
  return table(
    headers,
    rows.map((r) => r.map((cell, c) => (c === 1 ? cut(cell, modelWidth) : cell))),
    [4, 5],
  )
}

function printDetail(d: ActivityDetail, team: boolean) {
  const rows: Array<[string, string | null | false]> = [
    ['ID', d.id],
    ['Время', moscowTime(d.at)],
    ['Ключ', keyLabel(d)],
    ['Участник', team && d.email],
    ['Модель в запросе', d.requestedModel],
    ['Ответила модель', d.model],
    ['Протокол', `${PROTOCOL_LABELS[d.protocol]}${d.stream ? ', поток' : ''}`],
    ['Статус', STATUS_LABELS[d.status]],
    ['Ошибка', d.error],
    [
      'Токены',
      d.images === null &&
        d.audioSeconds === null &&
        d.characters === null &&
        `${integer(d.promptTokens)} запрос + ${integer(d.completionTokens)} ответ = ${integer(d.totalTokens)}`,
    ],
    ['Изображений', d.images !== null && integer(d.images)],
    ['Аудио', d.audioSeconds !== null && `${integer(d.audioSeconds)} с`],
    ['Символов', d.characters !== null && integer(d.characters)],
    ['Списано', exactRubles(d.costRub)],
    [
      'Расчёт',
      d.upstreamCostUsd === null
        ? 'провайдер не сообщил стоимость — по ценам модели'
        : `$${d.upstreamCostUsd} × ${d.rate ?? '?'} ₽/$ × ${d.markup ?? '?'}${d.formulaMicros === null ? '' : ` = ${exactRubles(d.formulaMicros / 1e6)}`}`,
    ],
    ['Резерв', d.holdMicros !== null && exactRubles(d.holdMicros / 1e6)],
    ['Возвращено', d.releasedMicros !== null && exactRubles(d.releasedMicros / 1e6)],
    ['Не списано', d.uncoveredMicros > 0 && exactRubles(d.uncoveredMicros / 1e6)],
    [
      'В истории',
      d.ledger
        ? `-${exactRubles(-d.ledger.amountMicros / 1e6)}${d.ledger.balanceAfterMicros === null ? '' : ` (баланс после: ${exactRubles(d.ledger.balanceAfterMicros / 1e6)})`}`
        : 'ничего не списано',
    ],
    ['Длительность', `${integer(d.latencyMs)} мс`],
    ['До 1-го токена', d.ttftMs !== null && `${integer(d.ttftMs)} мс`],
    ['Провайдер', upstreamShortLabel(d.upstream)],
    ['x-request-id', d.requestId],
    ['ID генерации', d.generationId],
  ]
  const shown = rows.filter((r): r is [string, string] => typeof r[1] === 'string' && r[1] !== '')
  const width = Math.max(...shown.map(([label]) => [...label].length))
  for (const [label, value] of shown) print(`${label.padEnd(width)}  ${value}`)
}

export function activityCommand(program: Command) {
  program
    .command('activity')
    .description('журнал запросов к /v1: новые сверху, с фильтрами; с ID — один запрос со стоимостью и её расчётом')
    .argument('[id]', 'ID запроса из --json или веб-журнала: показать его подробно')
    .option('-n, --limit <N>', `сколько запросов показать (до ${MAX_PAGE})`, pageSize, 20)
    .option('-k, --key <ключ>', 'только запросы с этим ключом (название или начало ID); web — из Playground')
    .option('-m, --model <модель>', 'только ответы этой модели')
    .option('--status <статус>', `статус: ${ACTIVITY_STATUSES.join(', ')}`, oneOf(ACTIVITY_STATUSES, 'статус — один из'))
    .option('--protocol <протокол>', `протокол: ${ACTIVITY_PROTOCOLS.join(', ')}`, oneOf(ACTIVITY_PROTOCOLS, 'протокол — один из'))
    .option('--from <дата>', 'с этого дня (ГГГГ-ММ-ДД, по Москве)', fromDay)
    .option('--to <дата>', 'по этот день включительно (ГГГГ-ММ-ДД, по Москве)', toDay)
    .option('--request-id <id>', 'запрос с этим x-request-id')
    .option('--after <курсор>', 'продолжить список после курсора, напечатанного в конце страницы')
    .option('--all', 'все запросы, страница за страницей')
    .option('--json', 'вывести JSON (страницу: items и nextCursor; с --all — все items)')
    .addHelpText('after', '\nПримеры:\n  gw activity\n  gw activity --status error --from 2025-05-01\n  gw activity -k сервер -m openai/gpt-4o-mini --json')
    .action(async (id: string | undefined, o: Options, cmd: Command) => {
      const { api } = context(cmd)
      if (id) {
        const detail = await api.get<ActivityDetail>(`/api/activity/${encodeURIComponent(id)}`)
        return o.json ? printJson(detail) : printDetail(detail, Boolean(api.team()))
      }
      const q = await query(api, o)
      const items: ActivityItem[] = []
      let cursor = o.after ?? null
      let page: ActivityPage
      do {
        const size = o.all ? MAX_PAGE : o.limit
        page = await api.get<ActivityPage>(`/api/activity?${q}&limit=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        items.push(...page.items)
        cursor = page.nextCursor
      } while (o.all && cursor)
      if (o.json) return printJson(o.all ? items : page)
      if (items.length === 0) return print(q.size || o.after ? 'По этим фильтрам запросов нет.' : 'Запросов пока нет.')
      print(activityTable(items))
      if (cursor) print(`\nЕщё запросы: gw activity --after ${cursor}${q.size ? ' (с теми же фильтрами)' : ''}`)
    })
}
