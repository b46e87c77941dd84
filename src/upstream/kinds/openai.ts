// Any OpenAI-compatible router or provider (providers-and-payments.md §3): DeepSeek, the Russian
// aggregators. The body goes as it is, with the upstream's own model name and without the router's
// routing fields (no other kind takes them); answers are OpenAI's shapes already. What it cost comes
// back in `usage.cost_rub` (rubles) or `usage.cost` (the upstream's currency) when the upstream reports
// it (gateway/charge.ts reads them); otherwise the tokens are priced at the file's prices.
import { readFileSync } from 'node:fs'
import type { KindClient, KindClientOptions, OpenAIEntry } from './types'

/** OpenRouter's request fields: meaningless, or an error, anywhere else. */
export const ROUTER_FIELDS = ['models', 'route', 'provider', 'plugins', 'transforms', 'usage'] as const

export function createOpenAIClient(entry: OpenAIEntry, opts: KindClientOptions = {}): KindClient {
  const ca = entry.caFile ? [readFileSync(entry.caFile, 'utf8')] : null
  const send = opts.fetch ?? ((url: string, init?: RequestInit) => fetch(url, ca ? ({ ...init, tls: { ca } } as RequestInit) : init))
  return {
    post(path, body, signal, headers) {
      const sent: Record<string, unknown> = { ...body }
      for (const f of ROUTER_FIELDS) delete sent[f]
      return send(`${entry.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${entry.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(sent),
        signal,
      })
    },
  }
}
