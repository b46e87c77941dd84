import { useState } from 'react'
import { Link } from 'wouter'
import { Card } from '../../components/card'
import { CopyButton } from '../../components/copy-button'
import { ArrowRightIcon } from '../../components/icons'
import { cn } from '../../lib/cn'
import { CopyAction } from './copy-action'

const EXAMPLE_MODEL = 'openai/gpt-3.5-turbo'

function examples(baseUrl: string) {
  return {
    curl: [
      `curl ${baseUrl}/chat/completions \\`,
      `  -H "Authorization: Bearer $API_KEY" -H "Content-Type: application/json" \\`,
      `  -d '{"model": "${EXAMPLE_MODEL}", "messages": [{"role": "user", "content": "Привет!"}]}'`,
    ].join('\n'),
    python: [
      `from openai import OpenAI`,
      `client = OpenAI(base_url="${baseUrl}", api_key="ВАШ_API_КЛЮЧ")`,
      `print(client.chat.completions.create(model="${EXAMPLE_MODEL}", messages=[{"role": "user", "content": "Привет!"}]).choices[0].message.content)`,
    ].join('\n'),
  }
}

type Tab = 'curl' | 'python'
const TABS: { id: Tab; label: string }[] = [
  { id: 'curl', label: 'curl' },
  { id: 'python', label: 'Python (openai)' },
]

/** Where to point an OpenAI client and a request that works as soon as the key is pasted in. */
export function UsageHint() {
  const baseUrl = `${window.location.origin}/v1`
  const [tab, setTab] = useState<Tab>('curl')
  const code = examples(baseUrl)[tab]
  return (
    <Card className="overflow-hidden">
      <div className="p-4 sm:p-6">
        <h2 className="text-base font-semibold text-slate-900">Как использовать ключ</h2>
        <p className="mt-1 text-sm text-slate-500">API совместим с OpenAI: укажите базовый URL и ключ в любом OpenAI-клиенте или SDK.</p>
        <p className="mt-4 text-sm font-medium text-slate-700" id="base-url-label">
          Базовый URL
        </p>
        <div className="mt-1.5 flex flex-col gap-2 sm:flex-row">
          {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: ties the URL to its visible label for screen readers that expose it; kept as it is (axe-clean) */}
          <code
            aria-labelledby="base-url-label"
            data-testid="base-url"
            className="flex min-h-10 flex-1 items-center rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900 select-all"
          >
            {baseUrl}
          </code>
          <CopyAction text={baseUrl} ariaLabel="Копировать базовый URL" className="sm:min-w-[9.5rem]" />
        </div>
      </div>
      <div className="border-t border-slate-800 bg-slate-900">
        <div className="flex items-center justify-between gap-2 border-b border-white/10 px-2 py-1.5 sm:px-4">
          <div role="tablist" aria-label="Пример запроса" className="flex gap-1">
            {TABS.map((t) => (
              <button
                key={t.id}
                type="button"
                role="tab"
                aria-selected={tab === t.id}
                onClick={() => setTab(t.id)}
                className={cn('h-7 rounded-md px-2.5 text-xs font-medium transition-colors', tab === t.id ? 'bg-white/10 text-white' : 'text-slate-400 hover:text-slate-200')}
              >
                {t.label}
              </button>
            ))}
          </div>
          <CopyButton text={code} className="text-slate-300 hover:bg-white/10 hover:text-white" />
        </div>
        <pre role="tabpanel" tabIndex={0} className="overflow-x-auto p-4 font-mono text-[13px] leading-6 text-slate-100">
          <code>{code}</code>
        </pre>
      </div>
      <div className="border-t border-slate-200 px-4 py-3 sm:px-6">
        <Link href="/app/docs" className="inline-flex items-center gap-1 text-sm font-medium text-indigo-600 hover:text-indigo-500">
          Подробнее в документации
          <ArrowRightIcon size={14} />
        </Link>
      </div>
    </Card>
  )
}
