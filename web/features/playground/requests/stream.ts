// POST /v1/chat/completions with stream: true (the body from request-body.ts), read as server-sent
// events through authorizedFetch (so an expired access token is renewed once, like every other
// call). Calls back per token.
import { ApiError, authorizedFetch, parseResponse } from '../../../lib/api'
import type { ChatCompletionBody } from '../types'

export interface ChatUsage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  /** what the reply was charged, in rubles (the gateway adds it to the final chunk) */
  cost_rub?: string
}

export interface StreamResult {
  content: string
  images: string[]
  usage: ChatUsage | null
  finishReason: string | null
}

type Chunk = {
  error?: { message?: string; code?: string }
  choices?: Array<{
    delta?: { content?: string | null; images?: Array<{ image_url?: { url?: string } }> }
    message?: { content?: string | null; images?: Array<{ image_url?: { url?: string } }> }
    finish_reason?: string | null
  }>
  usage?: ChatUsage | null
}

/** Splits the byte stream into SSE events as they complete; `:` comments (keep-alives) are skipped. */
function* events(buffer: { text: string }): Generator<string> {
  let idx: number
  while ((idx = buffer.text.indexOf('\n\n')) >= 0) {
    const event = buffer.text.slice(0, idx)
    buffer.text = buffer.text.slice(idx + 2)
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n')
    if (data) yield data
  }
}

/**
 * Streams one reply. `onUpdate` gets the text and pictures so far after every event. Errors before
 * the first token are ApiError with the server's message, code and action; an error event in the
 * middle of the reply is an ApiError too (the partial text is in `partial`). Aborting the signal
 * stops the request (the gateway then bills only what was generated) and rejects with AbortError.
 */
export async function streamChat(body: ChatCompletionBody, signal: AbortSignal, onUpdate: (content: string, images: string[]) => void): Promise<StreamResult> {
  const response = await authorizedFetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  })
  if (!response.ok) await parseResponse(response, 'Ошибка') // throws ApiError with the /v1 error body
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    // a server that ignored stream: true answers with one JSON completion
    const json = await parseResponse<Chunk>(response, 'Ошибка')
    const message = json.choices?.[0]?.message
    const images = (message?.images ?? []).map((i) => i.image_url?.url).filter((u): u is string => !!u)
    const content = message?.content ?? ''
    onUpdate(content, images)
    return { content, images, usage: json.usage ?? null, finishReason: json.choices?.[0]?.finish_reason ?? null }
  }

  const result: StreamResult = { content: '', images: [], usage: null, finishReason: null }
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const buffer = { text: '' }
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer.text += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n')
    let changed = false
    for (const data of events(buffer)) {
      if (data === '[DONE]') continue
      let chunk: Chunk
      try {
        chunk = JSON.parse(data) as Chunk
      } catch {
        continue
      }
      if (chunk.error) {
        void reader.cancel().catch(() => undefined)
        throw Object.assign(new ApiError(200, chunk.error.message || 'Ошибка', { code: chunk.error.code }), { partial: result.content })
      }
      const choice = chunk.choices?.[0]
      const piece = choice?.delta?.content
      if (piece) {
        result.content += piece
        changed = true
      }
      for (const image of choice?.delta?.images ?? []) {
        if (image.image_url?.url) {
          result.images = [...result.images, image.image_url.url]
          changed = true
        }
      }
      if (choice?.finish_reason) result.finishReason = choice.finish_reason
      if (chunk.usage) result.usage = chunk.usage
    }
    if (changed) onUpdate(result.content, result.images)
  }
  return result
}

export const isAbortError = (error: unknown) => error instanceof DOMException && error.name === 'AbortError'
