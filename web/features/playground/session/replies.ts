// How a reply comes: streamed text (and pictures) from /v1/chat/completions, or pictures drawn by
// /v1/images — with a chat answer instead when none come. Each puts its placeholder on screen,
// fills it as the reply arrives, says what it cost and took, and saves the exchange.
import { ApiError, api } from '../../../lib/api'
import { toast } from '../../../stores/toasts'
import { dataUrlToBlob } from '../attachments/attachments'
import { imageMessageContent, uploadFile } from '../history/chats-api'
import { localKey } from '../local-key'
import type { PlaygroundModel } from '../models/models'
import { chatBody, imagesBody } from '../requests/request-body'
import { isAbortError, streamChat } from '../requests/stream'
import type { MessageMetadata, Settings, UiMessage } from '../types'
import type { Prelude, SavedChat } from './use-saved-chat'

export const EMPTY_REPLY = 'Пустой ответ модели'
export const NO_IMAGE = 'Модель не вернула изображение.'
export const IMAGE_ERROR = 'Не удалось сгенерировать изображение'
export const GENERIC_ERROR = 'Ошибка'
const INSUFFICIENT_TOAST_MS = 10_000

/** Spec §8: insufficient balance shows the server's action (top up) for 10 s; other errors their message. */
export function showRequestError(error: unknown, fallback: string) {
  if (error instanceof ApiError && (error.code === 'insufficient_balance' || error.action)) {
    toast.error(error.message || fallback, {
      duration: INSUFFICIENT_TOAST_MS,
      action: { label: error.action?.label ?? 'Пополнить баланс', href: error.action?.url ?? '/app/billing' },
    })
    return
  }
  toast.error(error instanceof ApiError && error.message ? error.message : fallback)
}

/** The edits a reply makes to the conversation on screen. */
export interface Screen {
  append: (message: UiMessage) => void
  patch: (key: string, patch: Partial<UiMessage>) => void
  drop: (...keys: string[]) => void
}

export interface ReplyContext {
  settings: Settings
  screen: Screen
  saved: Pick<SavedChat, 'persist' | 'saveQuestion' | 'persistMessage'>
  /** the answer moved the balance */
  onCharged: () => void
}

/** `answered` is set once the exchange stays on screen (the question was saved or a reply came). */
export type Outcome = { answered: boolean }

/** One question to answer: `user` after `before`, by `model`. */
export interface Turn {
  model: PlaygroundModel
  user: UiMessage
  before: UiMessage[]
  signal: AbortSignal
  outcome: Outcome
  prelude: Prelude
}

type ImagesResponse = { data?: Array<{ url?: string; b64_json?: string; revised_prompt?: string }>; usage?: { cost_rub?: string } }

/** A picture the model returned as a data URL, uploaded so the chat keeps a link, not megabytes (kept as it is when that fails). */
async function uploaded(dataUrl: string, index: number): Promise<string> {
  try {
    return (await uploadFile(await dataUrlToBlob(dataUrl), `image-${index + 1}.png`)).url
  } catch {
    return dataUrl
  }
}

const placeholder = (key: string, model: PlaygroundModel, status: 'streaming' | 'generating'): UiMessage => ({
  key,
  role: 'assistant',
  content: '',
  images: [],
  files: [],
  metadata: { model: model.id },
  status,
})

export async function streamReply({ settings, screen, saved, onCharged }: ReplyContext, { model, user, before, signal, outcome, prelude }: Turn) {
  const key = localKey()
  screen.append(placeholder(key, model, 'streaming'))
  let questionSaved = false
  const saveUser = () => {
    if (questionSaved) return
    questionSaved = true
    outcome.answered = true // the question is saved, so it stays on screen
    saved.saveQuestion(model, user, prelude)
  }
  let partial = ''
  const started = performance.now()
  let firstTokenMs: number | undefined
  const since = () => Math.round(performance.now() - started)
  try {
    const body = await chatBody(model.id, [...before, user], settings)
    const result = await streamChat(body, signal, (content, images) => {
      firstTokenMs ??= since()
      saveUser() // the reply has started: the question is worth keeping
      partial = content
      screen.patch(key, { content, images })
    })
    saveUser()
    if (!result.content.trim() && result.images.length === 0) {
      screen.drop(key)
      toast.error(EMPTY_REPLY)
      return
    }
    const metadata: MessageMetadata = { model: model.id, costRub: result.usage?.cost_rub, totalTokens: result.usage?.total_tokens, elapsedMs: since(), firstTokenMs }
    outcome.answered = true
    screen.patch(key, { content: result.content, images: result.images, metadata, status: undefined })
    // a data-URL picture in a chat reply is uploaded, so the saved chat holds a link
    const images = saved.persist ? await Promise.all(result.images.map((url, i) => (url.startsWith('data:') ? uploaded(url, i) : url))) : result.images
    void saved.persistMessage(
      model,
      images.length > 0
        ? { role: 'assistant', content: imageMessageContent(result.content, images, { model: model.id, costRub: metadata.costRub }) }
        : { role: 'assistant', content: result.content, metadata },
      key,
    )
  } catch (error) {
    if (isAbortError(error)) {
      if (partial.trim()) {
        outcome.answered = true
        screen.patch(key, { status: 'stopped', metadata: { model: model.id, stopped: true, elapsedMs: since(), firstTokenMs } })
        void saved.persistMessage(model, { role: 'assistant', content: partial, metadata: { model: model.id, stopped: true } }, key)
      } else screen.drop(key)
      return
    }
    if (questionSaved && partial.trim()) {
      // cut off mid-way by the provider: keep what came, say what happened
      outcome.answered = true
      screen.patch(key, { status: 'failed', note: error instanceof ApiError ? error.message : GENERIC_ERROR })
    } else screen.drop(key)
    throw error
  } finally {
    onCharged()
  }
}

export async function generateImages(context: ReplyContext, turn: Turn) {
  const { settings, screen, saved, onCharged } = context
  const { model, user, signal, outcome, prelude } = turn
  const key = localKey()
  const { size, quality, quantity } = settings
  screen.append(placeholder(key, model, 'generating'))
  const started = performance.now()
  let response: ImagesResponse
  try {
    response = await api.post<ImagesResponse>('/v1/images', imagesBody(model.id, user.content, settings), { signal, fallback: IMAGE_ERROR })
  } catch (error) {
    screen.drop(key)
    onCharged()
    const noImage = error instanceof ApiError && (error.code === 'no_image' || error.code === 'model_not_image_capable')
    if (!noImage) throw error
    response = { data: [] }
  }
  const images = await Promise.all(
    (response.data ?? []).map((d, i) => {
      if (d.url) return d.url
      if (!d.b64_json) return null
      return uploaded(`data:image/png;base64,${d.b64_json}`, i)
    }),
  ).then((list) => list.filter((u): u is string => !!u))

  if (images.length === 0) {
    // Spec §4: say so, then answer the prompt as a chat completion instead.
    screen.drop(key)
    toast.error(NO_IMAGE)
    await streamReply(context, turn)
    return
  }
  const revised = response.data?.find((d) => d.revised_prompt)?.revised_prompt ?? ''
  const metadata: MessageMetadata = { model: model.id, size, quality, quantity, costRub: response.usage?.cost_rub, elapsedMs: Math.round(performance.now() - started) }
  outcome.answered = true
  screen.patch(key, { content: revised, images, metadata, status: undefined })
  onCharged()
  saved.saveQuestion(model, { ...user, files: [] }, prelude)
  void saved.persistMessage(model, { role: 'assistant', content: imageMessageContent(revised, images, metadata) }, key)
}
