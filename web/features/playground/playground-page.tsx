// /app/playground: chat with any catalogue model (streamed replies, attachments, saved history)
// and picture generation for models that draw. Spec §2, §4, §8, §9; issue 17 (the layout that
// fills the viewport, the picker, system prompt, regenerate / edit, the over-balance warning);
// issue 27 (voice: dictation into the composer, «Озвучить» under replies, the speech mode).
import { useCallback, useEffect, useRef, useState } from 'react'
import { useSWRConfig } from 'swr'
import { useSearch } from 'wouter'
import { Card } from '../../components/card'
import { ChatIcon } from '../../components/icons'
import { ApiError, api } from '../../lib/api'
import { BALANCE_KEY, useBalance } from '../../lib/queries'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { toast } from '../../stores/toasts'
import { acceptFor, checkFile, dataUrlToBlob, kindOf, MAX_ATTACHMENTS, rememberLocalFile } from './attachments'
import {
  CHATS_KEY,
  type ChatSummary,
  createChat,
  deleteChat,
  imageMessageContent,
  loadChat,
  type MessageMetadata,
  type StoredMessage,
  saveMessage,
  truncateChat,
  UPLOAD_ERROR,
  uploadFile,
  useChatHistory,
} from './chats-api'
import { type Attachment, Composer } from './composer'
import { DictationBar, MicButton, useDictation } from './dictation'
import { Drawer } from './drawer'
import { type EstimateBody, useEstimate } from './estimate'
import { HistoryBar } from './history-bar'
import { SlidersIcon } from './icons'
import { MessageList, type UiMessage } from './messages'
import {
  type AttachKinds,
  attachKinds,
  bareModel,
  DEFAULT_MODEL,
  drawsByDefault,
  isChatModel,
  isImageCapable,
  isSpeechModel,
  isTranscriptionModel,
  type PlaygroundModel,
  usePlaygroundModels,
} from './models'
import { chatBody, imagesBody, userMessage } from './request-body'
import { ModelInfoPanel, type Settings, SettingsPanel } from './side-panels'
import { isAbortError, streamChat } from './stream'
import { useFillViewport } from './use-fill-viewport'
import { SPEECH_ERROR, type SpeechAudio, type SpeechBody, speak, speechCostHint, speechText, useVoiceSettings } from './voice'
import { VoicePanel } from './voice-panel'

export const EMPTY_REPLY = 'Пустой ответ модели'
export const NO_IMAGE = 'Модель не вернула изображение.'
export const IMAGE_ERROR = 'Не удалось сгенерировать изображение'
export const GENERIC_ERROR = 'Ошибка'
const INSUFFICIENT_TOAST_MS = 10_000
const DEFAULT_SETTINGS: Settings = { system: '', temperature: 0.7, maxTokens: 500, size: '1024x1024', quality: 'standard', quantity: 1 }
const SUGGESTIONS = [
  'Объясни, что такое квантовая запутанность, простыми словами',
  'Напиши функцию на Python, которая проверяет, является ли строка палиндромом',
  'Придумай пять названий для уютной кофейни у моря',
]

let keySeq = 0
const LOCAL = 'local-'
const localKey = () => `${LOCAL}${Date.now().toString(36)}-${++keySeq}`

/** Whether an attachment (by its type) is something this model reads. */
const fits = (mimetype: string, kinds: AttachKinds) => {
  const kind = kindOf(mimetype)
  return kind === 'image' ? kinds.images : kind === 'pdf' ? kinds.files : kinds.images || kinds.files
}

/** What the attach button's tooltip lists. */
const acceptHint = (kinds: AttachKinds) => [kinds.images && 'изображения', kinds.files && 'PDF', 'TXT, JSON, CSV'].filter(Boolean).join(', ')

/**
 * Sending again from some point of the conversation (regenerate, edit and resend): the saved chat
 * drops `truncateFrom` and what follows once the new reply starts; `userSaved` — the question is
 * already in the saved chat (regenerate).
 */
type Prelude = { truncateFrom?: string; userSaved?: boolean }

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

const fromStored = (m: StoredMessage): UiMessage => ({
  key: m.id,
  role: m.role,
  content: m.content,
  images: m.images,
  files: m.files,
  metadata: m.metadata ?? {},
  status: m.metadata?.stopped ? 'stopped' : undefined,
})

/** `?model=` as it is now (the catalogue links here with it). */
function useModelParam(): string | null {
  const search = useSearch()
  return new URLSearchParams(search).get('model')
}

type ImagesResponse = { data?: Array<{ url?: string; b64_json?: string; revised_prompt?: string }>; usage?: { cost_rub?: string } }

export function PlaygroundPage() {
  useDocumentTitle('Playground')
  const { mutate } = useSWRConfig()
  const { models, failed, loading: modelsLoading } = usePlaygroundModels()
  const history = useChatHistory()
  const wide = useMediaQuery('(min-width: 1024px)')
  const balance = useBalance().data?.balance

  const modelParam = useModelParam()
  const [modelId, setModelId] = useState(modelParam || DEFAULT_MODEL)
  const [mode, setMode] = useState<'chat' | 'image'>('chat')
  const [settings, setSettings] = useState<Settings>(DEFAULT_SETTINGS)
  const [infoOpen, setInfoOpen] = useState<boolean | null>(null)
  const [drawerOpen, setDrawerOpen] = useState(false)
  const [chat, setChat] = useState<ChatSummary | null>(null)
  const [messages, setMessages] = useState<UiMessage[]>([])
  const [chatLoading, setChatLoading] = useState(false)
  const [input, setInput] = useState('')
  const [attachments, setAttachments] = useState<Attachment[]>([])
  const [pending, setPending] = useState(false)
  const abortRef = useRef<AbortController | null>(null)
  const chatRef = useRef<ChatSummary | null>(null)
  chatRef.current = chat
  /** local message key → its id in the saved chat, once saved (loaded messages use their id as key) */
  const storedIds = useRef(new Map<string, string>())
  const storedIdOf = (key: string) => storedIds.current.get(key) ?? (key.startsWith(LOCAL) ? undefined : key)
  const fill = useFillViewport<HTMLDivElement>()

  // the drawer is the phone's panel: a wider window shows the column instead
  useEffect(() => {
    if (wide) setDrawerOpen(false)
  }, [wide])

  // ─── the model ──────────────────────────────────────────────────────────────
  const model: PlaygroundModel = models.find((m) => m.id === modelId) ?? bareModel(modelId)
  const chatModels = models.filter(isChatModel)
  const options = chatModels.some((m) => m.id === modelId) || modelsLoading ? chatModels : [...chatModels, model]
  const imageCapable = isImageCapable(model)
  const effectiveMode = imageCapable ? mode : 'chat'
  const kinds = attachKinds(model)
  // A speech model voices what is typed: the speech mode.
  const speechMode = isSpeechModel(model)
  const voice = useVoiceSettings(models, speechMode ? model : undefined)

  const resetChat = useCallback(() => {
    abortRef.current?.abort()
    chatRef.current = null
    setChat(null)
    setMessages([])
  }, [])

  const selectModel = useCallback(
    (id: string, next: PlaygroundModel | undefined) => {
      setModelId(id)
      setMode(next && drawsByDefault(next) ? 'image' : 'chat')
      // attachments the new model cannot read are dropped (one still uploading is kept: the server decides)
      const nextKinds = attachKinds(next ?? bareModel(id))
      setAttachments((list) => list.filter((a) => !a.upload || fits(a.upload.mimetype, nextKinds)))
      resetChat()
    },
    [resetChat],
  )

  // ?model= preselects (also when a catalogue link is followed while the page is open); an id the
  // catalogue does not have falls back to the default, with a word why.
  const catalogueReady = !modelsLoading && !failed && models.length > 0
  const appliedParam = useRef<string | null>(null)
  useEffect(() => {
    if (!modelParam || modelParam === appliedParam.current) return
    if (modelsLoading) return
    appliedParam.current = modelParam
    const found = models.find((m) => m.id === modelParam)
    if (found && isTranscriptionModel(found)) {
      // It listens, it does not chat: chosen for the microphone, the conversation keeps its model.
      voice.update({ transcriptionModel: found.id })
      toast.info(`${found.name || found.id} распознаёт речь: нажмите микрофон в поле ввода и говорите`)
      return
    }
    if (catalogueReady && !found) {
      toast.info(`Модель ${modelParam} не найдена в каталоге — выбрана ${DEFAULT_MODEL}`)
      selectModel(models.some((m) => m.id === DEFAULT_MODEL) ? DEFAULT_MODEL : models[0]!.id, models.find((m) => m.id === DEFAULT_MODEL) ?? models[0])
      return
    }
    selectModel(modelParam, found)
  }, [modelParam, models, modelsLoading, catalogueReady, selectModel, voice.update])

  // Without ?model=, a catalogue that lacks the default starts on its first model.
  useEffect(() => {
    if (!catalogueReady || modelParam || chat) return
    if (!models.some((m) => m.id === modelId)) setModelId(models.some((m) => m.id === DEFAULT_MODEL) ? DEFAULT_MODEL : models[0]!.id)
  }, [catalogueReady, modelParam, models, modelId, chat])

  // ─── chats ──────────────────────────────────────────────────────────────────
  const refreshHistory = useCallback(() => void mutate(CHATS_KEY), [mutate])

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
      if (error instanceof ApiError && error.status === 404) refreshHistory()
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
      refreshHistory()
    }
  }

  /** The first send of a new conversation creates its chat, titled 'Чат с {model name}'. */
  const chatPromise = useRef<Promise<string> | null>(null)
  function ensureChat(forModel: PlaygroundModel): Promise<string> {
    if (chatRef.current) return Promise.resolve(chatRef.current.id)
    if (!chatPromise.current) {
      chatPromise.current = createChat(`Чат с ${forModel.name || forModel.id}`, forModel.id)
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
  function persist(forModel: PlaygroundModel, message: Parameters<typeof saveMessage>[1], key?: string) {
    const run = saveQueue.current.then(async () => {
      try {
        const id = await ensureChat(forModel)
        const saved = await saveMessage(id, message)
        if (key) storedIds.current.set(key, saved.id)
      } catch (error) {
        toast.error(error instanceof ApiError && error.message ? `Сообщение не сохранено: ${error.message}` : 'Сообщение не сохранено в истории')
      } finally {
        refreshHistory()
      }
    })
    saveQueue.current = run
    return run
  }

  /** In order with the saves: the saved chat drops the message `key` and every later one. */
  function truncateSaved(key: string) {
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

  // ─── attachments ────────────────────────────────────────────────────────────
  function attach(files: File[]) {
    const room = MAX_ATTACHMENTS - attachments.length
    if (files.length > room) toast.error(`Можно прикрепить не более ${MAX_ATTACHMENTS} файлов к сообщению`)
    for (const file of files.slice(0, Math.max(0, room))) {
      const problem = checkFile(file, kinds)
      if (problem) {
        toast.error(problem)
        continue
      }
      const key = localKey()
      const preview = file.type.startsWith('image/') ? URL.createObjectURL(file) : undefined
      setAttachments((list) => [...list, { key, name: file.name, size: file.size, status: 'uploading', preview }])
      uploadFile(file, file.name)
        .then((upload) => {
          rememberLocalFile(upload, file)
          setAttachments((list) => list.map((a) => (a.key === key ? { ...a, status: 'ready', upload } : a)))
        })
        .catch((error: unknown) => {
          const message = error instanceof ApiError && error.message ? error.message : UPLOAD_ERROR
          toast.error(message)
          setAttachments((list) => list.map((a) => (a.key === key ? { ...a, status: 'failed', error: message } : a)))
        })
    }
  }

  function removeAttachment(key: string) {
    setAttachments((list) => {
      const gone = list.find((a) => a.key === key)
      if (gone?.preview) URL.revokeObjectURL(gone.preview)
      return list.filter((a) => a.key !== key)
    })
  }

  // ─── sending ────────────────────────────────────────────────────────────────
  const patchMessage = (key: string, patch: Partial<UiMessage>) => setMessages((list) => list.map((m) => (m.key === key ? { ...m, ...patch } : m)))
  const dropMessages = (...keys: string[]) => setMessages((list) => list.filter((m) => !keys.includes(m.key)))
  const refreshBalance = () => void mutate(BALANCE_KEY)

  /** A data-URL picture from a chat reply becomes an upload, so the saved chat holds a link. */
  async function storable(images: string[]): Promise<string[]> {
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

  /** `outcome.answered` is set once the exchange stays on screen (the question was saved or a reply came). */
  type Outcome = { answered: boolean }

  /** The question goes into the saved chat (after what it replaces is dropped from there). */
  function saveQuestion(forModel: PlaygroundModel, user: UiMessage, prelude: Prelude) {
    if (prelude.truncateFrom) void truncateSaved(prelude.truncateFrom)
    if (!prelude.userSaved) void persist(forModel, { role: 'user', content: user.content, files: user.files.map((f) => ({ id: f.id })) }, user.key)
  }

  async function streamReply(forModel: PlaygroundModel, user: UiMessage, before: UiMessage[], signal: AbortSignal, outcome: Outcome, prelude: Prelude) {
    const key = localKey()
    setMessages((list) => [...list, { key, role: 'assistant', content: '', images: [], files: [], metadata: {}, status: 'streaming' }])
    let saved = false
    const saveUser = () => {
      if (saved) return
      saved = true
      outcome.answered = true // the question is saved, so it stays on screen
      saveQuestion(forModel, user, prelude)
    }
    let partial = ''
    try {
      const body = await chatBody(forModel.id, [...before, user], settings)
      const result = await streamChat(body, signal, (content, images) => {
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
      const metadata: MessageMetadata = { model: forModel.id, costRub: result.usage?.cost_rub, totalTokens: result.usage?.total_tokens }
      outcome.answered = true
      patchMessage(key, { content: result.content, images: result.images, metadata, status: undefined })
      const images = await storable(result.images)
      void persist(
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
          patchMessage(key, { status: 'stopped', metadata: { model: forModel.id, stopped: true } })
          void persist(forModel, { role: 'assistant', content: partial, metadata: { model: forModel.id, stopped: true } }, key)
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
      refreshBalance()
    }
  }

  async function generateImages(forModel: PlaygroundModel, user: UiMessage, before: UiMessage[], signal: AbortSignal, outcome: Outcome, prelude: Prelude) {
    const key = localKey()
    const { size, quality, quantity } = settings
    setMessages((list) => [...list, { key, role: 'assistant', content: '', images: [], files: [], metadata: {}, status: 'generating' }])
    let response: ImagesResponse
    try {
      response = await api.post<ImagesResponse>('/v1/images', imagesBody(forModel.id, user.content, settings), { signal, fallback: IMAGE_ERROR })
    } catch (error) {
      dropMessages(key)
      refreshBalance()
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
    const metadata: MessageMetadata = { model: forModel.id, size, quality, quantity, costRub: response.usage?.cost_rub }
    outcome.answered = true
    patchMessage(key, { content: revised, images, metadata, status: undefined })
    refreshBalance()
    saveQuestion(forModel, { ...user, files: [] }, prelude)
    void persist(forModel, { role: 'assistant', content: imageMessageContent(revised, images, metadata) }, key)
  }

  /**
   * One exchange: `user` after `before` is what the screen shows while the reply comes. Nothing
   * answered (an error before the reply started): the screen goes back to `previous`. Answers
   * whether the exchange stayed.
   */
  async function exchange(user: UiMessage, before: UiMessage[], previous: UiMessage[], drawing: boolean, prelude: Prelude): Promise<boolean> {
    const forModel = model
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

  // ─── voice ──────────────────────────────────────────────────────────────────
  const dictation = useDictation({
    model: voice.transcription,
    onText: (text) => setInput((current) => (current.trim() ? `${current.trimEnd()} ${text}` : text)),
    onCharged: () => void mutate(BALANCE_KEY),
  })
  const speechBody = (text: string): SpeechBody => ({
    model: voice.speech?.id ?? model.id,
    input: speechText(text),
    voice: voice.settings.voice,
    response_format: voice.settings.format,
  })
  /** Object URLs of the audio made on this page, given back when it closes. */
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
  const refreshBalanceSoon = () => setTimeout(() => void mutate(BALANCE_KEY), 1500)

  /**
   * The speech mode: the text typed is voiced after `before` (the whole page, or the part kept by
   * «Повторить» and «Изменить»); the exchange stays on the page (audio is not kept in the history).
   */
  async function voiceText(text: string, before: UiMessage[] = messages) {
    const previous = messages
    const user = userMessage(localKey(), text, [])
    const key = localKey()
    const body = speechBody(text)
    setMessages([...before, user, { key, role: 'assistant', content: '', images: [], files: [], metadata: {}, status: 'speaking' }])
    if (before === messages) setInput('')
    const ac = new AbortController()
    abortRef.current = ac
    setPending(true)
    try {
      const audio = keep(await speak(body, ac.signal))
      patchMessage(key, { audio, status: undefined, metadata: { model: body.model, voice: body.voice, format: body.response_format } })
    } catch (error) {
      setMessages(previous)
      if (before === previous) setInput((current) => current || text)
      if (!isAbortError(error)) showRequestError(error, SPEECH_ERROR)
    } finally {
      if (abortRef.current === ac) abortRef.current = null
      setPending(false)
      refreshBalanceSoon()
    }
  }

  /** «Озвучить» under a reply: its text through the chosen speech model, played where it is. */
  async function speakMessage(key: string) {
    const message = messages.find((m) => m.key === key)
    if (!message?.content.trim()) return
    patchMessage(key, { voicing: true })
    try {
      const audio = keep(await speak(speechBody(message.content)))
      patchMessage(key, { voicing: false, audio })
    } catch (error) {
      patchMessage(key, { voicing: false })
      showRequestError(error, SPEECH_ERROR)
    } finally {
      refreshBalanceSoon()
    }
  }

  async function send() {
    if (pending) return
    const text = input.trim()
    if (speechMode) {
      if (text) await voiceText(text)
      return
    }
    const ready = attachments.filter((a) => a.status === 'ready' && a.upload)
    if (!text && ready.length === 0) return
    if (attachments.some((a) => a.status === 'uploading')) return
    const drawing = effectiveMode === 'image'
    if (drawing && !text) {
      toast.error('Опишите изображение, которое нужно сгенерировать')
      return
    }
    const user = userMessage(localKey(), input, drawing ? [] : ready.map((a) => a.upload!))
    const keptInput = input
    const keptAttachments = attachments
    setInput('')
    setAttachments(drawing ? attachments : [])
    if (!(await exchange(user, messages, messages, drawing, {}))) {
      // Nothing was answered: the question goes back to the field, to edit or try again.
      setInput((current) => current || keptInput)
      if (!drawing) setAttachments((current) => (current.length ? current : keptAttachments))
    }
  }

  /** The last reply once more: the conversation up to its question is sent again. */
  function regenerate(key: string) {
    if (pending) return
    const at = messages.findIndex((m) => m.key === key)
    const userAt = messages.slice(0, at).findLastIndex((m) => m.role === 'user')
    if (at < 0 || userAt < 0) return
    const user = messages[userAt]!
    if (speechMode) return void voiceText(user.content, messages.slice(0, userAt))
    void exchange(user, messages.slice(0, userAt), messages, effectiveMode === 'image' && !!user.content.trim(), {
      truncateFrom: messages[userAt + 1]?.key ?? key,
      userSaved: true,
    })
  }

  /** An earlier question with new text: it and everything after it give way to the new exchange. */
  function editAndResend(key: string, text: string) {
    if (pending) return
    const at = messages.findIndex((m) => m.key === key)
    if (at < 0) return
    const old = messages[at]!
    if (speechMode) return void (text.trim() && voiceText(text.trim(), messages.slice(0, at)))
    const drawing = effectiveMode === 'image' && !!text.trim()
    const user = userMessage(localKey(), text, drawing ? [] : old.files)
    void exchange(user, messages.slice(0, at), messages, drawing, { truncateFrom: key })
  }

  const stop = () => abortRef.current?.abort()

  // Leaving the page stops a reply in flight (and its billing).
  useEffect(() => () => abortRef.current?.abort(), [])

  // ─── estimates ──────────────────────────────────────────────────────────────
  // The body sending would send now (request-body.ts), priced by the server ~300 ms after the
  // last change. An image prompt not typed yet is estimated as the shortest one.
  const imageMode = effectiveMode === 'image'
  const uploads = imageMode ? [] : attachments.flatMap((a) => (a.status === 'ready' && a.upload ? [a.upload] : []))
  const estimateKey = JSON.stringify(
    speechMode
      ? ['speech', model.id, input.trim(), voice.settings.voice, voice.settings.format, balance]
      : imageMode
        ? ['image', model.id, input.trim(), settings.size, settings.quality, settings.quantity, balance]
        : [
            'chat',
            model.id,
            input.trim(),
            settings.system.trim(),
            settings.temperature,
            settings.maxTokens,
            uploads.map((u) => u.id),
            messages.map((m) => [m.key, m.status, m.content.length]),
            balance,
          ],
  )
  const estimate = useEstimate(pending || modelsLoading ? null : estimateKey, async (): Promise<EstimateBody> => {
    const draft = userMessage('draft', input, uploads)
    // An empty field is estimated as one character: the least a voicing can cost.
    if (speechMode) return { speech: speechBody(input.trim() || '.') }
    if (imageMode) return { images: imagesBody(model.id, draft.content || ' ', settings) }
    return { chat: await chatBody(model.id, [...messages, draft], settings) }
  })
  const estimateHint = speechMode
    ? 'Цена модели за символ × длина текста: больше этого озвучка стоить не может; списывается стоимость у провайдера'
    : imageMode
      ? 'Больше этого генерация стоить не может; списывается фактическая стоимость'
      : `Промпт и до ${settings.maxTokens} токенов ответа: больше этого запрос стоить не может, списывается фактическая стоимость`

  // ─── view ───────────────────────────────────────────────────────────────────
  const showInfo = infoOpen ?? wide
  const empty = (
    <div className="flex h-full flex-col items-center justify-center px-4 py-10 text-center">
      <div className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <ChatIcon size={22} />
      </div>
      <p className="text-[15px] font-medium text-slate-800">{speechMode ? 'Введите текст для озвучки' : effectiveMode === 'image' ? 'Опишите изображение' : 'Начните диалог'}</p>
      <p className="mt-1 max-w-sm text-sm text-slate-500">
        {speechMode
          ? `${model.name || model.id} озвучит текст голосом ${voice.settings.voice}: аудио можно прослушать и скачать. Озвучка не сохраняется в истории чатов.`
          : effectiveMode === 'image'
            ? `${model.name || model.id} нарисует картинку по описанию. Оценка стоимости — в настройках и под полем ввода.`
            : `Модель: ${model.name || model.id}. Чат сохранится в истории после первого сообщения.`}
      </p>
      {effectiveMode === 'chat' && !speechMode && (
        <div className="mt-5 flex w-full max-w-md flex-col gap-2">
          {SUGGESTIONS.map((s) => (
            <button
              key={s}
              type="button"
              onClick={() => setInput(s)}
              className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-left text-sm text-slate-600 transition-colors hover:border-indigo-200 hover:bg-indigo-50/50 hover:text-slate-900"
            >
              {s}
            </button>
          ))}
        </div>
      )}
    </div>
  )

  const panels = (
    <>
      <ModelInfoPanel model={model} open={showInfo} onToggle={() => setInfoOpen(!showInfo)} />
      <SettingsPanel
        models={options}
        modelId={modelId}
        failed={failed}
        loading={modelsLoading}
        imageCapable={imageCapable}
        mode={effectiveMode}
        settings={settings}
        disabled={pending}
        imageEstimate={estimate}
        imageEstimateHint={estimateHint}
        speechMode={speechMode}
        onModel={(id) =>
          selectModel(
            id,
            models.find((m) => m.id === id),
          )
        }
        onMode={setMode}
        onSettings={(patch) => setSettings((s) => ({ ...s, ...patch }))}
      />
      <VoicePanel
        settings={voice.settings}
        listeners={voice.listeners}
        speakers={voice.speakers}
        speechModel={voice.speech}
        speechMode={speechMode}
        disabled={pending}
        onChange={voice.update}
      />
    </>
  )

  return (
    <div ref={fill.ref} style={fill.height ? { height: fill.height } : undefined} className="flex min-h-0 flex-col gap-3 sm:gap-4" data-testid="playground">
      <div className="flex min-w-0 items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight text-slate-900 sm:text-2xl">Playground</h1>
          <p className="mt-0.5 hidden truncate text-sm text-slate-600 md:block">
            Попробуйте любую модель каталога: ответ приходит по мере генерации, цена видна до отправки и после ответа.
          </p>
        </div>
      </div>
      <HistoryBar
        chats={history.data}
        loading={history.isLoading}
        activeId={chat?.id ?? null}
        disabled={pending}
        onNew={resetChat}
        onOpen={(c) => void openChat(c)}
        onDelete={removeChat}
      />
      <div className="grid min-h-0 flex-1 grid-rows-[minmax(0,1fr)] gap-4 lg:grid-cols-[minmax(0,1fr)_320px] lg:gap-6">
        <Card className="flex min-h-0 min-w-0 flex-col overflow-hidden" data-testid="chat-card">
          <div className="flex min-w-0 shrink-0 items-center justify-between gap-3 border-b border-slate-200 px-4 py-2.5 sm:px-5 sm:py-3">
            <div className="min-w-0">
              <h2 className="truncate text-sm font-semibold text-slate-900" data-testid="chat-title">
                {chat?.title ?? 'Новый чат'}
              </h2>
              <p className="truncate font-mono text-xs text-slate-600">{model.id}</p>
            </div>
            <div className="flex shrink-0 items-center gap-2">
              {(effectiveMode === 'image' || speechMode) && (
                <span className="hidden rounded-full bg-indigo-50 px-2.5 py-1 text-xs font-medium text-indigo-700 ring-1 ring-indigo-100 ring-inset sm:inline">
                  {speechMode ? 'Озвучка текста' : 'Генерация изображений'}
                </span>
              )}
              {!wide && (
                <button
                  type="button"
                  onClick={() => setDrawerOpen(true)}
                  aria-label="Модель и настройки"
                  aria-haspopup="dialog"
                  aria-expanded={drawerOpen}
                  className="inline-flex h-9 items-center gap-1.5 rounded-lg border border-slate-200 bg-white px-2.5 text-sm font-medium text-slate-700 shadow-xs hover:bg-slate-50"
                >
                  <SlidersIcon size={16} className="text-slate-500" />
                  {/* a phone keeps the width for the chat's title */}
                  <span className="sm:hidden">Настройки</span>
                  <span className="hidden sm:inline">Модель и настройки</span>
                </button>
              )}
            </div>
          </div>
          <MessageList
            messages={messages}
            loading={chatLoading}
            empty={empty}
            actions={{
              onRegenerate: regenerate,
              onEdit: editAndResend,
              enabled: !pending,
              onSpeak: voice.speech ? (key) => void speakMessage(key) : undefined,
              speakHint: (text) => speechCostHint(voice.speech, speechText(text)),
            }}
          />
          <Composer
            value={input}
            onChange={setInput}
            onSend={() => void send()}
            onStop={stop}
            onAttach={attach}
            onRemoveAttachment={removeAttachment}
            attachments={effectiveMode === 'image' || speechMode ? [] : attachments}
            pending={pending}
            accept={effectiveMode === 'image' || speechMode ? '' : acceptFor(kinds)}
            acceptHint={acceptHint(kinds)}
            placeholder={
              speechMode
                ? wide
                  ? 'Текст для озвучки…'
                  : 'Текст…'
                : effectiveMode === 'image'
                  ? wide
                    ? 'Опишите изображение…'
                    : 'Описание…'
                  : wide
                    ? 'Напишите сообщение…'
                    : 'Сообщение…'
            }
            estimate={estimate}
            estimateHint={estimateHint}
            mic={voice.listeners.length > 0 ? <MicButton dictation={dictation} disabled={pending} /> : undefined}
            banner={<DictationBar dictation={dictation} />}
          />
        </Card>
        {wide && (
          <aside className="min-h-0 space-y-4 overflow-y-auto pb-1" aria-label="Модель и настройки">
            {panels}
          </aside>
        )}
      </div>
      {!wide && (
        <Drawer open={drawerOpen} onClose={() => setDrawerOpen(false)} title="Модель и настройки">
          {panels}
        </Drawer>
      )}
    </div>
  )
}
