// One request in full: who and what, how long, and how its charge came about — the upstream's cost
// × our rate × the markup, the hold, the settlement and its ledger row, to the micro-ruble.
import type { ReactNode } from 'react'
import useSWR from 'swr'
import { PROTOCOL_LABELS, STATUS_LABELS, upstreamShortLabel } from '../../../src/content/activity'
import { formatDuration, formatInteger, formatMoscowDateTime, formatRublesExact } from '../../../src/content/format'
import { Drawer } from '../../components/drawer'
import { ListSkeleton, LoadError } from '../../components/list-state'
import { errorMessage } from '../../lib/api'
import { type ActivityDetail, keyLabel } from './activity-api'

/** An exact amount kept on one line (a phone would break it before '₽'). */
const rub = (micros: number | null) => (micros === null ? '—' : <span className="whitespace-nowrap">{formatRublesExact(micros / 1e6)}</span>)
const ms = (value: number | null) => (value === null ? '—' : `${formatInteger(value)} мс`)

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-4">
      <h3 className="mb-2 text-sm font-semibold text-slate-900">{title}</h3>
      <dl className="space-y-1.5 text-sm">{children}</dl>
    </section>
  )
}

/** A label and its value on one line; `stacked`: the value on its own line below (a long one). */
function Row({ label, children, testId, stacked }: { label: string; children: ReactNode; testId?: string; stacked?: boolean }) {
  return (
    <div className={stacked ? '' : 'flex items-baseline justify-between gap-3'}>
      <dt className="text-slate-500">{label}</dt>
      <dd className={stacked ? 'mt-0.5 break-words text-slate-900 tabular-nums' : 'min-w-0 text-right break-words text-slate-900 tabular-nums'} data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

function Id({ value }: { value: string | null }) {
  if (!value) return <>—</>
  // select-all: one click selects the whole id for copying
  return <code className="font-mono text-xs select-all">{value}</code>
}

/** The charge's arithmetic: '$0.000123 × 92.5 ₽/$ × 1.3 = 0,014794 ₽', or from a provider billing in rubles '0.00255 ₽ × 1.3 = …'. */
function Formula({ d }: { d: ActivityDetail }) {
  if (d.upstreamCostRub !== null)
    return (
      <>
        {d.upstreamCostRub} ₽ × {d.markup ?? '?'}
        {d.formulaMicros !== null && <> = {rub(d.formulaMicros)}</>}
      </>
    )
  if (d.upstreamCostUsd === null) return <>провайдер не сообщил стоимость — по ценам модели</>
  return (
    <>
      ${d.upstreamCostUsd} × {d.rate ?? '?'} ₽/$ × {d.markup ?? '?'}
      {d.formulaMicros !== null && <> = {rub(d.formulaMicros)}</>}
    </>
  )
}

function Body({ d, team }: { d: ActivityDetail; team: boolean }) {
  const voice = d.audioSeconds !== null || d.characters !== null
  return (
    <>
      <Section title="Запрос">
        <Row label="Время (МСК)">{formatMoscowDateTime(d.at)}</Row>
        <Row label="Ключ">{keyLabel(d)}</Row>
        {team && d.email && <Row label="Участник">{d.email}</Row>}
        <Row label="Модель в запросе">{d.requestedModel}</Row>
        <Row label="Ответила модель">{d.model}</Row>
        <Row label="Протокол">
          {PROTOCOL_LABELS[d.protocol]}
          {d.stream && ', поток'}
        </Row>
        <Row label="Статус" testId="activity-status">
          {STATUS_LABELS[d.status]}
        </Row>
        {d.error && (
          <Row label="Ошибка" stacked>
            {d.error}
          </Row>
        )}
      </Section>
      <Section title="Объём">
        {d.images !== null && <Row label="Изображений">{formatInteger(d.images)}</Row>}
        {d.audioSeconds !== null && <Row label="Аудио">{formatDuration(d.audioSeconds)}</Row>}
        {d.characters !== null && <Row label="Символов">{formatInteger(d.characters)}</Row>}
        {!voice && (
          <>
            <Row label="Токены запроса">{formatInteger(d.promptTokens)}</Row>
            <Row label="Токены ответа">{formatInteger(d.completionTokens)}</Row>
            <Row label="Всего токенов">{formatInteger(d.totalTokens)}</Row>
          </>
        )}
      </Section>
      <Section title="Стоимость">
        <Row label="Списано" testId="activity-cost">
          {rub(d.costMicros)}
        </Row>
        <Row label="Расчёт: стоимость у провайдера × курс × наценка" stacked testId="activity-formula">
          <Formula d={d} />
        </Row>
        <Row label="Резерв до ответа">{rub(d.holdMicros)}</Row>
        <Row label="Возвращено из резерва">{rub(d.releasedMicros)}</Row>
        {d.uncoveredMicros > 0 && <Row label="Не списано (лимит или баланс)">{rub(d.uncoveredMicros)}</Row>}
        {/* a settlement's ledger row is always a charge: minus the exact amount */}
        <Row label="Операция в истории" testId="activity-ledger">
          {d.ledger ? <span className="whitespace-nowrap">−{formatRublesExact(-d.ledger.amountMicros / 1e6)}</span> : 'нет — ничего не списано'}
        </Row>
        {d.ledger?.balanceAfterMicros != null && <Row label="Баланс после">{rub(d.ledger.balanceAfterMicros)}</Row>}
      </Section>
      <Section title="Время и идентификаторы">
        <Row label="Длительность">{ms(d.latencyMs)}</Row>
        {d.stream && <Row label="До первого токена">{ms(d.ttftMs)}</Row>}
        <Row label="Провайдер моделей">{upstreamShortLabel(d.upstream)}</Row>
        <Row label="ID запроса" testId="activity-request-id">
          <Id value={d.requestId} />
        </Row>
        <Row label="ID генерации">
          <Id value={d.generationId} />
        </Row>
      </Section>
    </>
  )
}

/** The detail of `id` in a panel from the right (the whole height; most of the width on a phone). */
export function ActivityDetailPanel({ id, team, onClose }: { id: string | null; team: boolean; onClose: () => void }) {
  const { data, error, isValidating, mutate } = useSWR<ActivityDetail>(id ? `/api/activity/${encodeURIComponent(id)}` : null)
  let body: ReactNode
  if (error && !data) body = <LoadError message={errorMessage(error, 'Не удалось загрузить запрос.')} retrying={isValidating} onRetry={() => void mutate()} />
  else if (!data || data.id !== id) body = <ListSkeleton rows={6} />
  else body = <Body d={data} team={team} />
  return (
    <Drawer open={id !== null} onClose={onClose} title="Запрос">
      {body}
    </Drawer>
  )
}
