// CSV export of a period's requests, streamed page by page so a million rows never sit in memory.
// RFC 4180 (comma, CRLF, quotes doubled) with a UTF-8 BOM so Excel reads the Cyrillic correctly.
import { and, asc, eq, gt, or } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/types'
import { apiKeys } from '../keys/schema'
import { CSV_BOM, csvLine, csvMoscowTime, csvText } from '../lib/csv'
import { formatMicros } from '../lib/money'
import { usageLogs } from '../money'
import { logConditions, type UsageFilter, type UsageScope } from './usage'

const PAGE = 2000

const HEADER = [
  'Время (МСК)',
  'Модель',
  'API-ключ',
  'Токены запроса',
  'Токены ответа',
  'Всего токенов',
  'Секунд аудио',
  'Символов',
  'Стоимость, ₽',
  'Статус',
  'Длительность, мс',
  'Потоковый',
  'ID запроса',
]

const STATUS_LABELS = { success: 'успешно', error: 'ошибка', cancelled: 'прерван' } as const

export function usageCsv(db: Db, scope: UsageScope, since: Date | null, f: UsageFilter): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  // A team's export says which member made each request.
  const team = scope.teamId !== null
  let cursor: { at: Date; id: string } | null = null
  let started = false

  const page = () => {
    const where = logConditions(scope, since, f)
    if (cursor) where.push(or(gt(usageLogs.createdAt, cursor.at), and(eq(usageLogs.createdAt, cursor.at), gt(usageLogs.id, cursor.id)))!)
    return db
      .select({ log: usageLogs, keyName: apiKeys.name, email: users.email })
      .from(usageLogs)
      .leftJoin(apiKeys, eq(apiKeys.id, usageLogs.apiKeyId))
      .leftJoin(users, eq(users.id, usageLogs.userId))
      .where(and(...where))
      .orderBy(asc(usageLogs.createdAt), asc(usageLogs.id))
      .limit(PAGE)
  }

  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true
        controller.enqueue(encoder.encode(`${CSV_BOM}${csvLine(team ? [...HEADER.slice(0, 3), 'Участник', ...HEADER.slice(3)] : HEADER)}`))
        return
      }
      const rows = await page()
      if (rows.length === 0) return controller.close()
      let chunk = ''
      for (const { log: r, keyName, email } of rows) {
        chunk += csvLine([
          csvMoscowTime(r.createdAt),
          csvText(r.model),
          csvText(keyName ?? (r.apiKeyId ? 'Удалённый ключ' : 'Веб-сессия')),
          ...(team ? [csvText(email ?? '')] : []),
          r.promptTokens,
          r.completionTokens,
          r.totalTokens,
          r.audioSeconds ?? '',
          r.characters ?? '',
          formatMicros(r.costMicros),
          STATUS_LABELS[r.status],
          r.durationMs,
          r.stream ? 'да' : 'нет',
          r.id,
        ])
      }
      const last = rows[rows.length - 1]!.log
      cursor = { at: last.createdAt, id: last.id }
      controller.enqueue(encoder.encode(chunk))
    },
  })
}
