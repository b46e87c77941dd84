// The activity log: every /v1 request of an account, newest first, without a limit (keyset pages),
// a request's detail down to how its charge came about, and the filtered set as CSV. Whose
// requests is the usage statistics' rule (billing usageScope): the personal account's; in a team
// everyone's for the roles with usage.all, the caller's own for the others.
import { usageScope } from '../billing/service'
import { deletedKeyLabel, PROTOCOL_LABELS, STATUS_LABELS, upstreamShortLabel, WEB_SESSION_LABEL } from '../content/activity'
import type { Db } from '../db/types'
import { CSV_BOM, csvLine, csvMoscowTime, csvText } from '../lib/csv'
import { ceilUnits, dec, mul } from '../lib/decimal'
import { badRequest, notFound } from '../lib/errors'
import { formatMicros, microsToRub } from '../lib/money'
import { type Acting, can } from '../teams/service'
import { type ActivityFilter, type ActivityRow, activityStore, type Cursor } from './store'

/** The query as the routes take it (strings), before it becomes a filter. */
export type ActivityQuery = {
  keyId?: string
  model?: string
  status?: ActivityFilter['status']
  protocol?: ActivityFilter['protocol']
  userId?: string
  from?: string
  to?: string
  requestId?: string
}

/** The key filter's word for the web session's requests (they carry no key). */
export const WEB_SESSION_KEY = 'web'
const CSV_PAGE = 1000

export function filterOf(q: ActivityQuery): ActivityFilter {
  return {
    keyId: q.keyId === WEB_SESSION_KEY ? null : q.keyId || undefined,
    model: q.model || undefined,
    status: q.status,
    protocol: q.protocol,
    userId: q.userId || undefined,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    requestId: q.requestId || undefined,
  }
}

/** An opaque cursor: the last row's time and id. */
export const encodeCursor = (c: Cursor) => Buffer.from(`${c.at}.${c.id}`).toString('base64url')

export function decodeCursor(text: string): Cursor {
  const raw = Buffer.from(text, 'base64url').toString()
  const dot = raw.indexOf('.')
  const at = Number(raw.slice(0, dot))
  const id = raw.slice(dot + 1)
  if (dot < 1 || !Number.isSafeInteger(at) || at < 0 || !/^[\w-]{1,64}$/.test(id)) throw badRequest('Некорректный курсор страницы: начните список заново')
  return { at, id }
}

/** The key's name now; a deleted one's as it was, marked; null for the web session's requests. */
const keyNameOf = (r: ActivityRow) => (r.log.apiKeyId ? (r.keyName ?? deletedKeyLabel(r.log.keyName)) : r.log.keyName === null ? null : deletedKeyLabel(r.log.keyName))

function toItem(r: ActivityRow) {
  const l = r.log
  return {
    id: l.id,
    at: l.createdAt.toISOString(),
    model: l.model,
    requestedModel: l.requestedModel ?? l.model,
    protocol: l.endpoint,
    status: l.status,
    error: l.error,
    costRub: microsToRub(l.costMicros),
    costMicros: l.costMicros,
    keyId: l.apiKeyId,
    keyName: keyNameOf(r),
    userId: l.userId,
    email: r.email,
    promptTokens: l.promptTokens,
    completionTokens: l.completionTokens,
    totalTokens: l.totalTokens,
    images: l.images,
    audioSeconds: l.audioSeconds,
    characters: l.characters,
    latencyMs: l.durationMs,
    stream: l.stream,
  }
}

/** Upstream cost × rate × markup, rounded up to the micro-ruble as the charge is; null when a factor is unknown. */
export function formulaMicros(usd: string | null, rate: string | null, markup: string | null): number | null {
  if (usd === null || rate === null || markup === null) return null
  try {
    return ceilUnits(mul(dec(usd), dec(rate), dec(markup)), 6)
  } catch {
    return null
  }
}

const CSV_HEADER = [
  'Время (МСК)',
  'Модель в запросе',
  'Модель ответила',
  'Протокол',
  'API-ключ',
  'Статус',
  'Ошибка',
  'Токены запроса',
  'Токены ответа',
  'Всего токенов',
  'Изображений',
  'Секунд аудио',
  'Символов',
  'Стоимость у провайдера, $',
  'Курс, ₽ за $',
  'Наценка',
  'Списано, ₽',
  'Резерв, ₽',
  'Длительность, мс',
  'До первого токена, мс',
  'Провайдер моделей',
  'x-request-id',
  'ID генерации',
  'ID записи',
]

export function activityService(db: Db) {
  const store = activityStore(db)
  return {
    /** One page, newest first; `nextCursor` continues below its last row (null: nothing more). */
    async list(a: Acting, q: ActivityQuery & { cursor?: string; limit?: number }) {
      const limit = q.limit ?? 50
      const cursor = q.cursor ? decodeCursor(q.cursor) : null
      const rows = await store.page(usageScope(a), filterOf(q), cursor, limit + 1)
      const items = rows.slice(0, limit)
      const last = items.at(-1)?.log
      return { items: items.map(toItem), nextCursor: rows.length > limit && last ? encodeCursor({ at: last.createdAt.getTime(), id: last.id }) : null }
    },

    /** One request of the acting account, with how it was charged; another account's id is 404. */
    async detail(a: Acting, id: string) {
      const r = await store.one(usageScope(a), id)
      if (!r) throw notFound('Запрос не найден')
      const l = r.log
      const entry = l.holdId && l.costMicros > 0 ? await store.charge(l.holdId) : undefined
      // A provider billing in rubles: its cost × markup (no exchange rate).
      const full = l.upstreamCostRub !== null ? formulaMicros(l.upstreamCostRub, '1', l.markup) : formulaMicros(l.upstreamCostUsd, l.usdRubRate, l.markup)
      return {
        ...toItem(r),
        requestId: l.requestId,
        generationId: l.upstreamId,
        responseId: l.responseId,
        upstream: l.upstream,
        upstreamCostUsd: l.upstreamCostUsd,
        upstreamCostRub: l.upstreamCostRub,
        rate: l.usdRubRate,
        markup: l.markup,
        formulaMicros: full,
        holdMicros: l.holdMicros,
        releasedMicros: l.holdMicros === null ? null : Math.max(0, l.holdMicros - l.costMicros),
        // What the request cost beyond what was charged (a limit or the balance capped it).
        uncoveredMicros: full !== null && l.status !== 'error' ? Math.max(0, full - l.costMicros) : 0,
        ledger: entry
          ? {
              id: entry.id,
              amountMicros: entry.amountMicros,
              // In a team the balance after a movement belongs to the money history.
              balanceAfterMicros: can(a.role, 'history') ? entry.balanceAfterMicros : null,
              at: entry.createdAt.toISOString(),
            }
          : null,
        ttftMs: l.ttftMs,
      }
    },

    /** The choices of the page's filters: keys, models, and in a whole team its members. */
    async filters(a: Acting) {
      const { keys, models, members } = await store.choices(usageScope(a))
      const byName = (x: string, y: string) => x.localeCompare(y, 'ru')
      return {
        keys: keys.sort((x, y) => byName(x.name, y.name)),
        models,
        members: members.sort((x, y) => byName(x.email, y.email)).map((m) => ({ userId: m.id, email: m.email })),
      }
    },

    /** The filtered set as CSV, newest first, read page by page so no export holds it all in memory. */
    csv(a: Acting, q: ActivityQuery): ReadableStream<Uint8Array> {
      const encoder = new TextEncoder()
      const scope = usageScope(a)
      const filter = filterOf(q)
      const team = scope.teamId !== null && scope.userId === null
      let cursor: Cursor | null = null
      let started = false
      return new ReadableStream({
        async pull(controller) {
          if (!started) {
            started = true
            const header = team ? [...CSV_HEADER.slice(0, 5), 'Участник', ...CSV_HEADER.slice(5)] : CSV_HEADER
            controller.enqueue(encoder.encode(`${CSV_BOM}${csvLine(header)}`))
            return
          }
          const rows = await store.page(scope, filter, cursor, CSV_PAGE)
          if (rows.length === 0) return controller.close()
          let chunk = ''
          for (const r of rows) {
            const l = r.log
            chunk += csvLine([
              csvMoscowTime(l.createdAt),
              csvText(l.requestedModel ?? l.model),
              csvText(l.model),
              PROTOCOL_LABELS[l.endpoint],
              csvText(keyNameOf(r) ?? WEB_SESSION_LABEL),
              ...(team ? [csvText(r.email ?? '')] : []),
              STATUS_LABELS[l.status],
              csvText(l.error ?? ''),
              l.promptTokens,
              l.completionTokens,
              l.totalTokens,
              l.images ?? '',
              l.audioSeconds ?? '',
              l.characters ?? '',
              l.upstreamCostUsd ?? '',
              l.usdRubRate ?? '',
              l.markup ?? '',
              formatMicros(l.costMicros),
              l.holdMicros === null ? '' : formatMicros(l.holdMicros),
              l.durationMs,
              l.ttftMs ?? '',
              upstreamShortLabel(l.upstream),
              csvText(l.requestId ?? ''),
              csvText(l.upstreamId ?? ''),
              l.id,
            ])
          }
          const last = rows[rows.length - 1]!.log
          cursor = { at: last.createdAt.getTime(), id: last.id }
          controller.enqueue(encoder.encode(chunk))
        },
      })
    },
  }
}

export type ActivityService = ReturnType<typeof activityService>
