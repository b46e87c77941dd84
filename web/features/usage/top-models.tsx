import { formatInteger, formatPrice, pluralRu, voiceAmount } from '../../../src/content/format'
import { Card } from '../../components/card'
import type { UsageModel } from '../../lib/types'

/** The period's most expensive models, each bar relative to the first. */
export function TopModels({ models }: { models: UsageModel[] }) {
  const max = Math.max(0, ...models.map((m) => m.cost))
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Модели по расходам</h2>
      <ol className="mt-4 space-y-4">
        {models.map((m) => (
          <li key={m.model} data-testid="top-model">
            <div className="flex items-baseline justify-between gap-3 text-sm">
              <span className="min-w-0 font-medium break-all text-slate-800">{m.model}</span>
              <span className="shrink-0 font-semibold whitespace-nowrap text-slate-900 tabular-nums">{formatPrice(m.cost)}</span>
            </div>
            <div className="mt-1.5 h-2 overflow-hidden rounded-full bg-slate-100" aria-hidden="true">
              <div className="h-full rounded-full bg-indigo-500" style={{ width: `${max > 0 ? Math.max(2, (m.cost / max) * 100) : 0}%` }} />
            </div>
            <p className="mt-1 text-xs text-slate-500 tabular-nums">
              {formatInteger(m.requests)} {pluralRu(m.requests, ['запрос', 'запроса', 'запросов'])} ·{' '}
              {voiceAmount(m) ?? `${formatInteger(m.tokens)} ${pluralRu(m.tokens, ['токен', 'токена', 'токенов'])}`}
            </p>
          </li>
        ))}
      </ol>
    </Card>
  )
}
