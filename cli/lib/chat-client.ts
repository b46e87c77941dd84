// Chat through the official `openai` package against our /v1, signed in with the session's
// access token. Shared by the Ink chat and the pipe mode.
import OpenAI from 'openai'
import { pluralRu } from '../../src/content/format'
import type { ActivityPage, Api, Balance, Model } from './api'
import { httpError } from './api'
import { CliError, unreachable } from './errors'

export type ChatMessage = { role: 'user' | 'assistant'; content: string }
export type ChatParams = { model: string; temperature?: number; maxTokens?: number }
/**
 * `costRub`: what the reply was charged — the final chunk's usage.cost_rub, or for a reply
 * stopped midway the charge the log shows once the server has settled it (null: not known).
 */
export type ReplyResult = { costRub: string | null }

/** What the chat view needs; the tests give it a fake one. */
export type ChatBackend = {
  reply(params: ChatParams, messages: ChatMessage[], onDelta: (text: string) => void, signal: AbortSignal): Promise<ReplyResult>
  balance(): Promise<number>
  /** The model's id from its id or a unique fragment of it, or a CliError («не найдена», «уточните»). */
  checkModel(id: string): Promise<string>
}

/** The model `wanted` names: its exact id, else the only one whose id or name contains it (any case). */
export function findModel(models: Pick<Model, 'id' | 'name'>[], wanted: string): string {
  const text = wanted.trim()
  const exact = models.find((m) => m.id === text)
  if (exact) return exact.id
  const lower = text.toLowerCase()
  const found = models.filter((m) => m.id.toLowerCase().includes(lower) || m.name.toLowerCase().includes(lower))
  if (found.length === 1) return found[0]!.id
  if (found.length === 0) throw new CliError(`Модель «${text}» не найдена`, 'список моделей: `gw models`')
  const some = found.slice(0, 5).map((m) => m.id)
  throw new CliError(
    `Под «${text}» подходят ${found.length} ${pluralRu(found.length, ['модель', 'модели', 'моделей'])}`,
    `уточните: ${some.join(', ')}${found.length > some.length ? ', …' : ''}`,
  )
}

/**
 * How long a stopped reply's charge is waited for in the log: on the disconnect the server asks the
 * router what it billed, retrying for a few seconds, before it settles.
 */
const SETTLE_WAIT_MS = 15_000

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
  const open = (token: string, p: ChatParams, messages: ChatMessage[], signal: AbortSignal, requestId: string) => {
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
      // Our own x-request-id: a stopped reply is found by it in the log once it is settled.
      { signal, headers: { 'x-request-id': requestId } },
    )
  }

  /** The charge of a request the user stopped, once the server has settled it (the log has its row). */
  async function stoppedCharge(requestId: string): Promise<string | null> {
    const deadline = Date.now() + SETTLE_WAIT_MS
    while (Date.now() < deadline) {
      try {
        const [row] = (await api.get<ActivityPage>(`/api/activity?requestId=${encodeURIComponent(requestId)}&limit=1`)).items
        if (row) return String(row.costRub)
      } catch {
        return null // the log is not this role's to read: the charge stays unknown
      }
      await Bun.sleep(200)
    }
    return null
  }

  return {
    async reply(params, messages, onDelta, signal) {
      let costRub: string | null = null
      const requestId = `cli_${crypto.randomUUID()}`
      try {
        const token = api.token()
        let stream: Awaited<ReturnType<typeof open>>
        try {
          stream = await open(token, params, messages, signal, requestId)
        } catch (e) {
          // The access token lives 15 minutes; a long chat renews it like any other call.
          if (!(e instanceof OpenAI.APIError && e.status === 401)) throw e
          stream = await open(await api.renew(token), params, messages, signal, requestId)
        }
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta?.content
          if (delta) onDelta(delta)
          const usage = chunk.usage as { cost_rub?: string } | null | undefined
          if (usage?.cost_rub !== undefined) costRub = usage.cost_rub
        }
      } catch (e) {
        if (!signal.aborted) throw toCliError(e, api.server)
      }
      // Stopped by the user (the stream ends or throws): not an error; what was streamed until then is charged.
      if (signal.aborted) return { costRub: await stoppedCharge(requestId) }
      return { costRub }
    },
    balance: async () => (await api.get<Balance>('/api/billing/balance')).balance,
    checkModel: async (id) => findModel((await api.v1<{ data: Model[] }>('/models')).data, id),
  }
}
