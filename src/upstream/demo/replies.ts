// Locally generated replies: deterministic Russian text derived from the last user message, no
// network and no model. Also the demo's token counting, documented here because billing tests rely on it:
//   prompt_tokens     = ceil(characters of all message text parts / 4) + 4 per message
//                       + ceil(characters of JSON.stringify(v) / 4) for each v of the request's
//                         `tools`, `response_format` and `functions` that is present (not null)
//                       (characters are Unicode code points, so Cyrillic counts 1 per letter;
//                       JSON.stringify of the parsed value, compact; image/file/audio/video parts
//                       add no tokens: an `image_url` part is billed at pricing.image instead)
//   completion_tokens = number of streamed pieces; a piece is one word with its leading whitespace

export type ChatMessage = { role: string; content?: unknown }

type TextPart = { type: 'text'; text: string }
const isTextPart = (p: unknown): p is TextPart =>
  typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string'

/** The text parts of a message's content (a string or an array of content parts). */
export function textParts(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (Array.isArray(content)) return content.filter(isTextPart).map((p) => p.text)
  return []
}

export const messageText = (m: ChatMessage) => textParts(m.content).join('\n')

const codePoints = (s: string) => [...s].length

/**
 * `extras`: the request's `tools`, `response_format` and `functions` values (undefined/null ones
 * add nothing); each adds ceil(code points of its JSON / 4), rounded up on its own.
 */
export function countPromptTokens(messages: readonly ChatMessage[], extras: readonly unknown[] = []): number {
  const chars = messages.reduce((sum, m) => sum + textParts(m.content).reduce((n, t) => n + codePoints(t), 0), 0)
  const extraTokens = extras.reduce<number>((sum, v) => (v === undefined || v === null ? sum : sum + Math.ceil(codePoints(JSON.stringify(v)) / 4)), 0)
  return Math.ceil(chars / 4) + 4 * messages.length + extraTokens
}

const isImagePart = (p: unknown) => typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'image_url'

/** `image_url` parts across all messages: the input images billed at `pricing.image`. */
export function countInputImages(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + (Array.isArray(m.content) ? m.content.filter(isImagePart).length : 0), 0)
}

/** Image/file/audio/video parts across all messages (`num_media_prompt` in generation stats). */
export function countMediaParts(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + (Array.isArray(m.content) ? m.content.filter((p) => !isTextPart(p)).length : 0), 0)
}

export function lastUserText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user')
  return last ? messageText(last) : ''
}

/** Splits a reply into streamed pieces: each word keeps its leading whitespace, so pieces join back exactly. */
export const splitTokens = (text: string): string[] => text.match(/\s*\S+/g) ?? []

const SNIPPET_LIMIT = 120

/** The user's words, whitespace collapsed and cut to a readable length. */
export function snippet(userText: string): string {
  const flat = userText.replace(/\s+/g, ' ').trim()
  const chars = [...flat]
  return chars.length > SNIPPET_LIMIT ? `${chars.slice(0, SNIPPET_LIMIT).join('')}…` : flat
}

export type ReplyKind = 'text' | 'image'

export function replyText(userText: string, kind: ReplyKind = 'text'): string {
  const s = snippet(userText)
  if (kind === 'image') {
    return s
      ? `Демо-изображение по запросу «${s}»: градиент, цвета которого вычислены из текста запроса.`
      : 'Демо-изображение: градиент, нарисованный локально без настоящей модели.'
  }
  const heard = s ? `вы написали «${s}».` : 'вы прислали сообщение без текста.'
  return `Демо-ответ: ${heard} Это локально сгенерированный ответ демо-режима AI Gateway; подключите OPENROUTER_API_KEY для настоящих моделей.`
}

/** Pads a reply with numbered filler sentences until it has at least `minTokens` pieces. */
export function padToTokens(text: string, minTokens: number): string {
  let out = text
  for (let n = 1; splitTokens(out).length < minTokens; n++) {
    out += ` Дополнительная фраза №${n} демо-режима нужна только для того, чтобы ответ получился длинным.`
  }
  return out
}
