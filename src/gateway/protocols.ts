// Every protocol's entry on the one pipeline (pipeline.ts: hold → forward → relay → settle): chat,
// Responses, Anthropic Messages (and its free token count) and embeddings.
import { OpenAIError } from '../lib/errors'
import { upstreamErrorFrom } from '../upstream/client'
import type { Caller } from './callers'
import { type ChatBody, chatWire } from './chat'
import { type EmbeddingsBody, embeddingsShape, embeddingsWire } from './embeddings'
import { fromFetchFailure, fromUpstream } from './errors'
import { type MessagesBody, messagesShape, messagesWire, resolveAnthropicModel } from './messages'
import type { GatewayDeps, Pipeline } from './pipeline'
import { type ResponsesBody, responsesShape, responsesWire } from './responses'
import { chatShape } from './shape'

const ANTHROPIC_VERSION = '2023-06-01'

/** The anthropic-* headers the router needs to speak the caller's version of the protocol. */
function anthropicHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = { 'anthropic-version': headers['anthropic-version'] || ANTHROPIC_VERSION }
  if (headers['anthropic-beta']) out['anthropic-beta'] = headers['anthropic-beta']
  return out
}

export function protocolsService(deps: GatewayDeps, pipe: Pipeline) {
  const get = deps.catalog.get

  async function messages(caller: Caller, body: MessagesBody, headers: Record<string, string | undefined>, signal: AbortSignal) {
    const stream = body.stream === true
    const model = resolveAnthropicModel(body.model, get)
    const cs = messagesShape({ ...body, model }, get)
    const p = await pipe.prepare(caller, cs, { endpoint: 'messages', stream, headers: anthropicHeaders(headers) })
    const out = pipe.body(p, { ...body, model }, 'messages')
    return stream ? pipe.stream(p, messagesWire, out, signal) : pipe.complete(p, messagesWire, out, signal)
  }

  return {
    /** /v1/chat/completions, plain or streamed. */
    async chat(caller: Caller, body: ChatBody, signal: AbortSignal) {
      const stream = body.stream === true
      const p = await pipe.prepare(caller, chatShape(body, get), { endpoint: 'chat', stream })
      const out = pipe.body(p, body, 'chat')
      return stream ? pipe.stream(p, chatWire, out, signal) : pipe.complete(p, chatWire, out, signal)
    },

    async responses(caller: Caller, body: ResponsesBody, signal: AbortSignal) {
      const stream = body.stream === true
      const cs = responsesShape(body, get)
      const p = await pipe.prepare(caller, cs, { endpoint: 'responses', stream })
      const out = pipe.body(p, body, 'responses')
      return stream ? pipe.stream(p, responsesWire, out, signal) : pipe.complete(p, responsesWire, out, signal)
    },

    async messages(caller: Caller, body: MessagesBody, headers: Record<string, string | undefined>, signal: AbortSignal) {
      try {
        return await messages(caller, body, headers, signal)
      } catch (e) {
        // Claude Code shows only the message: the top-up link must work outside the browser.
        const action = e instanceof OpenAIError ? e.extra.action : undefined
        if (action?.url.startsWith('/')) (e as OpenAIError).extra.action = { ...action, url: new URL(action.url, deps.config.publicUrl).href }
        throw e
      }
    },

    /** The router's free input-token count for a Messages body; nothing is held or charged. */
    async countTokens(body: Record<string, unknown>, headers: Record<string, string | undefined>, signal: AbortSignal) {
      const model = typeof body.model === 'string' ? resolveAnthropicModel(body.model, get) : body.model
      let res: Response
      try {
        res = await deps.upstream.post(
          '/messages/count_tokens',
          { ...body, model },
          AbortSignal.any([signal, AbortSignal.timeout(deps.config.upstreamTimeoutMs)]),
          anthropicHeaders(headers),
        )
      } catch (e) {
        throw fromFetchFailure(e, (e as Error)?.name === 'TimeoutError')
      }
      if (!res.ok) throw fromUpstream(await upstreamErrorFrom(res))
      const json = (await res.json().catch(() => null)) as { input_tokens?: unknown } | null
      if (typeof json?.input_tokens !== 'number') throw new OpenAIError(502, 'Провайдер не вернул число токенов', 'server_error', 'upstream_error')
      return { input_tokens: json.input_tokens }
    },

    async embeddings(caller: Caller, body: EmbeddingsBody, signal: AbortSignal) {
      const cs = embeddingsShape(body, get)
      const p = await pipe.prepare(caller, cs, { endpoint: 'embeddings', stream: false })
      return pipe.complete(p, embeddingsWire, pipe.body(p, body, 'embeddings'), signal)
    },
  }
}
