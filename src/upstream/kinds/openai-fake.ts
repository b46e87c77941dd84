// A local stand-in for an OpenAI-compatible aggregator billing in rubles (providers-and-payments.md
// §3.2, AITunnel's and Polza's shape): chat completions with `usage.cost_rub` (what it charged us) and
// `usage.balance` (our balance there), in the last chunk of a stream when `stream_options.include_usage`
// asks for it. Tests and bench/chaos.ts talk to it over real HTTP.
import type { FileModel, OpenAIEntry } from './types'

export type FakeAggregatorLogEntry = { path: string; headers: Record<string, string>; body: Record<string, unknown> }

export type FakeAggregator = {
  /** Base URL including `/v1`. */
  baseUrl: string
  port: number
  log: FakeAggregatorLogEntry[]
  /** What every answer cost, rubles, in the order they were made. */
  charges: number[]
  /** The same, by the completion's id. */
  costs: Map<string, number>
  /** Its UPSTREAMS_FILE entry (an aggregator in Russia billing in rubles) serving `models`. */
  entry(id: string, models: FileModel[]): OpenAIEntry
  /** The next chat request fails with this status and message. */
  failNext(status: number, message: string): void
  stop(): Promise<void>
}

export const FAKE_AGGREGATOR_REPLY = 'Ответ агрегатора: всё работает.'
/** Rubles per prompt and per completion token the fake charges (a price no catalogue row has: the test sees it is the one charged). */
export const FAKE_AGGREGATOR_RUB = { prompt: 0.000731, completion: 0.002917 }

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

export async function startFakeAggregator(opts: { apiKey?: string } = {}): Promise<FakeAggregator> {
  const apiKey = opts.apiKey ?? 'sk-aitunnel-test'
  const log: FakeAggregatorLogEntry[] = []
  const charges: number[] = []
  const costs = new Map<string, number>()
  const failures: Array<{ status: number; message: string }> = []
  let balance = 5000

  function answer(body: Record<string, unknown>) {
    const messages = (body.messages as Array<{ role: string; content?: unknown }>) ?? []
    const last = messages[messages.length - 1]
    const text = JSON.stringify(messages)
    const prompt = Math.ceil(text.length / 4)
    const tools = Array.isArray(body.tools) && body.tools.length > 0
    const toolCall = tools && last?.role === 'user' && String(last.content).includes('погода')
    const reply = last?.role === 'tool' ? `По данным инструмента: ${String(last.content)}` : FAKE_AGGREGATOR_REPLY
    const completion = toolCall ? 12 : reply.split(/\s+/).length
    const cost = Math.round((prompt * FAKE_AGGREGATOR_RUB.prompt + completion * FAKE_AGGREGATOR_RUB.completion) * 1e6) / 1e6
    balance -= cost
    charges.push(cost)
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cost_rub: cost, balance: Math.round(balance * 100) / 100 }
    const message = toolCall
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `call_${crypto.randomUUID().slice(0, 8)}`, type: 'function', function: { name: 'weather', arguments: '{"city":"Москва"}' } }],
        }
      : { role: 'assistant', content: reply }
    return { message, usage, finish: toolCall ? 'tool_calls' : 'stop' }
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (req.headers.get('authorization') !== `Bearer ${apiKey}`) return json(401, { error: { message: 'Invalid API key', code: 'invalid_api_key' } })
      if (req.method !== 'POST' || path !== '/v1/chat/completions') return json(404, { error: { message: `no route ${path}`, code: 'NOT_FOUND' } })
      const body = (await req.json()) as Record<string, unknown>
      log.push({ path, headers: Object.fromEntries(req.headers), body })
      for (const f of ['models', 'provider', 'plugins', 'route']) if (f in body) return json(400, { error: { message: `unknown field ${f}`, code: 'BAD_REQUEST' } })
      const failure = failures.shift()
      if (failure) return json(failure.status, { error: { message: failure.message, code: 'UPSTREAM' } })
      const id = `chatcmpl-agg-${crypto.randomUUID().slice(0, 12)}`
      const created = Math.floor(Date.now() / 1000)
      const { message, usage, finish } = answer(body)
      costs.set(id, usage.cost_rub)
      if (body.stream !== true) return json(200, { id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage })
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`
      const parts: string[] = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])]
      if (message.tool_calls) parts.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, ...message.tool_calls[0] }] }, finish_reason: null }]))
      else for (const word of String(message.content).split(' ')) parts.push(chunk([{ index: 0, delta: { content: `${word} ` }, finish_reason: null }]))
      parts.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]))
      const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true
      if (wantsUsage) parts.push(chunk([], { usage }))
      parts.push('data: [DONE]\n\n')
      return new Response(parts.join(''), { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    port: server.port!,
    log,
    charges,
    costs,
    entry: (id, models) => ({ id, kind: 'openai', baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey, residency: 'ru', currency: 'RUB', models }),
    failNext: (status, message) => void failures.push({ status, message }),
    stop: async () => void server.stop(true),
  }
}
