import { useHealth } from '../lib/queries'

/** Says plainly when replies come from the built-in demo upstream rather than real models. */
export function DemoBanner() {
  const { data } = useHealth()
  if (data?.upstream !== 'demo') return null
  return (
    <div role="status" data-testid="demo-banner" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900">
      <span className="mr-2 inline-block rounded bg-amber-200 px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide">демо</span>
      Демо-режим: ответы моделей генерируются локально, без обращения к настоящим моделям. Подключите OPENROUTER_API_KEY, чтобы работать с реальными моделями.
    </div>
  )
}
