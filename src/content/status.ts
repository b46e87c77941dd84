// The status page's words and numbers, the same on the server-rendered page and in the SPA.
import { moscowFormat } from './format'
import { moscowMs } from './moscow'

export type ComponentState = 'operational' | 'degraded' | 'outage'

export const STATE_LABELS: Record<ComponentState, string> = { operational: 'Работает', degraded: 'Частичный сбой', outage: 'Не работает' }

export const STATUS_HEADLINES: Record<ComponentState, string> = {
  operational: 'Все системы работают',
  degraded: 'Частичный сбой: часть запросов может не проходить',
  outage: 'Сбой: сервис сейчас не отвечает на запросы к моделям',
}

export const STATUS_TEXT = {
  title: 'Состояние сервиса',
  lead: 'Работает ли API, провайдеры моделей и платежи сейчас, и какие сбои были за последние 90 дней. Сбои провайдеров фиксирует сам шлюз: когда провайдер перестаёт отвечать, запросы к нему приостанавливаются, а время сбоя записывается сюда.',
  now: 'Сейчас',
  uptime: 'Доступность за 90 дней',
  uptimeNote: 'Доля времени, когда модели отвечали (через основного или резервного провайдера). Время по Москве.',
  incidents: 'Сбои за 90 дней',
  noIncidents: 'За последние 90 дней сбоев не было.',
  columns: ['Начало (МСК)', 'Окончание (МСК)', 'Длительность', 'Что отказало'] as const,
  ongoing: 'продолжается',
}

const moscowDate = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', timeZone: 'Europe/Moscow' })

/** '24.11.2026, 14:05' in Moscow time. */
export const formatMoscow = (iso: string) => moscowFormat.format(new Date(iso))

/** '24 ноября' for a Moscow day given as YYYY-MM-DD. */
export const formatDay = (date: string) => moscowDate.format(new Date(moscowMs(date, '12:00:00')))

/** '45 с', '12 мин', '1 ч 5 мин', '2 д 3 ч'. */
export function formatDuration(sec: number): string {
  const s = Math.max(0, Math.round(sec))
  if (s < 60) return `${s} с`
  const m = Math.round(s / 60)
  if (m < 60) return `${m} мин`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 ? `${h} ч ${m % 60} мин` : `${h} ч`
  const d = Math.floor(h / 24)
  return h % 24 ? `${d} д ${h % 24} ч` : `${d} д`
}

const percent = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
/** '99,95 %' ('100 %' for a whole day up); never rounded up to 100 while anything was down. */
export function formatUptime(share: number): string {
  if (share >= 1) return '100 %'
  return `${percent.format(Math.min(99.99, Math.floor(share * 10_000) / 100))} %`
}

/** How a day's bar is coloured: whole, a short interruption, or a real outage. */
export const uptimeTone = (share: number): 'good' | 'warn' | 'bad' => (share >= 0.999 ? 'good' : share >= 0.99 ? 'warn' : 'bad')

export const averageUptime = (days: ReadonlyArray<{ uptime: number }>) => (days.length ? days.reduce((s, d) => s + d.uptime, 0) / days.length : 1)
