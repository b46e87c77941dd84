// Chat through the official `openai` package against our /v1, signed in with the session's
// access token. Shared by the Ink chat and the pipe mode.
import OpenAI from 'openai'
import type { Api, Balance, Model } from './api'
import { httpError } from './api'
import { CliError, unreachable } from './errors'

export type ChatMessage = { role: 'user' | 'assistant'; content: string }
export type ChatParams = { model: string; temperature?: number; maxTokens?: number }
/** `costRub` is the final chunk's usage.cost_rub: exactly what the reply was charged. */
export type ReplyResult = { costRub: string | null }

/** What the chat view needs; the tests give it a fake one. */
export type ChatBackend = {
  reply(params: ChatParams, messages: ChatMessage[], onDelta: (text: string) => void, signal: AbortSignal): Promise<ReplyResult>
  balance(): Promise<number>
  /** Resolves the model's id, or throws a CliError such as "Модель … не найдена". */
  checkModel(id: string): Promise<string>
}

/** What an `openai` client call failed with, as the CLI says it (shared by chat and voice). */
export function toCliError(e: unknown, server: string): unknown {
  if (e instanceof CliError) return e
  if (e instanceof OpenAI.APIConnectionError) return unreachable(server)
  if (e instanceof OpenAI.APIError) {
    // A mid-stream error event carries no status; its text is the server's Russian message.
    const body = { error: e.error ?? { message: e.message } }
    return e.status ? httpError(e.status, body) : new CliError((e.error as { message?: string })?.message ?? e.message)
  }
  return e
}

export function createChatBackend(api: Api): ChatBackend {
  const open = (token: string, p: ChatParams, messages: ChatMessage[], signal: AbortSignal) => {
    // The chosen team pays (the session acts in it through X-Team-Id), else the personal account.
    const team = api.team()
    // No SDK retries: a paid request is never repeated behind the user's back.
    return new OpenAI({ apiKey: token, baseURL: `${api.server}/v1`, maxRetries: 0, defaultHeaders: team ? { 'x-team-id': team.id } : undefined }).chat.completions.create(
      {
        model: p.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(p.temperature !== undefined && { temperature: p.temperature }),
        ...(p.maxTokens !== undefined && { max_tokens: p.maxTokens }),
      },
      { signal },
    )
  }

  return {
    async reply(params, messages, onDelta, signal) {
      let costRub: string | null = null
      try {
        const token = api.token()
        let stream: Awaited<ReturnType<typeof open>>
        try {
          stream = await open(token, params, messages, signal)
        } catch (e) {
          // The access token lives 15 minutes; a long chat renews it like any other call.
          if (!(e instanceof OpenAI.APIError && e.status === 401)) throw e
          stream = await open(await api.renew(token), params, messages, signal)
        }
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta?.content
          if (delta) onDelta(delta)
          const usage = chunk.usage as { cost_rub?: string } | null | undefined
          if (usage?.cost_rub !== undefined) costRub = usage.cost_rub
        }
      } catch (e) {
        if (signal.aborted) return { costRub: null } // stopped by the user: not an error
        throw toCliError(e, api.server)
      }
      return { costRub }
    },
    balance: async () => (await api.get<Balance>('/api/billing/balance')).balance,
    checkModel: async (id) => (await api.v1<Model>(`/models/${encodeURIComponent(id)}`)).id,
  }
}
