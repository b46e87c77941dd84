import { type PointerEvent, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { formatInteger, formatPrice } from '../../../src/content/format'
import type { UsageDay } from '../../lib/types'
import { dayDate } from './usage-period'

const HEIGHT = 240
const MARGIN = { top: 12, right: 36, bottom: 28, left: 52 }
const TICKS = 4
/** X labels never closer than this (px), whatever the number of days. */
const LABEL_GAP = 52
/** The tooltip's width (w-44) and its distance from the pointed day. */
const TIP_WIDTH = 176
const TIP_GAP = 8

const shortDay = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', timeZone: 'UTC' })
const longDay = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric', weekday: 'short', timeZone: 'UTC' })

/** The chart is drawn in real pixels (not a stretched viewBox), so text stays crisp and unscaled. */
function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null)
  const [width, setWidth] = useState(0)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    setWidth(el.clientWidth)
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry?.contentRect.width ?? 0)))
    observer.observe(el)
    return () => observer.disconnect()
  }, [])
  return [ref, width] as const
}

/** A 1-2-5 step so that TICKS steps cover `max`; integer steps for counts. */
function niceScale(max: number, integer: boolean): { step: number; top: number; digits: number } {
  const raw = max > 0 ? max / TICKS : 1
  const power = 10 ** Math.floor(Math.log10(raw))
  const mantissa = raw / power
  let step = (mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10) * power
  if (integer) step = Math.max(1, Math.round(step))
  const digits = integer ? 0 : Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  return { step, top: step * TICKS, digits }
}

function tickFormat(digits: number) {
  return new Intl.NumberFormat('ru-RU', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/**
 * Spend (bars, left axis) and requests (line, right axis) per Moscow day. Pointing at a day
 * (mouse or finger) shows its figures; screen readers get the same figures as a table.
 */
export function UsageChart({ days }: { days: UsageDay[] }) {
  const [wrapRef, width] = useWidth<HTMLDivElement>()
  const [active, setActive] = useState<number | null>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: days is the trigger: another period clears the pointed-at day
  useEffect(() => setActive(null), [days])

  const n = days.length
  const plotW = Math.max(0, width - MARGIN.left - MARGIN.right)
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom
  const band = n > 0 ? plotW / n : 0
  const barW = Math.max(1, Math.min(28, band * 0.7))

  const cost = niceScale(Math.max(0, ...days.map((d) => d.cost)), false)
  const requests = niceScale(Math.max(0, ...days.map((d) => d.requests)), true)
  const costFormat = tickFormat(cost.digits)
  const yCost = (v: number) => MARGIN.top + plotH - (v / cost.top) * plotH
  const yReq = (v: number) => MARGIN.top + plotH - (v / requests.top) * plotH
  const xCenter = (i: number) => MARGIN.left + band * i + band / 2

  // Label every k-th day counting back from the last, so today is always labelled.
  const labelEvery = Math.max(1, Math.ceil(LABEL_GAP / Math.max(band, 1)))
  const line = days.map((d, i) => `${xCenter(i).toFixed(1)},${yReq(d.requests).toFixed(1)}`).join(' ')

  function pick(event: PointerEvent<SVGRectElement>) {
    const box = event.currentTarget.getBoundingClientRect()
    const i = Math.floor((event.clientX - box.left) / band)
    setActive(i >= 0 && i < n ? i : null)
  }

  const current = active !== null ? days[active] : undefined
  // Beside the pointed day, never on top of it: to its right, or to its left near the right edge.
  let tipLeft = 0
  if (active !== null) {
    const right = xCenter(active) + band / 2 + TIP_GAP
    tipLeft = right + TIP_WIDTH <= width ? right : Math.max(0, xCenter(active) - band / 2 - TIP_GAP - TIP_WIDTH)
  }

  return (
    <div>
      <div className="flex flex-wrap items-center gap-x-5 gap-y-1 text-xs text-slate-600">
        <span className="inline-flex items-center gap-1.5">
          <span className="h-2.5 w-2.5 rounded-sm bg-indigo-500" aria-hidden="true" />
          Расходы, ₽ (левая шкала)
        </span>
        <span className="inline-flex items-center gap-1.5">
          <span className="h-0.5 w-4 rounded bg-amber-500" aria-hidden="true" />
          Запросы (правая шкала)
        </span>
      </div>
      <div ref={wrapRef} className="relative mt-3" data-testid="usage-chart">
        {width > 0 && n > 0 && (
          <svg width={width} height={HEIGHT} role="img" aria-label="Расходы и запросы по дням" className="block touch-pan-y select-none">
            {Array.from({ length: TICKS + 1 }, (_, k) => {
              const y = yCost(cost.step * k)
              return (
                <g key={k}>
                  <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y} y2={y} className="stroke-slate-100" />
                  <text x={MARGIN.left - 6} y={y} dy="0.32em" textAnchor="end" className="fill-slate-400 text-[11px] tabular-nums">
                    {costFormat.format(cost.step * k)}
                  </text>
                  <text x={width - MARGIN.right + 6} y={yReq(requests.step * k)} dy="0.32em" className="fill-amber-600/80 text-[11px] tabular-nums">
                    {formatInteger(requests.step * k)}
                  </text>
                </g>
              )
            })}
            {current && active !== null && <rect x={MARGIN.left + band * active} y={MARGIN.top} width={band} height={plotH} className="fill-slate-100/80" />}
            {days.map((d, i) =>
              d.cost > 0 ? (
                <rect
                  key={d.date}
                  data-testid="usage-bar"
                  x={xCenter(i) - barW / 2}
                  y={yCost(d.cost)}
                  width={barW}
                  height={Math.max(1, MARGIN.top + plotH - yCost(d.cost))}
                  rx={barW > 6 ? 2 : 0}
                  className={active === i ? 'fill-indigo-600' : 'fill-indigo-500'}
                />
              ) : null,
            )}
            <polyline points={line} fill="none" strokeWidth={2} strokeLinejoin="round" strokeLinecap="round" className="stroke-amber-500" />
            {/* dots only where something happened: a row of zeros along the axis is noise */}
            {days.map((d, i) =>
              d.requests > 0 && (band >= 10 || active === i) ? (
                <circle key={d.date} cx={xCenter(i)} cy={yReq(d.requests)} r={active === i ? 4 : 3} className="fill-white stroke-amber-500" strokeWidth={2} />
              ) : null,
            )}
            <line x1={MARGIN.left} x2={width - MARGIN.right} y1={MARGIN.top + plotH} y2={MARGIN.top + plotH} className="stroke-slate-300" />
            {days.map((d, i) =>
              (n - 1 - i) % labelEvery === 0 ? (
                <text key={d.date} x={xCenter(i)} y={HEIGHT - 8} textAnchor="middle" className="fill-slate-500 text-[11px] tabular-nums">
                  {shortDay.format(dayDate(d.date))}
                </text>
              ) : null,
            )}
            <rect x={MARGIN.left} y={MARGIN.top} width={plotW} height={plotH} fill="transparent" onPointerMove={pick} onPointerDown={pick} onPointerLeave={() => setActive(null)} />
          </svg>
        )}
        {current && (
          <div
            role="tooltip"
            data-testid="usage-tooltip"
            className="pointer-events-none absolute z-10 w-44 rounded-lg border border-slate-200 bg-white px-3 py-2 text-xs shadow-lg"
            style={{ left: tipLeft, top: MARGIN.top }}
          >
            <p className="font-medium text-slate-900">{longDay.format(dayDate(current.date))}</p>
            <p className="mt-1 flex justify-between gap-2 text-slate-600">
              Расходы <span className="font-medium text-slate-900 tabular-nums">{formatPrice(current.cost)}</span>
            </p>
            <p className="flex justify-between gap-2 text-slate-600">
              Запросы <span className="font-medium text-slate-900 tabular-nums">{formatInteger(current.requests)}</span>
            </p>
            <p className="flex justify-between gap-2 text-slate-600">
              Токены <span className="font-medium text-slate-900 tabular-nums">{formatInteger(current.tokens)}</span>
            </p>
          </div>
        )}
      </div>
      {/* the wrapper is what hides it: a table ignores the 1 px width of .sr-only and would widen the page */}
      <div className="sr-only">
        <table>
          <caption>Расходы и запросы по дням</caption>
          <thead>
            <tr>
              <th scope="col">День</th>
              <th scope="col">Расходы</th>
              <th scope="col">Запросы</th>
              <th scope="col">Токены</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{longDay.format(dayDate(d.date))}</th>
                <td>{formatPrice(d.cost)}</td>
                <td>{formatInteger(d.requests)}</td>
                <td>{formatInteger(d.tokens)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
