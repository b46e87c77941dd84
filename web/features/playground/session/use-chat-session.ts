// One chat session of the Playground: its model, the conversation on screen, the reply on its way
// (streamed, or a picture being drawn, or text being voiced), the saved chat behind it and the
// errors. The page holds one of these; a comparison holds several side by side, sharing the prompt
// (issue 29). What is typed, the settings and the estimate belong to the page.
import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError, api } from '../../../lib/api'
import { toast } from '../../../stores/toasts'
import { dataUrlToBlob, kindOf } from '../attachments/attachments'
import { type ChatSummary, createChat, deleteChat, imageMessageContent, loadChat, type StoredMessage, saveMessage, truncateChat, uploadFile } from '../history/chats-api'
import { type AttachKinds, attachKinds, bareModel, drawsByDefault, isImageCapable, isSpeechModel, type PlaygroundModel } from '../models/models'
import { chatBody, imagesBody, userMessage } from '../requests/request-body'
import { isAbortError, streamChat } from '../requests/stream'
import type { MessageMetadata, Settings, SpeechAudio, SpeechBody, UiMessage, UploadedFile } from '../types'
import { SPEECH_ERROR, speak } from '../voice/voice'

export const EMPTY_REPLY = 'Пустой ответ модели'
export const NO_IMAGE = 'Модель не вернула изображение.'
export const IMAGE_ERROR = 'Не удалось сгенерировать изображение'
export const GENERIC_ERROR = 'Ошибка'
const INSUFFICIENT_TOAST_MS = 10_000
/** A chat is titled from its first message, cut at a word near this many characters. */
export const TITLE_CHARS = 60
/** The model the Playground opens with next time (the last one chosen in this browser). */
export const LAST_MODEL_KEY = 'playground-model'

let keySeq = 0
const LOCAL = 'local-'
export const localKey = () => `${LOCAL}${Date.now().toString(36)}-${++keySeq}`

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

/** Whether an attachment (by its type) is something this model reads. */
export const fits = (mimetype: string, kinds: AttachKinds) => {
  const kind = kindOf(mimetype)
  return kind === 'image' ? kinds.images : kind === 'pdf' ? kinds.files : kinds.images || kinds.files
}

/**
 * The chat's title from its first message: one line, at most about 60 characters, cut at a word
 * with an ellipsis; a message of attachments only is named by its first file.
 */
export function titleFrom(text: string, files: UploadedFile[], fallback: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (!line) return files[0] ? `Файл ${files[0].filename}`.slice(0, TITLE_CHARS) : fallback
  if (line.length <= TITLE_CHARS) return line
  const cut = line.slice(0, TITLE_CHARS)
  const space = cut.lastIndexOf(' ')
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:—-]+$/, '')}…`
}

export function rememberModel(id: string) {
  try {
    localStorage.setItem(LAST_MODEL_KEY, id)
  } catch {}
}

export function rememberedModel(): string | null {
  try {
    return localStorage.getItem(LAST_MODEL_KEY)
  } catch {
    return null
  }
}

export const fromStored = (m: StoredMessage): UiMessage => ({
  key: m.id,
  role: m.role,
  content: m.content,
  images: m.images,
  files: m.files,
  metadata: m.metadata ?? {},
  status: m.metadata?.stopped ? 'stopped' : undefined,
})

/**
 * Sending again from some point of the conversation (regenerate, edit and resend): the saved chat
 * drops `truncateFrom` and what follows once the new reply starts; `userSaved` — the question is
 * already in the saved chat (regenerate).
 */
type Prelude = { truncateFrom?: string; userSaved?: boolean }
/** `answered` is set once the exchange stays on screen (the question was saved or a reply came). */
type Outcome = { answered: boolean }

type ImagesResponse = { data?: Array<{ url?: string; b64_json?: string; revised_prompt?: string }>; usage?: { cost_rub?: string } }

export interface SessionOptions {
  /** the model the session opens with */
  initialModel: string
  /** the catalogue, to know what a model id can do */
  models: PlaygroundModel[]
  /** temperature, max tokens, system prompt, picture settings: the page's */
  settings: Settings
  /** kept in the chat history (the Playground's chat) or only on screen (a comparison's column) */
  persist: boolean
  /** the answer moved the balance: the page refreshes it */
  onCharged: () => void
  /** the chat history changed: the page refreshes its list */
  onHistory?: () => void
}

export type ChatSession = ReturnType<typeof useChatSession>

export function useChatSession({ initialModel, models, settings, persist, onCharged, onHistory }: SessionOptions) {
  const [modelId, setModelId] = useState(initialModel)
  const [mode, setMode] = useState<'chat' | 'image'>('chat')
  const [chat, setChat] = useState<ChatSummary | null>(null)
  const [messages, setMessages] = useState<UiMessage[]>([])
  const [chatLoading, setChatLoading] = useState(false)
  const [pending, setPending] = useState(false)
  const abortRef = useRef<AbortController | null>(null)
  const chatRef = useRef<ChatSummary | null>(null)
  chatRef.current = chat
  const modelsRef = useRef(models)
  modelsRef.current = models
  /** local message key → its id in the saved chat, once saved (loaded messages use their id as key) */
  const storedIds = useRef(new Map<string, string>())
  const storedIdOf = (key: string) => storedIds.current.get(key) ?? (key.startsWith(LOCAL) ? undefined : key)

  const model: PlaygroundModel = models.find((m) => m.id === modelId) ?? bareModel(modelId)
  const imageCapable = isImageCapable(model)
  const effectiveMode = imageCapable ? mode : 'chat'
  const speechMode = isSpeechModel(model)
  const kinds = attachKinds(model)

  const resetChat = useCallback(() => {
    abortRef.current?.abort()
    chatRef.current = null
    setChat(null)
    setMessages([])
  }, [])

  /**
   * Another model for what follows: the conversation stays (issue 29) — the next answers come from
   * the new model, each labelled with its own, and the saved chat follows the latest reply's model.
   */
  const selectModel = useCallback(
    (id: string, next?: PlaygroundModel) => {
      const found = next ?? modelsRef.current.find((m) => m.id === id)
      setModelId(id)
      setMode(found && drawsByDefault(found) ? 'image' : 'chat')
      if (persist) rememberModel(id)
    },
    [persist],
  )

  // ─── chats ──────────────────────────────────────────────────────────────────
  async function openChat(summary: ChatSummary) {
    if (pending || summary.id === chat?.id) return
    setChatLoading(true)
    try {
      const loaded = await loadChat(summary.id)
      setChat({ id: loaded.id, title: loaded.title, model: loaded.model, createdAt: loaded.createdAt, updatedAt: loaded.updatedAt })
      // Loading a chat sets its model (spec §4).
      setModelId(loaded.model)
      const m = models.find((x) => x.id === loaded.model)
      setMode(m && drawsByDefault(m) ? 'image' : 'chat')
      setMessages(loaded.messages.map(fromStored))
    } catch (error) {
      toast.error(error instanceof ApiError && error.message ? error.message : 'Не удалось открыть чат')
      if (error instanceof ApiError && error.status === 404) onHistory?.()
    } finally {
      setChatLoading(false)
    }
  }

  async function removeChat(summary: ChatSummary) {
    try {
      await deleteChat(summary.id)
      if (chatRef.current?.id === summary.id) resetChat()
      toast.success('Чат удалён')
    } catch (error) {
      toast.error(error instanceof ApiError && error.message ? error.message : 'Не удалось удалить чат')
    } finally {
      onHistory?.()
    }
  }

  /** The first send of a new conversation creates its chat, titled from that message. */
  const chatPromise = useRef<Promise<string> | null>(null)
  function ensureChat(forModel: PlaygroundModel, title: string): Promise<string> {
    if (chatRef.current) return Promise.resolve(chatRef.current.id)
    if (!chatPromise.current) {
      chatPromise.current = createChat(title, forModel.id)
        .then((created) => {
          const summary = { id: created.id, title: created.title, model: created.model, createdAt: created.createdAt, updatedAt: created.updatedAt }
          chatRef.current = summary
          setChat(summary)
          return created.id
        })
        .finally(() => {
          chatPromise.current = null
        })
    }
    return chatPromise.current
  }

  /** Saves in order (the user's message before the reply); a failure is reported, never thrown. */
  const saveQueue = useRef<Promise<unknown>>(Promise.resolve())
  const titleRef = useRef('')
  function persistMessage(forModel: PlaygroundModel, message: Parameters<typeof saveMessage>[1], key?: string) {
    if (!persist) return Promise.resolve()
    const run = saveQueue.current.then(async () => {
      try {
        const id = await ensureChat(forModel, titleRef.current || `Чат с ${forModel.name || forModel.id}`)
        const saved = await saveMessage(id, message)
        if (key) storedIds.current.set(key, saved.id)
        // the saved chat follows its latest reply's model
        if (message.role === 'assistant' && chatRef.current && chatRef.current.model !== forModel.id) {
          const summary = { ...chatRef.current, model: forModel.id }
          chatRef.current = summary
          setChat(summary)
        }
      } catch (error) {
        toast.error(error instanceof ApiError && error.message ? `Сообщение не сохранено: ${error.message}` : 'Сообщение не сохранено в истории')
      } finally {
        onHistory?.()
      }
    })
    saveQueue.current = run
    return run
  }

  /** In order with the saves: the saved chat drops the message `key` and every later one. */
  function truncateSaved(key: string) {
    if (!persist) return Promise.resolve()
    const run = saveQueue.current.then(async () => {
      const chatId = chatRef.current?.id
      const id = storedIdOf(key)
      if (!chatId || !id) return // never saved: nothing to drop
      try {
        await truncateChat(chatId, id)
      } catch (error) {
        toast.error(error instanceof ApiError && error.message ? `История чата не обновлена: ${error.message}` : 'История чата не обновлена')
      }
    })
    saveQueue.current = run
    return run
  }

  // ─── sending ────────────────────────────────────────────────────────────────
  const patchMessage = useCallback((key: string, patch: Partial<UiMessage>) => setMessages((list) => list.map((m) => (m.key === key ? { ...m, ...patch } : m))), [])
  const dropMessages = (...keys: string[]) => setMessages((list) => list.filter((m) => !keys.includes(m.key)))

  /** A data-URL picture from a chat reply becomes an upload, so the saved chat holds a link. */
  async function storable(images: string[]): Promise<string[]> {
    if (!persist) return images
    return Promise.all(
      images.map(async (url, i) => {
        if (!url.startsWith('data:')) return url
        try {
          return (await uploadFile(await dataUrlToBlob(url), `image-${i + 1}.png`)).url
        } catch {
          return url
        }
      }),
    )
  }

  /** The question goes into the saved chat (after what it replaces is dropped from there). */
  function saveQuestion(forModel: PlaygroundModel, user: UiMessage, prelude: Prelude) {
    if (prelude.truncateFrom) void truncateSaved(prelude.truncateFrom)
    if (!prelude.userSaved) void persistMessage(forModel, { role: 'user', content: user.content, files: user.files.map((f) => ({ id: f.id })) }, user.key)
  }

  async function streamReply(forModel: PlaygroundModel, user: UiMessage, before: UiMessage[], signal: AbortSignal, outcome: Outcome, prelude: Prelude) {
    const key = localKey()
    setMessages((list) => [...list, { key, role: 'assistant', content: '', images: [], files: [], metadata: { model: forModel.id }, status: 'streaming' }])
    let saved = false
    const saveUser = () => {
      if (saved) return
      saved = true
      outcome.answered = true // the question is saved, so it stays on screen
      saveQuestion(forModel, user, prelude)
    }
    let partial = ''
    const started = performance.now()
    let firstTokenMs: number | undefined
    const since = () => Math.round(performance.now() - started)
    try {
      const body = await chatBody(forModel.id, [...before, user], settings)
      const result = await streamChat(body, signal, (content, images) => {
        firstTokenMs ??= since()
        saveUser() // the reply has started: the question is worth keeping
        partial = content
        patchMessage(key, { content, images })
      })
      saveUser()
      if (!result.content.trim() && result.images.length === 0) {
        dropMessages(key)
        toast.error(EMPTY_REPLY)
        return
      }
      const metadata: MessageMetadata = { model: forModel.id, costRub: result.usage?.cost_rub, totalTokens: result.usage?.total_tokens, elapsedMs: since(), firstTokenMs }
      outcome.answered = true
      patchMessage(key, { content: result.content, images: result.images, metadata, status: undefined })
      const images = await storable(result.images)
      void persistMessage(
        forModel,
        images.length > 0
          ? { role: 'assistant', content: imageMessageContent(result.content, images, { model: forModel.id, costRub: metadata.costRub }) }
          : { role: 'assistant', content: result.content, metadata },
        key,
      )
    } catch (error) {
      if (isAbortError(error)) {
        if (partial.trim()) {
          outcome.answered = true
          patchMessage(key, { status: 'stopped', metadata: { model: forModel.id, stopped: true, elapsedMs: since(), firstTokenMs } })
          void persistMessage(forModel, { role: 'assistant', content: partial, metadata: { model: forModel.id, stopped: true } }, key)
        } else dropMessages(key)
        return
      }
      if (saved && partial.trim()) {
        // cut off mid-way by the provider: keep what came, say what happened
        outcome.answered = true
        patchMessage(key, { status: 'failed', note: error instanceof ApiError ? error.message : GENERIC_ERROR })
      } else dropMessages(key)
      throw error
    } finally {
      onCharged()
    }
  }

  async function generateImages(forModel: PlaygroundModel, user: UiMessage, before: UiMessage[], signal: AbortSignal, outcome: Outcome, prelude: Prelude) {
    const key = localKey()
    const { size, quality, quantity } = settings
    setMessages((list) => [...list, { key, role: 'assistant', content: '', images: [], files: [], metadata: { model: forModel.id }, status: 'generating' }])
    const started = performance.now()
    let response: ImagesResponse
    try {
      response = await api.post<ImagesResponse>('/v1/images', imagesBody(forModel.id, user.content, settings), { signal, fallback: IMAGE_ERROR })
    } catch (error) {
      dropMessages(key)
      onCharged()
      const noImage = error instanceof ApiError && (error.code === 'no_image' || error.code === 'model_not_image_capable')
      if (!noImage) throw error
      response = { data: [] }
    }
    const images = await Promise.all(
      (response.data ?? []).map(async (d, i) => {
        if (d.url) return d.url
        if (!d.b64_json) return null
        try {
          return (await uploadFile(await dataUrlToBlob(`data:image/png;base64,${d.b64_json}`), `image-${i + 1}.png`)).url
        } catch {
          return `data:image/png;base64,${d.b64_json}`
        }
      }),
    ).then((list) => list.filter((u): u is string => !!u))

    if (images.length === 0) {
      // Spec §4: say so, then answer the prompt as a chat completion instead.
      dropMessages(key)
      toast.error(NO_IMAGE)
      await streamReply(forModel, user, before, signal, outcome, prelude)
      return
    }
    const revised = response.data?.find((d) => d.revised_prompt)?.revised_prompt ?? ''
    const metadata: MessageMetadata = { model: forModel.id, size, quality, quantity, costRub: response.usage?.cost_rub, elapsedMs: Math.round(performance.now() - started) }
    outcome.answered = true
    patchMessage(key, { content: revised, images, metadata, status: undefined })
    onCharged()
    saveQuestion(forModel, { ...user, files: [] }, prelude)
    void persistMessage(forModel, { role: 'assistant', content: imageMessageContent(revised, images, metadata) }, key)
  }

  /**
   * One exchange: `user` after `before` is what the screen shows while the reply comes. Nothing
   * answered (an error before the reply started): the screen goes back to `previous`. Answers
   * whether the exchange stayed.
   */
  async function exchange(user: UiMessage, before: UiMessage[], previous: UiMessage[], drawing: boolean, prelude: Prelude): Promise<boolean> {
    const forModel = model
    if (persist) rememberModel(forModel.id)
    // a new conversation is titled from its first question
    if (!chatRef.current && before.length === 0) titleRef.current = titleFrom(user.content, user.files, `Чат с ${forModel.name || forModel.id}`)
    setMessages([...before, user])
    const ac = new AbortController()
    abortRef.current = ac
    setPending(true)
    const outcome = { answered: false }
    try {
      if (drawing) await generateImages(forModel, user, before, ac.signal, outcome, prelude)
      else await streamReply(forModel, user, before, ac.signal, outcome, prelude)
    } catch (error) {
      if (!isAbortError(error)) showRequestError(error, drawing ? IMAGE_ERROR : GENERIC_ERROR)
    } finally {
      if (!outcome.answered) setMessages(previous)
      if (abortRef.current === ac) abortRef.current = null
      setPending(false)
    }
    return outcome.answered
  }

  /** A new question (text and, in chat mode, uploaded attachments); whether it stayed on screen. */
  function sendMessage(text: string, uploads: UploadedFile[]): Promise<boolean> {
    const drawing = effectiveMode === 'image'
    const user = userMessage(localKey(), text, drawing ? [] : uploads)
    return exchange(user, messages, messages, drawing, {})
  }

  /** The last reply once more: the conversation up to its question is sent again. */
  function regenerate(key: string, voice?: (text: string, before: UiMessage[]) => void) {
    if (pending) return
    const at = messages.findIndex((m) => m.key === key)
    const userAt = messages.slice(0, at).findLastIndex((m) => m.role === 'user')
    if (at < 0 || userAt < 0) return
    const user = messages[userAt]!
    if (speechMode && voice) return voice(user.content, messages.slice(0, userAt))
    void exchange(user, messages.slice(0, userAt), messages, effectiveMode === 'image' && !!user.content.trim(), {
      truncateFrom: messages[userAt + 1]?.key ?? key,
      userSaved: true,
    })
  }

  /** An earlier question with new text: it and everything after it give way to the new exchange. */
  function editAndResend(key: string, text: string, voice?: (text: string, before: UiMessage[]) => void) {
    if (pending) return
    const at = messages.findIndex((m) => m.key === key)
    if (at < 0) return
    const old = messages[at]!
    if (speechMode && voice) return void (text.trim() && voice(text.trim(), messages.slice(0, at)))
    const drawing = effectiveMode === 'image' && !!text.trim()
    const user = userMessage(localKey(), text, drawing ? [] : old.files)
    void exchange(user, messages.slice(0, at), messages, drawing, { truncateFrom: key })
  }

  // ─── voice ──────────────────────────────────────────────────────────────────
  /** Object URLs of the audio made here, given back when the page closes. */
  const audioUrls = useRef<string[]>([])
  useEffect(
    () => () => {
      for (const url of audioUrls.current) URL.revokeObjectURL(url)
    },
    [],
  )
  const keep = (audio: SpeechAudio) => {
    audioUrls.current.push(audio.url)
    return audio
  }
  /** The balance moves once the router has reported the cost, a moment after the last byte. */
  const chargedSoon = () => setTimeout(onCharged, 1500)

  /**
   * The speech mode: the text typed is voiced after `before` (the whole page, or the part kept by
   * «Повторить» and «Изменить»); the exchange stays on the page (audio is not kept in the history).
   * Whether it was voiced.
   */
  async function voiceText(text: string, body: SpeechBody, before: UiMessage[] = messages): Promise<boolean> {
    const previous = messages
    const user = userMessage(localKey(), text, [])
    const key = localKey()
    setMessages([...before, user, { key, role: 'assistant', content: '', images: [], files: [], metadata: {}, status: 'speaking' }])
    const ac = new AbortController()
    abortRef.current = ac
    setPending(true)
    try {
      const audio = keep(await speak(body, ac.signal))
      patchMessage(key, { audio, status: undefined, metadata: { model: body.model, voice: body.voice, format: body.response_format } })
      return true
    } catch (error) {
      setMessages(previous)
      if (!isAbortError(error)) showRequestError(error, SPEECH_ERROR)
      return false
    } finally {
      if (abortRef.current === ac) abortRef.current = null
      setPending(false)
      chargedSoon()
    }
  }

  /** «Озвучить» under a reply: its text through the chosen speech model, played where it is. */
  async function speakMessage(key: string, body: (text: string) => SpeechBody) {
    const message = messages.find((m) => m.key === key)
    if (!message?.content.trim()) return
    patchMessage(key, { voicing: true })
    try {
      const audio = keep(await speak(body(message.content)))
      patchMessage(key, { voicing: false, audio })
    } catch (error) {
      patchMessage(key, { voicing: false })
      showRequestError(error, SPEECH_ERROR)
    } finally {
      chargedSoon()
    }
  }

  const stop = useCallback(() => abortRef.current?.abort(), [])
  // Leaving the page stops a reply in flight (and its billing).
  useEffect(() => () => abortRef.current?.abort(), [])

  return {
    modelId,
    model,
    mode,
    setMode,
    effectiveMode,
    imageCapable,
    speechMode,
    kinds,
    chat,
    messages,
    chatLoading,
    pending,
    selectModel,
    setModelId,
    resetChat,
    openChat,
    removeChat,
    sendMessage,
    regenerate,
    editAndResend,
    voiceText,
    speakMessage,
    stop,
  }
}
