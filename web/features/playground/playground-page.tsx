// /app/playground: chat with any catalogue model (streamed replies, attachments, saved history)
// and picture generation for image-capable models. Spec §2, §4, §8, §9.
import { useCallback, useEffect, useRef, useState } from 'react'
import { useSWRConfig } from 'swr'
import { useSearch } from 'wouter'
import { Card } from '../../components/card'
import { ChatIcon } from '../../components/icons'
import { PageHeading } from '../../components/page-heading'
import { ApiError, api } from '../../lib/api'
import { BALANCE_KEY, useBalance } from '../../lib/queries'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { toast } from '../../stores/toasts'
import { checkFile, dataUrlToBlob, MAX_ATTACHMENTS, rememberLocalFile } from './attachments'
import {
  CHATS_KEY,
  createChat,
  deleteChat,
  imageMessageContent,
  loadChat,
  saveMessage,
  UPLOAD_ERROR,
  uploadFile,
  useChatHistory,
  type ChatSummary,
  type MessageMetadata,
  type StoredMessage,
} from './chats-api'
import { Composer, type Attachment } from './composer'
import { useEstimate, type EstimateBody } from './estimate'
import { HistoryBar } from './history-bar'
import { MessageList, type UiMessage } from './messages'
import {
  bareModel,
  DEFAULT_MODEL,
  drawsByDefault,
  isImageCapable,
  usePlaygroundModels,
  type PlaygroundModel,
} from './models'
import { chatBody, imagesBody, userMessage } from './request-body'
import { ModelInfoPanel, SettingsPanel, type Settings } from './side-panels'
import { isAbortError, streamChat } from './stream'

export const EMPTY_REPLY = 'Пустой ответ модели'
export const NO_IMAGE = 'Модель не вернула изображение.'
export const IMAGE_ERROR = 'Не удалось сгенерировать изображение'
export const GENERIC_ERROR = 'Ошибка'
const INSUFFICIENT_TOAST_MS = 10_000
const DEFAULT_SETTINGS: Settings = { temperature: 0.7, maxTokens: 500, size: '1024x1024', quality: 'standard', quantity: 1 }
const SUGGESTIONS = [
  'Объясни, что такое квантовая запутанность, простыми словами',
  'Напиши функцию на Python, которая проверяет, является ли строка палиндромом',
  'Придумай пять названий для уютной кофейни у моря',
]

let keySeq = 0
const localKey = () => `local-${Date.now().toString(36)}-${++keySeq}`

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
  const [chat, setChat] = useState<ChatSummary | null>(null)
  const [messages, setMessages] = useState<UiMessage[]>([])
  const [chatLoading, setChatLoading] = useState(false)
  const [input, setInput] = useState('')
  const [attachments, setAttachments] = useState<Attachment[]>([])
  const [pending, setPending] = useState(false)
  const abortRef = useRef<AbortController | null>(null)
  const chatRef = useRef<ChatSummary | null>(null)
  chatRef.current = chat

  // ─── the model ──────────────────────────────────────────────────────────────
  const model: PlaygroundModel = models.find((m) => m.id === modelId) ?? bareModel(modelId)
  const options = models.some((m) => m.id === modelId) || modelsLoading ? models : [...models, model]
  const imageCapable = isImageCapable(model)
  const effectiveMode = imageCapable ? mode : 'chat'

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
    if (catalogueReady && !found) {
      toast.info(`Модель ${modelParam} не найдена в каталоге — выбрана ${DEFAULT_MODEL}`)
      selectModel(models.some((m) => m.id === DEFAULT_MODEL) ? DEFAULT_MODEL : models[0]!.id, models.find((m) => m.id === DEFAULT_MODEL) ?? models[0])
      return
    }
    selectModel(modelParam, found)
  }, [modelParam, models, modelsLoading, catalogueReady, selectModel])

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
  function persist(forModel: PlaygroundModel, message: Parameters<typeof saveMessage>[1]) {
    const run = saveQueue.current.then(async () => {
      try {
        const id = await ensureChat(forModel)
        await saveMessage(id, message)
      } catch (error) {
        toast.error(error instanceof ApiError && error.message ? `Сообщение не сохранено: ${error.message}` : 'Сообщение не сохранено в истории')
      } finally {
        refreshHistory()
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
      const problem = checkFile(file)
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

  async function streamReply(forModel: PlaygroundModel, user: UiMessage, before: UiMessage[], signal: AbortSignal, outcome: Outcome) {
    const key = localKey()
    setMessages((list) => [...list, { key, role: 'assistant', content: '', images: [], files: [], metadata: {}, status: 'streaming' }])
    let saved = false
    const saveUser = () => {
      if (saved) return
      saved = true
      outcome.answered = true // the question is saved, so it stays on screen
      void persist(forModel, { role: 'user', content: user.content, files: user.files.map((f) => ({ id: f.id })) })
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
      )
    } catch (error) {
      if (isAbortError(error)) {
        if (partial.trim()) {
          outcome.answered = true
          patchMessage(key, { status: 'stopped', metadata: { model: forModel.id, stopped: true } })
          void persist(forModel, { role: 'assistant', content: partial, metadata: { model: forModel.id, stopped: true } })
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

  async function generateImages(forModel: PlaygroundModel, user: UiMessage, before: UiMessage[], signal: AbortSignal, outcome: Outcome) {
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
      await streamReply(forModel, user, before, signal, outcome)
      return
    }
    const revised = response.data?.find((d) => d.revised_prompt)?.revised_prompt ?? ''
    const metadata: MessageMetadata = { model: forModel.id, size, quality, quantity, costRub: response.usage?.cost_rub }
    outcome.answered = true
    patchMessage(key, { content: revised, images, metadata, status: undefined })
    refreshBalance()
    void persist(forModel, { role: 'user', content: user.content })
    void persist(forModel, { role: 'assistant', content: imageMessageContent(revised, images, metadata) })
  }

  async function send() {
    if (pending) return
    const text = input.trim()
    const ready = attachments.filter((a) => a.status === 'ready' && a.upload)
    if (!text && ready.length === 0) return
    if (attachments.some((a) => a.status === 'uploading')) return
    const drawing = effectiveMode === 'image'
    if (drawing && !text) {
      toast.error('Опишите изображение, которое нужно сгенерировать')
      return
    }
    const forModel = model
    const user = userMessage(localKey(), input, drawing ? [] : ready.map((a) => a.upload!))
    const before = messages
    const keptInput = input
    const keptAttachments = attachments
    setMessages((list) => [...list, user])
    setInput('')
    setAttachments(drawing ? attachments : [])
    const ac = new AbortController()
    abortRef.current = ac
    setPending(true)
    const outcome = { answered: false }
    try {
      if (drawing) await generateImages(forModel, user, before, ac.signal, outcome)
      else await streamReply(forModel, user, before, ac.signal, outcome)
    } catch (error) {
      if (!isAbortError(error)) showRequestError(error, drawing ? IMAGE_ERROR : GENERIC_ERROR)
    } finally {
      if (!outcome.answered) {
        // Nothing was answered: the question goes back to the field, to edit or try again.
        setMessages((list) => list.filter((m) => m.key !== user.key))
        setInput((current) => current || keptInput)
        if (!drawing) setAttachments((current) => (current.length ? current : keptAttachments))
      }
      if (abortRef.current === ac) abortRef.current = null
      setPending(false)
    }
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
    imageMode
      ? ['image', model.id, input.trim(), settings.size, settings.quality, settings.quantity, balance]
      : ['chat', model.id, input.trim(), settings.temperature, settings.maxTokens, uploads.map((u) => u.id), messages.map((m) => [m.key, m.status, m.content.length]), balance],
  )
  const estimate = useEstimate(pending || modelsLoading ? null : estimateKey, async (): Promise<EstimateBody> => {
    const draft = userMessage('draft', input, uploads)
    if (imageMode) return { images: imagesBody(model.id, draft.content || ' ', settings) }
    return { chat: await chatBody(model.id, [...messages, draft], settings) }
  })
  const estimateHint = imageMode
    ? 'Больше этого генерация стоить не может; списывается фактическая стоимость'
    : `Промпт и до ${settings.maxTokens} токенов ответа: больше этого запрос стоить не может, списывается фактическая стоимость`

  // ─── view ───────────────────────────────────────────────────────────────────
  const showInfo = infoOpen ?? wide
  const empty = (
    <div className="flex h-full flex-col items-center justify-center px-4 py-10 text-center">
      <div className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <ChatIcon size={22} />
      </div>
      <p className="text-[15px] font-medium text-slate-800">{effectiveMode === 'image' ? 'Опишите изображение' : 'Начните диалог'}</p>
      <p className="mt-1 max-w-sm text-sm text-slate-500">
        {effectiveMode === 'image'
          ? `${model.name || model.id} нарисует картинку по описанию. Оценка стоимости — в настройках и под полем ввода.`
          : `Модель: ${model.name || model.id}. Чат сохранится в истории после первого сообщения.`}
      </p>
      {effectiveMode === 'chat' && (
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

  return (
    <>
      <PageHeading title="Playground" description="Попробуйте любую модель каталога: ответ приходит по мере генерации, цена видна до отправки и после ответа." />
      <HistoryBar
        chats={history.data}
        loading={history.isLoading}
        activeId={chat?.id ?? null}
        disabled={pending}
        onNew={resetChat}
        onOpen={(c) => void openChat(c)}
        onDelete={removeChat}
      />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_320px] lg:gap-6">
        <Card className="flex h-[min(760px,calc(100dvh-190px))] min-h-[440px] min-w-0 flex-col overflow-hidden lg:h-[min(760px,calc(100dvh-230px))]">
          <div className="flex min-w-0 items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
            <div className="min-w-0">
              <h2 className="truncate text-sm font-semibold text-slate-900" data-testid="chat-title">
                {chat?.title ?? 'Новый чат'}
              </h2>
              <p className="truncate font-mono text-xs text-slate-500">{model.id}</p>
            </div>
            {effectiveMode === 'image' && (
              <span className="shrink-0 rounded-full bg-indigo-50 px-2.5 py-1 text-xs font-medium text-indigo-700 ring-1 ring-indigo-100 ring-inset">Генерация изображений</span>
            )}
          </div>
          <MessageList messages={messages} loading={chatLoading} empty={empty} />
          <Composer
            value={input}
            onChange={setInput}
            onSend={() => void send()}
            onStop={stop}
            onAttach={attach}
            onRemoveAttachment={removeAttachment}
            attachments={effectiveMode === 'image' ? [] : attachments}
            pending={pending}
            canAttach={effectiveMode === 'chat'}
            placeholder={effectiveMode === 'image' ? (wide ? 'Опишите изображение…' : 'Описание…') : wide ? 'Напишите сообщение…' : 'Сообщение…'}
            estimate={estimate}
            estimateHint={estimateHint}
          />
        </Card>
        <aside className="order-first space-y-4 lg:order-none" aria-label="Модель и настройки">
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
            onModel={(id) => selectModel(id, models.find((m) => m.id === id))}
            onMode={setMode}
            onSettings={(patch) => setSettings((s) => ({ ...s, ...patch }))}
            compact={!wide}
          />
        </aside>
      </div>
    </>
  )
}
