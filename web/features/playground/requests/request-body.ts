// The /v1 request bodies the Playground sends, built in one place: sending uses them, and so does
// the estimate (POST /api/playground/estimate gets exactly the same body), so the figure shown
// before sending is the server's own bound for the very request that is then sent.
import { buildContent } from '../attachments/attachments'
import type { ChatCompletionBody, ImagesBody, OutgoingMessage, UiMessage, UploadedFile } from '../types'

export interface ChatSettings {
  temperature: number
  maxTokens: number
  /** the optional system prompt: the first message when it has any text */
  system?: string
}

export interface ImageSettings {
  size: string
  quality: string
  quantity: number
}

/** What the model sees: the conversation so far (pictures it drew are only described). */
export async function conversation(upTo: UiMessage[]): Promise<OutgoingMessage[]> {
  const out: OutgoingMessage[] = []
  for (const m of upTo) {
    if (m.status === 'failed') continue
    if (m.role === 'user') out.push({ role: 'user', content: await buildContent(m.content, m.files) })
    else if (m.content.trim()) out.push({ role: 'assistant', content: m.content })
  }
  return out
}

export async function chatBody(model: string, upTo: UiMessage[], settings: ChatSettings): Promise<ChatCompletionBody> {
  const system = settings.system?.trim()
  return {
    model,
    messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...(await conversation(upTo))],
    temperature: settings.temperature,
    max_tokens: settings.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  }
}

export function imagesBody(model: string, prompt: string, settings: ImageSettings): ImagesBody {
  return { model, prompt, size: settings.size, quality: settings.quality, n: settings.quantity, response_format: 'url' }
}

/** The question as it is sent: the trimmed text and, in chat mode, the uploaded attachments. */
export function userMessage(key: string, input: string, uploads: UploadedFile[]): UiMessage {
  return { key, role: 'user', content: input.trim(), images: [], files: uploads, metadata: {} }
}
