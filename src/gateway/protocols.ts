// Every protocol's entry on the one pipeline (pipeline.ts: hold → forward → relay → settle): chat,
// Responses, Anthropic Messages (and its free token count) and embeddings.
import { OpenAIError } from '../lib/errors'
import type { Caller } from './callers'
import { type ChatBody, chatWire } from './chat'
import { type EmbeddingsBody, embeddingsShape, embeddingsWire } from './embeddings'
import { callerAccount } from './forward'
import { type MessagesBody, messagesShape, messagesWire, resolveAnthropicModel } from './messages'
import type { Pipeline } from './pipeline'
import { type ResponsesBody, responsesShape, responsesWire } from './responses'
import { chatShape } from './shape'
import type { GatewayDeps } from './types'

const ANTHROPIC_VERSION = '2023-06-01'
/** The header of a token count the gateway estimated itself (the router could not count). */
export const TOKEN_COUNT_ESTIMATED = 'x-token-count-estimated'

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

    /**
     * The free input-token count of a Messages body: the router's when it serves one; when it does not
     * (404, 405), cannot be reached or is down, our own estimate — the one the hold uses — marked
     * `estimated`. Claude Code asks before every request: it must always get an answer. Nothing is held.
     */
    async countTokens(
      caller: Caller,
      body: Record<string, unknown>,
      headers: Record<string, string | undefined>,
      signal: AbortSignal,
    ): Promise<{ input_tokens: number; estimated: boolean }> {
      const model = typeof body.model === 'string' ? resolveAnthropicModel(body.model, get) : String(body.model)
      // Our catalogue first: an unknown model is a 404 whatever the router would say.
      const cs = messagesShape({ ...(body as MessagesBody), model, max_tokens: 1 }, get)
      const estimate = () => ({ input_tokens: cs.shape.prompt.tokens, estimated: true })
      let sent: Awaited<ReturnType<typeof pipe.forward>>
      try {
        sent = await pipe.forward(
          {
            path: '/messages/count_tokens',
            body: { ...body, model },
            headers: anthropicHeaders(headers),
            stream: false,
            models: cs.shape.candidates.map((c) => c.model.id),
            account: callerAccount(caller),
          },
          signal,
        )
      } catch (e) {
        // The router's verdict on the body stands; anything else (no such route, down, unreachable) is estimated.
        if (signal.aborted || (e instanceof OpenAIError && (e.status === 400 || e.status === 403))) throw e
        return estimate()
      }
      const json = (await sent.res
        .json()
        .catch(() => null)
        .finally(sent.done)) as { input_tokens?: unknown } | null
      return typeof json?.input_tokens === 'number' ? { input_tokens: json.input_tokens, estimated: false } : estimate()
    },

    async embeddings(caller: Caller, body: EmbeddingsBody, signal: AbortSignal) {
      const cs = embeddingsShape(body, get)
      const p = await pipe.prepare(caller, cs, { endpoint: 'embeddings', stream: false })
      return pipe.complete(p, embeddingsWire, pipe.body(p, body, 'embeddings'), signal)
    },
  }
}

export type ProtocolsService = ReturnType<typeof protocolsService>
