// The conversation: the customer's messages with their attachments, the model's replies rendered
// as markdown (token by token while streaming), generated pictures with a download button, and
// what each reply cost. Under each message: copy; under the last reply: regenerate; under a
// question: edit and resend (the conversation continues from the edited question).
import { type KeyboardEvent, type ReactNode, type SyntheticEvent, useEffect, useRef, useState } from 'react'
import { formatInteger, formatPrice, pluralRu } from '../../../../src/content/format'
import { AlertCircleIcon, CheckIcon, CopyIcon, PencilIcon, SparklesIcon } from '../../../components/icons'
import { Spinner } from '../../../components/spinner'
import { cn } from '../../../lib/cn'
import { useCopy } from '../../../lib/use-copy'
import { toast } from '../../../stores/toasts'
import { dataUrlToBlob, formatSize, kindOf, sameOrigin } from '../attachments/attachments'
import { DownloadIcon, FileIcon, RefreshIcon, SpeakerIcon } from '../icons'
import type { UiMessage, UploadedFile } from '../types'
import { SpeechPlayer } from '../voice/voice-panel'
import { Markdown } from './markdown'

/** What the message list lets the customer do with a message (absent while a reply is on its way). */
export interface MessageActions {
  /** the last reply again: the conversation up to its question is sent once more */
  onRegenerate: (key: string) => void
  /** the question with new text: it and everything after it are replaced by the new exchange */
  onEdit: (key: string, text: string) => void
  /** false while a reply is on its way */
  enabled: boolean
  /** «Озвучить»: the reply as speech; absent when the catalogue has no speech model */
  onSpeak?: (key: string) => void
  /** what voicing a text would cost, for the button's tooltip */
  speakHint?: (text: string) => string
}

const actionButton =
  'relative inline-flex h-7 items-center gap-1 rounded-md px-1.5 text-xs font-medium text-slate-600 transition-colors hover:bg-slate-100 hover:text-slate-900 disabled:cursor-not-allowed disabled:opacity-50'

function CopyMessageButton({ text }: { text: string }) {
  const { copied, copy } = useCopy(text)
  return (
    <button type="button" className={actionButton} aria-label={copied ? 'Скопировано' : 'Копировать сообщение'} title="Копировать" onClick={copy}>
      {copied ? <CheckIcon size={14} /> : <CopyIcon size={14} />}
      <span className="sr-only sm:not-sr-only">{copied ? 'Скопировано' : 'Копировать'}</span>
    </button>
  )
}

function FileChip({ file, tone }: { file: UploadedFile; tone: 'light' | 'dark' }) {
  return (
    <a
      href={sameOrigin(file.url)}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="message-file"
      className={cn(
        'flex max-w-full min-w-0 items-center gap-2 rounded-lg px-2.5 py-1.5 text-xs',
        tone === 'dark' ? 'bg-white/15 text-white hover:bg-white/25' : 'border border-slate-200 bg-white text-slate-700 hover:bg-slate-50',
      )}
    >
      <FileIcon size={14} className="shrink-0 opacity-80" />
      <span className="truncate font-medium">{file.filename}</span>
      <span className="shrink-0 opacity-70">{formatSize(file.size)}</span>
    </a>
  )
}

function Attachments({ files }: { files: UploadedFile[] }) {
  if (files.length === 0) return null
  const pictures = files.filter((f) => kindOf(f.mimetype) === 'image')
  const others = files.filter((f) => kindOf(f.mimetype) !== 'image')
  return (
    <div className="mt-2 flex flex-col items-end gap-1.5">
      {pictures.length > 0 && (
        <div className="flex flex-wrap justify-end gap-1.5">
          {pictures.map((f) => (
            <a key={f.id} href={sameOrigin(f.url)} target="_blank" rel="noopener noreferrer" title={f.filename} data-testid="message-image-attachment">
              <img src={sameOrigin(f.url)} alt={f.filename} className="h-20 w-20 rounded-lg border border-slate-200 bg-white object-cover shadow-xs" loading="lazy" />
            </a>
          ))}
        </div>
      )}
      {others.map((f) => (
        <FileChip key={f.id} file={f} tone="light" />
      ))}
    </div>
  )
}

/** Downloads through a blob, so the file keeps its name whatever origin the link points at. */
async function download(url: string, name: string) {
  try {
    let blob: Blob
    if (url.startsWith('data:')) blob = await dataUrlToBlob(url)
    else {
      const response = await fetch(sameOrigin(url))
      if (!response.ok) throw new Error(String(response.status))
      blob = await response.blob()
    }
    const href = URL.createObjectURL(blob)
    const a = document.createElement('a')
    a.href = href
    a.download = name
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(href), 10_000)
  } catch {
    toast.error('Не удалось скачать изображение')
  }
}

const extensionOf = (url: string) => url.match(/^data:image\/(png|jpeg|webp|gif)/)?.[1] ?? url.split('?')[0]!.match(/\.(png|jpe?g|webp|gif)$/i)?.[1] ?? 'png'

function GeneratedImages({ images, prompt }: { images: string[]; prompt: string }) {
  return (
    <div className={cn('my-1 grid gap-3', images.length > 1 && 'sm:grid-cols-2')}>
      {images.map((url, i) => (
        <figure key={url} data-testid="generated-image" className="max-w-sm overflow-hidden rounded-xl border border-slate-200 bg-slate-50">
          <img
            src={url.startsWith('data:') ? url : sameOrigin(url)}
            alt={prompt ? `Изображение: ${prompt}` : `Изображение ${i + 1}`}
            className="block max-h-80 w-full object-contain"
          />
          <figcaption className="flex items-center justify-between gap-2 border-t border-slate-200 bg-white px-3 py-2">
            <span className="text-xs text-slate-500">Изображение {i + 1}</span>
            <button
              type="button"
              onClick={() => void download(url, `image-${i + 1}.${extensionOf(url).replace('jpeg', 'jpg')}`)}
              className="inline-flex h-8 items-center gap-1.5 rounded-md border border-slate-200 px-2.5 text-xs font-medium text-slate-700 hover:bg-slate-50"
            >
              <DownloadIcon size={14} />
              Скачать
            </button>
          </figcaption>
        </figure>
      ))}
    </div>
  )
}

/** '0,8 с', '12 с': how long a reply took. */
export const secondsLabel = (ms: number) => `${(ms / 1000).toLocaleString('ru-RU', { maximumFractionDigits: ms < 10_000 ? 1 : 0 })} с`

function ReplyFooter({ message, modelName }: { message: UiMessage; modelName?: (id: string) => string }) {
  const { costRub, totalTokens, stopped, size, quantity, voice, format, model, elapsedMs } = message.metadata
  const parts: string[] = []
  if (size) parts.push(`${size.replace('x', '×')}${quantity && quantity > 1 ? ` × ${quantity}` : ''}`)
  if (voice) parts.push(`Голос ${voice}${format ? `, ${format.toUpperCase()}` : ''}`)
  if (typeof totalTokens === 'number' && totalTokens > 0) parts.push(`${formatInteger(totalTokens)} ${pluralRu(totalTokens, ['токен', 'токена', 'токенов'])}`)
  const stoppedNow = message.status === 'stopped' || stopped
  const done = !message.status || message.status === 'stopped' || message.status === 'failed'
  if (!model && !costRub && parts.length === 0 && !stoppedNow) return null
  return (
    <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 pl-1 text-xs text-slate-500">
      {/* each answer says which model gave it: a chat may switch models on the way */}
      {model && modelName && (
        <span data-testid="reply-model" data-model-id={model} className="max-w-full truncate rounded-full bg-slate-100 px-2 py-0.5 font-medium text-slate-700" title={model}>
          {modelName(model)}
        </span>
      )}
      {costRub !== undefined && (
        <span data-testid="reply-cost">
          Стоимость: <span className="font-medium text-slate-700 tabular-nums">{formatPrice(Number(costRub))}</span>
        </span>
      )}
      {parts.map((p) => (
        <span key={p}>{p}</span>
      ))}
      {done && typeof elapsedMs === 'number' && (
        <span
          data-testid="reply-time"
          className="tabular-nums"
          title={typeof message.metadata.firstTokenMs === 'number' ? `Первый токен через ${secondsLabel(message.metadata.firstTokenMs)}` : undefined}
        >
          {secondsLabel(elapsedMs)}
        </span>
      )}
      {stoppedNow && (
        <span className="rounded-full bg-amber-50 px-2 py-0.5 font-medium text-amber-800 ring-1 ring-amber-200 ring-inset" data-testid="reply-stopped">
          Остановлено: оплачена только сгенерированная часть
        </span>
      )}
    </div>
  )
}

function AssistantMessage({
  message,
  prompt,
  actions,
  last,
  modelName,
  compact,
}: {
  message: UiMessage
  prompt: string
  actions: MessageActions
  last: boolean
  modelName?: (id: string) => string
  compact?: boolean
}) {
  const waiting = (message.status === 'streaming' && !message.content && message.images.length === 0) || message.status === 'generating' || message.status === 'speaking'
  return (
    <div className="flex gap-3" data-testid="assistant-message" data-status={message.status ?? 'done'} data-last={last}>
      {!compact && (
        <span aria-hidden="true" className="mt-0.5 flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-indigo-50 text-indigo-600 ring-1 ring-indigo-100">
          <SparklesIcon size={16} />
        </span>
      )}
      <div className="min-w-0 flex-1">
        <div className="min-w-0 rounded-2xl rounded-tl-md border border-slate-200 bg-white px-4 py-2.5 shadow-xs">
          {waiting ? (
            <p className="flex items-center gap-2 py-1 text-sm text-slate-500" role="status">
              <Spinner size={14} />
              {message.status === 'generating' ? 'Генерация изображения…' : message.status === 'speaking' ? 'Озвучиваю…' : 'Модель думает…'}
            </p>
          ) : (
            <>
              {message.content && (
                <div className="relative">
                  <Markdown source={message.content} />
                  {message.status === 'streaming' && <span aria-hidden="true" className="ml-0.5 inline-block h-4 w-1.5 translate-y-0.5 animate-pulse rounded-sm bg-indigo-400" />}
                </div>
              )}
              {message.images.length > 0 && <GeneratedImages images={message.images} prompt={prompt} />}
              {message.audio && <SpeechPlayer audio={message.audio} autoPlay />}
            </>
          )}
          {message.note && (
            <p className="mt-2 flex items-start gap-1.5 text-xs text-red-600">
              <AlertCircleIcon size={14} className="mt-px shrink-0" />
              {message.note}
            </p>
          )}
        </div>
        <ReplyFooter message={message} modelName={modelName} />
        {!message.status || message.status === 'stopped' || message.status === 'failed' ? (
          <div className="mt-0.5 flex gap-1" data-testid="message-actions">
            {message.content.trim() && <CopyMessageButton text={message.content} />}
            {actions.onSpeak && message.content.trim() && !message.audio && (
              <button
                type="button"
                className={actionButton}
                disabled={message.voicing}
                onClick={() => actions.onSpeak!(message.key)}
                title={`Озвучить ответ${actions.speakHint ? ` (${actions.speakHint(message.content)})` : ''}`}
                data-testid="speak-button"
              >
                {message.voicing ? <Spinner size={14} /> : <SpeakerIcon size={14} />}
                {message.voicing ? 'Озвучиваю…' : 'Озвучить'}
              </button>
            )}
            {last && (
              <button type="button" className={actionButton} disabled={!actions.enabled} onClick={() => actions.onRegenerate(message.key)} title="Ответить заново">
                <RefreshIcon size={14} />
                Повторить
              </button>
            )}
          </div>
        ) : null}
      </div>
    </div>
  )
}

function UserMessage({ message, actions }: { message: UiMessage; actions: MessageActions }) {
  const [draft, setDraft] = useState<string | null>(null)
  const field = useRef<HTMLTextAreaElement>(null)
  const editing = draft !== null
  // only when editing starts, not on each keystroke in the draft
  useEffect(() => {
    if (editing) field.current?.focus()
  }, [editing])
  const resend = () => {
    if (draft === null || (!draft.trim() && message.files.length === 0)) return
    const text = draft
    setDraft(null)
    actions.onEdit(message.key, text)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault()
      setDraft(null)
    } else if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      resend()
    }
  }
  if (draft !== null) {
    return (
      <div className="flex justify-end" data-testid="user-message" data-editing="true">
        <div className="w-full max-w-[85%] min-w-0 rounded-2xl border border-indigo-200 bg-white p-2 shadow-xs sm:max-w-[75%]">
          <textarea
            ref={field}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onKeyDown}
            aria-label="Изменить сообщение"
            rows={Math.min(8, Math.max(2, draft.split('\n').length))}
            className="block w-full resize-y rounded-lg px-2 py-1.5 text-[15px] leading-6 text-slate-900 focus:ring-2 focus:ring-indigo-500/30 focus:outline-none"
          />
          <p className="px-2 text-xs text-slate-600">Ответы после этого сообщения будут заменены новым ответом.</p>
          <div className="mt-2 flex justify-end gap-2">
            <button type="button" onClick={() => setDraft(null)} className="h-8 rounded-lg border border-slate-200 px-3 text-sm font-medium text-slate-700 hover:bg-slate-50">
              Отмена
            </button>
            <button
              type="button"
              onClick={resend}
              disabled={!actions.enabled || (!draft.trim() && message.files.length === 0)}
              className="h-8 rounded-lg bg-indigo-600 px-3 text-sm font-medium text-white hover:bg-indigo-500 disabled:cursor-not-allowed disabled:bg-slate-300"
            >
              Отправить
            </button>
          </div>
        </div>
      </div>
    )
  }
  return (
    <div className="group flex justify-end" data-testid="user-message">
      <div className="flex max-w-[85%] min-w-0 flex-col items-end sm:max-w-[75%]">
        {(message.content || message.images.length > 0) && (
          <div data-testid="user-text" className="rounded-2xl rounded-tr-md bg-indigo-600 px-4 py-2.5 text-[15px] leading-6 break-words whitespace-pre-wrap text-white shadow-sm">
            {message.content}
          </div>
        )}
        <Attachments files={message.files} />
        <div className="mt-0.5 flex gap-1" data-testid="message-actions">
          {message.content.trim() && <CopyMessageButton text={message.content} />}
          <button type="button" className={actionButton} disabled={!actions.enabled} onClick={() => setDraft(message.content)} title="Изменить и отправить заново">
            <PencilIcon size={14} />
            Изменить
          </button>
        </div>
      </div>
    </div>
  )
}

/** Follows the bottom while the reply grows, unless the reader scrolled up to read; a new message always brings it down. */
function useStickToBottom(count: number, growth: unknown) {
  const ref = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  // biome-ignore lint/correctness/useExhaustiveDependencies: count is the trigger: a new message pins the list to the bottom again
  useEffect(() => {
    pinned.current = true
  }, [count])
  // biome-ignore lint/correctness/useExhaustiveDependencies: count and growth are the triggers: a new message or a longer reply scrolls down
  useEffect(() => {
    const el = ref.current
    if (el && pinned.current) el.scrollTop = el.scrollHeight
  }, [count, growth])
  const onScroll = () => {
    const el = ref.current
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80
  }
  // Pictures get their height only when they load: a new generated picture is brought into view
  // whole (with its download bar), once; other pictures keep the list at the bottom if it was there.
  const revealed = useRef(new Set<string>())
  const onLoad = (event: SyntheticEvent) => {
    const el = ref.current
    if (!el) return
    const img = event.target
    const figure = img instanceof HTMLImageElement ? img.closest<HTMLElement>('[data-testid="generated-image"]') : null
    if (figure && img instanceof HTMLImageElement && !revealed.current.has(img.src) && figure.closest('[data-last="true"]')) {
      revealed.current.add(img.src)
      const margin = 12
      const box = el.getBoundingClientRect()
      // a picture taller than the conversation's visible height (a phone) is shown smaller, to fit whole
      const room = box.height - 2 * margin - (figure.getBoundingClientRect().height - img.getBoundingClientRect().height)
      if (img.getBoundingClientRect().height > room) img.style.maxHeight = `${Math.max(120, Math.floor(room))}px`
      const fig = figure.getBoundingClientRect()
      if (fig.top < box.top + margin) el.scrollTop -= box.top + margin - fig.top
      else if (fig.bottom > box.bottom - margin) el.scrollTop += Math.min(fig.bottom - box.bottom + margin, fig.top - box.top - margin)
      pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80
      return
    }
    if (pinned.current) el.scrollTop = el.scrollHeight
  }
  return { ref, onScroll, onLoad }
}

export function MessageList({
  messages,
  loading,
  empty,
  actions,
  modelName,
  label,
  compact,
}: {
  messages: UiMessage[]
  loading: boolean
  empty: ReactNode
  actions: MessageActions
  /** a model id as the customer knows it, for the label under each answer */
  modelName?: (id: string) => string
  /** the list's accessible name (a comparison has one per model) */
  label?: string
  /** a narrow column (a comparison): no avatars, less padding */
  compact?: boolean
}) {
  const last = messages.at(-1)
  const { ref, onScroll, onLoad } = useStickToBottom(messages.length, `${last?.content.length}:${last?.images.length}:${last?.status}`)
  return (
    <div
      ref={ref}
      onScroll={onScroll}
      onLoadCapture={onLoad}
      className={cn('min-h-0 flex-1 overflow-y-auto', compact ? 'px-3 py-3' : 'px-3 py-4 sm:px-5')}
      data-testid="message-list"
      aria-live="polite"
      aria-busy={loading}
      role="log"
      aria-label={label ?? 'Сообщения чата'}
    >
      {loading ? (
        <div className="flex h-full items-center justify-center text-slate-400">
          <Spinner size={24} label="Загрузка чата…" />
        </div>
      ) : messages.length === 0 ? (
        empty
      ) : (
        <div className="space-y-5">
          {messages.map((m, i) =>
            m.role === 'user' ? (
              <UserMessage key={m.key} message={m} actions={actions} />
            ) : (
              <AssistantMessage
                key={m.key}
                message={m}
                prompt={messages[i - 1]?.content ?? ''}
                actions={actions}
                last={i === messages.length - 1}
                modelName={modelName}
                compact={compact}
              />
            ),
          )}
        </div>
      )}
    </div>
  )
}
